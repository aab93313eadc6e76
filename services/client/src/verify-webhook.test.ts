/** verifyWebhook against headers built as the spec's signature section describes. */
import { createHmac } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from './index';

const newSecret = 'whsec_Q2x9mB7vT4kP1sR8nF3jL6hD0wC5yZaE';
const oldSecret = 'whsec_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6';
const now = 1_790_000_000;
const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'order.completed', created: now, livemode: true, organisation_id: 1, data: { object: { object: 'order', id: 'o1' } } });
const sign = (secret: string, t: number, payload = body) => createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex');

function failure(run: () => unknown): WebhookVerificationFailure | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

describe('verifyWebhook', () => {
  it('when the body is signed by the secret, then the typed event comes back, narrowed by type', () => {
    const event = verifyWebhook(body, `t=${now},v1=${sign(newSecret, now)}`, newSecret, { now });
    expect(event.type).toBe('order.completed');
    if (event.type === 'order.completed') expect(event.data.object.id).toBe('o1');
    expect(verifyWebhook(Buffer.from(body), `t=${now},v1=${sign(newSecret, now)}`, [newSecret], { now }).id).toBe('evt_1');
  });

  it("during a rotation (two v1 values), then either secret alone verifies, whichever v1 is its own", () => {
    const header = `t=${now},v1=${sign(newSecret, now)},v1=${sign(oldSecret, now)}`;
    expect(verifyWebhook(body, header, [newSecret], { now }).id).toBe('evt_1');
    expect(verifyWebhook(body, header, [oldSecret], { now }).id).toBe('evt_1');
    expect(verifyWebhook(body, `t=${now},v1=${sign(oldSecret, now)}`, [newSecret, oldSecret], { now }).id).toBe('evt_1');
  });

  it('when the body or the timestamp was changed, or the secret is another, then no signature matches', () => {
    const header = `t=${now},v1=${sign(newSecret, now)}`;
    expect(failure(() => verifyWebhook(body.replace('o1', 'o2'), header, newSecret, { now }))).toBe('no_matching_signature');
    expect(failure(() => verifyWebhook(body, `t=${now + 1},v1=${sign(newSecret, now)}`, newSecret, { now }))).toBe('no_matching_signature');
    expect(failure(() => verifyWebhook(body, header, oldSecret, { now }))).toBe('no_matching_signature');
  });

  it('when t is further from the clock than the tolerance, then it is stale, however well signed', () => {
    const old = now - 301;
    expect(failure(() => verifyWebhook(body, `t=${old},v1=${sign(newSecret, old)}`, newSecret, { now }))).toBe('stale_timestamp');
    const future = now + 301;
    expect(failure(() => verifyWebhook(body, `t=${future},v1=${sign(newSecret, future)}`, newSecret, { now }))).toBe('stale_timestamp');
    expect(verifyWebhook(body, `t=${now - 300},v1=${sign(newSecret, now - 300)}`, newSecret, { now }).id).toBe('evt_1');
    expect(failure(() => verifyWebhook(body, `t=${now - 60},v1=${sign(newSecret, now - 60)}`, newSecret, { now, tolerance: 30 }))).toBe('stale_timestamp');
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['two headers', ['t=1,v1=aa', 't=1,v1=bb']],
    ['no t', `v1=${'a'.repeat(64)}`],
    ['no v1', `t=${now}`],
    ['a t that is not a number', `t=soon,v1=${'a'.repeat(64)}`],
    ['two t', `t=${now},t=${now},v1=${'a'.repeat(64)}`],
    ['a v1 that is not hex', `t=${now},v1=${'z'.repeat(64)}`],
    ['a short v1', `t=${now},v1=abcd`],
    ['a part without =', `t=${now},v1`],
  ])('when the header has %s, then it is malformed (an error, not a crash)', (_name, header) => {
    expect(failure(() => verifyWebhook(body, header as string, newSecret, { now }))).toBe('malformed_header');
  });

  it('when a signed body is not JSON, or no secret is given, then it says so', () => {
    expect(failure(() => verifyWebhook('not json', `t=${now},v1=${sign(newSecret, now, 'not json')}`, newSecret, { now }))).toBe('malformed_body');
    expect(() => verifyWebhook(body, `t=${now},v1=${sign(newSecret, now)}`, [], { now })).toThrow(TypeError);
  });
});
