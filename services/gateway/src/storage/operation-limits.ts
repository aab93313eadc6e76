/**
 * Per-organisation limits on single operations (a replay), on top of each
 * key's own limit: a fixed 60-second window counted in Redis, like the
 * key's, but shared by every key of the organisation so that a storm of
 * replays cannot be spread over several keys. One key per organisation,
 * operation and window, expiring with its window.
 */
import type { RedisClient } from '@partner-api/shared';
import { WINDOW_SECONDS } from './key-admission';

// KEYS[1] = window counter; ARGV[1] = window ms. Returns the count including this request.
const COUNT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`;

interface LimitCommands {
  countOperation(counterKey: string, windowMs: number): Promise<number>;
}

export interface OperationVerdict {
  count: number;
  resetSeconds: number;
}

export class OperationLimits {
  private readonly commands: LimitCommands;

  constructor(
    redis: RedisClient,
    private readonly clock: () => number = Date.now,
  ) {
    redis.defineCommand('countOperation', { numberOfKeys: 1, lua: COUNT_SCRIPT });
    this.commands = redis as unknown as LimitCommands;
  }

  /** Counts one call of `operation` by the organisation in the current window. */
  async count(organisationId: number, operation: string): Promise<OperationVerdict> {
    const now = this.clock();
    const window = Math.floor(now / (WINDOW_SECONDS * 1000));
    const windowEndsInMs = (window + 1) * WINDOW_SECONDS * 1000 - now;
    const count = await this.commands.countOperation(`gw:ol:{org:${organisationId}}:${operation}:${window}`, windowEndsInMs + 1000);
    return { count, resetSeconds: Math.max(1, Math.ceil(windowEndsInMs / 1000)) };
  }
}
