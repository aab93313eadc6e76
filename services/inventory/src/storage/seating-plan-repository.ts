/** The `seating_plans` table: each venue's plan documents, one row per version. */
import type { Queryable } from './catalog-repository';

export interface SeatingPlanRow {
  venue_id: string;
  version: number;
  /** The document exactly as stored. */
  document_json: string;
  digest: string;
  seat_count: number;
  created_at: Date;
}

const COLUMNS = 'venue_id, version, document::text AS document_json, digest, seat_count, created_at';

export class SeatingPlanRepository {
  constructor(private readonly db: Queryable) {}

  /** Locks a venue that is not removed against concurrent imports; false when there is none. */
  async lockVenue(venueId: string): Promise<boolean> {
    const { rowCount } = await this.db.query('SELECT 1 FROM venues WHERE id = $1 AND removed_at IS NULL FOR UPDATE', [venueId]);
    return rowCount === 1;
  }

  async venueExists(venueId: string): Promise<boolean> {
    const { rowCount } = await this.db.query('SELECT 1 FROM venues WHERE id = $1', [venueId]);
    return rowCount === 1;
  }

  /** A version of a venue's plan, or its latest when `version` is undefined. */
  async find(venueId: string, version?: number): Promise<SeatingPlanRow | undefined> {
    const { rows } =
      version === undefined
        ? await this.db.query<SeatingPlanRow>(`SELECT ${COLUMNS} FROM seating_plans WHERE venue_id = $1 ORDER BY version DESC LIMIT 1`, [venueId])
        : await this.db.query<SeatingPlanRow>(`SELECT ${COLUMNS} FROM seating_plans WHERE venue_id = $1 AND version = $2`, [venueId, version]);
    return rows[0];
  }

  async insert(plan: Omit<SeatingPlanRow, 'created_at'>): Promise<SeatingPlanRow> {
    const { rows } = await this.db.query<SeatingPlanRow>(
      `INSERT INTO seating_plans (venue_id, version, document, digest, seat_count) VALUES ($1, $2, $3::json, $4, $5) RETURNING ${COLUMNS}`,
      [plan.venue_id, plan.version, plan.document_json, plan.digest, plan.seat_count],
    );
    return rows[0]!;
  }
}
