/**
 * A venue's seating plans (platform operations, run by partnerctl over
 * gRPC): an import checks the document against the shared seating plan
 * schema and stores it as the venue's next version; any version can be
 * read back as stored (D508–D510).
 */
import { createHash } from 'node:crypto';
import {
  ApiError,
  describeSeatingPlanProblems,
  formatTimestamp,
  inTransaction,
  notFound,
  readSeatingPlanJson,
  seatCount,
  type Pool,
} from '@partner-api/shared';
import { SeatingPlanRepository, type SeatingPlanRow } from '../storage/seating-plan-repository';

export interface SeatingPlanView {
  object: 'seating_plan';
  venueId: bigint;
  version: number;
  seatCount: number;
  documentJson: string;
  createdAt: string;
}

const view = (row: SeatingPlanRow): SeatingPlanView => ({
  object: 'seating_plan',
  venueId: BigInt(row.venue_id),
  version: row.version,
  seatCount: row.seat_count,
  documentJson: row.document_json,
  createdAt: formatTimestamp(row.created_at),
});

function venueIdOf(venueId: bigint): string {
  if (venueId < 1n) throw new ApiError('parameter_invalid', 'venue_id must be a venue id (a positive whole number).', 'venue_id');
  return venueId.toString();
}

export class SeatingPlans {
  constructor(private readonly pool: Pool) {}

  /** Stores the document as the venue's next version; the latest version's document again adds nothing. */
  async import(venueId: bigint, documentJson: string): Promise<{ plan: SeatingPlanView; created: boolean }> {
    const venue = venueIdOf(venueId);
    const reading = readSeatingPlanJson(documentJson);
    if (!reading.ok) {
      throw new ApiError('parameter_invalid', `The seating plan is invalid: ${describeSeatingPlanProblems(reading.problems)}`, reading.problems[0]!.path);
    }
    // Stored as read: defaults filled in, fields in the schema's order, so equal plans have equal digests.
    const stored = JSON.stringify(reading.plan);
    const digest = createHash('sha256').update(stored).digest('hex');
    return inTransaction(this.pool, async (client) => {
      const plans = new SeatingPlanRepository(client);
      if (!(await plans.lockVenue(venue))) throw notFound('venue', 'venue_id');
      const latest = await plans.find(venue);
      if (latest?.digest === digest) return { plan: view(latest), created: false };
      const row = await plans.insert({ venue_id: venue, version: (latest?.version ?? 0) + 1, document_json: stored, digest, seat_count: seatCount(reading.plan) });
      return { plan: view(row), created: true };
    });
  }

  async get(venueId: bigint, version?: number): Promise<SeatingPlanView> {
    const venue = venueIdOf(venueId);
    if (version !== undefined && !(Number.isInteger(version) && version >= 1)) {
      throw new ApiError('parameter_invalid', 'version must be a positive whole number.', 'version');
    }
    const plans = new SeatingPlanRepository(this.pool);
    const row = await plans.find(venue, version);
    if (row) return view(row);
    if (!(await plans.venueExists(venue))) throw notFound('venue', 'venue_id');
    throw new ApiError('resource_missing', version === undefined ? 'The venue has no seating plan.' : `The venue has no seating plan version ${version}.`, version === undefined ? 'venue_id' : 'version');
  }
}
