/**
 * Fixed 60-second windows per key, counted in Redis by one Lua script so
 * every gateway replica shares the count exactly. RateLimit-* headers go on
 * every response of an identified key; Retry-After on 429.
 */
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { ApiError } from '@partner-api/shared';
import { rateLimitFor, type StoredKey } from '../../domain/api-keys';

export const WINDOW_SECONDS = 60;

// KEYS[1] = window counter; ARGV[1] = window length in ms.
// Returns {count, ms until the window's counter expires}.
const FIXED_WINDOW_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

/** The script, registered with defineCommand (EVALSHA, falling back to EVAL). */
interface RateLimitCommands {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
}

export function rateLimit(redis: Redis, clock: () => number = Date.now): RequestHandler {
  redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: FIXED_WINDOW_SCRIPT });
  const commands = redis as unknown as RateLimitCommands;
  return async (_req, res, next) => {
    const key = res.locals.key as StoredKey;
    const limit = rateLimitFor(key);
    const now = clock();
    const window = Math.floor(now / (WINDOW_SECONDS * 1000));
    const windowEndsInMs = (window + 1) * WINDOW_SECONDS * 1000 - now;
    const [count] = await commands.rateLimitHit(`rl:{${key.id}}:${window}`, windowEndsInMs + 1000);
    const reset = Math.max(1, Math.ceil(windowEndsInMs / 1000));
    res.setHeader('RateLimit-Limit', String(limit));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - count)));
    res.setHeader('RateLimit-Reset', String(reset));
    if (count > limit) {
      res.setHeader('Retry-After', String(reset));
      throw new ApiError('rate_limited', `Too many requests: this key allows ${limit} per minute. Retry after ${reset} seconds.`);
    }
    next();
  };
}
