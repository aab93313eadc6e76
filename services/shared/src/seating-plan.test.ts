import { readSeatingPlan, readSeatingPlanJson, seatCount, seatDisplayLabel, SEATING_PLAN_LIMITS, seatingPlanPath, type SeatingPlanInput } from './seating-plan';

/** A small valid plan: one section of two rows, the second with an aisle. */
const plan = (): SeatingPlanInput => ({
  format: 1,
  name: 'Little Hall',
  width: 100,
  height: 50,
  categories: [{ key: 'a-reserve', name: 'A Reserve', color: '#aa3300' }],
  sections: [
    {
      id: 'stalls',
      name: 'Stalls',
      rows: [
        { id: 'A', label: 'A', seats: [{ id: 'A1', label: '1', x: 10, y: 10, rank: 1, category: 'a-reserve' }, { id: 'A2', label: '2', x: 20, y: 10, rank: 2 }] },
        { id: 'B', label: 'B', seats: [{ id: 'B1', label: '1', x: 10, y: 20, rank: 3, accessible: true }, { id: 'B2', label: '2', x: 30, y: 20, rank: 4, gap_before: true }] },
      ],
    },
  ],
});

const problemsOf = (document: unknown) => {
  const reading = readSeatingPlan(document);
  if (reading.ok) throw new Error('expected the plan to be refused');
  return reading.problems;
};

describe('seating plan documents', () => {
  it('reads a valid plan with its defaults filled in', () => {
    const reading = readSeatingPlan(plan());
    expect(reading.ok).toBe(true);
    if (!reading.ok) return;
    const [section] = reading.plan.sections;
    expect(seatCount(reading.plan)).toBe(4);
    expect(section!.rows[0]!.seats[1]).toEqual({ id: 'A2', label: '2', x: 20, y: 10, rank: 2, accessible: false, gap_before: false });
    expect(section!.rows[1]!.seats[1]!.gap_before).toBe(true);
    expect(seatDisplayLabel(section!, section!.rows[1]!, section!.rows[1]!.seats[0]!)).toBe('Stalls, Row B, Seat 1');
  });

  it('names the path of each bad field', () => {
    const document = plan();
    const seats = document.sections[0]!.rows[1]!.seats;
    seats[0]!.x = -1;
    seats[1]!.rank = 1.5;
    (seats[1] as Record<string, unknown>).colour = 'red';
    expect(problemsOf(document)).toEqual([
      { path: 'sections[0].rows[1].seats[0].x', message: 'must not be negative' },
      { path: 'sections[0].rows[1].seats[1].rank', message: 'must be a whole number' },
      { path: 'sections[0].rows[1].seats[1]', message: expect.stringMatching(/colour/) },
    ]);
  });

  it('refuses duplicate ids and labels where they must be unique', () => {
    const document = plan();
    const [rowA, rowB] = document.sections[0]!.rows;
    rowB!.seats[0]!.id = 'A1';
    rowA!.seats[1]!.label = '1';
    rowB!.label = 'A';
    document.sections.push({ id: 'stalls', name: 'Stalls', rows: [{ id: 'Z', label: 'Z', seats: [{ id: 'Z1', label: '1', x: 90, y: 40, rank: 9 }] }] });
    expect(problemsOf(document)).toEqual([
      { path: 'sections[0].rows[0].seats[1].label', message: 'duplicate seat label "1" in row "A"' },
      { path: 'sections[0].rows[1].label', message: 'duplicate row label "A" in section "stalls"' },
      { path: 'sections[0].rows[1].seats[0].id', message: 'duplicate seat id "A1"' },
      { path: 'sections[1].id', message: 'duplicate section id "stalls"' },
      { path: 'sections[1].name', message: 'duplicate section name "Stalls"' },
    ]);
  });

  it('refuses seats off the canvas, two seats on one point, unknown categories and a gap before a row starts', () => {
    const document = plan();
    const [rowA, rowB] = document.sections[0]!.rows;
    rowA!.seats[0]!.x = 101;
    rowA!.seats[1]!.category = 'balcony';
    rowB!.seats[1]!.x = 10;
    rowB!.seats[1]!.gap_before = false;
    rowB!.seats[0]!.gap_before = true;
    rowB!.seats[1]!.y = 20;
    expect(problemsOf(document)).toEqual([
      { path: 'sections[0].rows[0].seats[0].x', message: "must be within the plan's width (0 to 100)" },
      { path: 'sections[0].rows[0].seats[1].category', message: 'unknown category "balcony" (not in categories)' },
      { path: 'sections[0].rows[1].seats[1]', message: 'another seat is drawn at the same point (10,20)' },
      { path: 'sections[0].rows[1].seats[0].gap_before', message: 'the first seat of a row has no seat before it' },
    ]);
  });

  it('refuses another format, empty sections and rows, and bad keys', () => {
    expect(problemsOf({ ...plan(), format: 2 })).toEqual([{ path: 'format', message: 'must be 1 (the seating plan format this version reads)' }]);
    expect(problemsOf({ ...plan(), sections: [] })).toEqual([{ path: 'sections', message: 'a plan needs at least one section' }]);
    const document = plan();
    document.sections[0]!.rows[0]!.seats = [];
    document.sections[0]!.id = 'stalls and more';
    expect(problemsOf(document).map((problem) => problem.path)).toEqual(['sections[0].id', 'sections[0].rows[0].seats']);
    expect(problemsOf(null)).toEqual([{ path: '(document)', message: 'must be an object' }]);
    const outOfRange = plan();
    outOfRange.sections[0]!.rows[0]!.seats[0]!.rank = 0;
    outOfRange.width = 1e9;
    expect(problemsOf(outOfRange)).toEqual([
      { path: 'width', message: `must be at most ${SEATING_PLAN_LIMITS.canvas}` },
      { path: 'sections[0].rows[0].seats[0].rank', message: 'must be at least 1' },
    ]);
    // A field of the wrong type or left out is named, and the rest is still checked.
    expect(problemsOf({ ...plan(), name: undefined, width: '100', sections: [{ id: 's', name: 'S', rows: 'A' }] })).toEqual([
      { path: 'name', message: 'is required (string)' },
      { path: 'width', message: 'must be a number' },
      { path: 'sections[0].rows', message: 'must be an array' },
    ]);
  });

  it('holds a plan to its size limits', () => {
    const rows = Array.from({ length: SEATING_PLAN_LIMITS.rowsPerSection }, (_, r) => ({
      id: `r${r}`,
      label: `${r}`,
      seats: Array.from({ length: 101 }, (_, s) => ({ id: `r${r}s${s}`, label: `${s}`, x: s, y: r, rank: 1 })),
    }));
    const document = { ...plan(), width: 1000, height: 1000, sections: [{ id: 'big', name: 'Big', rows }] };
    expect(problemsOf(document)).toEqual([{ path: 'sections', message: `a plan has at most ${SEATING_PLAN_LIMITS.seats} seats (this one has 20200)` }]);
    const longRow = { id: 'long', label: 'L', seats: Array.from({ length: SEATING_PLAN_LIMITS.seatsPerRow + 1 }, (_, s) => ({ id: `s${s}`, label: `${s}`, x: s, y: 1, rank: 1 })) };
    expect(problemsOf({ ...plan(), width: 1000, sections: [{ id: 'x', name: 'X', rows: [longRow] }] }).map((problem) => problem.path)).toEqual(['sections[0].rows[0].seats']);
  });

  it('reads JSON text, refusing what is not JSON or too large', () => {
    expect(readSeatingPlanJson(JSON.stringify(plan())).ok).toBe(true);
    expect(readSeatingPlanJson('{"format": 1,')).toEqual({ ok: false, problems: [{ path: '(document)', message: expect.stringMatching(/^not JSON: /) }] });
    const padded = JSON.stringify({ ...plan(), name: 'x' }) + ' '.repeat(SEATING_PLAN_LIMITS.documentBytes);
    expect(readSeatingPlanJson(padded)).toEqual({ ok: false, problems: [{ path: '(document)', message: expect.stringMatching(/^a plan document has at most/) }] });
  });

  it('spells paths as a reader would look them up', () => {
    expect(seatingPlanPath(['sections', 0, 'rows', 12, 'seats', 3, 'rank'])).toBe('sections[0].rows[12].seats[3].rank');
    expect(seatingPlanPath([])).toBe('(document)');
  });
});
