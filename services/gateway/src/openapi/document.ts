/** The document `/openapi.json` serves, for the gateway and for build-time generators (the client's types). */
import { API_OPERATIONS } from '../http/routes';
import { generateOpenApiDocument } from './registry';

export function partnerApiDocument(serverUrl: string) {
  return generateOpenApiDocument(
    serverUrl,
    API_OPERATIONS.map((operation) => operation.route),
  );
}
