import { isBrowserRequest } from './browser-guard';

describe('browser detection', () => {
  it('flags requests with Sec-Fetch-* headers or an Origin', () => {
    expect(isBrowserRequest({ 'sec-fetch-mode': 'cors' })).toBe(true);
    expect(isBrowserRequest({ 'sec-fetch-site': 'same-origin' })).toBe(true);
    expect(isBrowserRequest({ origin: 'https://shop.example.com' })).toBe(true);
  });

  it('lets server-side clients through', () => {
    expect(isBrowserRequest({ 'user-agent': 'curl/8.0', accept: '*/*' })).toBe(false);
    expect(isBrowserRequest({ 'user-agent': 'Mozilla/5.0 (server-side fetch)' })).toBe(false);
  });
});
