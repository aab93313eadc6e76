import type { DisableNoticeRepository, DisableNoticeRow } from '../storage/disable-notice-repository';
import { DisableNotices } from './disable-notices';

const notice: DisableNoticeRow = {
  id: '12',
  organisation_id: '42',
  endpoint_id: '9',
  endpoint_url: 'https://example.com/hooks',
  mode: 'live',
  reason: 'consecutive_failures',
  disabled_at: new Date('2026-11-25T09:00:00Z'),
  claims: 1,
  claimed_until: new Date('2026-11-25T09:05:00Z'),
  sent_at: null,
  created_at: new Date('2026-11-25T09:00:00Z'),
};

function notices() {
  const claims: [number, number][] = [];
  const repository = {
    claim: async (limit: number, leaseSeconds: number) => {
      claims.push([limit, leaseSeconds]);
      return [notice];
    },
    complete: async (id: bigint) => (id === 12n ? { ...notice, sent_at: new Date('2026-11-25T09:01:00Z'), claimed_until: null } : undefined),
  };
  return { claims, service: new DisableNotices(repository as unknown as DisableNoticeRepository) };
}

const claimRequest = (limit: number, leaseSeconds: number) => ({ $typeName: 'partnerapi.webhooks.v1.ClaimDisableNoticesRequest' as const, limit, leaseSeconds });

describe('claiming disable notices', () => {
  it('takes 10 for 5 minutes unless told otherwise', async () => {
    const { claims, service } = notices();
    await service.claim(claimRequest(0, 0));
    await service.claim(claimRequest(100, 10));
    expect(claims).toEqual([
      [10, 300],
      [100, 10],
    ]);
  });

  it('answers with the notices as the dashboard emails them', async () => {
    const { service } = notices();
    expect((await service.claim(claimRequest(1, 60))).data).toEqual([
      {
        id: 12n,
        organisationId: 42n,
        endpointId: 9n,
        endpointUrl: 'https://example.com/hooks',
        mode: 'live',
        reason: 'consecutive_failures',
        disabledAt: '2026-11-25T09:00:00Z',
        claims: 1,
        claimedUntil: '2026-11-25T09:05:00Z',
        sentAt: undefined,
      },
    ]);
  });

  it('refuses a limit or a lease out of range, naming it', async () => {
    const { claims, service } = notices();
    await expect(service.claim(claimRequest(101, 60))).rejects.toMatchObject({ code: 'parameter_invalid', param: 'limit' });
    await expect(service.claim(claimRequest(-1, 60))).rejects.toMatchObject({ code: 'parameter_invalid', param: 'limit' });
    await expect(service.claim(claimRequest(5, 9))).rejects.toMatchObject({ code: 'parameter_invalid', param: 'lease_seconds' });
    await expect(service.claim(claimRequest(5, 3_601))).rejects.toMatchObject({ code: 'parameter_invalid', param: 'lease_seconds' });
    expect(claims).toEqual([]);
  });
});

describe('completing a disable notice', () => {
  it('answers with the sent notice, and 404 for one that does not exist', async () => {
    const { service } = notices();
    expect(await service.complete(12n)).toMatchObject({ id: 12n, sentAt: '2026-11-25T09:01:00Z', claimedUntil: undefined });
    await expect(service.complete(13n)).rejects.toMatchObject({ code: 'resource_missing' });
  });
});
