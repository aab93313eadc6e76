/** GET / — who is calling: organisation, key mode and scopes. */
import { Router } from 'express';
import { API_VERSION } from '@partner-api/shared';
import type { StoredKey } from '../../domain/api-keys';
import { jsonResponse, registerOperation } from '../../openapi/registry';
import { ApiKeyInfoSchema } from '../../openapi/schemas';

registerOperation({
  method: 'get',
  path: '/',
  operationId: 'retrieveApiKeyInfo',
  summary: 'Retrieve the requesting API key',
  description: 'Works with any valid key.',
  responses: { 200: jsonResponse('The API key info.', ApiKeyInfoSchema) },
});

export function rootRoutes(): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    const key = res.locals.key as StoredKey;
    res.json({
      object: 'api_key_info',
      organisation: { id: key.organisationId, name: key.organisationName, slug: key.organisationSlug },
      key: { prefix: key.prefix, mode: key.mode, scopes: key.scopes },
      livemode: key.mode === 'live',
      api_version: API_VERSION,
    });
  });
  return router;
}
