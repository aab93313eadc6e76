/**
 * The Redis side of waiting lists. Releases (hold-book.ts) and capacity
 * increases (stock-store.ts) move returning tickets into a pool's reserve
 * while its demand asks for more than is reserved; this module turns
 * reserved tickets into offer holds and keeps the demand in step with
 * PostgreSQL. All in one script per call, on the event's shard.
 */
import { defineScript, type RedisClient } from '@partner-api/shared';
import { expiryKey, holdKey, type HoldRecord, type StockGate } from './hold-book';
import { availabilityKey, waitlistDemandKey, waitlistReserveKey } from './stock-keys';

// KEYS: 1 reserve, 2 demand, 3 counter, 4 expiry index, 5.. offer hold records.
// ARGV: 1 demand still waiting, then per offer: hold id, quantity, expiry (ms), record JSON.
// An offer already taken (its record exists) is skipped, so a repeat takes nothing twice. With
// nobody left waiting, what the reserve still has goes back on general sale.
const TAKE_OFFERS = `
local taken = {}
for i = 5, #KEYS do
  local at = 2 + (i - 5) * 4
  local quantity = tonumber(ARGV[at + 1])
  if redis.call('EXISTS', KEYS[i]) == 1 then
    table.insert(taken, ARGV[at])
  elseif tonumber(redis.call('GET', KEYS[1]) or '0') >= quantity then
    redis.call('DECRBY', KEYS[1], quantity)
    redis.call('SET', KEYS[i], ARGV[at + 3])
    redis.call('ZADD', KEYS[4], ARGV[at + 2], ARGV[at])
    table.insert(taken, ARGV[at])
  end
end
redis.call('SET', KEYS[2], ARGV[1])
if tonumber(ARGV[1]) == 0 and redis.call('EXISTS', KEYS[3]) == 1 then
  local left = tonumber(redis.call('GET', KEYS[1]) or '0')
  if left > 0 then redis.call('INCRBY', KEYS[3], left) end
  redis.call('DEL', KEYS[1])
end
return taken
`;

// KEYS: 1 counter, 2 reserve, 3 demand. ARGV: 1 most to move.
// An operator's release: tickets on general sale move to the reserve, as many as the list asks for beyond it.
const RESERVE_AVAILABLE = `
local left = tonumber(redis.call('GET', KEYS[1]) or '0')
local wanted = tonumber(redis.call('GET', KEYS[3]) or '0') - tonumber(redis.call('GET', KEYS[2]) or '0')
local moved = math.min(tonumber(ARGV[1]), left, math.max(0, wanted))
if moved <= 0 then return 0 end
redis.call('DECRBY', KEYS[1], moved)
redis.call('INCRBY', KEYS[2], moved)
return moved
`;

interface WaitlistCommands {
  takeWaitlistOffers(...args: (string | number)[]): Promise<string[]>;
  reserveAvailable(...args: (string | number)[]): Promise<number>;
}

export interface OfferHold {
  holdId: string;
  quantity: number;
  expiresAt: Date;
}

export class WaitlistStock {
  private readonly commands: WaitlistCommands;

  constructor(
    private readonly redis: RedisClient,
    private readonly gate?: StockGate,
  ) {
    defineScript(redis, 'takeWaitlistOffers', TAKE_OFFERS);
    defineScript(redis, 'reserveAvailable', RESERVE_AVAILABLE, 3);
    this.commands = redis as unknown as WaitlistCommands;
  }

  /** The pool's reserve, and the demand Redis has for it (null when it has none, as after a loss). */
  async listState(eventId: string, poolId: string): Promise<{ reserved: number; demand: number | null }> {
    this.gate?.check(eventId);
    // Two GETs of one event's keys, sent together by the auto-pipelining client.
    const [reserved, demand] = await Promise.all([this.redis.get(waitlistReserveKey(eventId, poolId)), this.redis.get(waitlistDemandKey(eventId, poolId))]);
    return { reserved: Number(reserved ?? 0), demand: demand === null ? null : Number(demand) };
  }

  /**
   * Takes each offer's tickets out of the reserve as a hold (once per hold
   * id) and sets the demand still waiting; with none, the reserve goes back
   * on sale. Returns the hold ids Redis now holds.
   */
  async takeOffers(eventId: string, poolId: string, offers: OfferHold[], waitingDemand: number): Promise<Set<string>> {
    this.gate?.check(eventId);
    const keys = [
      waitlistReserveKey(eventId, poolId),
      waitlistDemandKey(eventId, poolId),
      availabilityKey(eventId, poolId),
      expiryKey(eventId),
      ...offers.map((offer) => holdKey(eventId, offer.holdId)),
    ];
    const args = offers.flatMap((offer) => {
      const record: HoldRecord = { pools: [{ poolId, quantity: offer.quantity }] };
      return [offer.holdId, offer.quantity, offer.expiresAt.getTime(), JSON.stringify(record)];
    });
    return new Set(await this.commands.takeWaitlistOffers(keys.length, ...keys, waitingDemand, ...args));
  }

  /** Moves up to `count` tickets on general sale into the reserve, as far as the list asks for them; returns how many. */
  async reserveAvailable(eventId: string, poolId: string, count: number): Promise<number> {
    this.gate?.check(eventId);
    return Number(
      await this.commands.reserveAvailable(availabilityKey(eventId, poolId), waitlistReserveKey(eventId, poolId), waitlistDemandKey(eventId, poolId), count),
    );
  }

  /** Sets the pool's demand (a join, before the allocator's next pass). */
  async setDemand(eventId: string, poolId: string, demand: number): Promise<void> {
    this.gate?.check(eventId);
    await this.redis.set(waitlistDemandKey(eventId, poolId), demand);
  }
}
