/**
 * Members and sign-in against the real PostgreSQL: invitations, password
 * and link sign-in, session cookies, CSRF, session fixation, lockout and
 * the per-address limit, roles, and one organisation never reaching
 * another's members or keys.
 */
import { hashToken } from '../src/domain/tokens';
import { Audit } from '../src/domain/audit';
import { Members } from '../src/domain/members';
import { AuditRepository } from '../src/storage/audit-repository';
import { MemberRepository } from '../src/storage/member-repository';
import { CachedOrganisationNames } from '../src/storage/organisation-names';
import { SessionRepository } from '../src/storage/session-repository';
import { Browser, DashboardSuite, PASSWORD } from './support';

const suite = new DashboardSuite();
// argon2id costs 64 MiB and three passes per password check: a test signs in several times.
jest.setTimeout(30_000);

beforeAll(async () => {
  await suite.start({ SIGN_IN_ATTEMPTS_PER_WINDOW: '200' });
});
afterAll(() => suite.stop());

const membersDomain = () =>
  new Members(suite.db, new MemberRepository(suite.db), new SessionRepository(suite.db), new Audit(new AuditRepository(suite.db)), new CachedOrganisationNames(suite.keys), suite.mail, { baseUrl: suite.baseUrl, domain: 'example.com' });

describe('the first owner', () => {
  test('partnerctl adds an owner whose invitation link sets a password and signs them in with a secure, HttpOnly session cookie', async () => {
    const org = await suite.organisation();
    const local = `First.Owner.${Date.now()}`;
    const { link } = await membersDomain().addOwner(org.id, `  ${local}@Example.com `, 'First Owner');
    const path = new URL(link).pathname;
    const browser = suite.browser();

    const form = await browser.get(path);
    expect(form.status).toBe(200);
    expect(form.html).toContain(`${local.toLowerCase()}@example.com`);

    const short = await browser.submit(path, path, { password: 'short', password_confirmation: 'short' });
    expect(short.status).toBe(400);
    expect(short.html).toContain('at least 12 characters');

    const accepted = await browser.submit(path, path, { password: PASSWORD, password_confirmation: PASSWORD });
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe('/keys');
    const cookie = accepted.setCookies.find((header) => header.startsWith('__Host-dashboard_session='))!;
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//i);
    expect(cookie).not.toMatch(/Domain=/i);

    const keys = await browser.get('/keys');
    expect(keys.status).toBe(200);
    expect(keys.html).toContain(org.name);

    // The link worked once.
    expect((await suite.browser().get(path)).status).toBe(404);
  });
});

describe('sign-in', () => {
  test('a wrong password and an unknown address get the same refusal; the audit log keeps both with the caller address', async () => {
    const org = await suite.organisation();
    const { email } = await suite.signedInMember(org.id);
    const wrong = await suite.browser().signIn(email, 'not the password at all');
    const unknown = await suite.browser().signIn(`nobody-${Date.now()}@example.com`, 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (html: string) => /data-testid="error">([^<]+)</.exec(html)?.[1];
    expect(message(wrong.html)).toBe(message(unknown.html));
    const { rows } = await suite.db.query<{ detail: { outcome: string }; ip: string; user_agent: string }>(
      `SELECT detail, ip, user_agent FROM audit_events WHERE organisation_id = $1 AND action = 'sign_in' ORDER BY id`,
      [org.id],
    );
    expect(rows.map((row) => row.detail.outcome)).toEqual(['password', 'wrong_password']);
    expect(rows[1]).toMatchObject({ ip: expect.stringMatching(/127\.0\.0\.1/), user_agent: 'dashboard-it' });
  });

  test('five wrong passwords in a row lock the member out, even with the right password, until an emailed link signs them in', async () => {
    const org = await suite.organisation();
    const { email } = await suite.signedInMember(org.id);
    const attacker = suite.browser();
    for (let attempt = 1; attempt <= 4; attempt += 1) expect((await attacker.signIn(email, `guess number ${attempt}`)).status).toBe(401);
    const fifth = await attacker.signIn(email, 'guess number 5');
    expect(fifth.status).toBe(429);
    expect(fifth.html).toContain('locked');
    const rightButLocked = await suite.browser().signIn(email, PASSWORD);
    expect(rightButLocked.status).toBe(429);
    expect(rightButLocked.setCookies.some((header) => header.startsWith('__Host-dashboard_session='))).toBe(false);

    const owner = suite.browser();
    const sent = await owner.submit('/sign-in', '/sign-in/link', { email });
    expect(sent.status).toBe(303);
    const link = suite.mail.linkTo(email, '/sign-in/link');
    // Opening the link uses nothing up (mail scanners open links); the button does.
    expect((await owner.get(link)).status).toBe(200);
    const viaLink = await owner.submit(link, link, {});
    expect(viaLink.status).toBe(303);
    expect((await owner.get('/keys')).status).toBe(200);
    // Used once.
    expect((await suite.browser().submit(link, link, {})).status).toBe(400);
    // The lock is over: the password works again.
    expect((await suite.browser().signIn(email, PASSWORD)).status).toBe(303);
  });

  test('one address is limited however many members it tries', async () => {
    const limited = await new DashboardSuite().start({ SIGN_IN_ATTEMPTS_PER_WINDOW: '3' });
    try {
      const browser = limited.browser();
      const statuses = [];
      for (let attempt = 0; attempt < 5; attempt += 1) statuses.push((await browser.signIn(`spray-${attempt}@example.com`, 'password-spraying')).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await limited.stop();
    }
  });

  test('an address has one allowance across every dashboard process (D366)', async () => {
    const first = await new DashboardSuite().start({ SIGN_IN_ATTEMPTS_PER_WINDOW: '3' });
    const second = await new DashboardSuite().start({ SIGN_IN_ATTEMPTS_PER_WINDOW: '3' });
    try {
      // Alternating between two processes, as a load balancer spreads an address's requests over two pods.
      const browsers = [first.browser(), second.browser()];
      const statuses = [];
      for (let attempt = 0; attempt < 5; attempt += 1) statuses.push((await browsers[attempt % 2]!.signIn(`spread-${attempt}@example.com`, 'password-spraying')).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  test('a session token planted before sign-in is never promoted: signing in issues a new one (no session fixation)', async () => {
    const org = await suite.organisation();
    const { email } = await suite.signedInMember(org.id);
    const attacker = suite.browser();
    const victim = suite.browser();
    const planted = 'attacker-chosen-session-token-value-0123456789';
    victim.cookies.set('__Host-dashboard_session', planted);
    expect((await victim.signIn(email, PASSWORD)).status).toBe(303);
    const issued = victim.cookies.get('__Host-dashboard_session');
    expect(issued).toBeDefined();
    expect(issued).not.toBe(planted);
    attacker.cookies.set('__Host-dashboard_session', planted);
    const page = await attacker.get('/keys');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/sign-in');
  });

  test('signing out ends the session wherever its token is used', async () => {
    const org = await suite.organisation();
    const { browser } = await suite.signedInMember(org.id);
    const first = browser.cookies.get('__Host-dashboard_session')!;
    const stolen = new Browser(suite.baseUrl);
    stolen.cookies.set('__Host-dashboard_session', first);
    expect((await stolen.get('/keys')).status).toBe(200);
    const keys = await browser.get('/keys');
    const out = await browser.request('POST', '/sign-out', { _csrf: /name="_csrf" value="([^"]+)"/.exec(keys.html)![1]! });
    expect(out.status).toBe(303);
    expect((await stolen.get('/keys')).status).toBe(303);
    const { rows } = await suite.db.query('SELECT ended_at FROM sessions WHERE token_hash = $1', [hashToken(first)]);
    expect(rows[0].ended_at).not.toBeNull();
  });
});

describe('CSRF', () => {
  test('a form without the token, with a token of another session, or with no CSRF cookie is refused and changes nothing', async () => {
    const org = await suite.organisation();
    const { browser } = await suite.signedInMember(org.id);
    const other = await suite.signedInMember((await suite.organisation()).id);
    const otherToken = /name="_csrf" value="([^"]+)"/.exec((await other.browser.get('/keys')).html)![1]!;

    const missing = await browser.request('POST', '/keys', { name: 'csrf-missing', scopes: 'events:read' });
    expect(missing.status).toBe(403);
    expect(missing.html).toContain('security token');
    const foreign = await browser.request('POST', '/keys', { _csrf: otherToken, name: 'csrf-foreign', scopes: 'events:read' });
    expect(foreign.status).toBe(403);
    const page = await browser.get('/keys');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.html)![1]!;
    const cookieless = new Browser(suite.baseUrl);
    cookieless.cookies.set('__Host-dashboard_session', browser.cookies.get('__Host-dashboard_session')!);
    expect((await cookieless.request('POST', '/keys', { _csrf: token, name: 'csrf-no-cookie', scopes: 'events:read' })).status).toBe(403);

    expect((await suite.keys.listKeys(org.id)).map((key) => key.name)).toEqual([]);
    const made = await browser.request('POST', '/keys', { _csrf: token, name: 'with-token', scopes: 'events:read' });
    expect(made.status).toBe(201);
    expect((await suite.keys.listKeys(org.id)).map((key) => key.name)).toEqual(['with-token']);
  });
});

describe('organisations and roles', () => {
  test("a member of another organisation cannot see or change this organisation's keys or members", async () => {
    const orgA = await suite.organisation();
    const orgB = await suite.organisation();
    const ownerA = await suite.signedInMember(orgA.id);
    const adminB = await suite.signedInMember(orgB.id, 'admin');
    const made = await ownerA.browser.submit('/keys', '/keys', { name: 'a-secret-key', scopes: ['events:read', 'orders:read'] });
    expect(made.status).toBe(201);
    const keyA = (await suite.keys.listKeys(orgA.id))[0]!;

    expect((await adminB.browser.get('/keys')).html).not.toContain('a-secret-key');
    expect((await adminB.browser.get(`/keys/${keyA.id}`)).status).toBe(404);
    expect((await adminB.browser.submit('/keys', `/keys/${keyA.id}/revoke`, { confirm: 'yes' })).status).toBe(404);
    expect((await adminB.browser.submit('/keys', `/keys/${keyA.id}/roll`, { grace_hours: '0', confirm: 'yes' })).status).toBe(404);
    expect((await adminB.browser.submit('/keys', `/keys/${keyA.id}/allowlist`, { ip_allowlist: '10.0.0.1' })).status).toBe(404);
    expect((await adminB.browser.submit('/members', `/members/${ownerA.id}/remove`, {})).status).toBe(404);
    expect((await adminB.browser.submit('/members', `/members/${ownerA.id}/role`, { role: 'door_staff' })).status).toBe(404);
    expect((await adminB.browser.get('/members')).html).not.toContain(ownerA.email);

    const after = (await suite.keys.listKeys(orgA.id))[0]!;
    expect(after).toMatchObject({ revoked_at: null, ip_allowlist: [], replaced_by: null });
    expect((await suite.db.query('SELECT role, removed_at FROM members WHERE id = $1', [ownerA.id])).rows[0]).toEqual({ role: 'owner', removed_at: null });
  });

  test('door staff reach only the door; developers cannot manage members; admins cannot touch owners', async () => {
    const org = await suite.organisation();
    const owner = await suite.signedInMember(org.id);
    const door = await suite.signedInMember(org.id, 'door_staff');
    const developer = await suite.signedInMember(org.id, 'developer');
    const admin = await suite.signedInMember(org.id, 'admin');
    expect((await door.browser.get('/keys')).status).toBe(403);
    expect((await door.browser.get('/members')).status).toBe(403);
    expect((await developer.browser.get('/keys')).status).toBe(200);
    expect((await developer.browser.get('/members')).status).toBe(403);
    expect((await developer.browser.get('/audit')).status).toBe(403);
    expect((await admin.browser.submit('/members', `/members/${owner.id}/remove`, {})).status).toBe(403);
    expect((await admin.browser.submit('/members', '/members', { name: 'New Owner', email: 'new-owner@example.com', role: 'owner' })).status).toBe(403);
    expect((await admin.browser.submit('/members', `/members/${developer.id}/role`, { role: 'admin' })).status).toBe(303);
    // The changed member signs in again to act with the new role.
    expect((await developer.browser.get('/members')).status).toBe(303);
  });

  test('an owner invites a developer by email; the last owner cannot step down', async () => {
    const org = await suite.organisation();
    const owner = await suite.signedInMember(org.id);
    const email = `invitee-${Date.now()}@example.com`;
    expect((await owner.browser.submit('/members', '/members', { name: 'New Dev', email, role: 'developer' })).status).toBe(303);
    const invitation = suite.mail.linkTo(email, '/invitations');
    const invitee = suite.browser();
    expect((await invitee.submit(invitation, invitation, { password: PASSWORD, password_confirmation: PASSWORD })).location).toBe('/keys');
    expect((await owner.browser.submit('/members', '/members', { name: 'Again', email, role: 'admin' })).status).toBe(409);

    const stepDown = await owner.browser.submit('/members', `/members/${owner.id}/role`, { role: 'admin' });
    expect(stepDown.status).toBe(409);
    expect(stepDown.html).toContain('at least one owner');
    const { rows } = await suite.db.query<{ action: string; actor: string }>(`SELECT action, actor FROM audit_events WHERE organisation_id = $1 AND action <> 'sign_in' ORDER BY id`, [org.id]);
    expect(rows).toEqual([{ action: 'member.invited', actor: owner.email }]);
  });
});
