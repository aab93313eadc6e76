/** GET / — who is calling: organisation, key mode and scopes. */
import { API_VERSION } from '@partner-api/shared';
import { jsonResponse } from '../../openapi/registry';
import { ApiKeyInfoSchema } from '../../openapi/schemas';
import { defineOperation, ok } from '../operation';

export const rootOperations = [
  defineOperation({
    method: 'get',
    path: '/',
    operationId: 'retrieveApiKeyInfo',
    tag: 'API keys',
    summary: 'Retrieve the requesting API key',
    description: 'Works with any valid key.',
    scopes: 'any',
    responses: { 200: jsonResponse('The API key info.', ApiKeyInfoSchema) },
    handler: ({ key }) =>
      ok({
        object: 'api_key_info',
        organisation: { id: key.organisationId, name: key.organisationName, slug: key.organisationSlug },
        key: { prefix: key.prefix, mode: key.mode, scopes: key.scopes },
        livemode: key.mode === 'live',
        api_version: API_VERSION,
      }),
  }),
];
