/**
 * The rules of the sales channels other than the API: which site addresses
 * may embed a checkout, how the embedding site is recognised, and the signed
 * token that carries it from the page to the form's POST (D240-D244).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError, nameBasedUuid } from '@partner-api/shared';

export type SalesChannel = 'api' | 'embed' | 'storefront' | 'web';

/** Where a session comes from; `origin` is set for embed and storefront (the spec's channel_origin). */
export interface ChannelOfSession {
  salesChannel: SalesChannel;
  origin: string | null;
}

export const API_CHANNEL: ChannelOfSession = { salesChannel: 'api', origin: null };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Longer than any real site address; keeps the CSP header and the table small. */
const MAX_ORIGIN_LENGTH = 200;

/**
 * A site address as an origin (`scheme://host[:port]`, as the URL parser
 * writes it): https, or http on a loopback host for a partner trying it
 * locally; nothing after the host but an optional `/` (D241).
 */
export function parseOrigin(input: string): string {
  const invalid = (why: string) => new ApiError('parameter_invalid', `origin ${why}`, 'origin');
  const text = input.trim();
  if (text.length === 0 || text.length > MAX_ORIGIN_LENGTH) throw invalid(`must be a site address of at most ${MAX_ORIGIN_LENGTH} characters, like https://shop.example.com.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('must be a site address like https://shop.example.com.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) throw invalid('must use https (http only on localhost, 127.0.0.1 or [::1]).');
  if (url.username || url.password) throw invalid('must not carry a user name or password.');
  if (url.pathname !== '/' || url.search || url.hash || /[?#]/.test(text)) throw invalid('is only the scheme, host and port: no path, query or fragment.');
  return url.origin;
}

/**
 * The site whose page asks for the embedded checkout: the origin of the
 * `Referer` the browser sends with the frame's request (browsers send at
 * least the origin cross-site by default, and pages cannot forge it).
 * Undefined when there is none or it is not a usable site address (D242).
 */
export function embeddingOrigin(headers: { referer?: string | undefined }): string | undefined {
  if (!headers.referer) return undefined;
  try {
    const url = new URL(headers.referer);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

export interface ChannelClaim {
  salesChannel: Exclude<SalesChannel, 'api'>;
  organisationId: number;
  eventId: string;
  origin: string | null;
}

interface TokenBody extends ChannelClaim {
  /** Unix seconds after which the form is stale. */
  expires: number;
  nonce: string;
}

const b64 = (value: Buffer | string) => Buffer.from(value).toString('base64url');

/**
 * Tokens binding a channel page's form to its organisation, event, channel
 * and embedding site: HMAC-SHA256 over the claim, valid for `ttlSeconds`
 * (D243). The form's POST believes only what the token says.
 */
export class ChannelTokens {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.key = Buffer.from(secret, 'utf8');
  }

  issue(claim: ChannelClaim): string {
    const body: TokenBody = { ...claim, expires: Math.floor(this.clock().getTime() / 1000) + this.ttlSeconds, nonce: randomBytes(9).toString('base64url') };
    const payload = b64(JSON.stringify(body));
    return `${payload}.${this.sign(payload)}`;
  }

  /**
   * What a genuine token for this channel, organisation and event says: the
   * origin it was issued for, and whether its time is up (its origin is
   * still ours to trust, to show the page again where it was). Forged,
   * malformed and foreign tokens are refused.
   */
  read(token: string | undefined, expected: Omit<ChannelClaim, 'origin'>): { origin: string | null; expired: boolean } {
    const refused = () => new ApiError('parameter_invalid', 'This form was not made by this page. Reload the page and choose your tickets again.', 'token');
    const [payload, mac, extra] = (token ?? '').split('.');
    if (!payload || !mac || extra !== undefined) throw refused();
    const wanted = Buffer.from(this.sign(payload));
    const given = Buffer.from(mac);
    if (wanted.length !== given.length || !timingSafeEqual(wanted, given)) throw refused();
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenBody;
    if (body.salesChannel !== expected.salesChannel || body.organisationId !== expected.organisationId || body.eventId !== expected.eventId) throw refused();
    return { origin: body.origin, expired: body.expires * 1000 <= this.clock().getTime() };
  }

  /**
   * The session a form names: the same token and choice always give the same
   * id, so a form sent twice (a double click, a retry) opens one session and
   * holds once.
   */
  sessionId(token: string, choice: string): string {
    return nameBasedUuid(createHmac('sha256', this.key).update(`channel_session\n${token}\n${choice}`).digest());
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(`channel_token\n${payload}`).digest('base64url');
  }
}
