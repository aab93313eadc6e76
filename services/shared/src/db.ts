/**
 * A pg pool bound to one service's schema: every connection's search_path is
 * that schema, so a service can only name its own tables unqualified.
 */
import { Pool, type PoolClient } from 'pg';

export type { Pool, PoolClient } from 'pg';

export function createPool(options: { url: string; schema: string; max?: number; applicationName?: string }): Pool {
  if (!/^[a-z_][a-z0-9_]*$/.test(options.schema)) throw new Error(`invalid schema name: ${options.schema}`);
  return new Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? options.schema,
    options: `-c search_path=${options.schema}`,
    idleTimeoutMillis: 30_000,
  });
}

/** Runs `work` in one transaction; rolls back on any error. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
