import type { Command } from 'commander';
import { migrateService } from '@partner-api/shared/migrations';
import { action } from '../context';
import { SERVICE_MIGRATIONS } from '../services';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description("migrate every service's schema (idempotent)")
    .action(
      action(async (ctx) => {
        for (const service of SERVICE_MIGRATIONS) {
          await migrateService(ctx.config.DATABASE_URL, service, ctx.logger);
          console.log(`migrated ${service.schema}`);
        }
      }),
    );
}
