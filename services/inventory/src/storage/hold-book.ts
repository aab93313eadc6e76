/**
 * Holds on live stock, changed only by Lua scripts so each step is atomic
 * on the Redis shard that owns the event (every key carries `{ev:<id>}`):
 *
 * - hold: every pool of a checkout or none; refuses when any pool is short;
 *   repeating a hold id changes nothing. The holds of one event asked for
 *   together (an on-sale's batch) go as one script call that takes them one
 *   after another, each exactly as it would have gone alone.
 * - release: returns a hold's tickets to stock; idempotent. A counter a
 *   rebuild left below zero is paid back first. While the pool's waiting
 *   list asks for more than is reserved for it, they go to the list's
 *   reserve instead, in the same step, so a concurrent burst of holds can
 *   never take them (see WaitlistDesk).
 * - commit: turns a hold into a sale (the tickets stay out of stock).
 * - reinstate: writes a sold hold's record back without moving the
 *   counters, so a sale given back (a comp batch whose tickets could not be
 *   issued) returns its tickets through release like any hold.
 *
 * - restore: rebuilds a lost pool counter from the durable record together
 *   with the records of the holds still live on it, so those holds go back
 *   to stock when they are released, and a hold whose take was in flight
 *   finds itself already held instead of being taken twice. The counter
 *   may start below zero (more recorded than the pool has, while refused
 *   takes are still being released): nothing is held until it is paid back.
 *
 * The hold script reports every pool that crossed its low-stock threshold
 * or reached zero, so `ticket_type.low_inventory` and `event.sold_out` can
 * fire exactly once per crossing.
 */
import { batchWrites, defineScript, scanEverywhere, type RedisClient } from '@partner-api/shared';
import { availabilityKey, RETURN_TICKETS_LUA, waitlistDemandKey, waitlistReserveKey } from './stock-keys';

// Holds of one event, taken one after another exactly as if each came alone.
// KEYS: 1 expiry index, 2..n+1 the holds' records, then the pool counters they name.
// ARGV: 1 n, then per hold: id, expiry (ms), record JSON, pool count, then per pool: its counter's index in KEYS, quantity, low-stock threshold.
// Returns per hold: {'held', marks...} | {'already_held'} | {'short', pool #, left} | {'unknown_pool', pool #}.
const HOLD = `
local results = {}
local at = 2
for h = 1, tonumber(ARGV[1]) do
  local id, expiry, record, pools = ARGV[at], ARGV[at + 1], ARGV[at + 2], tonumber(ARGV[at + 3])
  local first = at + 4
  at = first + pools * 3
  local result
  if redis.call('EXISTS', KEYS[h + 1]) == 1 then result = {'already_held'} end
  for i = 1, pools do
    if result then break end
    local left = redis.call('GET', KEYS[tonumber(ARGV[first + (i - 1) * 3])])
    if not left then
      result = {'unknown_pool', i}
    elseif tonumber(left) < tonumber(ARGV[first + (i - 1) * 3 + 1]) then
      result = {'short', i, tonumber(left)}
    end
  end
  if not result then
    result = {'held'}
    for i = 1, pools do
      local quantity = tonumber(ARGV[first + (i - 1) * 3 + 1])
      local threshold = tonumber(ARGV[first + (i - 1) * 3 + 2])
      local after = redis.call('DECRBY', KEYS[tonumber(ARGV[first + (i - 1) * 3])], quantity)
      local before = after + quantity
      if before > threshold and after <= threshold then table.insert(result, 'low:' .. i) end
      if before > 0 and after == 0 then table.insert(result, 'out:' .. i) end
    end
    redis.call('SET', KEYS[h + 1], record)
    redis.call('ZADD', KEYS[1], expiry, id)
  end
  results[h] = result
end
return results
`;

// KEYS: 1 hold record, 2 expiry index, then per pool (from the record): counter, waitlist reserve, waitlist demand.
// ARGV: 1 hold id, then quantities.
const RELEASE = `${RETURN_TICKETS_LUA}
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
for i = 1, (#KEYS - 2) / 3 do
  local at = 2 + (i - 1) * 3
  return_tickets(KEYS[at + 1], KEYS[at + 2], KEYS[at + 3], tonumber(ARGV[i + 1]))
end
return 1
`;

// KEYS: 1 hold record, 2 expiry index. ARGV: 1 hold id.
const COMMIT = `
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

// KEYS: 1 pool counter, 2 expiry index, 3 waitlist reserve, 4.. hold records. ARGV: 1 available, then per hold: id, expiry (ms), record JSON.
// Only where the counter is missing: a counter that exists (rebuilt by someone else) is the one to use.
// The durable record counts reserved tickets as available, so a reserve left over is dropped.
const RESTORE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[3])
for i = 4, #KEYS do
  local at = 2 + (i - 4) * 3
  if redis.call('SET', KEYS[i], ARGV[at + 2], 'NX') then redis.call('ZADD', KEYS[2], ARGV[at + 1], ARGV[at]) end
end
return 1
`;

// KEYS: 1 hold record, 2 expiry index, 3.. pool counters. ARGV: 1 hold id, 2 expiry (ms), 3 record JSON.
// Only where every counter exists: a missing one is rebuilt from PostgreSQL, which then counts the hold as live.
const REINSTATE = `
for i = 3, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then return 0 end
end
if redis.call('SET', KEYS[1], ARGV[3], 'NX') then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1]) end
return 1
`;

interface HoldCommands {
  holdStock(...args: (string | number)[]): Promise<Array<Array<string | number>>>;
  releaseHold(...args: (string | number)[]): Promise<number>;
  commitHold(...args: (string | number)[]): Promise<number>;
  restoreStock(...args: (string | number)[]): Promise<number>;
  reinstateHold(...args: (string | number)[]): Promise<number>;
}

/** Passed before every command: throws while Redis is not to be used (see redis-gate.ts). */
export interface StockGate {
  /** With an event: its shard; without: some shard (the event's own check follows). */
  check(eventId?: string): void;
  /** Some shard can be used (the sweeper then tries; holds on a closed shard wait). */
  readonly anyOpen: boolean;
}

/** A hold PostgreSQL still calls live, as the restore script writes it back. */
export interface RestoredHold {
  id: string;
  pools: Array<{ poolId: string; quantity: number }>;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface PoolQuantity {
  poolId: string;
  quantity: number;
  /** Low-stock threshold of the pool (the domain's lowStockThreshold). */
  threshold: number;
}

export type HoldOutcome =
  | { held: true; lowStock: string[]; soldOut: string[] }
  | { held: false; reason: 'already_held' }
  | { held: false; reason: 'short'; poolId: string; available: number }
  | { held: false; reason: 'unknown_pool'; poolId: string };

export const holdKey = (eventId: string, holdId: string) => `{ev:${eventId}}:hold:${holdId}`;
export const expiryKey = (eventId: string) => `{ev:${eventId}}:holds`;

/** What Redis keeps of a hold: the tickets to return per pool. */
export interface HoldRecord {
  pools: Array<{ poolId: string; quantity: number }>;
}

/** A hold as asked for: the tickets of each pool under one id until expiresAt. */
interface AskedHold {
  eventId: string;
  holdId: string;
  pools: PoolQuantity[];
  expiresAt: Date;
}

/** One hold's answer from the hold script; pools are numbered from 1 in the order they were sent. */
function holdOutcome([status, ...rest]: Array<string | number>, pools: PoolQuantity[]): HoldOutcome {
  const poolAt = (index: unknown) => pools[Number(index) - 1]!.poolId;
  switch (status) {
    case 'held': {
      const marks = rest.map(String);
      return {
        held: true,
        lowStock: marks.filter((mark) => mark.startsWith('low:')).map((mark) => poolAt(mark.slice(4))),
        soldOut: marks.filter((mark) => mark.startsWith('out:')).map((mark) => poolAt(mark.slice(4))),
      };
    }
    case 'short':
      return { held: false, reason: 'short', poolId: poolAt(rest[0]), available: Number(rest[1]) };
    case 'unknown_pool':
      return { held: false, reason: 'unknown_pool', poolId: poolAt(rest[0]) };
    default:
      return { held: false, reason: 'already_held' };
  }
}

/** Per pool of a release: its counter, then its waiting list's reserve and demand. */
const releaseKeys = (eventId: string, poolId: string) => [availabilityKey(eventId, poolId), waitlistReserveKey(eventId, poolId), waitlistDemandKey(eventId, poolId)];

export class HoldBook {
  private readonly commands: HoldCommands;
  private readonly holdTogether: (hold: AskedHold) => Promise<HoldOutcome>;

  constructor(
    private readonly redis: RedisClient,
    private readonly gate?: StockGate,
  ) {
    defineScript(redis, 'holdStock', HOLD);
    defineScript(redis, 'releaseHold', RELEASE);
    defineScript(redis, 'commitHold', COMMIT);
    defineScript(redis, 'restoreStock', RESTORE);
    defineScript(redis, 'reinstateHold', REINSTATE);
    this.commands = redis as unknown as HoldCommands;
    this.holdTogether = batchWrites<AskedHold, HoldOutcome>({ key: (hold) => `${hold.eventId}/${hold.holdId}`, write: (holds) => this.holdMany(holds) });
  }

  /** Throws while Redis may not be used; callers ask before changing PostgreSQL. */
  assertUsable(eventId?: string): void {
    this.gate?.check(eventId);
  }

  get usable(): boolean {
    return this.gate?.anyOpen ?? true;
  }

  /** Holds every pool's quantity or nothing. Two lines on one pool must be merged by the caller. */
  async hold(eventId: string, holdId: string, pools: PoolQuantity[], expiresAt: Date): Promise<HoldOutcome> {
    this.assertUsable(eventId);
    if (new Set(pools.map((pool) => pool.poolId)).size !== pools.length) throw new Error('pools must be merged before holding');
    return this.holdTogether({ eventId, holdId, pools, expiresAt });
  }

  /**
   * One script call per event for the holds asked for together (batchWrites
   * gathers them; a repeated id goes after). A call that fails fails the
   * holds of its event only: the other events' holds were taken and keep
   * their answers (a retry would find them already held, without the
   * crossings they caused).
   */
  private async holdMany(holds: readonly AskedHold[]): Promise<Array<HoldOutcome | Error>> {
    const byEvent = new Map<string, number[]>();
    holds.forEach((hold, index) => {
      const ofEvent = byEvent.get(hold.eventId);
      if (ofEvent) ofEvent.push(index);
      else byEvent.set(hold.eventId, [index]);
    });
    const outcomes: Array<HoldOutcome | Error> = [];
    await Promise.all(
      [...byEvent].map(async ([eventId, indexes]) => {
        const ofEvent = indexes.map((index) => holds[index]!);
        try {
          const replies = await this.holdOfEvent(eventId, ofEvent);
          indexes.forEach((index, n) => (outcomes[index] = holdOutcome(replies[n]!, ofEvent[n]!.pools)));
        } catch (error) {
          for (const index of indexes) outcomes[index] = error instanceof Error ? error : new Error(String(error));
        }
      }),
    );
    return outcomes;
  }

  private holdOfEvent(eventId: string, holds: AskedHold[]): Promise<Array<Array<string | number>>> {
    const counters = [...new Set(holds.flatMap((hold) => hold.pools.map((pool) => pool.poolId)))];
    const counterAt = new Map(counters.map((poolId, index) => [poolId, 2 + holds.length + index]));
    const keys = [expiryKey(eventId), ...holds.map((hold) => holdKey(eventId, hold.holdId)), ...counters.map((poolId) => availabilityKey(eventId, poolId))];
    const args = [
      holds.length,
      ...holds.flatMap((hold) => [
        hold.holdId,
        hold.expiresAt.getTime(),
        JSON.stringify({ pools: hold.pools.map(({ poolId, quantity }) => ({ poolId, quantity })) } satisfies HoldRecord),
        hold.pools.length,
        ...hold.pools.flatMap((pool) => [counterAt.get(pool.poolId)!, pool.quantity, pool.threshold]),
      ]),
    ];
    return this.commands.holdStock(keys.length, ...keys, ...args);
  }

  /** Whether Redis has taken this hold (its record is there). */
  async isHeld(eventId: string, holdId: string): Promise<boolean> {
    this.assertUsable();
    return (await this.redis.exists(holdKey(eventId, holdId))) === 1;
  }

  /** Returns the hold's tickets to stock; false when there was no such hold (already released or committed). */
  async release(eventId: string, holdId: string): Promise<boolean> {
    this.assertUsable(eventId);
    const record = await this.redis.get(holdKey(eventId, holdId));
    if (!record) return false;
    const { pools } = JSON.parse(record) as HoldRecord;
    const keys = [holdKey(eventId, holdId), expiryKey(eventId), ...pools.flatMap((pool) => releaseKeys(eventId, pool.poolId))];
    return (await this.commands.releaseHold(keys.length, ...keys, holdId, ...pools.map((pool) => pool.quantity))) === 1;
  }

  /** The hold becomes a sale: its tickets stay out of stock. False when there was no such hold. */
  async commit(eventId: string, holdId: string): Promise<boolean> {
    this.assertUsable(eventId);
    return (await this.commands.commitHold(2, holdKey(eventId, holdId), expiryKey(eventId), holdId)) === 1;
  }

  /**
   * Writes the record of a sold hold back (counters unchanged), so that
   * release returns its tickets. A record still there (the sale never
   * reached Redis) is kept. False when a counter is missing: the rebuild
   * from PostgreSQL writes the record back instead.
   */
  async reinstate(eventId: string, holdId: string, pools: Array<{ poolId: string; quantity: number }>, expiresAt: Date): Promise<boolean> {
    this.assertUsable(eventId);
    const record: HoldRecord = { pools };
    const keys = [holdKey(eventId, holdId), expiryKey(eventId), ...pools.map((pool) => availabilityKey(eventId, pool.poolId))];
    return (await this.commands.reinstateHold(keys.length, ...keys, holdId, expiresAt.getTime(), JSON.stringify(record))) === 1;
  }

  /**
   * Sets a missing pool counter to `available` and writes back the records
   * of the holds still live on the pool (those not already in Redis), in one
   * step. False when the counter exists: someone rebuilt it first.
   */
  async restore(eventId: string, poolId: string, available: number, holds: RestoredHold[]): Promise<boolean> {
    this.assertUsable(eventId);
    const keys = [availabilityKey(eventId, poolId), expiryKey(eventId), waitlistReserveKey(eventId, poolId), ...holds.map((hold) => holdKey(eventId, hold.id))];
    const args = [available, ...holds.flatMap((hold) => [hold.id, hold.expiresAt, JSON.stringify({ pools: hold.pools } satisfies HoldRecord)])];
    return (await this.commands.restoreStock(keys.length, ...keys, ...args)) === 1;
  }

  /** Holds of an event whose time passed before `before`, oldest first. */
  async expired(eventId: string, before: Date, limit = 500): Promise<string[]> {
    this.assertUsable(eventId);
    return this.redis.zrangebyscore(expiryKey(eventId), 0, before.getTime(), 'LIMIT', 0, limit);
  }

  /** Events with any hold record in Redis, on every open shard. */
  async eventsWithHolds(): Promise<string[]> {
    const keys = await scanEverywhere(this.redis, '{ev:*}:holds');
    return keys.map((key) => key.slice('{ev:'.length, key.indexOf('}')));
  }
}
