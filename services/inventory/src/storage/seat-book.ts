/**
 * The live seat state of an event in Redis: one hash, `{ev:<id>}:seats`, on
 * the event's shard (its hash tag), changed only by Lua scripts so each step
 * is atomic. A field per taken seat:
 *
 * - `h|<expiry ms>|<hold id>`: held until the expiry, then free;
 * - `s|<hold id>`: sold;
 * - `b`: blocked.
 *
 * The field `_ready` marks a hash rebuilt from PostgreSQL: without it (a
 * new event, or Redis lost its data and the RedisGate dropped `{ev:*`) the
 * scripts answer `missing` and touch nothing, and the caller restores the
 * hash from the durable record first (restore writes only while `_ready`
 * is missing, so concurrent rebuilders agree).
 */
import { defineScript, type RedisClient } from '@partner-api/shared';
import type { StockGate } from './hold-book';
import type { SeatStateRow } from './seat-hold-repository';

export const seatsKey = (eventId: string) => `{ev:${eventId}}:seats`;
const READY = '_ready';

// Lua helper: a held field's expiry and hold id.
const PARSE = `
local function held(v)
  local bar = string.find(v, '|', 3, true)
  return tonumber(string.sub(v, 3, bar - 1)), string.sub(v, bar + 1)
end
`;

// KEYS: 1 seats. ARGV: 1 hold id ('' for a block), 2 now (ms), 3 the value to write, 4.. seat ids.
// All or nothing: {'taken', seats...} when another hold (not expired), a sale or a block has any; a seat this hold has keeps its expiry.
// A block writes 'b' and finds seats already blocked its own.
const HOLD = `${PARSE}
if redis.call('HEXISTS', KEYS[1], '${READY}') == 0 then return {'missing'} end
local id, now = ARGV[1], tonumber(ARGV[2])
local answer = {'taken'}
local mine = {}
for i = 4, #ARGV do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  if v then
    if string.sub(v, 1, 1) == 'h' then
      local expiry, owner = held(v)
      if expiry > now then
        if owner == id then mine[i] = true else table.insert(answer, ARGV[i]) end
      end
    elseif v == 'b' and id == '' then
      mine[i] = true
    else
      table.insert(answer, ARGV[i])
    end
  end
end
if #answer > 1 then return answer end
for i = 4, #ARGV do
  if not mine[i] then redis.call('HSET', KEYS[1], ARGV[i], ARGV[3]) end
end
return {'held'}
`;

// KEYS: 1 seats. ARGV: 1 hold id, 2.. seat ids. Frees the seats this hold holds (expired or not); the count freed.
const RELEASE = `${PARSE}
local freed = 0
for i = 2, #ARGV do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  if v and string.sub(v, 1, 1) == 'h' then
    local _, owner = held(v)
    if owner == ARGV[1] then redis.call('HDEL', KEYS[1], ARGV[i]) freed = freed + 1 end
  end
end
return freed
`;

// KEYS: 1 seats. ARGV: seat ids. Frees the blocked ones; the count freed.
const UNBLOCK = `
local freed = 0
for i = 1, #ARGV do
  if redis.call('HGET', KEYS[1], ARGV[i]) == 'b' then redis.call('HDEL', KEYS[1], ARGV[i]) freed = freed + 1 end
end
return freed
`;

// KEYS: 1 seats. ARGV: 1 hold id, 2.. seat ids. PostgreSQL sold them: marks them sold whatever Redis had (-1 when the hash is missing: the rebuild reads the sale).
const SELL = `
if redis.call('HEXISTS', KEYS[1], '${READY}') == 0 then return -1 end
for i = 2, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], 's|' .. ARGV[1]) end
return #ARGV - 1
`;

// KEYS: 1 seats. ARGV: field, value pairs. Only while the hash is missing: one that exists was rebuilt by someone else.
const RESTORE = `
if redis.call('HEXISTS', KEYS[1], '${READY}') == 1 then return 0 end
redis.call('DEL', KEYS[1])
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], '${READY}', '1')
return 1
`;

interface SeatCommands {
  holdSeats(key: string, ...args: Array<string | number>): Promise<string[]>;
  releaseSeats(key: string, ...args: string[]): Promise<number>;
  sellSeats(key: string, ...args: string[]): Promise<number>;
  restoreSeats(key: string, ...args: string[]): Promise<number>;
  unblockSeats(key: string, ...args: string[]): Promise<number>;
}

export type SeatHoldOutcome = { held: true } | { held: false; reason: 'taken'; seats: string[] } | { held: false; reason: 'missing' };

/** A seat's state as Redis keeps it. */
export type LiveSeat = { state: 'held'; holdId: string; expiresAt: number } | { state: 'sold'; holdId: string } | { state: 'blocked' };

export function seatValue(row: SeatStateRow): string {
  if (row.state === 'held') return `h|${row.expires_at!.getTime()}|${row.hold_id}`;
  if (row.state === 'sold') return `s|${row.hold_id}`;
  return 'b';
}

function liveSeat(value: string): LiveSeat {
  if (value.startsWith('h|')) {
    const bar = value.indexOf('|', 2);
    return { state: 'held', expiresAt: Number(value.slice(2, bar)), holdId: value.slice(bar + 1) };
  }
  if (value.startsWith('s|')) return { state: 'sold', holdId: value.slice(2) };
  return { state: 'blocked' };
}

export class SeatBook {
  private readonly commands: SeatCommands;

  constructor(
    private readonly redis: RedisClient,
    private readonly gate?: StockGate,
  ) {
    defineScript(redis, 'holdSeats', HOLD, 1);
    defineScript(redis, 'releaseSeats', RELEASE, 1);
    defineScript(redis, 'sellSeats', SELL, 1);
    defineScript(redis, 'restoreSeats', RESTORE, 1);
    defineScript(redis, 'unblockSeats', UNBLOCK, 1);
    this.commands = redis as unknown as SeatCommands;
  }

  /** Throws while Redis may not be used (see redis-gate.ts); callers ask before changing PostgreSQL. */
  assertUsable(eventId: string): void {
    this.gate?.check(eventId);
  }

  async hold(eventId: string, holdId: string, seatIds: readonly string[], expiresAt: Date, now: Date): Promise<SeatHoldOutcome> {
    return this.take(eventId, holdId, `h|${expiresAt.getTime()}|${holdId}`, seatIds, now);
  }

  /** Blocks every seat or none, like a hold that never expires; seats blocked already stay blocked. */
  block(eventId: string, seatIds: readonly string[], now: Date): Promise<SeatHoldOutcome> {
    return this.take(eventId, '', 'b', seatIds, now);
  }

  /** Frees the blocked seats among `seatIds`; the count freed. */
  async unblock(eventId: string, seatIds: readonly string[]): Promise<number> {
    this.assertUsable(eventId);
    if (seatIds.length === 0) return 0;
    return this.commands.unblockSeats(seatsKey(eventId), ...seatIds);
  }

  private async take(eventId: string, holdId: string, value: string, seatIds: readonly string[], now: Date): Promise<SeatHoldOutcome> {
    this.assertUsable(eventId);
    const [status, ...seats] = await this.commands.holdSeats(seatsKey(eventId), holdId, now.getTime(), value, ...seatIds);
    if (status === 'held') return { held: true };
    if (status === 'missing') return { held: false, reason: 'missing' };
    return { held: false, reason: 'taken', seats: seats.sort() };
  }

  /** Frees the seats among `seatIds` that this hold has; the count freed. */
  async release(eventId: string, holdId: string, seatIds: readonly string[]): Promise<number> {
    this.assertUsable(eventId);
    if (seatIds.length === 0) return 0;
    return this.commands.releaseSeats(seatsKey(eventId), holdId, ...seatIds);
  }

  /** Marks seats PostgreSQL recorded sold; false when the hash is missing (its rebuild reads them sold). */
  async sell(eventId: string, holdId: string, seatIds: readonly string[]): Promise<boolean> {
    this.assertUsable(eventId);
    if (seatIds.length === 0) return true;
    return (await this.commands.sellSeats(seatsKey(eventId), holdId, ...seatIds)) >= 0;
  }

  /** Writes a missing hash from the durable record's taken seats; false when it exists (someone rebuilt it first). */
  async restore(eventId: string, taken: readonly SeatStateRow[]): Promise<boolean> {
    this.assertUsable(eventId);
    return (await this.commands.restoreSeats(seatsKey(eventId), ...taken.flatMap((row) => [row.seat_id, seatValue(row)]))) === 1;
  }

  /** Every taken seat as Redis has it (expired holds included); undefined when the hash is missing. */
  async seats(eventId: string): Promise<Map<string, LiveSeat> | undefined> {
    this.assertUsable(eventId);
    const fields = await this.redis.hgetall(seatsKey(eventId));
    if (fields[READY] === undefined) return undefined;
    delete fields[READY];
    return new Map(Object.entries(fields).map(([seat, value]) => [seat, liveSeat(value)]));
  }
}
