/**
 * What every customer and organiser page must pass in Chromium, at a
 * desktop and a phone size: axe-core finds no serious or critical
 * violation (nor a missing main landmark or content outside landmarks),
 * and nothing is wider than the screen.
 */
import fs from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import type { Page } from 'playwright-core';

export const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

export const SCREENSHOTS = path.join(__dirname, '..', '..', '.data', 'screenshots');

/** Moderate rules that still matter for these pages: a screen reader user jumps to main and by landmarks. */
const LANDMARK_RULES = new Set(['landmark-one-main', 'region']);

export interface PageProblems {
  /** "rule (impact): target, target" for each violation that fails a page. */
  violations: string[];
  /** How many CSS pixels the page is wider than the window (0 when it fits). */
  overflow: number;
}

/**
 * axe-core runs inside the page through the DevTools protocol, which the
 * pages' `script-src 'none'` does not govern: the page itself stays
 * script-free.
 */
export async function problemsOf(page: Page): Promise<PageProblems> {
  await page.evaluate(axe.source);
  const results = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as axe.AxeResults;
  const violations = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical' || LANDMARK_RULES.has(violation.id))
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  return { violations, overflow: await overflowOf(page) };
}

/** How many CSS pixels the page is wider than the window (0 when it fits). Expressions, not functions: the tests build without the DOM's types. */
export async function overflowOf(page: Page): Promise<number> {
  return Math.max(0, (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number);
}

/** An attribute of the element that has the focus (null when it has none). */
export async function focusedAttribute(page: Page, name: string): Promise<string | null> {
  return (await page.evaluate(`document.activeElement?.getAttribute(${JSON.stringify(name)}) ?? null`)) as string | null;
}

/** A full-page screenshot kept for people to look at (.data/screenshots, not committed). */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
