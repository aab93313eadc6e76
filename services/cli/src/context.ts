/** What every command needs: configuration, a logger and per-schema pools, closed at the end. */
import { z } from 'zod';
import { createLogger, createPool, databaseEnv, loadConfig, type Pool } from '@partner-api/shared';

export const cliEnv = databaseEnv.extend({
  LOG_LEVEL: z.string().default('warn'),
});

export class CliContext {
  readonly config = loadConfig(cliEnv);
  readonly logger = createLogger('partnerctl', this.config.LOG_LEVEL);
  private readonly pools = new Map<string, Pool>();

  pool(schema: string): Pool {
    let pool = this.pools.get(schema);
    if (!pool) {
      pool = createPool({ url: this.config.DATABASE_URL, schema, max: 2, applicationName: 'partnerctl' });
      this.pools.set(schema, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.end()));
  }
}

/** Runs a command with a context and turns failures into a message and exit code 1. */
export function action<A extends unknown[]>(run: (ctx: CliContext, ...args: A) => Promise<void>) {
  return async (...args: A): Promise<void> => {
    const ctx = new CliContext();
    try {
      await run(ctx, ...args);
    } catch (error) {
      console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    } finally {
      await ctx.close();
    }
  };
}
