/**
 * The document's request rules are the gateway's (D391): what a client
 * generated from /openapi.json may send, the server accepts, and a rule the
 * server applies is written in the document (patterns for emails, times and
 * receiver addresses; check-in's code or ticket id; which bodies must be sent).
 */
import { isoTime } from '../http/routes/catalog';
import { z } from './zod';
import { partnerApiDocument } from './document';

type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; pattern?: string; anyOf?: Schema[]; required?: string[] };
type Operation = { requestBody?: { required?: boolean; content: { 'application/json': { schema: Schema } } } };

const document = partnerApiDocument('https://api.example.com') as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const component = (name: string): Schema => document.components.schemas[name]!;
/** JSON Schema patterns are ECMA-262 regular expressions with the `u` flag. */
const matches = (schema: Schema | undefined, value: string) => new RegExp(schema!.pattern!, 'u').test(value);

describe('request rules in the OpenAPI document', () => {
  it('describes emails as the server checks them: the addresses it refuses do not match', () => {
    const serverAccepts = (value: string) => z.email().safeParse(value).success;
    const checkoutEmail = component('CreateCheckoutSession').properties!.customer!.properties!.email;
    const guestEmail = component('CreateCompTickets').properties!.attendees!.items!.properties!.email;
    for (const value of ['ann@example.com', 'first.last+tag@sub.example.com.au', "o'neil@example.ie", 'a!b#c@example.com', 'user@exämple.com', 'a..b@example.com', 'nope']) {
      expect({ value, checkout: matches(checkoutEmail, value), guest: matches(guestEmail, value) }).toEqual({ value, checkout: serverAccepts(value), guest: serverAccepts(value) });
    }
    expect(matches(checkoutEmail, 'a!b#c@example.com')).toBe(false);
    expect(matches(checkoutEmail, 'user@exämple.com')).toBe(false);
  });

  it("gives replay's since and every time parameter the shape the server accepts", () => {
    const since = component('ReplayWebhookEndpoint').properties!.since;
    for (const value of ['2026-10-18T00:00:00Z', '2026-10-18', '2026-10-18T09:30+10:00', '2026-10-18T09:30:15.123-0530', '2026-13-01', '2026-10-18T25:00Z', '2026-10-18T00:00', 'yesterday', '18/10/2026']) {
      expect({ value, documented: matches(since, value) }).toEqual({ value, documented: isoTime.safeParse(value).success });
    }
  });

  it('says a webhook receiver is an absolute https:// address of at most 2,048 characters, without credentials', () => {
    for (const name of ['CreateWebhookEndpoint', 'UpdateWebhookEndpoint']) {
      const url = component(name).properties!.url as Schema & { maxLength?: number };
      expect(url.maxLength).toBe(2_048);
      expect(['https://hooks.example.com/partner-api', 'HTTPS://hooks.example.com', 'https://hooks.example.com:8443/a?b#c'].map((value) => matches(url, value))).toEqual([true, true, true]);
      expect(['http://hooks.example.com/x', 'hooks.example.com/x', '/relative', 'https://user:pw@hooks.example.com/', 'https:///x', ' https://hooks.example.com'].map((value) => matches(url, value))).toEqual([
        false,
        false,
        false,
        false,
        false,
        false,
      ]);
    }
  });

  it('bounds integer ids at 2^53 − 1, past which the server refuses them as not integers', () => {
    type Bounded = Schema & { maximum?: number; anyOf?: Bounded[] };
    const checkout = component('CreateCheckoutSession').properties!;
    const comp = component('CreateCompTickets').properties!;
    const ids: Bounded[] = [
      checkout.items!.items!.properties!.ticket_type_id!,
      checkout.items!.items!.properties!.pool_id!,
      (checkout.event_id as Bounded).anyOf![0]!,
      comp.ticket_type_id!,
      comp.pool_id!,
      component('CreateCheckIn').properties!.ticket_id!,
    ];
    expect(ids.map((id) => id.maximum)).toEqual(ids.map(() => Number.MAX_SAFE_INTEGER));
    expect(z.number().int().safeParse(Number.MAX_SAFE_INTEGER + 2).success).toBe(false);
  });

  it('requires code or ticket_id on a check-in, either or both, not null', () => {
    const checkIn = component('CreateCheckIn');
    const valid = (body: Record<string, unknown>) =>
      checkIn.anyOf!.some((branch) => branch.required!.every((key) => body[key] !== undefined && body[key] !== null));
    expect([{}, { code: null }, { ticket_id: null }, { code: 'ABC' }, { ticket_id: 1001 }, { code: 'ABC', ticket_id: 1001 }].map(valid)).toEqual([false, false, false, true, true, true]);
  });

  it('marks a request body required exactly where the server refuses a request without one', () => {
    const required = Object.fromEntries(
      Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([, operation]) => operation.requestBody)
          .map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation.requestBody!.required === true]),
      ),
    );
    expect(required).toEqual({
      'POST /checkout_sessions': true,
      'POST /comp_tickets': true,
      'POST /events/{id}/check_ins': true,
      'POST /webhook_endpoints': true,
      'POST /webhook_endpoints/{id}/replay': true,
      // Every field optional: the server reads a missing body as {}.
      'PATCH /webhook_endpoints/{id}': false,
      'POST /webhook_endpoints/{id}/test': false,
    });
  });
});
