/**
 * The two demo venues' seating plans, drawn by code: a 1,200-seat theatre
 * (stalls and a balcony, curved rows split by two aisles) and a
 * 10,000-seat arena bowl (a lower and an upper ring of sections around a
 * floor, open behind the stage). Ranks come from each seat's distance to
 * the best point in the house, so best-available starts centre front.
 */
import type { SeatingPlanInput } from './seating-plan';

type SeatInput = SeatingPlanInput['sections'][number]['rows'][number]['seats'][number];
type SectionInput = SeatingPlanInput['sections'][number];

const round = (value: number) => Math.round(value * 10) / 10;
const degrees = (value: number) => (value * Math.PI) / 180;

/** Ranks 1, 2, 3, … by score (lower is better), equal scores in plan order. */
function rankByScore(sections: SectionInput[], score: (seat: SeatInput, section: SectionInput) => number): void {
  const seats = sections.flatMap((section) => section.rows.flatMap((row) => row.seats.map((seat) => ({ seat, score: score(seat, section) }))));
  seats
    .map((entry, order) => ({ ...entry, order }))
    .sort((a, b) => a.score - b.score || a.order - b.order)
    .forEach(({ seat }, i) => {
      seat.rank = i + 1;
    });
}

// Theatres skip I and O: they read as 1 and 0.
const THEATRE_ROWS = 'ABCDEFGHJKLMNPQRSTUVWXYZ'.split('');

interface TheatreTier {
  id: string;
  name: string;
  /** Seats per row, front to back; each row is three blocks split by two aisles. */
  rowSeats: number[];
  /** Distance from the arcs' centre to the front row. */
  radius: number;
  category: (rowIndex: number, block: number) => string;
}

// Rows curve around a point beyond the stage (at the top of the drawing).
const STAGE = { x: 600, y: 120 };
const ARC_CENTRE = { x: 600, y: -500 };

function theatreTier(tier: TheatreTier): SectionInput {
  return {
    id: tier.id,
    name: tier.name,
    rows: tier.rowSeats.map((count, r) => {
      const label = THEATRE_ROWS[r]!;
      const radius = tier.radius + r * 28;
      const side = Math.floor(count / 4);
      const blocks = [side, count - 2 * side, side];
      // Seats 24 units apart along the arc; each aisle as wide as two seats.
      const step = 24 / radius;
      const aisle = 2 * step;
      const span = (count - 1) * step + 2 * aisle;
      const seats: SeatInput[] = [];
      let angle = -span / 2;
      blocks.forEach((size, block) => {
        for (let i = 0; i < size; i += 1) {
          const n = seats.length + 1;
          seats.push({
            id: `${tier.id}-${label}-${n}`,
            label: String(n),
            x: round(ARC_CENTRE.x + radius * Math.sin(angle)),
            y: round(ARC_CENTRE.y + radius * Math.cos(angle)),
            category: tier.category(r, block),
            // The last stalls row's outer seats are wheelchair spaces.
            accessible: tier.id === 'stalls' && r === tier.rowSeats.length - 1 && (n <= 2 || n > count - 2),
            rank: 1,
            gap_before: block > 0 && i === 0,
          });
          angle += i === size - 1 ? aisle : step;
        }
      });
      return { id: `${tier.id}-${label}`, label, seats };
    }),
  };
}

/** 1,200 seats: stalls of 20 rows (800) and a balcony of 10 rows (400). */
export function demoTheatrePlan(): SeatingPlanInput {
  const stalls = theatreTier({
    id: 'stalls',
    name: 'Stalls',
    rowSeats: [...Array<number>(10).fill(38), ...Array<number>(10).fill(42)],
    radius: 700,
    category: (row, block) => (row < 8 && block === 1 ? 'premium' : 'a-reserve'),
  });
  const balcony = theatreTier({ id: 'balcony', name: 'Balcony', rowSeats: [...Array<number>(5).fill(36), ...Array<number>(5).fill(44)], radius: 1300, category: () => 'balcony' });
  const sections = [stalls, balcony];
  // The best seat is a few rows back in the middle of the stalls; the balcony ranks after the stalls' sides.
  const best = { x: STAGE.x, y: STAGE.y + 220 };
  rankByScore(sections, (seat, section) => Math.hypot(seat.x - best.x, seat.y - best.y) + (section.id === 'balcony' ? 250 : 0));
  return {
    format: 1,
    name: 'Demo theatre (stalls and balcony)',
    width: 1200,
    height: 1200,
    categories: [
      { key: 'premium', name: 'Premium', color: '#b8860b' },
      { key: 'a-reserve', name: 'A Reserve', color: '#1f77b4' },
      { key: 'balcony', name: 'Balcony', color: '#2ca02c' },
    ],
    sections,
  };
}

interface Ring {
  prefix: number;
  sections: number;
  rows: number;
  /** Seats in row r of a section. */
  seatsInRow: (row: number) => number;
  radius: number;
  category: string;
}

const ARENA = { x: 1000, y: 1000 };
// The ring is open 60° behind the stage (at the top): sections fill the other 300°.
const OPEN_BEHIND_STAGE = 60;

function arenaRing(ring: Ring): SectionInput[] {
  const width = (360 - OPEN_BEHIND_STAGE) / ring.sections;
  return Array.from({ length: ring.sections }, (_, s) => {
    const id = String(ring.prefix + s + 1);
    const from = OPEN_BEHIND_STAGE / 2 + s * width;
    return {
      id,
      name: `Section ${id}`,
      rows: Array.from({ length: ring.rows }, (_, r) => {
        const label = THEATRE_ROWS[r]!;
        const count = ring.seatsInRow(r);
        const radius = ring.radius + r * 14;
        // A vomitory between sections: 10% of each section's arc stays empty.
        const step = (width * 0.9) / count;
        return {
          id: `${id}-${label}`,
          label,
          seats: Array.from({ length: count }, (_, i) => {
            const angle = degrees(from + width * 0.05 + (i + 0.5) * step);
            return {
              id: `${id}-${label}-${i + 1}`,
              label: String(i + 1),
              x: round(ARENA.x + radius * Math.sin(angle)),
              y: round(ARENA.y - radius * Math.cos(angle)),
              category: ring.category,
              // Wheelchair platforms at the back of the lower bowl, two seats each end.
              accessible: ring.category === 'lower' && r === ring.rows - 1 && (i < 2 || i >= count - 2),
              rank: 1,
            };
          }),
        };
      }),
    };
  });
}

/** 10,000 seats: a lower bowl of 20 sections (5,200) and an upper bowl of 25 (4,800) around the floor; rows of even length, so pairs fill them. */
export function demoArenaPlan(): SeatingPlanInput {
  const lower = arenaRing({ prefix: 100, sections: 20, rows: 20, seatsInRow: (row) => (row < 10 ? 12 : 14), radius: 420, category: 'lower' });
  const upper = arenaRing({ prefix: 200, sections: 25, rows: 16, seatsInRow: (row) => (row < 8 ? 10 : 14), radius: 720, category: 'upper' });
  const sections = [...lower, ...upper];
  // The stage is at the top of the floor: the closer to it and the more in front of it, the better.
  const stage = { x: ARENA.x, y: ARENA.y - 300 };
  rankByScore(sections, (seat) => Math.hypot(seat.x - stage.x, (seat.y - stage.y) * 0.7) + Math.abs(seat.x - stage.x) * 0.3);
  return {
    format: 1,
    name: 'Demo arena (bowl around a floor)',
    width: 2000,
    height: 2000,
    categories: [
      { key: 'lower', name: 'Lower bowl', color: '#d62728' },
      { key: 'upper', name: 'Upper bowl', color: '#9467bd' },
    ],
    sections,
  };
}

/** The demo plans by name, for partnerctl and the demo seed. */
export const demoSeatingPlans = { theatre: demoTheatrePlan, arena: demoArenaPlan } as const;
