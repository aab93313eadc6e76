/** The operator's list of sites allowed to embed an organisation's checkout (`partnerctl channel origin`). */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { formatTimestamp, notFound, type gen, type RequestContext } from '@partner-api/shared';
import type { ChannelOriginRepository, ChannelOriginRow } from '../storage/channel-origin-repository';
import { parseOrigin } from './sales-channels';

type ChannelOriginInit = MessageInitShape<typeof gen.orders.ChannelOriginSchema>;

const view = (row: ChannelOriginRow): ChannelOriginInit => ({ object: 'channel_origin', origin: row.origin, createdAt: formatTimestamp(row.created_at) });

export class ChannelOrigins {
  constructor(private readonly repository: ChannelOriginRepository) {}

  async add(ctx: RequestContext, origin: string): Promise<ChannelOriginInit> {
    return view(await this.repository.add(ctx.organisationId, parseOrigin(origin)));
  }

  /** Removing an origin that is not there is `resource_missing`, so a typo does not pass for a removal. */
  async remove(ctx: RequestContext, origin: string): Promise<{ removed: boolean }> {
    if (!(await this.repository.remove(ctx.organisationId, parseOrigin(origin)))) throw notFound('channel origin', 'origin');
    return { removed: true };
  }

  async list(ctx: RequestContext): Promise<{ data: ChannelOriginInit[] }> {
    return { data: (await this.repository.list(ctx.organisationId)).map(view) };
  }

  /** May this site embed the organisation's checkout? An address that is no origin never may. */
  async allows(organisationId: number, origin: string): Promise<boolean> {
    let normal: string;
    try {
      normal = parseOrigin(origin);
    } catch {
      return false;
    }
    return normal === origin && this.repository.isAllowed(organisationId, origin);
  }
}
