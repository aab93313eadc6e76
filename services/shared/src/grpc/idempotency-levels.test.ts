/**
 * Which RPCs a client may send twice (D372, D392): every read, and the
 * writes that change nothing more when repeated. The protos say so per
 * method (`option idempotency_level = NO_SIDE_EFFECTS` or `IDEMPOTENT`);
 * this holds them to the naming of the services and to a reviewed list, so
 * a new read that is not marked, or a write that is, fails here.
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

it('marks IDEMPOTENT only the writes reviewed as safe to run twice', () => {
  const idempotent = services.flatMap((service) => service.methods.filter((method) => method.idempotency === MethodOptions_IdempotencyLevel.IDEMPOTENT).map((method) => method.name));
  // Abandoning a session releases its hold once; a second abandon finds nothing to release (D444).
  expect(idempotent).toEqual(['AbandonCheckoutSession']);
});
