/**
 * Schema migrations with node-pg-migrate, one schema per service. A service
 * that emits events gets the shared outbox migrations first (tracked in
 * their own table), then its own.
 */
import path from 'node:path';
import { runner } from 'node-pg-migrate';
import type { Logger } from 'pino';

const OUTBOX_MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations', 'outbox');

export interface ServiceMigrations {
  readonly schema: string;
  readonly dir: string;
  readonly withOutbox: boolean;
}

export async function migrateService(databaseUrl: string, service: ServiceMigrations, logger: Logger): Promise<void> {
  const run = (dir: string, migrationsTable: string) =>
    runner({
      databaseUrl,
      dir,
      direction: 'up',
      schema: service.schema,
      createSchema: true,
      migrationsSchema: service.schema,
      migrationsTable,
      count: Infinity,
      log: (message: string) => logger.debug({ schema: service.schema }, message),
    });
  if (service.withOutbox) await run(OUTBOX_MIGRATIONS_DIR, 'outbox_migrations');
  await run(service.dir, 'migrations');
  logger.info({ schema: service.schema }, 'schema migrated');
}
