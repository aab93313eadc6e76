/**
 * Starts a real inventory service and a real gateway in this process
 * (ephemeral ports, the migrated local database, Redis and Kafka) and an
 * organisation with a key, so a test can call the API over HTTP.
 */
import { createLogger, createServiceClient, gen, operatorContext, randomBase62, type ServiceRuntime } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { loadGatewayConfig, startGateway } from '@partner-api/gateway';

export interface Harness {
  baseUrl: string;
  /** The gateway's GatewayService (organisations and keys). */
  grpcAddress: string;
  organisationId: number;
  liveKey: string;
  stop(): Promise<void>;
}

/**
 * `scopes`: what the harness's key may do (events:read unless a test needs
 * more). `gatewayEnv`: settings of the gateway's own, such as the address of
 * another service a test started.
 */
export async function startHarness(scopes: string[] = ['events:read'], gatewayEnv: Record<string, string> = {}): Promise<Harness> {
  const logger = createLogger('harness', 'silent');
  const env = { ...process.env, GRPC_PORT: '0', OPS_PORT: '0', HTTP_PORT: '0' };
  const inventory: ServiceRuntime = await startInventory(loadInventoryConfig(env), logger);
  const gateway = await startGateway(
    loadGatewayConfig({ ...env, INVENTORY_GRPC_ADDR: `127.0.0.1:${inventory.grpcPort}`, ...gatewayEnv }),
    logger,
  );

  // The organisation and its key through the gateway's own gRPC service, as partnerctl makes them.
  const admin = createServiceClient(gen.gateway.GatewayService, `127.0.0.1:${gateway.runtime.grpcPort}`);
  const slug = `it-${randomBase62(8).toLowerCase()}`;
  const organisation = await admin.createOrganisation({ name: 'Integration Org', slug }, operatorContext());
  const key = await admin.issueApiKey({ name: 'it', mode: 'live', scopes }, operatorContext(Number(organisation.id)));
  admin.close();

  return {
    baseUrl: `http://127.0.0.1:${gateway.port}`,
    grpcAddress: `127.0.0.1:${gateway.runtime.grpcPort}`,
    organisationId: Number(organisation.id),
    liveKey: key.secret,
    stop: async () => {
      await gateway.runtime.stop();
      await inventory.stop();
    },
  };
}
