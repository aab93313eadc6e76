/** Organisation names for page headers and emails, read from the gateway (which owns organisations) and kept for a minute. */
import type { GatewayKeys } from '@partner-api/shared';

/** Where an organisation's display name comes from (page headers, invitation emails). */
export interface OrganisationNames {
  nameOf(organisationId: number): Promise<string | undefined>;
}

const KEEP_MS = 60_000;

export class CachedOrganisationNames implements OrganisationNames {
  private readonly names = new Map<number, { name: string | undefined; until: number }>();

  constructor(private readonly keys: Pick<GatewayKeys, 'organisation'>) {}

  async nameOf(organisationId: number): Promise<string | undefined> {
    const cached = this.names.get(organisationId);
    if (cached && cached.until > Date.now()) return cached.name;
    const name = (await this.keys.organisation(organisationId))?.name;
    this.names.set(organisationId, { name, until: Date.now() + KEEP_MS });
    return name;
  }
}
