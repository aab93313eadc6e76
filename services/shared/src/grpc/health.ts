/**
 * The standard gRPC health service (grpc.health.v1.Health, from the
 * grpc-health-check package) on every server, and the client side the
 * gateway uses to tell whether a backend has a serving instance.
 *
 * Kubernetes' native `grpc` probes and tools like grpc_health_probe call
 * Check; the status follows the process's readiness (see runtime.ts).
 */
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation, service as healthService } from 'grpc-health-check';

/** The overall status of a server is kept under the empty service name (what probes ask by default). */
export const WHOLE_SERVER = '';

type WatchStream = grpc.ServerWritableStream<unknown, unknown>;

/**
 * Serving / not serving for the whole server and each named service.
 * Watch streams are ended when the server drains: they never finish by
 * themselves, and grpc-js's graceful shutdown waits for every open call.
 */
export class GrpcHealth {
  private readonly implementation: HealthImplementation;
  private readonly watches = new Set<WatchStream>();
  private serving = false;

  constructor(private readonly serviceNames: string[]) {
    this.implementation = new HealthImplementation(
      Object.fromEntries([WHOLE_SERVER, ...serviceNames].map((name) => [name, 'NOT_SERVING' as const])),
    );
  }

  addToServer(server: grpc.Server): void {
    this.implementation.addToServer({
      addService: (definition, handlers) => {
        const watch = handlers.watch as (call: WatchStream) => void;
        server.addService(definition as grpc.ServiceDefinition, {
          ...(handlers as grpc.UntypedServiceImplementation),
          watch: (call: WatchStream) => {
            this.watches.add(call);
            call.on('cancelled', () => this.watches.delete(call));
            watch(call);
          },
        });
      },
    });
  }

  get isServing(): boolean {
    return this.serving;
  }

  set(serving: boolean): void {
    if (serving === this.serving) return;
    this.serving = serving;
    for (const name of [WHOLE_SERVER, ...this.serviceNames]) this.implementation.setStatus(name, serving ? 'SERVING' : 'NOT_SERVING');
  }

  /** Not serving from now on, and every Watch stream told so and ended. */
  stop(): void {
    this.set(false);
    for (const call of this.watches) call.end();
    this.watches.clear();
  }
}

export type HealthCheckClient = grpc.Client & {
  check(
    request: { service: string },
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): grpc.ClientUnaryCall;
};

const HealthClient = grpc.makeClientConstructor(healthService as grpc.ServiceDefinition, 'grpc.health.v1.Health') as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ChannelOptions,
) => HealthCheckClient;

/** A client of `address`'s health service. */
export function createHealthClient(address: string, channelOptions?: grpc.ChannelOptions): HealthCheckClient {
  return new HealthClient(address, grpc.credentials.createInsecure(), channelOptions);
}

/** Asks once whether `service` is serving; resolves to the status name, rejects when unreachable. */
export function checkHealth(client: HealthCheckClient, service: string, deadlineMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    client.check({ service }, { deadline: new Date(Date.now() + deadlineMs) }, (error, response) =>
      error ? reject(error) : resolve(response?.status ?? 'UNKNOWN'),
    );
  });
}

export interface BackendHealthOptions {
  /** How often each backend is asked. */
  intervalMs: number;
  /** Deadline of one Check. */
  deadlineMs?: number;
  /** Channel options (the same load balancing as the service clients). */
  channelOptions?: grpc.ChannelOptions;
}

export interface BackendStatus {
  serving: boolean;
  /** When the last answer (or failure) came, ms since the epoch; 0 before the first. */
  checkedAt: number;
  detail: string;
}

/**
 * Asks each backend's health service on a timer, in the background, and
 * keeps the last answer: readiness probes read the cache, so a storm of
 * probes costs no calls. One Check per backend per interval goes over the
 * backend's own load-balanced target, so "serving" means at least one
 * instance answered SERVING.
 */
export class BackendHealth {
  private readonly clients = new Map<string, { client: HealthCheckClient; service: string }>();
  private readonly statuses = new Map<string, BackendStatus>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    backends: Record<string, { address: string; service: string }>,
    private readonly options: BackendHealthOptions,
  ) {
    for (const [name, backend] of Object.entries(backends)) {
      this.clients.set(name, {
        client: createHealthClient(backend.address, options.channelOptions),
        service: backend.service,
      });
      this.statuses.set(name, { serving: false, checkedAt: 0, detail: 'not checked yet' });
    }
  }

  /** Checks every backend now, then every interval. */
  start(): Promise<void> {
    this.timer = setInterval(() => void this.checkAll(), this.options.intervalMs);
    this.timer.unref();
    return this.checkAll();
  }

  /** One round of checks (a round already under way is joined, not doubled). */
  checkAll(): Promise<void> {
    this.running ??= Promise.all(
      [...this.clients].map(async ([name, { client, service }]) => {
        let status: BackendStatus;
        try {
          const answer = await checkHealth(client, service, this.options.deadlineMs ?? 2_000);
          status = { serving: answer === 'SERVING', checkedAt: Date.now(), detail: answer };
        } catch (error) {
          status = { serving: false, checkedAt: Date.now(), detail: (error as grpc.ServiceError).details ?? String(error) };
        }
        this.statuses.set(name, status);
      }),
    ).then(() => {
      this.running = undefined;
    });
    return this.running;
  }

  status(name: string): BackendStatus | undefined {
    return this.statuses.get(name);
  }

  /**
   * Backends without a serving instance at the last check, or whose last
   * answer is older than three intervals (the checker itself is stuck).
   */
  failing(now = Date.now()): string[] {
    const stale = 3 * this.options.intervalMs;
    return [...this.statuses].flatMap(([name, status]) => (status.serving && now - status.checkedAt <= stale ? [] : [name]));
  }

  close(): void {
    clearInterval(this.timer);
    for (const { client } of this.clients.values()) client.close();
  }
}
