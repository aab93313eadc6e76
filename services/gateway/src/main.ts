import { runMain } from '@partner-api/shared';
import { loadGatewayConfig } from './config';
import { startGateway } from './server';

runMain(async () => (await startGateway(loadGatewayConfig())).runtime);
