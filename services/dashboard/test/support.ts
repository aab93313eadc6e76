/**
 * Helpers of the dashboard's integration suites: a dashboard in this
 * process on a free port (real PostgreSQL and Redis) with the gateway it
 * manages keys through, organisations with members, and a browser-like
 * client that keeps cookies and sends each page's CSRF token back with its
 * forms.
 */
import {
  createLogger,
  createPool,
  createServiceClient,
  GatewayKeys,
  gen,
  keysEverywhere,
  operatorContext,
  randomBase62,
  redisFromEnv,
  type MailMessage,
  type Mailer,
  type Pool,
  type ServiceClient,
} from '@partner-api/shared';
import { loadGatewayConfig, startGateway, type RunningGateway } from '../../gateway/src';
import { loadDashboardConfig, startDashboard, type RunningDashboard } from '../src';
import { SIGN_IN_COUNTS_PREFIX } from '../src/server';

export const silent = createLogger('it', process.env.IT_LOG_LEVEL ?? 'silent');

/** Email delivery is the one external system: this mailer keeps what it was given. */
export class KeptMail implements Mailer {
  readonly sent: MailMessage[] = [];
  async send(message: MailMessage): Promise<void> {
    this.sent.push(message);
  }
  async close(): Promise<void> {}
  /** The last link to `path` mailed to `to`. */
  linkTo(to: string, path: string): string {
    const text = [...this.sent].reverse().find((message) => message.to === to)?.text ?? '';
    const match = new RegExp(`https?://[^\\s]+${path}/[A-Za-z0-9_-]+`).exec(text);
    if (!match) throw new Error(`no ${path} link mailed to ${to}`);
    return new URL(match[0]).pathname;
  }
}

export const PASSWORD = 'correct horse battery staple';

/** Forgets every address's sign-in count (tests only: the counts are shared by every dashboard on this Redis). */
export async function clearSignInCounts(): Promise<void> {
  const redis = redisFromEnv();
  try {
    const keys = await keysEverywhere(redis, `${SIGN_IN_COUNTS_PREFIX}*`);
    for (const key of keys) await redis.del(key);
  } finally {
    await redis.quit();
  }
}

export class DashboardSuite {
  running!: RunningDashboard;
  readonly mail = new KeptMail();
  readonly db: Pool = createPool({ url: process.env.DATABASE_URL!, schema: 'dashboard', max: 2 });
  /** A gateway in this process, whose GatewayService the dashboard manages organisations and keys through. */
  private gatewayProcess: RunningGateway | undefined;
  gateway!: ServiceClient<(typeof gen.gateway.GatewayService)['method']>;
  keys!: GatewayKeys;

  async start(env: Record<string, string> = {}): Promise<this> {
    this.gatewayProcess = await startGateway(loadGatewayConfig({ ...process.env, HTTP_PORT: '0', OPS_PORT: '0', GRPC_PORT: '0', LOG_LEVEL: 'silent' }), silent);
    const gatewayAddress = `127.0.0.1:${this.gatewayProcess.runtime.grpcPort}`;
    this.gateway = createServiceClient(gen.gateway.GatewayService, gatewayAddress);
    this.keys = new GatewayKeys(this.gateway);
    const config = loadDashboardConfig({ ...process.env, HTTP_PORT: '0', OPS_PORT: '0', LOG_LEVEL: 'silent', GATEWAY_GRPC_ADDR: gatewayAddress, ...env });
    // Every suite signs in from 127.0.0.1: each starts with the address's count at zero, as a fresh process did while counts were per process.
    await clearSignInCounts();
    this.running = await startDashboard(config, silent, { mailer: this.mail });
    return this;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.running.httpPort}`;
  }

  async stop(): Promise<void> {
    await this.running?.runtime.stop();
    await this.db.end();
    this.gateway?.close();
    await this.gatewayProcess?.runtime.stop();
  }

  async organisation(): Promise<{ id: number; name: string }> {
    const slug = `dash-${randomBase62(10).toLowerCase()}`;
    const created = await this.gateway.createOrganisation({ name: `Org ${slug}`, slug }, operatorContext());
    return { id: Number(created.id), name: created.name };
  }

  browser(): Browser {
    return new Browser(this.baseUrl);
  }

  /** A member who has accepted their invitation and is signed in, in a browser of their own. */
  async signedInMember(organisationId: number, role: 'owner' | 'admin' | 'developer' | 'door_staff' = 'owner'): Promise<{ browser: Browser; email: string; id: number }> {
    const email = `${role}-${randomBase62(8).toLowerCase()}@example.com`;
    const { rows } = await this.db.query<{ id: string }>(`INSERT INTO members (organisation_id, email, name, role) VALUES ($1, $2, $3, $4) RETURNING id`, [organisationId, email, `A ${role}`, role]);
    const id = Number(rows[0]!.id);
    const browser = this.browser();
    await this.setPassword(id);
    await browser.signIn(email, PASSWORD);
    return { browser, email, id };
  }

  private async setPassword(memberId: number): Promise<void> {
    const { default: argon2 } = await import('argon2');
    await this.db.query('UPDATE members SET password_hash = $2, joined_at = now() WHERE id = $1', [memberId, await argon2.hash(PASSWORD, { type: argon2.argon2id })]);
  }
}

export interface Page {
  status: number;
  html: string;
  location: string | null;
  setCookies: string[];
}

/** Keeps cookies like a browser (by name; Secure cookies over http as Chromium does for loopback) and reads each form's CSRF token. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string | string[]>): Promise<Page> {
    const body = form ? new URLSearchParams(Object.entries(form).flatMap(([name, value]): Array<[string, string]> => (Array.isArray(value) ? value.map((v): [string, string] => [name, v]) : [[name, value]]))).toString() : undefined;
    const response = await fetch(this.baseUrl + path, {
      method,
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), 'user-agent': 'dashboard-it' },
      body,
    });
    const setCookies = response.headers.getSetCookie();
    for (const header of setCookies) {
      const [pair] = header.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, html: await response.text(), location: response.headers.get('location'), setCookies };
  }

  get(path: string): Promise<Page> {
    return this.request('GET', path);
  }

  /** Opens `pagePath`, then sends its form to `action` with the page's CSRF token. */
  async submit(pagePath: string, action: string, fields: Record<string, string | string[]>): Promise<Page> {
    const page = await this.get(pagePath);
    return this.request('POST', action, { _csrf: csrfOf(page.html), ...fields });
  }

  async signIn(email: string, password: string): Promise<Page> {
    return this.submit('/sign-in', '/sign-in', { email, password });
  }
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1]!;
}
