/**
 * Which RPCs a client may send twice (D372): every read, and nothing else.
 * The protos say so per method (`option idempotency_level =
 * NO_SIDE_EFFECTS`); this holds them to the naming of the services, so a
 * new read that is not marked, or a write that is, fails here.
 */
import { MethodOptions_IdempotencyLevel } from '@bufbuild/protobuf/wkt';
import * as gen from '../gen';

const services = [gen.inventory.InventoryService, gen.orders.OrdersService, gen.tickets.TicketsService, gen.webhooks.WebhooksService];
const READ = /^(Get|List|Find)[A-Z]/;

it.each(services.map((service) => [service.typeName, service] as const))('%s marks exactly its reads free of side effects', (_name, service) => {
  const marked = service.methods.filter((method) => method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS).map((method) => method.name);
  const reads = service.methods.filter((method) => READ.test(method.name)).map((method) => method.name);
  expect(reads.length).toBeGreaterThan(0);
  expect(marked).toEqual(reads);
});

it('marks no method merely IDEMPOTENT: the client resends only what has no side effects at all', () => {
  const idempotent = services.flatMap((service) => service.methods.filter((method) => method.idempotency === MethodOptions_IdempotencyLevel.IDEMPOTENT).map((method) => method.name));
  expect(idempotent).toEqual([]);
});
