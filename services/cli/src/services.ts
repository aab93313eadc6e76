/** Where each service keeps its migrations, and whether it has an outbox. */
import path from 'node:path';
import type { ServiceMigrations } from '@partner-api/shared/migrations';

const migrationsOf = (pkg: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'migrations');

export const SERVICE_MIGRATIONS: ServiceMigrations[] = [
  { schema: 'gateway', dir: migrationsOf('@partner-api/gateway'), withOutbox: false },
  { schema: 'inventory', dir: migrationsOf('@partner-api/inventory'), withOutbox: true },
  { schema: 'orders', dir: migrationsOf('@partner-api/orders'), withOutbox: true },
  { schema: 'tickets', dir: migrationsOf('@partner-api/tickets'), withOutbox: true },
  { schema: 'webhooks', dir: migrationsOf('@partner-api/webhooks'), withOutbox: false },
  { schema: 'dashboard', dir: migrationsOf('@partner-api/dashboard'), withOutbox: false },
];
