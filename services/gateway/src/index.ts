export { startGateway, SCHEMA } from './server';
export { loadGatewayConfig, type GatewayConfig } from './config';
export { KeyAdmin, type IssuedKey, type KeyChangeNotifier } from './domain/key-admin';
export { KeyAdmission } from './storage/key-admission';
export { KeyRepository } from './storage/key-repository';
export { SCOPES, hashSecret } from './domain/api-keys';
export { generateOpenApiDocument } from './openapi/registry';
