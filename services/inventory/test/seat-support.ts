/** A venue, a seated event and its plan for the seating suites, written straight to PostgreSQL. */
import type { Pool } from 'pg';
import { randomBase62, type SeatingPlanInput } from '@partner-api/shared';
import { SeatingPlans } from '../src/domain/seating-plans';

/** `rows` rows (A, B, …) of `perRow` seats side by side in each section; ranks best at the front, centre first. */
export function gridPlan(sections: string[], rows: number, perRow: number): SeatingPlanInput {
  return {
    format: 1,
    name: 'Grid Hall',
    width: 10_000,
    height: 10_000,
    sections: sections.map((section, s) => ({
      id: section,
      name: section,
      rows: Array.from({ length: rows }, (_, r) => {
        const label = String.fromCharCode(65 + r);
        return {
          id: `${section}-${label}`,
          label,
          seats: Array.from({ length: perRow }, (_, i) => ({
            id: `${section}-${label}${i + 1}`,
            label: String(i + 1),
            x: 10 + i * 10 + s * 1000,
            y: 10 + r * 10,
            rank: 1 + r * perRow + Math.abs(2 * i + 1 - perRow),
          })),
        };
      }),
    })),
  };
}

/** A venue with `plan` imported (version 1), an event there and a capped pool; their ids. */
export async function seatedEvent(db: Pool, plan: SeatingPlanInput, poolCount = 1): Promise<{ venueId: string; eventId: string; poolIds: string[] }> {
  const suffix = randomBase62(10).toLowerCase();
  const venue = await db.query<{ id: string }>(
    `INSERT INTO venues (name, slug, line1, locality, state, postal_code, country) VALUES ('Grid Hall', $1, '1 Row St', 'Sydney', 'NSW', '2000', 'AU') RETURNING id`,
    [`grid-${suffix}`],
  );
  const venueId = venue.rows[0]!.id;
  await new SeatingPlans(db as never).import(BigInt(venueId), JSON.stringify(plan));
  const event = await db.query<{ id: string }>(
    `INSERT INTO events (organisation_id, slug, title, status, starts_at, timezone, venue_id) VALUES (77001, $1, 'Seated', 'published', now() + interval '30 days', 'UTC', $2) RETURNING id`,
    [`seated-${suffix}`, venueId],
  );
  const eventId = event.rows[0]!.id;
  const poolIds: string[] = [];
  for (let i = 0; i < poolCount; i += 1) {
    const pool = await db.query<{ id: string }>(`INSERT INTO pools (event_id, name, capacity) VALUES ($1, $2, 10) RETURNING id`, [eventId, `Seated ${i + 1}`]);
    poolIds.push(pool.rows[0]!.id);
  }
  return { venueId, eventId, poolIds };
}
