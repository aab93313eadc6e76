import SwaggerParser from '@apidevtools/swagger-parser';
import { api } from './support/api';

let document: Record<string, unknown>;

beforeAll(async () => {
  const { status, body } = await api<Record<string, unknown>>('/openapi.json', { key: null });
  expect(status).toBe(200);
  document = body;
});

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    expect(document.openapi).toBe('3.1.0');
  });

  it('documents every endpoint of the spec with its scope-guarded errors, the bearer scheme and the response headers', () => {
    const paths = document.paths as Record<string, Record<string, { security?: unknown; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    expect(Object.keys(paths).sort()).toEqual([
      '/',
      '/checkout_sessions',
      '/checkout_sessions/{id}',
      '/comp_tickets',
      '/events',
      '/events/{id}',
      '/events/{id}/attendees',
      '/events/{id}/check_ins',
      '/events/{id}/ticket_types',
      '/orders',
      '/orders/{id}',
      '/tickets/{id}',
      '/venues',
      '/venues/{id}',
      '/webhook_endpoints',
      '/webhook_endpoints/{id}',
      '/webhook_endpoints/{id}/deliveries',
      '/webhook_endpoints/{id}/replay',
      '/webhook_endpoints/{id}/test',
      '/webhook_events',
    ]);
    // Every operation of the spec's endpoint table (GET /openapi.json documents the rest), with its method.
    const operations = Object.entries(paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual(
      [
        'GET /',
        'GET /events',
        'GET /events/{id}',
        'GET /events/{id}/ticket_types',
        'GET /venues',
        'GET /venues/{id}',
        'POST /checkout_sessions',
        'GET /checkout_sessions/{id}',
        'GET /orders',
        'GET /orders/{id}',
        'GET /tickets/{id}',
        'GET /events/{id}/attendees',
        'POST /comp_tickets',
        'POST /events/{id}/check_ins',
        'GET /webhook_endpoints',
        'POST /webhook_endpoints',
        'GET /webhook_endpoints/{id}',
        'PATCH /webhook_endpoints/{id}',
        'DELETE /webhook_endpoints/{id}',
        'POST /webhook_endpoints/{id}/test',
        // Beta additions beyond the spec's table (tag `beta`).
        'GET /webhook_events',
        'POST /webhook_endpoints/{id}/replay',
        'GET /webhook_endpoints/{id}/deliveries',
      ].sort(),
    );
    for (const operations of Object.values(paths)) {
      for (const operation of Object.values(operations)) {
        expect(operation.security).toEqual([{ bearerAuth: [] }]);
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403', '429', '500']));
        const success = Object.keys(operation.responses).find((status) => status.startsWith('2'))!;
        expect(['200', '201', '202', '204']).toContain(success);
        expect(Object.keys(operation.responses[success]!.headers ?? {})).toEqual(
          expect.arrayContaining(['Request-Id', 'Service-Version', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
        );
        expect(Object.keys(operation.responses['429']!.headers ?? {})).toContain('Retry-After');
      }
    }
    const schemes = (document.components as { securitySchemes: Record<string, unknown> }).securitySchemes;
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('tags every operation with a declared, described tag, so generated clients get one module per area', () => {
    const tags = document.tags as Array<{ name: string; description?: string }>;
    expect(tags.length).toBeGreaterThanOrEqual(5);
    for (const tag of tags) expect(tag.description).toEqual(expect.any(String));
    const declared = new Set(tags.map((tag) => tag.name));
    const paths = document.paths as Record<string, Record<string, { tags?: string[] }>>;
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect({ operation: `${method} ${path}`, tags: operation.tags?.length }).toEqual({ operation: `${method} ${path}`, tags: 1 });
        expect(declared.has(operation.tags![0]!)).toBe(true);
      }
    }
  });

  it('keeps every component schema non-null: nullability belongs to the reference (venue, customer)', () => {
    const schemas = (document.components as { schemas: Record<string, { type?: unknown }> }).schemas;
    for (const [name, schema] of Object.entries(schemas)) {
      expect({ name, type: schema.type }).toEqual({ name, type: 'object' });
    }
    const event = schemas.Event as { properties: Record<string, unknown> };
    expect(event.properties.venue).toEqual({ anyOf: [{ $ref: '#/components/schemas/Venue' }, { type: 'null' }] });
  });
});
