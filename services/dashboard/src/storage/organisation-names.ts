/** Organisation names for page headers and emails, read through the gateway's KeyAdmin and kept for a minute. */
import type { KeyAdmin } from '@partner-api/gateway';

/** Where an organisation's display name comes from (page headers, invitation emails). */
export interface OrganisationNames {
  nameOf(organisationId: number): Promise<string | undefined>;
}

const KEEP_MS = 60_000;

export class CachedOrganisationNames implements OrganisationNames {
  private readonly names = new Map<number, { name: string | undefined; until: number }>();

  constructor(private readonly keys: KeyAdmin) {}

  async nameOf(organisationId: number): Promise<string | undefined> {
    const cached = this.names.get(organisationId);
    if (cached && cached.until > Date.now()) return cached.name;
    const name = (await this.keys.organisation(organisationId))?.name;
    this.names.set(organisationId, { name, until: Date.now() + KEEP_MS });
    return name;
  }
}
