/**
 * Best available: N seats of a seating plan, side by side in one row, as
 * good by rank as the free seats allow, without stranding a single free
 * seat where another choice exists; split over several rows only when the
 * customer allows it (D504–D507). Pure and deterministic: the same plan,
 * taken seats and request give the same seats.
 *
 * A plan is indexed once (`indexSeatingPlan`) and asked many times; each
 * ask is one pass over the seats, so a 10,000-seat arena answers in a few
 * milliseconds.
 */
import type { SeatingPlan } from '@partner-api/shared';

interface IndexedSeat {
  id: string;
  rank: number;
  category: string | undefined;
  accessible: boolean;
  /** Whether the seat before it in the row is beside it (no aisle between them). */
  besidePrevious: boolean;
}

interface IndexedRow {
  section: string;
  /** Where the row's seats start in the plan's seat order. */
  first: number;
  seats: IndexedSeat[];
}

export interface SeatingIndex {
  rows: IndexedRow[];
  seatCount: number;
}

export function indexSeatingPlan(plan: SeatingPlan): SeatingIndex {
  const rows: IndexedRow[] = [];
  let seatCount = 0;
  for (const section of plan.sections) {
    for (const row of section.rows) {
      rows.push({
        section: section.id,
        first: seatCount,
        seats: row.seats.map((seat, i) => ({ id: seat.id, rank: seat.rank, category: seat.category, accessible: seat.accessible, besidePrevious: i > 0 && !seat.gap_before })),
      });
      seatCount += row.seats.length;
    }
  }
  return { rows, seatCount };
}

export interface BestAvailableRequest {
  quantity: number;
  /** Seats held, sold or blocked. */
  unavailable: ReadonlySet<string>;
  /** Only seats of this category. */
  category?: string;
  /** Only seats of these sections (ids). */
  sections?: readonly string[];
  /** How many of the seats must be accessible ones; the rest are not (0 by default: accessible seats are kept for who needs them). */
  accessibleSeats?: number;
  /** Whether seats in more than one group will do when N are not free side by side. */
  allowSplit: boolean;
}

export type BestAvailable =
  | { found: true; together: boolean; seats: string[]; groups: string[][] }
  | { found: false; reason: 'not_enough_seats' | 'not_together' };

/** A window of seats in a row, with how it is judged: fewer stranded singles, then lower rank sum, then plan order. */
interface Choice {
  row: IndexedRow;
  start: number;
  size: number;
  stranded: number;
  rankSum: number;
}

const better = (a: Choice, b: Choice | undefined): boolean =>
  b === undefined || a.stranded < b.stranded || (a.stranded === b.stranded && a.rankSum < b.rankSum);

export function bestAvailable(index: SeatingIndex, request: BestAvailableRequest): BestAvailable {
  const accessibleWanted = request.accessibleSeats ?? 0;
  if (!Number.isInteger(request.quantity) || request.quantity < 1) throw new RangeError('quantity must be a positive whole number');
  if (!Number.isInteger(accessibleWanted) || accessibleWanted < 0 || accessibleWanted > request.quantity) {
    throw new RangeError('accessibleSeats must be a whole number from 0 to the quantity');
  }
  const sections = request.sections === undefined ? undefined : new Set(request.sections);
  const rows = sections === undefined ? index.rows : index.rows.filter((row) => sections.has(row.section));
  const free = new Uint8Array(index.seatCount);
  const eligible = new Uint8Array(index.seatCount);
  let eligibleFree = 0;
  let accessibleFree = 0;
  for (const row of rows) {
    row.seats.forEach((seat, i) => {
      if (request.unavailable.has(seat.id)) return;
      free[row.first + i] = 1;
      if (request.category !== undefined && seat.category !== request.category) return;
      if (seat.accessible && accessibleWanted === 0) return;
      eligible[row.first + i] = 1;
      eligibleFree += 1;
      if (seat.accessible) accessibleFree += 1;
    });
  }
  if (eligibleFree < request.quantity || accessibleFree < accessibleWanted || eligibleFree - accessibleFree < request.quantity - accessibleWanted) {
    return { found: false, reason: 'not_enough_seats' };
  }

  const together = bestWindow(rows, free, eligible, request.quantity, accessibleWanted);
  if (together) return { found: true, together: true, seats: seatsOf(together), groups: [seatsOf(together)] };
  // An accessible seat and its companions sit together or not at all (D506).
  if (!request.allowSplit || accessibleWanted > 0) return { found: false, reason: 'not_together' };

  // Split: the largest group that still fits, best first, until all are seated (fewest groups, D507).
  const groups: string[][] = [];
  for (let remaining = request.quantity; remaining > 0; ) {
    const size = Math.min(remaining, longestEligibleRun(rows, eligible));
    const choice = bestWindow(rows, free, eligible, size, 0)!;
    for (let i = choice.start; i < choice.start + size; i += 1) {
      free[choice.row.first + i] = 0;
      eligible[choice.row.first + i] = 0;
    }
    groups.push(seatsOf(choice));
    remaining -= size;
  }
  return { found: true, together: false, seats: groups.flat(), groups };
}

const seatsOf = (choice: Choice): string[] => choice.row.seats.slice(choice.start, choice.start + choice.size).map((seat) => seat.id);

/**
 * The best window of `size` eligible seats side by side, with exactly
 * `accessibleWanted` accessible ones. Free runs are walked row by row;
 * within a run, a sliding window keeps its rank sum, its eligible and its
 * accessible counts.
 */
function bestWindow(rows: readonly IndexedRow[], free: Uint8Array, eligible: Uint8Array, size: number, accessibleWanted: number): Choice | undefined {
  let best: Choice | undefined;
  for (const row of rows) {
    const { seats, first } = row;
    let runStart = 0;
    while (runStart < seats.length) {
      if (!free[first + runStart]) {
        runStart += 1;
        continue;
      }
      let runEnd = runStart;
      while (runEnd + 1 < seats.length && free[first + runEnd + 1] && seats[runEnd + 1]!.besidePrevious) runEnd += 1;
      if (runEnd - runStart + 1 >= size) {
        let rankSum = 0;
        let eligibleCount = 0;
        let accessibleCount = 0;
        for (let i = runStart; i <= runEnd; i += 1) {
          rankSum += seats[i]!.rank;
          eligibleCount += eligible[first + i]!;
          accessibleCount += seats[i]!.accessible ? 1 : 0;
          const start = i - size + 1;
          if (start > runStart) {
            const leaving = start - 1;
            rankSum -= seats[leaving]!.rank;
            eligibleCount -= eligible[first + leaving]!;
            accessibleCount -= seats[leaving]!.accessible ? 1 : 0;
          }
          if (start < runStart || eligibleCount < size || accessibleCount !== accessibleWanted) continue;
          // A free seat left alone on either side, between this group and a taken seat, an aisle or the row's end.
          const stranded = (start - runStart === 1 ? 1 : 0) + (runEnd - i === 1 ? 1 : 0);
          const choice = { row, start, size, stranded, rankSum };
          if (better(choice, best)) best = choice;
        }
      }
      runStart = runEnd + 1;
    }
  }
  return best;
}

/** The most eligible seats side by side anywhere. */
function longestEligibleRun(rows: readonly IndexedRow[], eligible: Uint8Array): number {
  let longest = 0;
  for (const { seats, first } of rows) {
    let run = 0;
    seats.forEach((seat, i) => {
      run = eligible[first + i] ? (seat.besidePrevious ? run + 1 : 1) : 0;
      longest = Math.max(longest, run);
    });
  }
  return longest;
}
