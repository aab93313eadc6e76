/** The webhook events in the OpenAPI document: one per type of the spec's table, each with its object and extra keys. */
import { EVENT_TYPES } from '@partner-api/shared';
import { partnerApiDocument } from './document';

type Schema = { $ref?: string; properties?: Record<string, Schema>; required?: string[]; const?: unknown; enum?: unknown[]; type?: string; items?: Schema };

const document = partnerApiDocument('https://api.example.com') as unknown as {
  webhooks: Record<string, { post: { security: unknown[]; requestBody: { content: { 'application/json': { schema: Schema } } }; parameters: { name: string; in: string }[] } }>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, { type: string; in: string; name: string }> };
};

const bodyOf = (type: string): Schema => {
  const ref = document.webhooks[type]!.post.requestBody.content['application/json'].schema.$ref!;
  return document.components.schemas[ref.replace('#/components/schemas/', '')]!;
};
const literal = (schema: Schema | undefined) => schema?.const ?? schema?.enum?.[0];

describe('webhook events in the OpenAPI document', () => {
  it('when the document is built, then every event type is a webhook whose body names its type, signed by Service-Signature', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    expect(document.components.securitySchemes.webhookSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'Service-Signature' });
    for (const type of EVENT_TYPES) {
      const body = bodyOf(type);
      expect(literal(body.properties!.type)).toBe(type);
      expect(body.required).toEqual(expect.arrayContaining(['id', 'object', 'type', 'api_version', 'created', 'livemode', 'organisation_id', 'data']));
      expect(body.required).not.toContain('ordering');
      expect(document.webhooks[type]!.post.security).toEqual([{ webhookSignature: [] }]);
      expect(document.webhooks[type]!.post.parameters.map((parameter) => parameter.name)).toEqual(['Service-Event-Id', 'Service-Event-Type', 'Service-Delivery-Attempt']);
    }
  });

  it.each([
    ['order.completed', 'Order', []],
    ['order.refunded', 'Order', ['refunded_ticket_ids']],
    ['ticket.transferred', 'Ticket', ['previous_attendee_email']],
    ['ticket.checked_in', 'Ticket', []],
    ['event.updated', 'Event', ['changed_fields']],
    ['ticket_type.low_inventory', 'TicketType', ['threshold']],
    ['waitlist.released', 'WaitlistRelease', []],
  ])('when %s is delivered, then data.object is a %s with the extra keys %j', (type, object, extra) => {
    const data = bodyOf(type).properties!.data!;
    expect(data.properties!.object!.$ref).toBe(`#/components/schemas/${object}`);
    expect(Object.keys(data.properties!).sort()).toEqual(['object', ...extra].sort());
    expect(data.required!.sort()).toEqual(['object', ...extra].sort());
  });
});
