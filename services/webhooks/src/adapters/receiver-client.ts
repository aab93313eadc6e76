/**
 * POSTs a signed event to a receiver with undici: the receiver policy's
 * lookup on every new connection (so only checked addresses are dialled),
 * IP-literal hosts checked before the request, no redirects (undici follows
 * none unless asked), and one deadline for connecting, headers and body.
 * Any 2xx is a success; anything else, a timeout or a network error is a
 * failure described in a short message and classified by its reason
 * (`failure-reasons.ts`) for the delivery log.
 */
import { Agent, request } from 'undici';
import { failureReasonForError, failureReasonForStatus, type FailureReason } from '../domain/failure-reasons';
import { ReceiverRefused, type ReceiverPolicy } from '../domain/receiver-policy';
import { RequestDeadlines } from './request-deadlines';

export interface ReceiverResponse {
  readonly ok: boolean;
  readonly responseStatus: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  /** Null for a success. */
  readonly failureReason: FailureReason | null;
}

/** What is read of a receiver's answer before it is dropped: deliveries keep only the status. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** URLs remembered as passing the policy's URL rules (which read no DNS, so their answer never changes); cleared when full. */
const CHECKED_URLS_MAX = 10_000;

export class ReceiverClient {
  private readonly agent: Agent;
  private readonly checkedUrls = new Set<string>();
  private readonly deadlines: RequestDeadlines;

  constructor(
    private readonly policy: ReceiverPolicy,
    private readonly timeoutMs: number,
    private readonly userAgent: string,
  ) {
    this.agent = new Agent({
      connect: { lookup: policy.lookup, timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4_000,
    });
    this.deadlines = new RequestDeadlines(timeoutMs);
  }

  /** POSTs `body`; `headers` must be this request's own object (the content type and user agent are added to it). */
  async post(url: string, headers: Record<string, string>, body: string): Promise<ReceiverResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      this.checkUrl(url);
      // Added to the caller's object, made for this one request, rather than copied into a new one.
      headers['content-type'] = 'application/json';
      headers['user-agent'] = this.userAgent;
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers,
        body,
        signal: this.deadlines.next(),
      });
      await response.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      const error = ok ? null : response.statusCode >= 300 && response.statusCode < 400 ? `answered ${response.statusCode}; redirects are not followed` : `answered ${response.statusCode}`;
      return { ok, responseStatus: response.statusCode, durationMs: elapsed(), error, failureReason: failureReasonForStatus(response.statusCode) };
    } catch (error) {
      return { ok: false, responseStatus: null, durationMs: elapsed(), error: this.describe(error), failureReason: failureReasonForError(error) };
    }
  }

  /** The policy's URL rules, checked once per URL: an endpoint's URL is the same on every delivery. */
  private checkUrl(url: string): void {
    if (this.checkedUrls.has(url)) return;
    this.policy.checkUrl(url);
    if (this.checkedUrls.size >= CHECKED_URLS_MAX) this.checkedUrls.clear();
    this.checkedUrls.add(url);
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private describe(error: unknown): string {
    const cause = (error as { cause?: unknown }).cause;
    if (error instanceof ReceiverRefused) return `refused: ${error.message}`;
    if (cause instanceof ReceiverRefused) return `refused: ${cause.message}`;
    const code = (error as { code?: string }).code ?? (cause as { code?: string } | undefined)?.code;
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
      return `no answer within ${this.timeoutMs / 1000} s`;
    }
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name does not resolve';
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection closed by the receiver';
    if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return `TLS error (${code})`;
    return `could not be sent${code ? ` (${code})` : ''}`;
  }
}
