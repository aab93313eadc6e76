import type { Consumer, KafkaMessage } from 'kafkajs';
import { createLogger, createServiceClient, gen, randomBase62, type RequestContext, type ServiceRuntime } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { collectTopicFromNow, testKafka } from '../../shared/test/support';

const ctx: RequestContext = { organisationId: 424242, mode: 'live', keyId: 0, requestId: 'it' };
let inventory: ServiceRuntime;
let client: ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;
let consumer: Consumer;
let messages: KafkaMessage[];

beforeAll(async () => {
  inventory = await startInventory(
    loadInventoryConfig({ ...process.env, GRPC_PORT: '0', OPS_PORT: '0' }),
    createLogger('it', 'silent'),
  );
  client = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${inventory.grpcPort}`);
  ({ messages, consumer } = await collectTopicFromNow(testKafka(), process.env.KAFKA_TOPIC ?? 'partner.events.v1'));
}, 60_000);

afterAll(async () => {
  client.close();
  await consumer.disconnect();
  await inventory.stop();
}, 30_000); // leaving a Kafka consumer group can take seconds on a busy broker

const eventsFor = (eventId: number) =>
  messages
    .map((message) => ({ key: message.key?.toString(), body: JSON.parse(message.value!.toString()) }))
    .filter(({ body }) => body.data?.object?.object === 'event' && body.data.object.id === eventId);

async function settle(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Anything sent twice would arrive right behind; give it the chance.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
}

describe('editing an event', () => {
  it('writes exactly one event.updated with the changed fields, through the outbox to Kafka', async () => {
    const slug = `it-${randomBase62(8).toLowerCase()}`;
    const created = await client.upsertEvent(
      { fields: { slug, title: 'Before', startsAt: '2027-05-01T09:00:00Z', timezone: 'Australia/Perth', doors: '7:00pm' } },
      ctx,
    );
    const id = Number(created.id);
    // A draft's edits announce nothing.
    await client.upsertEvent({ idOrSlug: slug, fields: { summary: 'Still a draft' } }, ctx);
    await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
    // Same values: no change, no event.
    await client.upsertEvent({ idOrSlug: slug, fields: { title: 'Before', doors: '7:00pm' } }, ctx);
    await client.upsertEvent({ idOrSlug: slug, fields: { title: 'After', doors: '8:00pm', timezone: 'Australia/Perth' } }, ctx);

    await settle(() => eventsFor(id).some(({ body }) => body.type === 'event.updated'), 'event.updated on Kafka');
    const events = eventsFor(id);
    expect(events.map(({ body }) => body.type)).toEqual(['event.published', 'event.updated']);
    const updated = events[1]!;
    expect(updated.key).toBe(`event:${id}`);
    expect(updated.body).toMatchObject({
      object: 'event',
      type: 'event.updated',
      api_version: '2026-10-18',
      livemode: true,
      organisation_id: ctx.organisationId,
      data: { changed_fields: ['title', 'doors'], object: { id, slug, title: 'After', doors: '8:00pm', status: 'published' } },
    });
    expect(updated.body.id).toMatch(/^evt_/);
  }, 60_000);

  it('announces cancellation once, and refuses to publish a cancelled event', async () => {
    const slug = `it-${randomBase62(8).toLowerCase()}`;
    const created = await client.upsertEvent({ fields: { slug, title: 'Doomed', startsAt: '2027-05-02T09:00:00Z', timezone: 'UTC' } }, ctx);
    await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
    await client.changeEventStatus({ idOrSlug: slug, action: 'cancel' }, ctx);
    await client.changeEventStatus({ idOrSlug: slug, action: 'cancel' }, ctx);
    await expect(client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx)).rejects.toMatchObject({ code: 'parameter_invalid', param: 'action' });
    await settle(() => eventsFor(Number(created.id)).some(({ body }) => body.type === 'event.cancelled'), 'event.cancelled');
    expect(eventsFor(Number(created.id)).map(({ body }) => body.type)).toEqual(['event.published', 'event.cancelled']);
  }, 60_000);
});

describe('operator input the catalog refuses', () => {
  it('names the field to fix instead of failing with a 500', async () => {
    const slug = `it-${randomBase62(8).toLowerCase()}`;
    await client.upsertEvent({ fields: { slug, title: 'Original', startsAt: '2027-06-01T09:00:00Z', timezone: 'UTC' } }, ctx);
    await expect(
      client.upsertEvent({ fields: { slug, title: 'Copy', startsAt: '2027-06-01T09:00:00Z', timezone: 'UTC' } }, ctx),
    ).rejects.toMatchObject({ code: 'parameter_invalid', param: 'slug' });
    await expect(
      client.upsertEvent({ fields: { slug: `${slug}-tz`, title: 'Bad zone', startsAt: '2027-06-01T09:00:00Z', timezone: 'Mars/Olympus' } }, ctx),
    ).rejects.toMatchObject({ code: 'parameter_invalid', param: 'timezone' });
    await expect(client.upsertEvent({ idOrSlug: slug, fields: { venueId: 987654321n } }, ctx)).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'venue_id',
    });
    await expect(client.upsertEvent({ idOrSlug: slug, fields: { startsAt: 'next tuesday' } }, ctx)).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'starts_at',
    });
    await expect(client.upsertEvent({ fields: { title: 'No slug', startsAt: '2027-06-01T09:00:00Z', timezone: 'UTC' } }, ctx)).rejects.toMatchObject({
      code: 'parameter_missing',
      param: 'slug',
    });
  });
});
