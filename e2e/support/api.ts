/** The running system as a partner sees it: BASE_URL and the demo keys from .data/demo.env. */
export const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run \`make up\` first`);
  return value;
};

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export async function api<T = Record<string, unknown>>(
  path: string,
  options: { key?: string | null; method?: string; headers?: Record<string, string>; body?: unknown; baseUrl?: string } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? env('DEMO_LIVE_KEY') : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${options.baseUrl ?? env('BASE_URL')}${path}`, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as T };
}

export interface ErrorBody {
  error: { type: string; code: string; message: string; param: string | null; request_id: string; doc_url: string };
}
