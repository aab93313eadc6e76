export { startGateway, SCHEMA, type RunningGateway } from './server';
export { loadGatewayConfig, type GatewayConfig } from './config';
// Minting keys straight in the gateway's schema: the demo seed, end-to-end suites and benchmarks (the services'
// own callers go through GatewayService over gRPC).
export { KeyAdmin } from './domain/key-admin';
export { Organisations } from './domain/organisations';
export { KeyAdmission } from './storage/key-admission';
export { KeyRepository } from './storage/key-repository';
export { SCOPES, hashSecret } from './domain/api-keys';
