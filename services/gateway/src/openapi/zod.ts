/** zod with the OpenAPI extension applied once, for every schema the gateway defines. */
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
