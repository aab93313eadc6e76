/**
 * `partnerctl org`, `key` and `member` against the running stack: an
 * organisation and its keys made from the terminal are what the gateway
 * then admits (GET / names the organisation and the key's scopes; the
 * allowlist, rate limit, roll and revoke bite on the next request), and an
 * owner added from the terminal is invited on the dashboard. Bad input (an
 * unknown subcommand, a missing option, a value that is not a number, an
 * unknown id, a value the platform refuses) gets one clear line on stderr,
 * exit code 1 and no write.
 */
import { api, type ErrorBody } from './support/api';
import { DASHBOARD_URL } from './support/dashboard';
import { uniqueSlug } from './support/operator';
import { expectRefused, jsonLines, partnerctl } from './support/partnerctl';

// Each partnerctl run starts a Node process: a few seconds each on a loaded 2-core machine.
jest.setTimeout(120_000);

const NO_SUCH_ORGANISATION = '999999999';

interface Issued {
  id: number;
  secret: string;
  prefix: string;
  last4: string;
  mode: string;
  scopes: string[];
}
interface Listed {
  id: number;
  name: string;
  mode: string;
  scopes: string[];
  ip_allowlist: string[];
  rate_limit: number | null;
  state: string;
  display: string;
  secret?: string;
}
interface KeyInfo {
  object: string;
  organisation: { id: number; name: string; slug: string };
  key: { prefix: string; mode: string; scopes: string[] };
  livemode: boolean;
}

let org: { id: number; name: string; slug: string };
let key: Issued;

const keysOf = async (organisationId: number): Promise<Listed[]> => {
  const run = await partnerctl('key', 'list', '--org', String(organisationId));
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return jsonLines<Listed>(run);
};

const refusal = async (secret: string) => {
  const response = await api<ErrorBody>('/', { key: secret });
  return { status: response.status, code: response.body.error?.code };
};

beforeAll(async () => {
  const slug = uniqueSlug('cli-org');
  const created = await partnerctl('org', 'create', '--name', 'Terminal Presents', '--slug', slug);
  expect(created).toMatchObject({ code: 0, stderr: '' });
  org = JSON.parse(created.stdout) as typeof org;
  expect(org).toEqual({ id: expect.any(Number), name: 'Terminal Presents', slug });

  const issued = await partnerctl('key', 'issue', '--org', String(org.id), '--name', 'Box office', '--scopes', 'events:read,orders:read', '--rate-limit', '30');
  expect(issued).toMatchObject({ code: 0, stderr: '' });
  key = JSON.parse(issued.stdout) as Issued;
});

describe('partnerctl org and key', () => {
  it('issues a key the gateway admits for the new organisation, with its scopes and limit; the list never shows a secret', async () => {
    expect(key).toMatchObject({ mode: 'live', scopes: ['events:read', 'orders:read'] });
    expect(key.secret).toMatch(/^svc_live_/);

    const info = await api<KeyInfo>('/', { key: key.secret });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ object: 'api_key_info', organisation: org, key: { mode: 'live', scopes: ['events:read', 'orders:read'] }, livemode: true });
    expect(info.headers.get('ratelimit-limit')).toBe('30');

    const listed = await keysOf(org.id);
    expect(listed).toEqual([
      expect.objectContaining({ id: key.id, name: 'Box office', mode: 'live', ip_allowlist: [], rate_limit: 30, state: 'active', display: `${key.prefix}…${key.last4}` }),
    ]);
    expect(listed[0]).not.toHaveProperty('secret');
    expect(listed[0]).not.toHaveProperty('secret_hash');
  });

  it('sets the allowlist and the rate limit, and the gateway applies them on the next request', async () => {
    const allow = (ips: string) => partnerctl('key', 'allowlist', String(key.id), '--org', String(org.id), '--ips', ips);
    const elsewhere = await allow('203.0.113.0/24, 198.51.100.7');
    expect(JSON.parse(elsewhere.stdout)).toEqual({ id: key.id, ip_allowlist: ['203.0.113.0/24', '198.51.100.7/32'] });
    expect(await refusal(key.secret)).toEqual({ status: 403, code: 'ip_not_allowed' });
    expect(JSON.parse((await allow('')).stdout)).toEqual({ id: key.id, ip_allowlist: [] });
    expect((await api('/', { key: key.secret })).status).toBe(200);

    const limit = await partnerctl('key', 'rate-limit', String(key.id), '--org', String(org.id), '--limit', '7');
    expect(JSON.parse(limit.stdout)).toEqual({ id: key.id, rate_limit: 7 });
    expect((await api('/', { key: key.secret })).headers.get('ratelimit-limit')).toBe('7');
    const usual = await partnerctl('key', 'rate-limit', String(key.id), '--org', String(org.id), '--limit', 'default');
    expect(JSON.parse(usual.stdout)).toEqual({ id: key.id, rate_limit: null });
    expect((await api('/', { key: key.secret })).headers.get('ratelimit-limit')).toBe('120');
  });

  it('rolls a key (the old secret works through its grace period) and revokes one (refused at once)', async () => {
    const rolled = await partnerctl('key', 'roll', String(key.id), '--org', String(org.id), '--grace', '1');
    expect(rolled).toMatchObject({ code: 0, stderr: '' });
    const replacement = JSON.parse(rolled.stdout) as Issued & { oldKeyExpiresAt: string };
    expect(replacement.secret).not.toBe(key.secret);
    expect(replacement.scopes).toEqual(key.scopes);
    expect(Date.parse(replacement.oldKeyExpiresAt) - Date.now()).toBeGreaterThan(50 * 60_000);
    expect((await api('/', { key: key.secret })).status).toBe(200);
    expect((await api('/', { key: replacement.secret })).status).toBe(200);
    expect((await keysOf(org.id)).map((listed) => [listed.id, listed.state]).sort()).toEqual([[key.id, 'expiring'], [replacement.id, 'active']].sort());

    const revoked = await partnerctl('key', 'revoke', String(replacement.id), '--org', String(org.id));
    expect(JSON.parse(revoked.stdout)).toEqual({ id: replacement.id, revoked: true });
    expect(await refusal(replacement.secret)).toEqual({ status: 401, code: 'api_key_revoked' });

    // A rolled key is not rolled twice, and nothing new is issued by trying.
    expectRefused(await partnerctl('key', 'roll', String(key.id), '--org', String(org.id)), /Only a key that is in use and not already rolled/);
    expect(await keysOf(org.id)).toHaveLength(2);
  });

  it('refuses bad input with a clear message, exit code 1 and no new key', async () => {
    const orgId = String(org.id);
    const before = await keysOf(org.id);
    const [unknownCommand, missingSlug, duplicateSlug, notANumber, unknownOrg, badScope, badAllowlist, badMode, stray] = await Promise.all([
      partnerctl('org', 'rename', orgId),
      partnerctl('org', 'create', '--name', 'No Slug'),
      partnerctl('org', 'create', '--name', 'Copycat', '--slug', org.slug),
      partnerctl('key', 'issue', '--org', 'twelve'),
      partnerctl('key', 'issue', '--org', NO_SUCH_ORGANISATION),
      partnerctl('key', 'issue', '--org', orgId, '--scopes', 'events:read,events:write'),
      partnerctl('key', 'issue', '--org', orgId, '--ip-allowlist', '10.0.0.0/8,not-an-address'),
      partnerctl('key', 'issue', '--org', orgId, '--mode', 'staging'),
      partnerctl('key', 'issue', 'Box office', '--org', orgId),
    ]);
    expectRefused(unknownCommand, /unknown command 'rename'/);
    expectRefused(missingSlug, /required option '--slug <slug>' not specified/);
    expectRefused(duplicateSlug, new RegExp(`already an organisation with the slug "${org.slug}"`));
    expectRefused(notANumber, /option '--org <id>' argument 'twelve' is invalid\. expected a positive whole number/);
    expectRefused(unknownOrg, new RegExp(`There is no organisation ${NO_SUCH_ORGANISATION}\\.`));
    expectRefused(badScope, /Scopes must be a non-empty subset of: .*events:read/);
    expectRefused(badAllowlist, /The allowlist holds IP addresses and CIDR ranges/);
    expectRefused(badMode, /--mode must be live or test/);
    expectRefused(stray, /too many arguments for 'issue'/);

    const [badGrace, unknownKey, badLimit, listUnknownOrg, notAnId] = await Promise.all([
      partnerctl('key', 'roll', String(before[0]!.id), '--org', orgId, '--grace', '500'),
      partnerctl('key', 'revoke', '999999999', '--org', orgId),
      partnerctl('key', 'rate-limit', String(key.id), '--org', orgId, '--limit', 'lots'),
      partnerctl('key', 'list', '--org', NO_SUCH_ORGANISATION),
      partnerctl('key', 'allowlist', 'latest', '--org', orgId, '--ips', ''),
    ]);
    expectRefused(badGrace, /grace period is a whole number of hours from 0 to 168/);
    expectRefused(unknownKey, /No such API key in the organisation/);
    expectRefused(badLimit, /option '--limit <n\|default>' argument 'lots' is invalid/);
    expectRefused(listUnknownOrg, new RegExp(`There is no organisation ${NO_SUCH_ORGANISATION}\\.`));
    expectRefused(notAnId, /value 'latest' is invalid for argument 'key-id'/);

    // last_used_at moves as the gateways flush key usage: the keys and their settings are what must not.
    const settings = (keys: Listed[]) => keys.map(({ id, state, ip_allowlist, rate_limit }) => ({ id, state, ip_allowlist, rate_limit }));
    expect(settings(await keysOf(org.id))).toEqual(settings(before));
  });
});

describe('partnerctl member', () => {
  it('adds an owner whose invitation the dashboard opens, and lists the organisation\'s members', async () => {
    const email = `${uniqueSlug('owner')}@example.com`;
    const added = await partnerctl('member', 'add-owner', '--org', String(org.id), '--email', email.toUpperCase(), '--name', 'Olive Owner', '--dashboard-url', DASHBOARD_URL);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const owner = JSON.parse(added.stdout) as { id: number; organisation_id: number; email: string; role: string; invitation_url: string };
    expect(owner).toMatchObject({ organisation_id: org.id, email, role: 'owner' });
    expect(owner.invitation_url.startsWith(`${DASHBOARD_URL}/invitations/`)).toBe(true);

    const invitation = await fetch(owner.invitation_url);
    expect(invitation.status).toBe(200);
    expect(await invitation.text()).toContain(email);

    const listed = await partnerctl('member', 'list', '--org', String(org.id));
    expect(jsonLines(listed)).toEqual([{ id: owner.id, email, name: 'Olive Owner', role: 'owner', joined_at: null }]);

    const again = await partnerctl('member', 'add-owner', '--org', String(org.id), '--email', email, '--name', 'Olive Again');
    expectRefused(again, /That email already belongs to a member/);
    expect(jsonLines(await partnerctl('member', 'list', '--org', String(org.id)))).toHaveLength(1);
  });

  it('refuses bad input with a clear message and exit code 1', async () => {
    const [unknownCommand, missingEmail, badEmail, unknownOrg, notANumber, listUnknownOrg] = await Promise.all([
      partnerctl('member', 'remove', '--org', String(org.id)),
      partnerctl('member', 'add-owner', '--org', String(org.id), '--name', 'No Email'),
      partnerctl('member', 'add-owner', '--org', String(org.id), '--email', 'olive at example', '--name', 'Olive'),
      partnerctl('member', 'add-owner', '--org', NO_SUCH_ORGANISATION, '--email', `${uniqueSlug('nobody')}@example.com`, '--name', 'Nobody'),
      partnerctl('member', 'list', '--org', '-3'),
      partnerctl('member', 'list', '--org', NO_SUCH_ORGANISATION),
    ]);
    expectRefused(unknownCommand, /unknown command 'remove'/);
    expectRefused(missingEmail, /required option '--email <email>' not specified/);
    expectRefused(badEmail, /Enter an email address such as name@example\.com/);
    expectRefused(unknownOrg, new RegExp(`There is no organisation ${NO_SUCH_ORGANISATION}\\.`));
    expectRefused(notANumber, /option '--org <id>' argument '-3' is invalid/);
    expectRefused(listUnknownOrg, new RegExp(`There is no organisation ${NO_SUCH_ORGANISATION}\\.`));
    expect(jsonLines(await partnerctl('member', 'list', '--org', String(org.id)))).toHaveLength(1);
  });
});
