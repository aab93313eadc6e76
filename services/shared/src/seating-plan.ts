/**
 * The seating plan document: a venue's layout as sections, rows and seats,
 * each seat with its label, drawing coordinates, optional category,
 * accessibility flag and quality rank for best-available. One zod schema,
 * shared by every service that stores, holds or draws seats (D500–D503).
 *
 * A row lists its seats in the order they sit; consecutive seats are
 * side by side unless the later one has `gap_before` (an aisle, a pillar,
 * stairs), which is how best-available knows what "adjacent" means.
 */
import { z } from 'zod';

/** The document format this code reads and writes; a new format gets a new number (D501). */
export const SEATING_PLAN_FORMAT = 1;

/** Limits of one plan (D502): the document must also fit a gRPC message (4 MB). */
export const SEATING_PLAN_LIMITS = {
  seats: 20_000,
  sections: 200,
  rowsPerSection: 200,
  seatsPerRow: 500,
  categories: 50,
  canvas: 100_000,
  rank: 1_000_000,
  documentBytes: 3 * 1024 * 1024,
} as const;

const KEY = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const key = z.string().regex(KEY, 'must be 1 to 64 letters, digits, "_", ".", ":" or "-", starting with a letter or digit');
const label = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const coordinate = z.number().finite().min(0, 'must not be negative').max(SEATING_PLAN_LIMITS.canvas);

const seatSchema = z.strictObject({
  id: key,
  label: label(16),
  x: coordinate,
  y: coordinate,
  category: key.optional(),
  accessible: z.boolean().default(false),
  /** 1 is the best seat; equal ranks are told apart by document order (D503). */
  rank: z.number().int('must be a whole number').min(1).max(SEATING_PLAN_LIMITS.rank),
  /** An aisle or other break between this seat and the one before it in the row. */
  gap_before: z.boolean().default(false),
});

const rowSchema = z.strictObject({
  id: key,
  label: label(16),
  seats: z.array(seatSchema).min(1, 'a row needs at least one seat').max(SEATING_PLAN_LIMITS.seatsPerRow),
});

const sectionSchema = z.strictObject({
  id: key,
  name: label(60),
  rows: z.array(rowSchema).min(1, 'a section needs at least one row').max(SEATING_PLAN_LIMITS.rowsPerSection),
});

const categorySchema = z.strictObject({
  key,
  name: label(60),
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #1f77b4').optional(),
});

type Issue = { path: (string | number)[]; message: string };

/** What a valid plan must also be, beyond each field's own shape. */
function crossChecks(plan: z.infer<typeof planShape>): Issue[] {
  const issues: Issue[] = [];
  const categories = new Set<string>();
  plan.categories.forEach((category, c) => {
    if (categories.has(category.key)) issues.push({ path: ['categories', c, 'key'], message: `duplicate category key "${category.key}"` });
    categories.add(category.key);
  });

  const sectionIds = new Set<string>();
  const sectionNames = new Set<string>();
  const seatIds = new Set<string>();
  const positions = new Set<string>();
  let seats = 0;
  plan.sections.forEach((section, s) => {
    const at = ['sections', s];
    if (sectionIds.has(section.id)) issues.push({ path: [...at, 'id'], message: `duplicate section id "${section.id}"` });
    if (sectionNames.has(section.name)) issues.push({ path: [...at, 'name'], message: `duplicate section name "${section.name}"` });
    sectionIds.add(section.id);
    sectionNames.add(section.name);
    const rowIds = new Set<string>();
    const rowLabels = new Set<string>();
    section.rows.forEach((row, r) => {
      const rowAt = [...at, 'rows', r];
      if (rowIds.has(row.id)) issues.push({ path: [...rowAt, 'id'], message: `duplicate row id "${row.id}" in section "${section.id}"` });
      if (rowLabels.has(row.label)) issues.push({ path: [...rowAt, 'label'], message: `duplicate row label "${row.label}" in section "${section.id}"` });
      rowIds.add(row.id);
      rowLabels.add(row.label);
      const seatLabels = new Set<string>();
      row.seats.forEach((seat, i) => {
        const seatAt = [...rowAt, 'seats', i];
        seats += 1;
        if (seatIds.has(seat.id)) issues.push({ path: [...seatAt, 'id'], message: `duplicate seat id "${seat.id}"` });
        if (seatLabels.has(seat.label)) issues.push({ path: [...seatAt, 'label'], message: `duplicate seat label "${seat.label}" in row "${row.id}"` });
        seatIds.add(seat.id);
        seatLabels.add(seat.label);
        if (seat.category !== undefined && !categories.has(seat.category)) {
          issues.push({ path: [...seatAt, 'category'], message: `unknown category "${seat.category}" (not in categories)` });
        }
        if (seat.x > plan.width) issues.push({ path: [...seatAt, 'x'], message: `must be within the plan's width (0 to ${plan.width})` });
        if (seat.y > plan.height) issues.push({ path: [...seatAt, 'y'], message: `must be within the plan's height (0 to ${plan.height})` });
        const position = `${seat.x},${seat.y}`;
        if (positions.has(position)) issues.push({ path: [...seatAt], message: `another seat is drawn at the same point (${position})` });
        positions.add(position);
      });
      if (row.seats[0]?.gap_before) issues.push({ path: [...rowAt, 'seats', 0, 'gap_before'], message: 'the first seat of a row has no seat before it' });
    });
  });
  if (seats > SEATING_PLAN_LIMITS.seats) issues.push({ path: ['sections'], message: `a plan has at most ${SEATING_PLAN_LIMITS.seats} seats (this one has ${seats})` });
  return issues;
}

const planShape = z.strictObject({
  format: z.literal(SEATING_PLAN_FORMAT, `must be ${SEATING_PLAN_FORMAT} (the seating plan format this version reads)`),
  name: label(120),
  width: z.number().finite().positive().max(SEATING_PLAN_LIMITS.canvas),
  height: z.number().finite().positive().max(SEATING_PLAN_LIMITS.canvas),
  categories: z.array(categorySchema).max(SEATING_PLAN_LIMITS.categories).default([]),
  sections: z.array(sectionSchema).min(1, 'a plan needs at least one section').max(SEATING_PLAN_LIMITS.sections),
});

export const seatingPlanSchema = planShape.superRefine((plan, ctx) => {
  for (const issue of crossChecks(plan)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
});

export type SeatingPlan = z.output<typeof seatingPlanSchema>;
/** A plan as written: defaults (`accessible`, `gap_before`, `categories`) may be left out. */
export type SeatingPlanInput = z.input<typeof seatingPlanSchema>;
export type SeatingSection = SeatingPlan['sections'][number];
export type SeatingRow = SeatingSection['rows'][number];
export type Seat = SeatingRow['seats'][number];

/** A field of a document that is wrong, named by its path (`sections[0].rows[2].seats[5].x`). */
export interface SeatingPlanProblem {
  path: string;
  message: string;
}

export type SeatingPlanReading = { ok: true; plan: SeatingPlan } | { ok: false; problems: SeatingPlanProblem[] };

/** `['sections', 0, 'rows', 2]` → `sections[0].rows[2]`; the document itself is `(document)`. */
export function seatingPlanPath(path: readonly PropertyKey[]): string {
  const text = path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
  return text === '' ? '(document)' : text;
}

/** Checks a parsed document: the plan, or every problem with its path (at most `maxProblems`). */
export function readSeatingPlan(document: unknown, maxProblems = 20): SeatingPlanReading {
  const result = seatingPlanSchema.safeParse(document);
  if (result.success) return { ok: true, plan: result.data };
  return { ok: false, problems: result.error.issues.slice(0, maxProblems).map((issue) => ({ path: seatingPlanPath(issue.path), message: problemMessage(issue) })) };
}

/** zod's own words, said as an operator fixing the file would: "is required", "must be a number", "must be at least 1". */
function problemMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    return /received undefined$/.test(issue.message) ? `is required (${issue.expected})` : `must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`;
  }
  if ((issue.code === 'too_small' || issue.code === 'too_big') && /^Too (small|big)/.test(issue.message)) {
    const bound = issue.code === 'too_small' ? `at least ${issue.minimum}` : `at most ${issue.maximum}`;
    return issue.origin === 'array' ? `must have ${bound} items` : `must be ${bound}`;
  }
  return issue.message;
}

/** Checks a document's JSON text: too large or not JSON is a problem of the whole document. */
export function readSeatingPlanJson(text: string, maxProblems = 20): SeatingPlanReading {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > SEATING_PLAN_LIMITS.documentBytes) {
    return { ok: false, problems: [{ path: '(document)', message: `a plan document has at most ${SEATING_PLAN_LIMITS.documentBytes} bytes (this one has ${bytes})` }] };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [{ path: '(document)', message: `not JSON: ${error instanceof Error ? error.message : String(error)}` }] };
  }
  return readSeatingPlan(document, maxProblems);
}

/** One line naming every problem, for an error message. */
export const describeSeatingPlanProblems = (problems: readonly SeatingPlanProblem[]): string =>
  problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');

export function seatCount(plan: SeatingPlan): number {
  return plan.sections.reduce((sum, section) => sum + section.rows.reduce((rows, row) => rows + row.seats.length, 0), 0);
}

/** How a seat is named to people (tickets, pages): `Balcony, Row B, Seat 12`. */
export const seatDisplayLabel = (section: SeatingSection, row: SeatingRow, seat: Seat): string => `${section.name}, Row ${row.label}, Seat ${seat.label}`;
