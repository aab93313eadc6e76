export { startGateway, SCHEMA, type RunningGateway } from './server';
export { loadGatewayConfig, type GatewayConfig } from './config';
// The API's OpenAPI document: the client package generates its types from it.
export { partnerApiDocument } from './openapi/document';
// Minting keys straight in the gateway's schema: the demo seed, end-to-end suites and benchmarks (the services'
// own callers go through GatewayService over gRPC).
export { KeyAdmin } from './domain/key-admin';
export { Organisations } from './domain/organisations';
export { KeyAdmission } from './storage/key-admission';
export { KeyRepository } from './storage/key-repository';
export { SCOPES, hashSecret } from './domain/api-keys';
