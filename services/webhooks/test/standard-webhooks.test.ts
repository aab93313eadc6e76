/**
 * Deliveries as an independent Standard Webhooks receiver sees them: every
 * request, retries and test sends included, verified by the official
 * `standardwebhooks` library with the secret exactly as the partner was
 * shown it, before, during and after a rotation's overlap.
 */
import { Webhook } from 'standardwebhooks';
import { verifySignature } from '@partner-api/shared';
import { eventBody, liveContext, type ReceivedRequest, deliverySuite, waitFor } from './support';

const organisationId = 830_000 + Math.floor(Math.random() * 9_999);
const ctx = liveContext(organisationId);
const suite = deliverySuite({ WEBHOOK_TIMEOUT_MS: '1000' });

const createEndpoint = (path: string) => suite.service.client.createEndpoint({ url: `${suite.receiver.url}${path}`, eventTypes: [], mode: '' }, ctx);

/** What a receiver built on the official library does with a request: the parsed body, or it throws. */
const verified = (secret: string, request: ReceivedRequest): unknown =>
  new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });

describe('Standard Webhooks headers on deliveries', () => {
  it('verify with the shown secret on every attempt, beside the spec signature, with a stable webhook-id', async () => {
    const endpoint = await createEndpoint('/std');
    suite.receiver.answer = (request) => (request.headers['service-delivery-attempt'] === '1' ? 500 : 200);
    const event = eventBody(organisationId, 'order.completed');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(() => suite.receiver.forEvent(event.id).length >= 2, 15_000, 'a first attempt and its retry');

    for (const request of suite.receiver.forEvent(event.id)) {
      expect(request.body).toBe(event.body);
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(request.headers['service-signature']).toMatch(new RegExp(`^t=${String(request.headers['webhook-timestamp'])},v1=`));
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(verified(endpoint.secret!, request)).toEqual(JSON.parse(event.body));
      expect(verifySignature(String(request.headers['service-signature']), request.body, endpoint.secret!)).toBe(true);
      expect(() => verified(`whsec_${'A'.repeat(32)}`, request)).toThrow();
    }
  });

  it('carry both secrets during a rotation overlap, and only the new one after it', async () => {
    const endpoint = await createEndpoint('/rotated');
    const rotated = await suite.service.client.rotateSecret({ id: endpoint.id }, ctx);

    const during = eventBody(organisationId, 'ticket.issued');
    await suite.producer.send(suite.service.topic, [during.body]);
    await waitFor(() => suite.receiver.forEvent(during.id).length >= 1, 15_000, 'the delivery during the overlap');
    const [overlapping] = suite.receiver.forEvent(during.id);
    expect(overlapping!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verified(rotated.secret!, overlapping!)).toEqual(JSON.parse(during.body));
    expect(verified(endpoint.secret!, overlapping!)).toEqual(JSON.parse(during.body));

    await suite.database.pool.query("UPDATE endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1", [endpoint.id.toString()]);
    const after = eventBody(organisationId, 'ticket.issued');
    await suite.producer.send(suite.service.topic, [after.body]);
    await waitFor(() => suite.receiver.forEvent(after.id).length >= 1, 15_000, 'the delivery after the overlap');
    const [single] = suite.receiver.forEvent(after.id);
    expect(single!.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(verified(rotated.secret!, single!)).toEqual(JSON.parse(after.body));
    expect(() => verified(endpoint.secret!, single!)).toThrow();
  });

  it('verify on test sends too', async () => {
    const endpoint = await createEndpoint('/test-send');
    const delivery = await suite.service.client.sendTestEvent({ id: endpoint.id, type: 'ticket.transferred' }, ctx);
    const [request] = suite.receiver.forEvent(delivery.eventId);
    expect(request!.headers['webhook-id']).toBe(delivery.eventId);
    expect(verified(endpoint.secret!, request!)).toMatchObject({ id: delivery.eventId, type: 'ticket.transferred', livemode: false });
  });
});
