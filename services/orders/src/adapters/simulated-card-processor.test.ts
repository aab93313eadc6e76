import type { ChargeRequest, PaymentMethodInput } from '../domain/payment-provider';
import { SimulatedCardProcessor } from './simulated-card-processor';

const NOW = new Date('2026-11-22T00:00:00Z');
const card = (number: string, extra: Partial<Extract<PaymentMethodInput, { kind: 'card' }>> = {}): PaymentMethodInput => ({
  kind: 'card', number, expMonth: 12, expYear: 2030, cvc: '123', name: 'Ann Lee', ...extra,
});
const charge = (method: PaymentMethodInput, key = `k-${Math.random()}`): ChargeRequest => ({
  idempotencyKey: key, amountCents: 4200n, currency: 'AUD', method, description: 'test', metadata: {},
});

describe('SimulatedCardProcessor', () => {
  const processor = () => new SimulatedCardProcessor(() => NOW);

  it('accepts a Luhn-valid card with a future expiry, spaces and dashes allowed', async () => {
    const outcome = await processor().charge(charge(card('4242 4242-4242 4242')));
    expect(outcome).toMatchObject({ status: 'succeeded' });
    expect(outcome.status === 'succeeded' && outcome.reference).toMatch(/^sim_ch_[0-9a-f]{32}$/);
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4242424242424241', 'incorrect_number'],
    ['12345', 'incorrect_number'],
  ])('declines %s as %s', async (number, code) => {
    expect(await processor().charge(charge(card(number)))).toMatchObject({ status: 'declined', code });
  });

  it('declines a past expiry, an impossible month and a bad security code', async () => {
    expect(await processor().charge(charge(card('4242424242424242', { expMonth: 10, expYear: 2026 })))).toMatchObject({ code: 'expired_card' });
    expect(await processor().charge(charge(card('4242424242424242', { expMonth: 13 })))).toMatchObject({ code: 'expired_card' });
    expect(await processor().charge(charge(card('4242424242424242', { cvc: '1a' })))).toMatchObject({ code: 'incorrect_cvc' });
    // A card valid through November 2026 still works on the 22nd.
    expect(await processor().charge(charge(card('4242424242424242', { expMonth: 11, expYear: 2026 })))).toMatchObject({ status: 'succeeded' });
  });

  it('charges once per idempotency key and remembers the outcome for lookups', async () => {
    const simulated = processor();
    const first = await simulated.charge(charge(card('4242424242424242'), 'attempt-1'));
    const again = await simulated.charge(charge(card('4000000000000002'), 'attempt-1'));
    expect(again).toEqual(first);
    expect(await simulated.lookup('attempt-1')).toEqual(first);
    expect(await simulated.lookup('attempt-2')).toEqual({ status: 'not_found' });
  });

  it('refuses processor tokens it cannot know', async () => {
    expect(await processor().charge(charge({ kind: 'token', id: 'pm_card_visa' }))).toMatchObject({ status: 'declined', code: 'invalid_payment_method' });
  });
});
