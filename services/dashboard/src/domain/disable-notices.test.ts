import { endpointDisabledEmail } from './disable-notices';
import type { Member } from '../storage/member-repository';

const owner = { id: 7, email: 'owner@example.com', name: 'Ola Owner' } as Member;
const notice = { id: 3n, organisationId: 1, endpointId: 42n, url: 'https://hooks.example.com/in', reason: 'consecutive_failures', disabledAt: '2026-11-25T10:00:00Z' };

describe('the endpoint-disabled email', () => {
  test('says which endpoint, when, why, and how to recover, with a link to its dashboard page', () => {
    const mail = endpointDisabledEmail({ baseUrl: 'https://dashboard.example.com', domain: 'example.com' }, owner, notice);
    expect(mail).toMatchObject({ to: 'owner@example.com', toName: 'Ola Owner', subject: 'Webhook endpoint disabled: https://hooks.example.com/in' });
    expect(mail.text).toContain('at 2026-11-25T10:00:00Z, because its last 50 deliveries in a row failed');
    expect(mail.text).toContain('https://dashboard.example.com/webhooks/42');
    expect(mail.text).toContain('Re-enable the endpoint');
    expect(mail.text).toContain('"Recover"');
  });

  test('names the 3-day rule, and keeps one Message-ID per notice and member so a repeat is recognisable', () => {
    const ctx = { baseUrl: 'https://d.example.com', domain: 'example.com' };
    const mail = endpointDisabledEmail(ctx, owner, { ...notice, reason: 'failing_for_3_days' });
    expect(mail.text).toContain('failing for 3 days');
    expect(mail.messageId).toBe('<endpoint-disabled-3-7@example.com>');
    expect(endpointDisabledEmail(ctx, owner, notice).messageId).toBe(mail.messageId);
  });
});
