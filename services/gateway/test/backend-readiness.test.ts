/**
 * The gateway's /readyz follows its backends' grpc.health.v1 status: a
 * backend with no serving instance is named as failing, a live one is not.
 */
import { createLogger, type ServiceRuntime } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { loadGatewayConfig, startGateway } from '@partner-api/gateway';

const logger = createLogger('it', 'silent');
const env = { ...process.env, GRPC_PORT: '0', OPS_PORT: '19490', HTTP_PORT: '0', BACKEND_HEALTH_INTERVAL_MS: '300' };
let inventory: ServiceRuntime;
let gateway: Awaited<ReturnType<typeof startGateway>>;

async function readiness(): Promise<{ status: number; failing: string[] }> {
  const response = await fetch('http://127.0.0.1:19490/readyz');
  return { status: response.status, failing: ((await response.json()) as { failing: string[] }).failing };
}

async function until(check: (seen: { status: number; failing: string[] }) => boolean) {
  const deadline = Date.now() + 5_000;
  let seen = await readiness();
  while (!check(seen) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await readiness();
  }
  return seen;
}

beforeAll(async () => {
  inventory = await startInventory(loadInventoryConfig({ ...env, OPS_PORT: '0' }), logger);
  gateway = await startGateway(
    loadGatewayConfig({
      ...env,
      INVENTORY_GRPC_ADDR: `127.0.0.1:${inventory.grpcPort}`,
      ORDERS_GRPC_ADDR: '127.0.0.1:1',
      TICKETS_GRPC_ADDR: '127.0.0.1:1',
      WEBHOOKS_GRPC_ADDR: '127.0.0.1:1',
    }),
    logger,
  );
}, 60_000);

afterAll(async () => {
  await gateway.runtime.stop();
  await inventory.stop().catch(() => undefined);
});

it('is not ready while backends are gone, names them, and follows a backend that goes away', async () => {
  const before = await until((seen) => !seen.failing.includes('backend inventory'));
  expect(before.status).toBe(503);
  expect(before.failing).toEqual(['backend orders', 'backend tickets', 'backend webhooks']);

  await inventory.stop();
  const after = await until((seen) => seen.failing.includes('backend inventory'));
  expect(after.status).toBe(503);
  expect(after.failing).toContain('backend inventory');
}, 30_000);
