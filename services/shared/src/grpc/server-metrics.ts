/**
 * gRPC RED per method on the server side: one histogram whose count is the
 * rate, whose `grpc_code` label gives the errors and whose buckets give the
 * latency. Labels come from the service definition and grpc-js's status
 * enum, so their set is bounded.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ShedReason } from './call-gate';

export class GrpcServerMetrics {
  private readonly handling: Histogram<'grpc_service' | 'grpc_method' | 'grpc_code'>;
  private readonly shedCalls: Counter<'service' | 'method' | 'reason'>;

  constructor(registry: Registry) {
    this.handling = new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'Unary calls handled, by service, method and status code, and how long each took',
      labelNames: ['grpc_service', 'grpc_method', 'grpc_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    this.shedCalls = new Counter({
      name: 'grpc_server_shed_total',
      help: 'Calls the server turned away before running them: busy (no slot in time) or deadline (their caller had stopped waiting)',
      labelNames: ['service', 'method', 'reason'],
      registers: [registry],
    });
  }

  shed(service: string, method: string, reason: ShedReason): void {
    this.shedCalls.inc({ service, method, reason });
  }

  /** A timer for one call; call the result with the status code the call ended with. */
  start(service: string, method: string): (code: GrpcStatus) => void {
    const started = performance.now();
    return (code) => {
      this.handling.observe(
        { grpc_service: service, grpc_method: method, grpc_code: GrpcStatus[code] ?? String(code) },
        (performance.now() - started) / 1000,
      );
    };
  }
}
