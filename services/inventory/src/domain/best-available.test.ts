import { demoArenaPlan, demoTheatrePlan, readSeatingPlan, type SeatingPlan, type SeatingPlanInput } from '@partner-api/shared';
import { bestAvailable, indexSeatingPlan, type BestAvailableRequest, type SeatingIndex } from './best-available';

/**
 * A plan drawn as text: one string per row, `o` a seat, `a` an accessible
 * seat, `|` an aisle before the next seat. Seat ids are `<row letter><n>`
 * (A1, A2, …). Ranks by default: front rows first, left to right.
 */
function layout(rows: string[], options: { rank?: (row: number, seat: number) => number; category?: (id: string) => string | undefined; sectionOf?: (row: number) => string } = {}): SeatingIndex {
  const rank = options.rank ?? ((row, seat) => row * 100 + seat);
  const sectionOf = options.sectionOf ?? (() => 'main');
  const sections: SeatingPlanInput['sections'] = [];
  rows.forEach((text, r) => {
    const letter = String.fromCharCode(65 + r);
    const seats: SeatingPlanInput['sections'][number]['rows'][number]['seats'] = [];
    let gap = false;
    for (const char of text) {
      if (char === '|') {
        gap = true;
        continue;
      }
      const n = seats.length + 1;
      const id = `${letter}${n}`;
      seats.push({ id, label: String(n), x: n * 10, y: r * 10, rank: rank(r, n), accessible: char === 'a', gap_before: gap, category: options.category?.(id) });
      gap = false;
    }
    const sectionId = sectionOf(r);
    let section = sections.find((candidate) => candidate.id === sectionId);
    if (!section) sections.push((section = { id: sectionId, name: sectionId, rows: [] }));
    section.rows.push({ id: letter, label: letter, seats });
  });
  const categories = options.category ? [{ key: 'cheap', name: 'Cheap' }, { key: 'dear', name: 'Dear' }] : [];
  return indexSeatingPlan(valid({ format: 1, name: 'Test', width: 10_000, height: 10_000, categories, sections }));
}

function valid(document: SeatingPlanInput): SeatingPlan {
  const reading = readSeatingPlan(document);
  if (!reading.ok) throw new Error(JSON.stringify(reading.problems));
  return reading.plan;
}

const ask = (index: SeatingIndex, quantity: number, taken: string[] = [], more: Partial<BestAvailableRequest> = {}) =>
  bestAvailable(index, { quantity, unavailable: new Set(taken), allowSplit: false, ...more });

const together = (...seats: string[]) => ({ found: true, together: true, seats, groups: [seats] });

describe('best available', () => {
  it('picks N seats side by side in the best row by rank', () => {
    const index = layout(['oooooo', 'oooooo'], { rank: (row, seat) => row * 100 + Math.abs(seat - 3.5) * 2 });
    expect(ask(index, 2)).toEqual(together('A3', 'A4'));
    expect(ask(index, 3, ['A3'])).toEqual(together('A4', 'A5', 'A6'));
  });

  it('never seats a group across an aisle or a gap in the row', () => {
    const index = layout(['oo|oo|oo', 'oooooo']);
    expect(ask(index, 3)).toEqual(together('B1', 'B2', 'B3'));
    expect(ask(index, 2)).toEqual(together('A1', 'A2'));
  });

  it('leaves no single seat stranded between the group and a taken seat, an aisle or the row end where another choice exists', () => {
    // Row A: seat 4 taken leaves A1–A3; two there strand one either way. Row B has a clean pair, worse by rank.
    expect(ask(layout(['oooo', 'oo']), 2, ['A4'])).toEqual(together('B1', 'B2'));
    // Beside an aisle: A1–A3 then an aisle; A4–A5 fit two exactly.
    expect(ask(layout(['ooo|oo']), 2)).toEqual(together('A4', 'A5'));
    // In a run of five, taking the middle two would strand A1; taking A1–A2 leaves three together.
    expect(ask(layout(['ooooo'], { rank: (_row, seat) => [0, 9, 1, 1, 9, 9][seat]! }), 2)).toEqual(together('A1', 'A2'));
  });

  it('strands a single only when every choice does, and then takes the best by rank', () => {
    expect(ask(layout(['ooo']), 2)).toEqual(together('A1', 'A2'));
    expect(ask(layout(['ooo'], { rank: (_row, seat) => 10 - seat }), 2)).toEqual(together('A2', 'A3'));
  });

  it('does not count a single that was already stranded before the pick', () => {
    // A1 is alone between the row end and the taken A2 already: picking A3–A4 changes nothing for it.
    expect(ask(layout(['oooo']), 2, ['A2'])).toEqual(together('A3', 'A4'));
  });

  it('seats groups on curved rows by rank, whatever the drawing', () => {
    const theatre = indexSeatingPlan(valid(demoTheatrePlan()));
    const answer = ask(theatre, 4);
    expect(answer).toMatchObject({ found: true, together: true });
    const seats = answer.found ? answer.seats : [];
    // Four in one row of the stalls' centre block, numbered one after another.
    expect(new Set(seats.map((seat) => seat.replace(/-\d+$/, ''))).size).toBe(1);
    const numbers = seats.map((seat) => Number(seat.split('-').pop()));
    expect(numbers).toEqual([numbers[0], numbers[0]! + 1, numbers[0]! + 2, numbers[0]! + 3]);
    expect(seats[0]).toMatch(/^stalls-[A-H]-/);
  });

  it('handles rows of one seat', () => {
    const index = layout(['o', 'o', 'oo']);
    expect(ask(index, 1)).toEqual(together('A1'));
    expect(ask(index, 2)).toEqual(together('C1', 'C2'));
    expect(ask(index, 2, ['C2'])).toEqual({ found: false, reason: 'not_together' });
  });

  it('keeps to a category or to sections when asked', () => {
    const index = layout(['oooo', 'oooo', 'oooo'], { category: (id) => (id.startsWith('A') ? 'dear' : 'cheap'), sectionOf: (row) => (row < 2 ? 'front' : 'back') });
    expect(ask(index, 2, [], { category: 'cheap' })).toEqual(together('B1', 'B2'));
    expect(ask(index, 2, [], { sections: ['back'] })).toEqual(together('C1', 'C2'));
    expect(ask(index, 2, [], { category: 'dear', sections: ['back'] })).toEqual({ found: false, reason: 'not_enough_seats' });
  });

  it('counts a free seat of another category when judging stranding, and never picks it', () => {
    // A1 is cheap, A2–A4 dear: taking A2–A3 would leave A4 alone; A3–A4 leaves A1–A2 free together.
    const index = layout(['oooo'], { category: (id) => (id === 'A1' ? 'cheap' : 'dear') });
    expect(ask(index, 2, [], { category: 'dear' })).toEqual(together('A3', 'A4'));
  });

  it('keeps accessible seats for who asks for them, and seats companions beside them', () => {
    const index = layout(['aooo', 'oooa']);
    // A2–A3 would leave A1 and A4 each alone: A2 stays free beside the wheelchair space for a companion.
    expect(ask(index, 2)).toEqual(together('A3', 'A4'));
    expect(ask(index, 2, [], { accessibleSeats: 1 })).toEqual(together('A1', 'A2'));
    expect(ask(index, 2, ['A2'], { accessibleSeats: 1 })).toEqual(together('B3', 'B4'));
    expect(ask(index, 1, ['A1', 'B4'], { accessibleSeats: 1 })).toEqual({ found: false, reason: 'not_enough_seats' });
    // Only accessible seats free: an ordinary request finds none.
    expect(ask(index, 1, ['A2', 'A3', 'A4', 'B1', 'B2', 'B3'])).toEqual({ found: false, reason: 'not_enough_seats' });
    // With an accessible seat, companions sit beside it or the request fails, split allowed or not.
    expect(ask(index, 3, ['A2', 'B2'], { accessibleSeats: 1, allowSplit: true })).toEqual({ found: false, reason: 'not_together' });
  });

  it('splits a group larger than any row only when allowed, in the fewest and largest groups', () => {
    const index = layout(['oooo', 'ooo', 'oo|oo']);
    expect(ask(index, 6)).toEqual({ found: false, reason: 'not_together' });
    // Four in row A, then two: C1–C2 fill a block between aisle and row end, where B1–B2 would strand B3.
    expect(ask(index, 6, [], { allowSplit: true })).toEqual({ found: true, together: false, seats: ['A1', 'A2', 'A3', 'A4', 'C1', 'C2'], groups: [['A1', 'A2', 'A3', 'A4'], ['C1', 'C2']] });
    // Split is a fallback: four together exist, so they are taken.
    expect(ask(index, 4, [], { allowSplit: true })).toEqual(together('A1', 'A2', 'A3', 'A4'));
  });

  it('answers not_enough_seats when sold out or short of N', () => {
    const index = layout(['oo', 'oo']);
    expect(ask(index, 1, ['A1', 'A2', 'B1', 'B2'])).toEqual({ found: false, reason: 'not_enough_seats' });
    expect(ask(index, 4, ['A1'], { allowSplit: true })).toEqual({ found: false, reason: 'not_enough_seats' });
    expect(ask(index, 3, ['A1'], { allowSplit: true })).toEqual({ found: true, together: false, seats: ['B1', 'B2', 'A2'], groups: [['B1', 'B2'], ['A2']] });
  });

  it('is deterministic: equal ranks go to the first seats in plan order', () => {
    const index = layout(['oooo', 'oooo'], { rank: () => 1 });
    expect(ask(index, 2)).toEqual(together('A1', 'A2'));
    expect(ask(index, 2)).toEqual(ask(index, 2));
  });

  it('refuses a request that makes no sense', () => {
    const index = layout(['oo']);
    expect(() => ask(index, 0)).toThrow(RangeError);
    expect(() => ask(index, 1, [], { accessibleSeats: 2 })).toThrow(RangeError);
  });

  it('sells a 10,000-seat arena out in pairs, never twice the same seat, leaving under 1% stranded', () => {
    const arena = indexSeatingPlan(valid(demoArenaPlan()));
    const taken = new Set<string>();
    let pairs = 0;
    for (let answer = ask(arena, 2); answer.found; answer = bestAvailable(arena, { quantity: 2, unavailable: taken, allowSplit: false })) {
      answer.seats.forEach((seat) => taken.add(seat));
      pairs += 1;
    }
    // Every pair was new seats; the 80 wheelchair spaces stay for who asks for them; what else is left are singles no pair can take.
    expect(taken.size).toBe(2 * pairs);
    const left = 10_000 - 80 - taken.size;
    expect(left).toBeLessThanOrEqual(100);
    expect(ask(arena, 1, [...taken])).toMatchObject({ found: left > 0 });
  });
});
