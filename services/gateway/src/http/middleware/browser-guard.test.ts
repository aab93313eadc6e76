import { isBrowserRequest } from './browser-guard';

describe('browser detection', () => {
  it('flags requests with Sec-Fetch-Site, Sec-Fetch-Dest or an Origin', () => {
    expect(isBrowserRequest({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' })).toBe(true);
    expect(isBrowserRequest({ 'sec-fetch-site': 'same-origin' })).toBe(true);
    expect(isBrowserRequest({ 'sec-fetch-dest': 'document' })).toBe(true);
    expect(isBrowserRequest({ origin: 'https://shop.example.com' })).toBe(true);
  });

  it('lets server-side clients through', () => {
    expect(isBrowserRequest({ 'user-agent': 'curl/8.0', accept: '*/*' })).toBe(false);
    expect(isBrowserRequest({ 'user-agent': 'Mozilla/5.0 (server-side fetch)' })).toBe(false);
  });

  it("lets Node's built-in fetch through although it sends Sec-Fetch-Mode", () => {
    expect(isBrowserRequest({ 'sec-fetch-mode': 'cors', 'user-agent': 'node', accept: '*/*' })).toBe(false);
  });
});
