/**
 * partnerctl as a whole, and the bad input of the command groups whose
 * happy paths other suites drive (channel: embed-checkout; ticket:
 * ticket-operations; order: refunds, order-mail; waitlist list: waitlist;
 * webhook: webhook-endpoints), against the running stack. `waitlist
 * release` offers tickets on general sale to the list, as the API then
 * shows. Each refusal is one clear line on stderr, exit code 1, no stack
 * trace and no write.
 */
import { randomUUID } from 'node:crypto';
import { api as callApi } from './support/api';
import { inventoryClient, newOrganisation, operatorContext, publishedEvent, type InventoryClient } from './support/operator';
import { expectRefused, jsonLines, partnerctl, partnerctlWithEnv } from './support/partnerctl';

// Each partnerctl run starts a Node process: a few seconds each on a loaded 2-core machine.
jest.setTimeout(120_000);

interface Entry {
  email: string;
  state: string;
  offered: number | null;
}

let org: { id: number; key: string };
let orgId: string;
let inventory: InventoryClient;
let sale: { slug: string; poolId: bigint; typeId: bigint };

const api: typeof callApi = (route, options = {}) => callApi(route, { ...options, key: options.key ?? org.key });
const available = async () => (await api<{ data: Array<{ available: number | null }> }>(`/events/${sale.slug}/ticket_types`)).body.data[0]!.available;
const waitlist = async () => jsonLines<Entry>(await partnerctl('waitlist', 'list', sale.slug, '--org', orgId, '--json'));

beforeAll(async () => {
  org = await newOrganisation(['events:read', 'orders:write', 'orders:read', 'webhooks:manage']);
  orgId = String(org.id);
  inventory = inventoryClient();
  sale = await publishedEvent(inventory, org.id, { slugPrefix: 'cli-ops', title: 'Operations Night', capacity: 2 });
});

afterAll(() => inventory?.close());

describe('partnerctl', () => {
  it('shows its commands on stderr and exits 1 when given none; --help prints them and exits 0', async () => {
    const [bare, help] = await Promise.all([partnerctl(), partnerctl('--help')]);
    expect({ code: bare.code, stdout: bare.stdout }).toEqual({ code: 1, stdout: '' });
    expect(help.code).toBe(0);
    for (const group of ['org', 'key', 'member', 'venue', 'event', 'pool', 'ticket-type', 'coupon', 'channel', 'ticket', 'order', 'waitlist', 'webhook', 'listen']) {
      expect(bare.stderr).toMatch(new RegExp(`^  ${group} `, 'm'));
      expect(help.stdout).toMatch(new RegExp(`^  ${group} `, 'm'));
    }
  });

  it('refuses an unknown command, an unknown option, a stray argument and a bad setting with one line, not a stack trace', async () => {
    // migrate and demo are refused before they touch the database (their runs would change the shared one).
    const [unknownCommand, unknownOption, strayMigrate, unknownDemo, badSetting] = await Promise.all([
      partnerctl('refund', '--org', orgId),
      partnerctl('waitlist', 'list', sale.slug, '--org', orgId, '--format', 'csv'),
      partnerctl('migrate', 'inventory'),
      partnerctl('demo', 'reset'),
      partnerctlWithEnv({ DATABASE_URL: 'not a url' }, 'waitlist', 'list', sale.slug, '--org', orgId),
    ]);
    expectRefused(unknownCommand, /unknown command 'refund'/);
    expectRefused(unknownOption, /unknown option '--format'/);
    expectRefused(strayMigrate, /too many arguments for 'migrate'/);
    expectRefused(unknownDemo, /unknown command 'reset'/);
    expectRefused(badSetting, /Invalid configuration:\n\s+DATABASE_URL: Invalid URL/);
  });
});

describe('partnerctl waitlist release', () => {
  it('offers tickets on general sale to the waiting list, which the API then no longer sells', async () => {
    const ctx = operatorContext(org.id);
    // A partner's checkout holds one of the two tickets; a customer asking for two may join the list.
    const held = await api('/checkout_sessions', { method: 'POST', body: { event_id: sale.slug, items: [{ ticket_type_id: Number(sale.typeId), quantity: 1 }] } });
    expect(held.status).toBe(201);
    const { id: eventId } = await inventory.getEvent({ idOrSlug: sale.slug }, ctx);
    await inventory.joinWaitlist({ eventId, ticketTypeId: sale.typeId, email: 'first@example.com', quantity: 2 }, ctx);
    expect((await waitlist()).map((entry) => [entry.email, entry.state])).toEqual([['first@example.com', 'waiting']]);
    expect(await available()).toBe(1);

    const released = await partnerctl('waitlist', 'release', sale.slug, '--org', orgId, '--pool', String(sale.poolId), '--count', '5');
    expect({ code: released.code, stderr: released.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(released.stdout)).toEqual({ object: 'waitlist_release', event_id: Number(eventId), pool_id: Number(sale.poolId), released_count: 1 });
    expect(await available()).toBe(0);
  });

  it('refuses bad input with a clear message, exit code 1 and nothing released', async () => {
    const release = (...args: string[]) => partnerctl('waitlist', 'release', ...args);
    const [unknownCommand, missingPool, missingCount, zero, notANumber, unknownEvent, unknownPool, listUnknownEvent] = await Promise.all([
      partnerctl('waitlist', 'clear', sale.slug, '--org', orgId),
      release(sale.slug, '--org', orgId, '--count', '1'),
      release(sale.slug, '--org', orgId, '--pool', String(sale.poolId)),
      release(sale.slug, '--org', orgId, '--pool', String(sale.poolId), '--count', '0'),
      release(sale.slug, '--org', orgId, '--pool', 'floor', '--count', '1'),
      release('no-such-event', '--org', orgId, '--pool', String(sale.poolId), '--count', '1'),
      release(sale.slug, '--org', orgId, '--pool', '999999999', '--count', '1'),
      partnerctl('waitlist', 'list', 'no-such-event', '--org', orgId),
    ]);
    expectRefused(unknownCommand, /unknown command 'clear'/);
    expectRefused(missingPool, /required option '--pool <id>' not specified/);
    expectRefused(missingCount, /required option '--count <n>' not specified/);
    expectRefused(zero, /option '--count <n>' argument '0' is invalid\. expected a positive whole number/);
    expectRefused(notANumber, /option '--pool <id>' argument 'floor' is invalid/);
    expectRefused(unknownEvent, /No such event\./);
    expectRefused(unknownPool, /No such capped pool of this event\./);
    expectRefused(listUnknownEvent, /No such event\./);
    expect(await available()).toBe(0);
  });
});

describe('bad input to channel, ticket, order and webhook', () => {
  it('channel origin: a missing argument, an id that is not a number, an address that is no site, an origin never added', async () => {
    const [missing, notANumber, notASite, plainHttp, neverAdded] = await Promise.all([
      partnerctl('channel', 'origin', 'add', orgId),
      partnerctl('channel', 'origin', 'list', 'acme'),
      partnerctl('channel', 'origin', 'add', orgId, 'shop dot example'),
      partnerctl('channel', 'origin', 'add', orgId, 'http://shop.example.com'),
      partnerctl('channel', 'origin', 'remove', orgId, 'https://never.example.com'),
    ]);
    expectRefused(missing, /missing required argument 'origin'/);
    expectRefused(notANumber, /value 'acme' is invalid for argument 'org'/);
    expectRefused(notASite, /origin must be a site address like https:\/\/shop\.example\.com\./);
    expectRefused(plainHttp, /origin must use https/);
    expectRefused(neverAdded, /No such channel origin\./);
    const listed = await partnerctl('channel', 'origin', 'list', orgId);
    expect({ code: listed.code, origins: JSON.parse(listed.stdout) as unknown }).toEqual({ code: 0, origins: [] });
  });

  it('ticket: a missing --org or --email, an id that is not a number, an unknown ticket', async () => {
    const [missingOrg, missingEmail, notANumber, unknownTicket, unknownCommand] = await Promise.all([
      partnerctl('ticket', 'void', '1'),
      partnerctl('ticket', 'transfer', '1', '--org', orgId),
      partnerctl('ticket', 'void', 'ABC-123', '--org', orgId),
      partnerctl('ticket', 'void', '999999999', '--org', orgId, '--reason', 'chargeback'),
      partnerctl('ticket', 'reissue', '1', '--org', orgId),
    ]);
    expectRefused(missingOrg, /required option '--org <id>' not specified/);
    expectRefused(missingEmail, /required option '--email <email>' not specified/);
    expectRefused(notANumber, /value 'ABC-123' is invalid for argument 'ticket-id'/);
    expectRefused(unknownTicket, /No such ticket\./);
    expectRefused(unknownCommand, /unknown command 'reissue'/);
  });

  it('order: an id that is no uuid, an unknown order, a stray argument', async () => {
    const [notAUuid, unknownOrder, unknownResend, stray] = await Promise.all([
      partnerctl('order', 'emails', '12345', '--org', orgId),
      partnerctl('order', 'emails', randomUUID(), '--org', orgId),
      partnerctl('order', 'resend-email', randomUUID(), '--org', orgId),
      partnerctl('order', 'emails', randomUUID(), 'extra', '--org', orgId),
    ]);
    expectRefused(notAUuid, /order_id must be a uuid\./);
    expectRefused(unknownOrder, /No such order\./);
    expectRefused(unknownResend, /No such order\./);
    expectRefused(stray, /too many arguments for 'emails'/);
  });

  it('webhook: an id that is not a number, an unknown endpoint', async () => {
    const [notANumber, unknownEndpoint, missingOrg] = await Promise.all([
      partnerctl('webhook', 'rotate-secret', 'we_123', '--org', orgId),
      partnerctl('webhook', 'rotate-secret', '999999999', '--org', orgId),
      partnerctl('webhook', 'rotate-secret', '1'),
    ]);
    expectRefused(notANumber, /value 'we_123' is invalid for argument 'endpoint-id'/);
    expectRefused(unknownEndpoint, /No such webhook endpoint\./);
    expectRefused(missingOrg, /required option '--org <id>' not specified/);
  });
});
