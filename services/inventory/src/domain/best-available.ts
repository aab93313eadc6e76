/**
 * Best available: N seats of a seating plan, side by side in one row, as
 * good by rank as the free seats allow, without stranding a single free
 * seat where another choice exists; split over several rows only when the
 * customer allows it (D504–D507). Pure and deterministic: the same plan,
 * taken seats and request give the same seats.
 *
 * A plan is indexed once (`indexSeatingPlan`, flat arrays in plan order)
 * and asked many times; each ask is one pass over the seats plus one
 * lookup per unavailable seat: well under a millisecond on a 10,000-seat
 * arena.
 */
import type { SeatingPlan } from '@partner-api/shared';

interface IndexedRow {
  section: string;
  /** Where the row's seats start in plan order, and how many it has. */
  first: number;
  length: number;
}

/** A plan's seats in plan order, as flat arrays: one request reads them in one pass. */
export interface SeatingIndex {
  rows: IndexedRow[];
  seatCount: number;
  ids: string[];
  positions: Map<string, number>;
  ranks: Float64Array;
  accessible: Uint8Array;
  /** 1 when the seat before it in the row is beside it (no aisle between them). */
  besidePrevious: Uint8Array;
  /** Index into `categories`, or -1. */
  category: Int32Array;
  categories: Map<string, number>;
}

export function indexSeatingPlan(plan: SeatingPlan): SeatingIndex {
  const seats = plan.sections.flatMap((section) => section.rows.flatMap((row) => row.seats.map((seat, i) => ({ seat, beside: i > 0 && !seat.gap_before }))));
  const categories = new Map(plan.categories.map((category, i) => [category.key, i]));
  const rows: IndexedRow[] = [];
  let first = 0;
  for (const section of plan.sections) {
    for (const row of section.rows) {
      rows.push({ section: section.id, first, length: row.seats.length });
      first += row.seats.length;
    }
  }
  return {
    rows,
    seatCount: seats.length,
    ids: seats.map(({ seat }) => seat.id),
    positions: new Map(seats.map(({ seat }, i) => [seat.id, i])),
    ranks: Float64Array.from(seats, ({ seat }) => seat.rank),
    accessible: Uint8Array.from(seats, ({ seat }) => (seat.accessible ? 1 : 0)),
    besidePrevious: Uint8Array.from(seats, ({ beside }) => (beside ? 1 : 0)),
    category: Int32Array.from(seats, ({ seat }) => (seat.category === undefined ? -1 : categories.get(seat.category)!)),
    categories,
  };
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

/** A window of seats in plan order, judged by fewer stranded singles, then lower rank sum, then plan order. */
interface Choice {
  start: number;
  size: number;
  stranded: number;
  rankSum: number;
}

export function bestAvailable(index: SeatingIndex, request: BestAvailableRequest): BestAvailable {
  const accessibleWanted = request.accessibleSeats ?? 0;
  if (!Number.isInteger(request.quantity) || request.quantity < 1) throw new RangeError('quantity must be a positive whole number');
  if (!Number.isInteger(accessibleWanted) || accessibleWanted < 0 || accessibleWanted > request.quantity) {
    throw new RangeError('accessibleSeats must be a whole number from 0 to the quantity');
  }
  const sections = request.sections === undefined ? undefined : new Set(request.sections);
  const rows = sections === undefined ? index.rows : index.rows.filter((row) => sections.has(row.section));
  // A category no seat has matches none (-2 is no seat's).
  const category = request.category === undefined ? undefined : (index.categories.get(request.category) ?? -2);

  const free = new Uint8Array(index.seatCount).fill(1);
  for (const id of request.unavailable) {
    const position = index.positions.get(id);
    if (position !== undefined) free[position] = 0;
  }
  const eligible = new Uint8Array(index.seatCount);
  let eligibleFree = 0;
  let accessibleFree = 0;
  for (const row of rows) {
    for (let seat = row.first; seat < row.first + row.length; seat += 1) {
      if (!free[seat] || (category !== undefined && index.category[seat] !== category) || (index.accessible[seat] && accessibleWanted === 0)) continue;
      eligible[seat] = 1;
      eligibleFree += 1;
      accessibleFree += index.accessible[seat]!;
    }
  }
  if (eligibleFree < request.quantity || accessibleFree < accessibleWanted || eligibleFree - accessibleFree < request.quantity - accessibleWanted) {
    return { found: false, reason: 'not_enough_seats' };
  }
  const seatsOf = (choice: Choice): string[] => index.ids.slice(choice.start, choice.start + choice.size);

  const together = bestWindow(index, rows, free, eligible, request.quantity, accessibleWanted);
  if (together) return { found: true, together: true, seats: seatsOf(together), groups: [seatsOf(together)] };
  // An accessible seat and its companions sit together or not at all (D506).
  if (!request.allowSplit || accessibleWanted > 0) return { found: false, reason: 'not_together' };

  // Split: the largest group that still fits, best first, until all are seated (fewest groups, D507).
  const groups: string[][] = [];
  for (let remaining = request.quantity; remaining > 0; ) {
    const size = Math.min(remaining, longestEligibleRun(index, rows, eligible));
    const choice = bestWindow(index, rows, free, eligible, size, 0)!;
    free.fill(0, choice.start, choice.start + size);
    eligible.fill(0, choice.start, choice.start + size);
    groups.push(seatsOf(choice));
    remaining -= size;
  }
  return { found: true, together: false, seats: groups.flat(), groups };
}

/**
 * The best window of `size` eligible seats side by side, with exactly
 * `accessibleWanted` accessible ones. Free runs are walked row by row;
 * within a run, a sliding window keeps its rank sum, its eligible and its
 * accessible counts.
 */
function bestWindow(index: SeatingIndex, rows: readonly IndexedRow[], free: Uint8Array, eligible: Uint8Array, size: number, accessibleWanted: number): Choice | undefined {
  const { ranks, accessible, besidePrevious } = index;
  // The best so far, in locals: a request looks at every window of a 10,000-seat plan.
  let bestStart = -1;
  let bestStranded = Infinity;
  let bestRankSum = Infinity;
  for (const { first, length } of rows) {
    const end = first + length;
    let runStart = first;
    while (runStart < end) {
      if (!free[runStart]) {
        runStart += 1;
        continue;
      }
      let runEnd = runStart;
      while (runEnd + 1 < end && free[runEnd + 1] && besidePrevious[runEnd + 1]) runEnd += 1;
      if (runEnd - runStart + 1 >= size) {
        let rankSum = 0;
        let eligibleCount = 0;
        let accessibleCount = 0;
        for (let i = runStart; i <= runEnd; i += 1) {
          rankSum += ranks[i]!;
          eligibleCount += eligible[i]!;
          accessibleCount += accessible[i]!;
          const start = i - size + 1;
          if (start > runStart) {
            rankSum -= ranks[start - 1]!;
            eligibleCount -= eligible[start - 1]!;
            accessibleCount -= accessible[start - 1]!;
          }
          if (start < runStart || eligibleCount < size || accessibleCount !== accessibleWanted) continue;
          // A free seat left alone on either side, between this group and a taken seat, an aisle or the row's end.
          const stranded = (start - runStart === 1 ? 1 : 0) + (runEnd - i === 1 ? 1 : 0);
          if (stranded < bestStranded || (stranded === bestStranded && rankSum < bestRankSum)) {
            bestStart = start;
            bestStranded = stranded;
            bestRankSum = rankSum;
          }
        }
      }
      runStart = runEnd + 1;
    }
  }
  return bestStart < 0 ? undefined : { start: bestStart, size, stranded: bestStranded, rankSum: bestRankSum };
}

/** The most eligible seats side by side anywhere. */
function longestEligibleRun(index: SeatingIndex, rows: readonly IndexedRow[], eligible: Uint8Array): number {
  let longest = 0;
  for (const { first, length } of rows) {
    let run = 0;
    for (let seat = first; seat < first + length; seat += 1) {
      run = eligible[seat] ? (index.besidePrevious[seat] ? run + 1 : 1) : 0;
      longest = Math.max(longest, run);
    }
  }
  return longest;
}
