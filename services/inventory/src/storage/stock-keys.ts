/**
 * The Redis keys of an event's stock, and the one step the release and
 * adjust scripts share (returning tickets to a pool). Every key of one
 * event carries the hash tag `{ev:<id>}`, so the scripts over an event run
 * on one Redis Cluster shard.
 */

/** Tickets left for sale in a pool. */
export const availabilityKey = (eventId: string, poolId: string) => `{ev:${eventId}}:avail:${poolId}`;
/** Tickets that came back while people waited, kept off general sale for the pool's waiting list. */
export const waitlistReserveKey = (eventId: string, poolId: string) => `{ev:${eventId}}:wl-reserve:${poolId}`;
/** Tickets the pool's waiting entries still ask for (set from PostgreSQL by WaitlistDesk); missing means none. */
export const waitlistDemandKey = (eventId: string, poolId: string) => `{ev:${eventId}}:wl-demand:${poolId}`;

/**
 * Lua: `return_tickets(counter, reserve, demand, quantity)` returns
 * `quantity` tickets to a pool, given the names of its counter, its waiting
 * list's reserve and demand. A counter below zero is paid back first: a
 * rebuild counted holds whose takes were still in flight, so those tickets
 * never existed to give. Then the waiting list's reserve gets what the list
 * asks for beyond it, and the counter the rest.
 */
export const RETURN_TICKETS_LUA = `
local function return_tickets(counter, reserve, demand, quantity)
  local owed = math.min(quantity, math.max(0, -tonumber(redis.call('GET', counter) or '0')))
  local wanted = tonumber(redis.call('GET', demand) or '0') - tonumber(redis.call('GET', reserve) or '0')
  local reserved = math.min(quantity - owed, math.max(0, wanted))
  if reserved > 0 then redis.call('INCRBY', reserve, reserved) end
  if quantity > reserved then return redis.call('INCRBY', counter, quantity - reserved) end
  return tonumber(redis.call('GET', counter) or '0')
end
`;
