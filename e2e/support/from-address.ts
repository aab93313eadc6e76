/**
 * A call sent from a loopback address of the test's choosing: all of
 * 127.0.0.0/8 is this host's, so a test can be a caller at 127.0.0.20 that
 * an allowlist admits or refuses by its real address, with no proxy and no
 * X-Forwarded-For (D381).
 */
import http from 'node:http';
import { env, type ApiResponse } from './api';

export function apiFrom<T = Record<string, unknown>>(
  localAddress: string,
  path: string,
  options: { key?: string | null; headers?: Record<string, string>; baseUrl?: string } = {},
): Promise<ApiResponse<T>> {
  const url = new URL(path, options.baseUrl ?? env('BASE_URL'));
  const key = options.key === undefined ? env('DEMO_LIVE_KEY') : options.key;
  const headers: Record<string, string> = { ...options.headers, ...(key === null ? {} : { authorization: `Bearer ${key}` }) };
  return new Promise((resolve, reject) => {
    const request = http.get({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, localAddress, agent: false, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status: response.statusCode!, headers: responseHeaders, body: (text ? JSON.parse(text) : null) as T });
      });
    });
    request.on('error', reject);
  });
}
