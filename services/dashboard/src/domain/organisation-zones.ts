/**
 * The time zone a dashboard shows an organisation's times in (D405): the
 * zone of its venues, as its events carry it. The organisation has no zone
 * setting of its own: the zone of its next upcoming event, else of its
 * earliest event, else UTC. Kept a few minutes per organisation. The zone
 * only dresses the page: when inventory cannot answer within half a second
 * the page is shown in UTC (named as such) rather than failing, and asked
 * again a little later.
 */
import { randomUUID } from 'node:crypto';
import { operatorContext, type RequestContext } from '@partner-api/shared';

/** What this needs of inventory's ListEvents: the first event of a list, by start time. */
export interface EventLister {
  listEvents(
    request: { status: string; time: string; page: { limit: number; after: string } },
    ctx: RequestContext,
    options?: { deadlineMs?: number },
  ): Promise<{ data: Array<{ timezone: string }> }>;
}

const KEEP_MS = 5 * 60_000;
/** How long UTC stands in for an organisation whose zone could not be read. */
const FALLBACK_KEEP_MS = 30_000;
const LOOKUP_DEADLINE_MS = 500;

export class OrganisationZones {
  private readonly zones = new Map<number, { zone: string; until: number }>();

  constructor(private readonly inventory: EventLister) {}

  async zoneOf(organisationId: number): Promise<string> {
    const cached = this.zones.get(organisationId);
    if (cached && cached.until > Date.now()) return cached.zone;
    const ctx = operatorContext(organisationId, `dash_${randomUUID()}`);
    // Events by start time: the soonest to come, or the earliest there is.
    const first = async (time: 'upcoming' | 'all') =>
      (await this.inventory.listEvents({ status: 'all', time, page: { limit: 1, after: '' } }, ctx, { deadlineMs: LOOKUP_DEADLINE_MS })).data[0]?.timezone;
    try {
      const zone = (await first('upcoming')) ?? (await first('all')) ?? 'UTC';
      this.zones.set(organisationId, { zone, until: Date.now() + KEEP_MS });
      return zone;
    } catch {
      this.zones.set(organisationId, { zone: 'UTC', until: Date.now() + FALLBACK_KEEP_MS });
      return 'UTC';
    }
  }
}

/** A time as a member reads it: to the minute on the zone's clock, the zone named ("28 Nov 2026, 1:59 pm AEDT"). */
export function zonedTime(value: Date | string | null | undefined, zone: string): string {
  if (!value) return '';
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) return '';
  const options: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' };
  try {
    return at.toLocaleString('en-AU', { ...options, timeZone: zone });
  } catch {
    // A zone this runtime does not know: UTC, named as such.
    return at.toLocaleString('en-AU', { ...options, timeZone: 'UTC' });
  }
}
