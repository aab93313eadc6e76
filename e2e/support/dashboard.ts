/**
 * The dashboard as the e2e suites use it: members made through the
 * dashboard's own Members domain (as partnerctl does), the stack's
 * dashboard restarted with a mail server of the test's, and a loopback
 * SMTP server that keeps what it is sent.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { operatorMembers } from '@partner-api/dashboard';
import { createLogger, createPool, createServiceClient, GatewayKeys, gen, localGrpcAddress, randomBase62 } from '@partner-api/shared';
import { env } from './api';

const ROOT = path.join(__dirname, '..', '..');
export const DASHBOARD_URL = process.env.DASHBOARD_URL ?? 'http://localhost:4200';
export const MEMBER_PASSWORD = 'e2e dashboard password';

/** A member with a password, through an invitation accepted as the member would. */
export async function addMember(organisationId: number, role: 'owner' | 'admin' | 'developer' | 'door_staff'): Promise<{ id: number; email: string }> {
  const pool = createPool({ url: env('DATABASE_URL'), schema: 'dashboard', max: 2 });
  const gateway = createServiceClient(gen.gateway.GatewayService, process.env.GATEWAY_GRPC_ADDR ?? localGrpcAddress('gateway'));
  try {
    const members = operatorMembers({ dashboard: pool, organisations: new GatewayKeys(gateway) }, DASHBOARD_URL, createLogger('e2e', 'silent'));
    const email = `${role}-${randomBase62(8).toLowerCase()}@example.com`;
    const { member, link } = await members.addOwner(organisationId, email, `E2E ${role}`);
    await members.acceptInvitation(link.split('/').pop()!, MEMBER_PASSWORD, MEMBER_PASSWORD);
    if (role !== 'owner') await pool.query('UPDATE members SET role = $2 WHERE id = $1', [member.id, role]);
    return { id: member.id, email };
  } finally {
    await pool.end();
    gateway.close();
  }
}

export interface CapturedMail {
  to: string[];
  raw: string;
  /** The body with quoted-printable soft breaks and escapes undone. */
  text: string;
}

const unquote = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A loopback SMTP server (no TLS, no auth) keeping every message. */
export class CapturingSmtp {
  readonly mail: CapturedMail[] = [];
  private readonly server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        this.mail.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw, text: unquote(raw) });
        callback();
      });
    },
  });
  port = 0;

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Restarts the stack's dashboard with these settings on top of its usual ones (none: back to the usual). */
export function restartDashboard(settings: Record<string, string> = {}): void {
  execFileSync(path.join(ROOT, 'deploy/local/services.sh'), ['start', 'dashboard'], { env: { ...process.env, ...settings }, stdio: 'pipe' });
}
