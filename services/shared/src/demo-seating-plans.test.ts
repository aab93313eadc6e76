import { readSeatingPlan, readSeatingPlanJson, seatCount, SEATING_PLAN_LIMITS, type SeatingPlan, type SeatingPlanInput } from './seating-plan';
import { demoArenaPlan, demoTheatrePlan } from './demo-seating-plans';

function valid(document: SeatingPlanInput): SeatingPlan {
  const reading = readSeatingPlan(document);
  if (!reading.ok) throw new Error(`demo plan refused: ${JSON.stringify(reading.problems.slice(0, 3))}`);
  return reading.plan;
}

const seatsOf = (plan: SeatingPlan) => plan.sections.flatMap((section) => section.rows.flatMap((row) => row.seats));
const countBy = <T>(items: T[], key: (item: T) => string | undefined) =>
  items.reduce<Record<string, number>>((counts, item) => ({ ...counts, [String(key(item))]: (counts[String(key(item))] ?? 0) + 1 }), {});

describe('the demo theatre', () => {
  const plan = valid(demoTheatrePlan());

  it('has 1,200 seats: 800 in 20 rows of stalls, 400 in 10 rows of balcony', () => {
    expect(seatCount(plan)).toBe(1200);
    expect(plan.sections.map((section) => [section.name, section.rows.length, section.rows.reduce((sum, row) => sum + row.seats.length, 0)])).toEqual([
      ['Stalls', 20, 800],
      ['Balcony', 10, 400],
    ]);
    // Theatre rows skip I and O.
    expect(plan.sections[0]!.rows.map((row) => row.label).join('')).toBe('ABCDEFGHJKLMNPQRSTUV');
  });

  it('splits each row into three blocks by two aisles, and curves its rows', () => {
    for (const row of plan.sections.flatMap((section) => section.rows)) {
      expect(row.seats.filter((seat) => seat.gap_before)).toHaveLength(2);
    }
    const rowA = plan.sections[0]!.rows[0]!.seats;
    const middle = rowA[Math.floor(rowA.length / 2)]!;
    // The row's ends sit nearer the stage (smaller y) than its middle.
    expect(rowA[0]!.y).toBeLessThan(middle.y);
    expect(rowA[rowA.length - 1]!.y).toBeLessThan(middle.y);
  });

  it('ranks every seat once, best in the middle of the stalls, and marks categories and wheelchair spaces', () => {
    const seats = seatsOf(plan);
    expect(new Set(seats.map((seat) => seat.rank)).size).toBe(1200);
    const best = seats.find((seat) => seat.rank === 1)!;
    expect(best.id).toMatch(/^stalls-[A-H]-/);
    expect(best.category).toBe('premium');
    expect(countBy(seats, (seat) => seat.category)).toEqual({ premium: 8 * 20, 'a-reserve': 800 - 8 * 20, balcony: 400 });
    expect(seats.filter((seat) => seat.accessible).map((seat) => seat.id)).toEqual(['stalls-V-1', 'stalls-V-2', 'stalls-V-41', 'stalls-V-42']);
  });
});

describe('the demo arena', () => {
  const document = demoArenaPlan();
  const plan = valid(document);

  it('has 10,000 seats: 5,200 in 20 lower-bowl sections and 4,800 in 25 upper-bowl sections', () => {
    expect(seatCount(plan)).toBe(10_000);
    const seats = seatsOf(plan);
    expect(countBy(seats, (seat) => seat.category)).toEqual({ lower: 5200, upper: 4800 });
    expect(plan.sections.filter((section) => section.id.startsWith('1'))).toHaveLength(20);
    expect(plan.sections.filter((section) => section.id.startsWith('2'))).toHaveLength(25);
    expect(new Set(seats.map((seat) => seat.rank)).size).toBe(10_000);
    expect(seats.filter((seat) => seat.accessible)).toHaveLength(20 * 4);
  });

  it('surrounds the floor, open behind the stage, and fits a document under the size limit', () => {
    const seats = seatsOf(plan);
    const centre = { x: plan.width / 2, y: plan.height / 2 };
    // Nothing in the 60° behind the stage (above the centre), and nothing on the floor.
    const behindStage = seats.filter((seat) => seat.y < centre.y && Math.abs(Math.atan2(seat.x - centre.x, centre.y - seat.y)) < (30 * Math.PI) / 180);
    expect(behindStage).toEqual([]);
    expect(Math.min(...seats.map((seat) => Math.hypot(seat.x - centre.x, seat.y - centre.y)))).toBeGreaterThan(400);
    const json = JSON.stringify(document);
    expect(Buffer.byteLength(json)).toBeLessThan(SEATING_PLAN_LIMITS.documentBytes);
    expect(readSeatingPlanJson(json).ok).toBe(true);
  });
});
