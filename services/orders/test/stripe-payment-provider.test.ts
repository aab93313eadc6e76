/**
 * The Stripe adapter against a local stand-in for Stripe's API on loopback:
 * the requests it sends (form fields, idempotency key, auth), how it reads
 * answers and declines, and that the SDK retries a failed call with the
 * same idempotency key.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StripePaymentProvider } from '../src/adapters/stripe-payment-provider';

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  form: URLSearchParams;
}

const intent = (id: string, status: string, extra: object = {}) => ({ id, object: 'payment_intent', status, ...extra });

describe('StripePaymentProvider', () => {
  let server: http.Server;
  let seen: Seen[];
  let failNext = 0;
  let provider: StripePaymentProvider;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const url = new URL(req.url!, 'http://stub');
        const form = new URLSearchParams(req.method === 'GET' ? url.search : body);
        seen.push({ method: req.method!, path: url.pathname, headers: req.headers, form });
        const send = (status: number, payload: object) => {
          res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_stub' });
          res.end(JSON.stringify(payload));
        };
        if (failNext > 0) {
          failNext -= 1;
          return send(500, { error: { type: 'api_error', message: 'stub outage' } });
        }
        if (req.method === 'POST' && url.pathname === '/v1/payment_intents') {
          if (form.get('payment_method') === 'pm_card_chargeDeclined') {
            return send(402, { error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } });
          }
          if (form.get('payment_method') === 'pm_card_authenticationRequired') {
            return send(200, intent('pi_3ds', 'requires_action'));
          }
          return send(200, intent('pi_ok', 'succeeded'));
        }
        if (req.method === 'GET' && url.pathname === '/v1/payment_intents/search') {
          const found = form.get('query')!.includes("'attempt-known'") ? [intent('pi_found', 'succeeded')] : [];
          return send(200, { object: 'search_result', data: found, has_more: false, url: '/v1/payment_intents/search' });
        }
        if (req.method === 'POST' && url.pathname === '/v1/refunds') {
          if (form.get('payment_intent') === 'pi_refunded') {
            return send(400, { error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: 'Charge pi_refunded has already been refunded.' } });
          }
          return send(200, { id: 're_1', object: 'refund', status: 'succeeded' });
        }
        send(404, { error: { type: 'invalid_request_error', message: 'unknown stub path' } });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    provider = new StripePaymentProvider({ secretKey: 'sk_test_stub', apiBase: `http://127.0.0.1:${port}`, maxNetworkRetries: 2 });
  });
  beforeEach(() => {
    seen = [];
    failNext = 0;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const charge = (paymentMethod: string, key = 'attempt-1') =>
    provider.charge({ idempotencyKey: key, amountCents: 8400n, currency: 'AUD', method: { kind: 'token', id: paymentMethod }, description: 'Checkout s1', metadata: { checkout_session_id: 's1' } });

  it('confirms a PaymentIntent with the amount in cents, the idempotency key and the attempt id', async () => {
    expect(await charge('pm_card_visa')).toEqual({ status: 'succeeded', reference: 'pi_ok' });
    const [request] = seen;
    expect(request!.headers.authorization).toBe('Bearer sk_test_stub');
    expect(request!.headers['idempotency-key']).toBe('attempt-1');
    expect(Object.fromEntries(request!.form)).toMatchObject({
      amount: '8400', currency: 'aud', payment_method: 'pm_card_visa', confirm: 'true',
      'metadata[attempt_id]': 'attempt-1', 'metadata[checkout_session_id]': 's1',
      'automatic_payment_methods[allow_redirects]': 'never',
    });
  });

  it('turns a card error into a decline with its decline code', async () => {
    expect(await charge('pm_card_chargeDeclined')).toEqual({ status: 'declined', code: 'generic_decline', message: 'Your card was declined.' });
  });

  it('declines an intent that needs a step the page cannot take', async () => {
    expect(await charge('pm_card_authenticationRequired')).toMatchObject({ status: 'declined', code: 'requires_action' });
  });

  it('retries a failed call with the same idempotency key', async () => {
    failNext = 1;
    expect(await charge('pm_card_visa', 'attempt-retry')).toEqual({ status: 'succeeded', reference: 'pi_ok' });
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual(['attempt-retry', 'attempt-retry']);
  });

  it('throws when the outcome stays unknown', async () => {
    failNext = 3;
    await expect(charge('pm_card_visa', 'attempt-down')).rejects.toThrow();
  });

  it('never sends raw card numbers', async () => {
    const outcome = await provider.charge({
      idempotencyKey: 'a', amountCents: 100n, currency: 'AUD', method: { kind: 'card', number: '4242424242424242', expMonth: 1, expYear: 2030, cvc: '123', name: 'x' }, description: '', metadata: {},
    });
    expect(outcome).toMatchObject({ status: 'declined', code: 'invalid_payment_method' });
    expect(seen).toEqual([]);
  });

  it('looks a charge up by attempt id and refunds by PaymentIntent', async () => {
    expect(await provider.lookup('attempt-known')).toEqual({ status: 'succeeded', reference: 'pi_found' });
    expect(await provider.lookup('attempt-unknown')).toEqual({ status: 'not_found' });
    expect(await provider.refund({ reference: 'pi_ok', idempotencyKey: 'attempt-1-refund' })).toEqual({ status: 'succeeded', reference: 're_1' });
    const refund = seen.find((request) => request.path === '/v1/refunds')!;
    expect(refund.form.get('payment_intent')).toBe('pi_ok');
    expect(refund.form.get('amount')).toBeNull();
    expect(refund.headers['idempotency-key']).toBe('attempt-1-refund');
  });

  it('refunds part of a charge with the refund id as idempotency key, also on a retried call', async () => {
    failNext = 1;
    const refundId = '6f1c4a9e-0000-4000-8000-000000000001';
    expect(await provider.refund({ reference: 'pi_ok', idempotencyKey: refundId, amountCents: 2550n, reason: 'band cancelled' })).toEqual({ status: 'succeeded', reference: 're_1' });
    const refunds = seen.filter((request) => request.path === '/v1/refunds');
    expect(refunds).toHaveLength(2);
    for (const request of refunds) {
      expect(request.headers['idempotency-key']).toBe(refundId);
      expect(Object.fromEntries(request.form)).toMatchObject({ payment_intent: 'pi_ok', amount: '2550', 'metadata[refund_id]': refundId, 'metadata[reason]': 'band cancelled' });
    }
  });

  it('turns a refund Stripe refuses into a failed outcome, and throws when the outcome stays unknown', async () => {
    expect(await provider.refund({ reference: 'pi_refunded', idempotencyKey: 'r-2', amountCents: 100n })).toEqual({
      status: 'failed', code: 'charge_already_refunded', message: 'Charge pi_refunded has already been refunded.',
    });
    failNext = 3;
    await expect(provider.refund({ reference: 'pi_ok', idempotencyKey: 'r-3', amountCents: 100n })).rejects.toThrow();
  });
});
