/**
 * The waiting rooms' state in Redis, shared by every orders process: per
 * event a settings hash, the queue (a sorted set of visitor ids), the
 * arrival counter, the admitted visitors (a sorted set scored by the
 * admission time), the visitors who used their pass, and per-address pass
 * counts. Every key of an event carries the hash tag `{<org>:<event>}`, so
 * an event's keys share one Redis Cluster slot and each script below runs
 * on one shard, atomically. Times come from the Redis server's clock
 * (TIME), the one clock every replica shares.
 *
 * Queue order: a visitor who arrives before the opening is scored with a
 * random number in [0, 1) drawn by the caller, one who arrives after with
 * 1 + their arrival number. At the opening the pre-open visitors therefore
 * stand in a random order, ahead of everyone after them, who stand first
 * come first served. Ranks never change (admitted visitors stay in the
 * set), so "admitted" is a boundary in the queue: every rank below
 * base_count + rate × (seconds since base_ms) has had its turn. Turns
 * nobody was in line for are not saved up: a visit that finds the boundary
 * past the end of the line moves it back there (one turn ahead).
 */
import { defineScript, type RedisClient } from '@partner-api/shared';

export interface StoredSettings {
  enabled: boolean;
  opensAtMs: number;
  /** Visitors per second; 0 means automatic (the service's configured rate). */
  rate: number;
}

export interface VisitLimits {
  /** The rate "automatic" stands for. */
  automaticRate: number;
  /** How long a visitor whose turn came may still claim their pass. */
  turnSeconds: number;
  /** Passes one address may take per event within addressWindowSeconds. */
  passesPerAddress: number;
  addressWindowSeconds: number;
}

export type VisitOutcome =
  | { kind: 'off' }
  | { kind: 'before_opening'; opensInMs: number }
  | { kind: 'waiting'; position: number; rate: number }
  | { kind: 'admitted'; admittedAtMs: number; again: boolean }
  | { kind: 'turn_lapsed' }
  | { kind: 'address_limited' };

export interface RoomStats {
  settings: StoredSettings | null;
  joined: number;
  waiting: number;
  admitted: number;
  passesUsed: number;
  rate: number;
}

/** Reads the settings and the boundary; shared by the scripts (Lua has no modules in EVAL). */
const BOUNDARY = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function boundary_of(s, now, automatic)
  local opens = tonumber(s[2]) or 0
  local rate = tonumber(s[3]) or 0
  if rate <= 0 then rate = automatic end
  local base_count = tonumber(s[4]) or 0
  local base_ms = math.max(tonumber(s[5]) or opens, opens)
  if now < base_ms then return base_count, rate end
  return base_count + math.floor(rate * (now - base_ms) / 1000), rate
end
`;

/**
 * One page load: joins the visitor if new and answers where they stand.
 * KEYS: settings, queue, arrivals, admitted, address count.
 * ARGV: visitor, random score, automatic rate, turn seconds, passes per address, address window seconds.
 */
const VISIT = `${BOUNDARY}
local s = redis.call('HMGET', KEYS[1], 'enabled', 'opens_at_ms', 'rate', 'base_count', 'base_ms')
if s[1] ~= '1' then return {'off'} end
local now = now_ms()
local opens = tonumber(s[2])
local visitor = ARGV[1]
local rank = redis.call('ZRANK', KEYS[2], visitor)
if now < opens then
  if not rank then redis.call('ZADD', KEYS[2], ARGV[2], visitor) end
  return {'before_opening', opens - now}
end
local boundary, rate = boundary_of(s, now, tonumber(ARGV[3]))
local size = redis.call('ZCARD', KEYS[2])
if boundary > size then
  -- Turns nobody was there to take are not saved up: the boundary restarts at the end of the line, one turn ahead.
  s[4] = size
  s[5] = now - math.ceil(1000 / rate)
  redis.call('HSET', KEYS[1], 'base_count', s[4], 'base_ms', s[5])
  boundary = boundary_of(s, now, tonumber(ARGV[3]))
end
if not rank then
  redis.call('ZADD', KEYS[2], 1 + redis.call('INCR', KEYS[3]), visitor)
  rank = size
end
if rank >= boundary then return {'waiting', rank - boundary + 1, tostring(rate)} end
local admitted_at = redis.call('ZSCORE', KEYS[4], visitor)
if admitted_at then return {'admitted', admitted_at, 1} end
if boundary - rank > rate * tonumber(ARGV[4]) then return {'turn_lapsed'} end
local passes = tonumber(redis.call('GET', KEYS[5]) or '0')
if passes >= tonumber(ARGV[5]) then return {'address_limited'} end
redis.call('INCR', KEYS[5])
if passes == 0 then redis.call('EXPIRE', KEYS[5], ARGV[6]) end
redis.call('ZADD', KEYS[4], now, visitor)
return {'admitted', tostring(now), 0}`;

/**
 * A visitor whose turn lapsed (or whose pass expired) joins the back again.
 * KEYS: settings, queue, arrivals, admitted. ARGV: visitor.
 */
const REJOIN = `
if redis.call('HGET', KEYS[1], 'enabled') ~= '1' then return 0 end
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('ZADD', KEYS[2], 1 + redis.call('INCR', KEYS[3]), ARGV[1])
return 1`;

/**
 * Writes the settings. A rate change on an open queue keeps the boundary
 * where it is and counts on from now, so nobody's turn jumps.
 * KEYS: settings, queue. ARGV: enabled, opens_at_ms, rate, automatic rate.
 */
const CONFIGURE = `${BOUNDARY}
local s = redis.call('HMGET', KEYS[1], 'enabled', 'opens_at_ms', 'rate', 'base_count', 'base_ms')
local now = now_ms()
local base_count, base_ms = 0, tonumber(ARGV[2])
if s[1] == '1' and tonumber(s[2]) and now >= tonumber(s[2]) then
  base_count = math.min(boundary_of(s, now, tonumber(ARGV[4])), redis.call('ZCARD', KEYS[2]))
  base_ms = math.max(now, tonumber(ARGV[2]))
end
redis.call('HSET', KEYS[1], 'enabled', ARGV[1], 'opens_at_ms', ARGV[2], 'rate', ARGV[3], 'base_count', base_count, 'base_ms', base_ms)
return 1`;

/** KEYS: settings, queue, admitted, used. ARGV: automatic rate. */
const STATS = `${BOUNDARY}
local s = redis.call('HMGET', KEYS[1], 'enabled', 'opens_at_ms', 'rate', 'base_count', 'base_ms')
local joined = redis.call('ZCARD', KEYS[2])
local boundary, rate = 0, 0
if s[2] then boundary, rate = boundary_of(s, now_ms(), tonumber(ARGV[1])) end
return {s[1] or '', s[2] or '', s[3] or '', joined, math.max(0, joined - boundary), redis.call('ZCARD', KEYS[3]), redis.call('SCARD', KEYS[4]), tostring(rate)}`;

type Scripts = RedisClient & {
  waitingRoomVisit(...args: Array<string | number>): Promise<Array<string | number>>;
  waitingRoomRejoin(...args: Array<string | number>): Promise<number>;
  waitingRoomConfigure(...args: Array<string | number>): Promise<number>;
  waitingRoomStats(...args: Array<string | number>): Promise<Array<string | number>>;
};

/** An event's queue, as one organisation's event id (never a slug: one event, one queue). */
export interface RoomKey {
  organisationId: number;
  eventId: string;
}

export class WaitingRoomStore {
  /** Defines its scripts on the client: call before the client's first command (see defineScript). */
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix = 'orders:waiting-room:',
  ) {
    defineScript(redis, 'waitingRoomVisit', VISIT, 5);
    defineScript(redis, 'waitingRoomRejoin', REJOIN, 4);
    defineScript(redis, 'waitingRoomConfigure', CONFIGURE, 2);
    defineScript(redis, 'waitingRoomStats', STATS, 4);
  }

  /** Every key of one event, in one cluster slot. */
  keysOf(room: RoomKey) {
    const base = `${this.prefix}{${room.organisationId}:${room.eventId}}:`;
    return {
      settings: `${base}settings`,
      queue: `${base}queue`,
      arrivals: `${base}arrivals`,
      admitted: `${base}admitted`,
      used: `${base}used`,
      address: (address: string) => `${base}address:${address}`,
    };
  }

  private get scripts(): Scripts {
    return this.redis as Scripts;
  }

  async configure(room: RoomKey, settings: StoredSettings, automaticRate: number): Promise<void> {
    const keys = this.keysOf(room);
    await this.scripts.waitingRoomConfigure(keys.settings, keys.queue, settings.enabled ? '1' : '0', settings.opensAtMs, settings.rate, automaticRate);
  }

  /** One round trip: joins the visitor when new, and admits them when their turn has come. */
  async visit(room: RoomKey, visitorId: string, address: string, randomScore: number, limits: VisitLimits): Promise<VisitOutcome> {
    const keys = this.keysOf(room);
    const reply = await this.scripts.waitingRoomVisit(
      keys.settings, keys.queue, keys.arrivals, keys.admitted, keys.address(address),
      visitorId, randomScore, limits.automaticRate, limits.turnSeconds, limits.passesPerAddress, limits.addressWindowSeconds,
    );
    switch (reply[0]) {
      case 'off':
        return { kind: 'off' };
      case 'before_opening':
        return { kind: 'before_opening', opensInMs: Number(reply[1]) };
      case 'waiting':
        return { kind: 'waiting', position: Number(reply[1]), rate: Number(reply[2]) };
      case 'admitted':
        return { kind: 'admitted', admittedAtMs: Number(reply[1]), again: Number(reply[2]) === 1 };
      case 'turn_lapsed':
        return { kind: 'turn_lapsed' };
      case 'address_limited':
        return { kind: 'address_limited' };
      default:
        throw new Error(`waiting room: unexpected reply ${String(reply[0])}`);
    }
  }

  async rejoin(room: RoomKey, visitorId: string): Promise<boolean> {
    const keys = this.keysOf(room);
    return (await this.scripts.waitingRoomRejoin(keys.settings, keys.queue, keys.arrivals, keys.admitted, visitorId)) === 1;
  }

  /** Counts a pass's first use (the sale form sent with it); true the first time. */
  async markUsed(room: RoomKey, visitorId: string): Promise<boolean> {
    return (await this.redis.sadd(this.keysOf(room).used, visitorId)) === 1;
  }

  async stats(room: RoomKey, automaticRate: number): Promise<RoomStats> {
    const keys = this.keysOf(room);
    const [enabled, opensAt, rate, joined, waiting, admitted, used, currentRate] = await this.scripts.waitingRoomStats(keys.settings, keys.queue, keys.admitted, keys.used, automaticRate);
    return {
      settings: opensAt === '' ? null : { enabled: enabled === '1', opensAtMs: Number(opensAt), rate: Number(rate) },
      joined: Number(joined),
      waiting: Number(waiting),
      admitted: Number(admitted),
      passesUsed: Number(used),
      rate: Number(currentRate),
    };
  }

  /** Settings only, for a quick "is the queue on" (one HMGET). */
  async settings(room: RoomKey): Promise<StoredSettings | null> {
    const [enabled, opensAt, rate] = await this.redis.hmget(this.keysOf(room).settings, 'enabled', 'opens_at_ms', 'rate');
    return opensAt == null ? null : { enabled: enabled === '1', opensAtMs: Number(opensAt), rate: Number(rate) };
  }

  /** The queue in order (tests and the benchmark's check of the order). */
  async order(room: RoomKey): Promise<string[]> {
    return this.redis.zrange(this.keysOf(room).queue, '0', '-1');
  }
}
