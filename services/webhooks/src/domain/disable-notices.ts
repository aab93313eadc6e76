/**
 * Disable notices (dashboard): the spec emails an organisation's owners and
 * admins when an endpoint is disabled, and only the dashboard knows who they
 * are. The transaction that disables an endpoint writes a notice
 * (`deliveries.ts`); the dashboard claims notices with a lease, emails them
 * and completes them. A claimer that dies leaves the lease to run out and
 * the notice is claimed again: at least once, never lost (D307, D308).
 * Platform calls: notices of every organisation, whatever the caller's context.
 */
import type { MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { ApiError, formatOptionalTimestamp, formatTimestamp, type gen, notFound } from '@partner-api/shared';
import type { DisableNoticeRepository, DisableNoticeRow } from '../storage/disable-notice-repository';

type ClaimRequest = MessageShape<typeof gen.webhooks.ClaimDisableNoticesRequestSchema>;
export type DisableNoticeInit = MessageInitShape<typeof gen.webhooks.DisableNoticeSchema>;

export const DEFAULT_CLAIM_LIMIT = 10;
export const MAX_CLAIM_LIMIT = 100;
/** Long enough to email a handful of people; short enough that a dead claimer's notices go out within minutes. */
export const DEFAULT_LEASE_SECONDS = 300;
export const LEASE_SECONDS_RANGE = [10, 3_600] as const;

export class DisableNotices {
  constructor(private readonly notices: DisableNoticeRepository) {}

  async claim(request: ClaimRequest): Promise<{ data: DisableNoticeInit[] }> {
    const limit = request.limit || DEFAULT_CLAIM_LIMIT;
    if (limit < 1 || limit > MAX_CLAIM_LIMIT) throw new ApiError('parameter_invalid', `limit must be an integer from 1 to ${MAX_CLAIM_LIMIT}.`, 'limit');
    const leaseSeconds = request.leaseSeconds || DEFAULT_LEASE_SECONDS;
    const [least, most] = LEASE_SECONDS_RANGE;
    if (leaseSeconds < least || leaseSeconds > most) throw new ApiError('parameter_invalid', `lease_seconds must be an integer from ${least} to ${most}.`, 'lease_seconds');
    const rows = await this.notices.claim(limit, leaseSeconds);
    return { data: rows.map(disableNoticeView) };
  }

  async complete(id: bigint): Promise<DisableNoticeInit> {
    const row = await this.notices.complete(id);
    if (!row) throw notFound('disable notice');
    return disableNoticeView(row);
  }
}

export function disableNoticeView(row: DisableNoticeRow): DisableNoticeInit {
  return {
    id: BigInt(row.id),
    organisationId: BigInt(row.organisation_id),
    endpointId: BigInt(row.endpoint_id),
    endpointUrl: row.endpoint_url,
    mode: row.mode,
    reason: row.reason,
    disabledAt: formatTimestamp(row.disabled_at),
    claims: row.claims,
    claimedUntil: formatOptionalTimestamp(row.claimed_until),
    sentAt: formatOptionalTimestamp(row.sent_at),
  };
}
