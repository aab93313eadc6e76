/**
 * Seats for open event streams, counted per organisation across every
 * gateway process (D370): one sorted set in Redis per organisation, a
 * member per open stream scored with when its lease ends (Redis's own
 * clock, so processes need not agree on the time). Taking a seat first
 * drops the lapsed ones, so the seats of a gateway that died without
 * giving them back are free again within one lease; a stream renews its
 * seat while it runs and gives it back when it ends.
 */
import { defineScript, randomBase62, type RedisClient } from '@partner-api/shared';

/** How long a seat lasts without renewal: what a crashed gateway's streams hold on to at most. */
const SEAT_LEASE_MS = 60_000;

const NOW_MS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

// KEYS[1] = the organisation's seats; ARGV = seat, seats allowed, lease ms. 1 when taken, 0 when every seat is held.
const TAKE_SCRIPT = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

// KEYS[1] = the organisation's seats; ARGV = seat, lease ms. The seat is held again if it had lapsed meanwhile.
const RENEW_SCRIPT = `${NOW_MS}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

interface SeatCommands {
  takeStreamSeat(key: string, seat: string, allowed: number, leaseMs: number): Promise<number>;
  renewStreamSeat(key: string, seat: string, leaseMs: number): Promise<number>;
}

/** One open stream's seat. */
export interface StreamSeat {
  renew(): Promise<void>;
  release(): Promise<void>;
}

export class StreamSeats {
  /** How often an open stream renews its seat: three times a lease, so one failed renewal loses nothing. */
  readonly renewEveryMs: number;
  private readonly commands: SeatCommands;

  constructor(
    private readonly redis: RedisClient,
    private readonly leaseMs = SEAT_LEASE_MS,
  ) {
    defineScript(redis, 'takeStreamSeat', TAKE_SCRIPT, 1);
    defineScript(redis, 'renewStreamSeat', RENEW_SCRIPT, 1);
    this.commands = redis as unknown as SeatCommands;
    this.renewEveryMs = leaseMs / 3;
  }

  /** A seat for one more stream of the organisation, or undefined when `allowed` are open already. */
  async take(organisationId: number, allowed: number): Promise<StreamSeat | undefined> {
    const key = `gw:streams:{org:${organisationId}}`;
    const seat = randomBase62(16);
    if ((await this.commands.takeStreamSeat(key, seat, allowed, this.leaseMs)) !== 1) return undefined;
    return {
      renew: async () => void (await this.commands.renewStreamSeat(key, seat, this.leaseMs)),
      release: async () => void (await this.redis.zrem(key, seat)),
    };
  }
}
