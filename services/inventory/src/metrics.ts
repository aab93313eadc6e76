/**
 * The inventory's own metrics, beside the runtime's process, gRPC and
 * outbox ones: holds by outcome, holds expired by the sweeper, whether the
 * Redis gate is open, and stock remaining in the hot pools (HotPools
 * bounds that set). Gauges are read when Prometheus scrapes.
 */
import { ApiError, Counter, Gauge, scrapeRead, type Registry } from '@partner-api/shared';
import type { HoldResult } from './domain/hold-desk';
import type { HotPools } from './storage/hot-pools';
import type { RedisGate } from './storage/redis-gate';

function holdErrorOutcome(error: unknown): 'refused' | 'failed' | 'invalid' {
  if (!(error instanceof ApiError) || error.httpStatus >= 500) return 'failed';
  return error.code === 'exceeds_availability' ? 'refused' : 'invalid';
}

export class InventoryMetrics {
  private readonly holds: Counter<'outcome'>;
  private readonly expired: Counter;

  constructor(registry: Registry, gate: Pick<RedisGate, 'isOpen'>, hotPools: HotPools) {
    this.holds = new Counter({
      name: 'inventory_holds_total',
      help: 'Hold requests by outcome: taken, refused (not enough stock), failed (Redis unusable, a server error), invalid (the request itself), dry_run (took nothing)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.expired = new Counter({
      name: 'inventory_holds_expired_total',
      help: 'Holds whose time ran out, returned to stock by the sweeper',
      registers: [registry],
    });
    new Gauge({
      name: 'inventory_redis_gate_open',
      help: '1 while Redis (every shard of a cluster) is connected and its data verified for this run; 0 while stock operations on some events are refused',
      registers: [registry],
      collect() {
        this.set(gate.isOpen ? 1 : 0);
      },
    });
    new Gauge({
      name: 'inventory_pool_stock_remaining',
      help: 'Tickets left in a hot pool (capped pools of events on sale, the most held first; at most METRICS_HOT_POOLS of them)',
      labelNames: ['event_id', 'pool_id'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const pool of (await scrapeRead(() => hotPools.remaining())) ?? []) {
          this.set({ event_id: pool.eventId, pool_id: pool.poolId }, pool.remaining);
        }
      },
    });
  }

  /** Counts a hold request by how it ended; passes its result or error through. */
  async hold(work: Promise<HoldResult>): Promise<HoldResult> {
    try {
      const result = await work;
      // Only a hold that took stock carries an expiry (a dry run or a test key takes nothing).
      this.holds.inc({ outcome: result.expiresAt ? 'taken' : 'dry_run' });
      return result;
    } catch (error) {
      this.holds.inc({ outcome: holdErrorOutcome(error) });
      throw error;
    }
  }

  expiredHolds(count: number): void {
    if (count > 0) this.expired.inc(count);
  }
}
