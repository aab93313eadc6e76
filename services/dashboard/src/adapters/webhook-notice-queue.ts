/** Disable notices from the webhooks service: claimed and completed over gRPC (platform calls, not of one organisation). */
import { randomUUID } from 'node:crypto';
import { allOrganisationsContext } from '@partner-api/shared';
import type { DisableNotice, DisableNoticeQueue } from '../domain/disable-notices';
import type { WebhooksClient } from '@partner-api/shared';

const platform = () => allOrganisationsContext(`dash_notice_${randomUUID()}`);

export class WebhookNoticeQueue implements DisableNoticeQueue {
  constructor(private readonly webhooks: WebhooksClient) {}

  async claim(limit: number, leaseSeconds: number): Promise<DisableNotice[]> {
    const { data } = await this.webhooks.claimDisableNotices({ limit, leaseSeconds }, platform());
    return data.map((notice) => ({
      id: notice.id,
      organisationId: Number(notice.organisationId),
      endpointId: notice.endpointId,
      url: notice.endpointUrl,
      reason: notice.reason,
      disabledAt: notice.disabledAt,
    }));
  }

  async complete(id: bigint): Promise<void> {
    await this.webhooks.completeDisableNotice({ id }, platform());
  }
}
