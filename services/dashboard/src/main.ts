import { runMain } from '@partner-api/shared';
import { loadDashboardConfig } from './config';
import { startDashboard } from './server';

runMain(async () => (await startDashboard(loadDashboardConfig())).runtime);
