import { API_OPERATIONS } from '../routes';
import { templateMatcher, UNMATCHED_ROUTE } from './request-metrics';

describe('route templates for requests refused before routing', () => {
  const templateOf = templateMatcher(API_OPERATIONS);

  it('When a path matches a declared operation, then its template is the label, never the raw path', () => {
    expect(templateOf('GET', '/events/midnight-oil-reunion')).toBe('/events/:id');
    expect(templateOf('HEAD', '/events/42/')).toBe('/events/:id');
    expect(templateOf('POST', '/checkout_sessions')).toBe('/checkout_sessions');
  });

  it('When the path differs only in case, then it names the template Express routes it to', () => {
    expect(templateOf('POST', '/Checkout_Sessions')).toBe('/checkout_sessions');
  });

  it('When no operation has the method and path, then the label is unmatched', () => {
    expect(templateOf('GET', '/no-such-route/abc')).toBe(UNMATCHED_ROUTE);
    expect(templateOf('DELETE', '/checkout_sessions')).toBe(UNMATCHED_ROUTE);
    expect(templateOf('GET', '/events/a/b/c/d')).toBe(UNMATCHED_ROUTE);
  });

  it('Then every label it can give comes from the declared operations', () => {
    const labels = new Set(API_OPERATIONS.map((operation) => operation.expressPath));
    for (const path of ['/', '/events', '/events/1/ticket_types', '/orders/ord_1', '/webhook_endpoints/9/test']) {
      const label = templateOf('GET', path);
      expect(label === UNMATCHED_ROUTE || labels.has(label)).toBe(true);
    }
  });
});
