export { startGateway, SCHEMA } from './server';
export { loadGatewayConfig, type GatewayConfig } from './config';
export { KeyAdmin, type IssuedKey } from './domain/key-admin';
export { KeyRepository } from './storage/key-repository';
export { SCOPES, hashSecret } from './domain/api-keys';
export { generateOpenApiDocument } from './openapi/registry';
