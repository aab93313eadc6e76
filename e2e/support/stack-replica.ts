/**
 * A second chain of processes beside the stack `make up` started: its own
 * inventory, orders and gateway (the built dist of each), sharing
 * PostgreSQL, Redis and Kafka with the first, on other ports. Two gateways
 * in front of two orders and two inventory processes is the smallest
 * picture of a scaled-out on-sale. Tickets and webhooks stay the shared
 * ones (their default addresses).
 *
 * Each process is started by service-process.ts and logs to
 * .data/logs/replica-<name>.log.
 */
import { freePort, startServiceProcess, type ServiceProcess } from './service-process';

export type ReplicaService = 'inventory' | 'orders' | 'gateway';

/** gRPC ports are free ones (freePort) unless given. */
export interface ReplicaPorts {
  inventory: { grpc?: number; ops: number };
  orders: { grpc?: number; ops: number; http: number };
  gateway: { http: number; ops: number };
}

export const DEFAULT_REPLICA_PORTS: ReplicaPorts = {
  inventory: { ops: 9411 },
  orders: { ops: 9412, http: 4112 },
  gateway: { http: 4010, ops: 9410 },
};

export interface StackReplicaOptions {
  ports?: Partial<ReplicaPorts>;
  /** Extra environment per process (HOLD_SWEEP_INTERVAL_MS for inventory, say); wins over everything else. */
  env?: Partial<Record<ReplicaService, Record<string, string>>>;
  /** How long each process may take to report ready. */
  readyTimeoutMs?: number;
}

export type ReplicaProcess = ServiceProcess;

export interface StackReplica {
  /** The replica gateway's base URL (http://127.0.0.1:4010 by default). */
  readonly baseUrl: string;
  readonly inventoryAddr: string;
  readonly ordersAddr: string;
  readonly processes: Record<ReplicaService, ReplicaProcess>;
  /** SIGTERM to every process, gateway first, and wait for them all to exit. */
  stop(): Promise<void>;
}

function startProcess(name: ReplicaService, opsPort: number, env: Record<string, string>, timeoutMs: number): Promise<ServiceProcess> {
  return startServiceProcess(name, { OPS_PORT: String(opsPort), ...env }, { timeoutMs, logName: `replica-${name}` });
}

/** Starts inventory, then orders on it, then a gateway on both; stops what did start if a later one fails. */
export async function startStackReplica(options: StackReplicaOptions = {}): Promise<StackReplica> {
  const ports = {
    inventory: { ...DEFAULT_REPLICA_PORTS.inventory, grpc: await freePort(), ...options.ports?.inventory },
    orders: { ...DEFAULT_REPLICA_PORTS.orders, grpc: await freePort(), ...options.ports?.orders },
    gateway: { ...DEFAULT_REPLICA_PORTS.gateway, ...options.ports?.gateway },
  };
  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  const inventoryAddr = `127.0.0.1:${ports.inventory.grpc}`;
  const ordersAddr = `127.0.0.1:${ports.orders.grpc}`;
  const started: ReplicaProcess[] = [];
  try {
    const inventory = await startProcess(
      'inventory',
      ports.inventory.ops,
      { GRPC_PORT: String(ports.inventory.grpc), ...options.env?.inventory },
      timeoutMs,
    );
    started.push(inventory);
    const orders = await startProcess(
      'orders',
      ports.orders.ops,
      { GRPC_PORT: String(ports.orders.grpc), HTTP_PORT: String(ports.orders.http), INVENTORY_GRPC_ADDR: inventoryAddr, ...options.env?.orders },
      timeoutMs,
    );
    started.push(orders);
    const gateway = await startProcess(
      'gateway',
      ports.gateway.ops,
      { HTTP_PORT: String(ports.gateway.http), GRPC_PORT: '0', ORDERS_GRPC_ADDR: ordersAddr, INVENTORY_GRPC_ADDR: inventoryAddr, ...options.env?.gateway },
      timeoutMs,
    );
    started.push(gateway);
    return {
      baseUrl: `http://127.0.0.1:${ports.gateway.http}`,
      inventoryAddr,
      ordersAddr,
      processes: { inventory, orders, gateway },
      stop: async () => {
        // Front to back, so nothing is left calling a stopped process.
        for (const member of [gateway, orders, inventory]) await member.stop();
      },
    };
  } catch (error) {
    for (const member of started.reverse()) await member.stop();
    throw error;
  }
}
