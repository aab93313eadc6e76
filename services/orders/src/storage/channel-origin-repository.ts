/** The sites allowed to embed each organisation's checkout, in the orders schema. */
import type { Pool } from '@partner-api/shared';

export interface ChannelOriginRow {
  organisation_id: string;
  origin: string;
  created_at: Date;
}

export class ChannelOriginRepository {
  constructor(private readonly pool: Pool) {}

  /** Adds the origin; adding it again keeps the first row. */
  async add(organisationId: number, origin: string): Promise<ChannelOriginRow> {
    const { rows } = await this.pool.query<ChannelOriginRow>(
      // A no-op update rather than DO NOTHING, so a concurrent or repeated add still gets the row back.
      `INSERT INTO channel_origins (organisation_id, origin) VALUES ($1, $2)
       ON CONFLICT (organisation_id, origin) DO UPDATE SET origin = EXCLUDED.origin RETURNING *`,
      [organisationId, origin],
    );
    return rows[0]!;
  }

  /** True when the origin was there. */
  async remove(organisationId: number, origin: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM channel_origins WHERE organisation_id = $1 AND origin = $2', [organisationId, origin]);
    return rowCount === 1;
  }

  async list(organisationId: number): Promise<ChannelOriginRow[]> {
    const { rows } = await this.pool.query<ChannelOriginRow>('SELECT * FROM channel_origins WHERE organisation_id = $1 ORDER BY origin', [organisationId]);
    return rows;
  }

  async isAllowed(organisationId: number, origin: string): Promise<boolean> {
    const { rows } = await this.pool.query('SELECT 1 FROM channel_origins WHERE organisation_id = $1 AND origin = $2', [organisationId, origin]);
    return rows.length === 1;
  }
}
