/**
 * The examples of services/client/README.md, run against the running stack:
 * every `ts` block, in order, as one script (imports at the top, the rest in
 * an async function; the unit suite type-checks the same script), compiled
 * with swc as Jest compiles tests. What they print is checked, so an example
 * that stops working fails here.
 */
import { transformSync } from '@swc/core';
import * as client from '@partner-api/client';
import express from 'express';
import { readmeBlocks, readmeScript } from '../services/client/src/readme-examples.fixtures';
import { env } from './support/api';

/** The README's script as CommonJS, whose default export runs it. */
const compiledReadme = () => transformSync(readmeScript(), { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }).code;

it('runs every example of the client README against the stack', async () => {
  expect(readmeBlocks().length).toBeGreaterThanOrEqual(4);
  process.env.PARTNER_API_BASE_URL = env('BASE_URL');
  process.env.PARTNER_API_KEY = env('DEMO_LIVE_KEY');
  const printed: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
  try {
    const modules: Record<string, unknown> = { '@partner-api/client': client, express };
    const exported: { default?: () => Promise<void> } = {};
    const requireExample = (name: string) => {
      if (!(name in modules)) throw new Error(`the README imports ${name}, which this test does not provide`);
      return modules[name];
    };
    new Function('exports', 'require', compiledReadme())(exported, requireExample);
    await exported.default!();
  } finally {
    log.mockRestore();
  }
  expect(printed[0]).toMatch(/, live key$/);
  expect(printed).toEqual(expect.arrayContaining([expect.stringMatching(/^midnight-oil-reunion /)]));
  expect(printed).toEqual(expect.arrayContaining([expect.stringMatching(/^open http\S+\/checkout\/[0-9a-f-]{36} \d{4}-/)]));
  expect(printed).toEqual(expect.arrayContaining([expect.stringMatching(/^cannot sell that many: (exceeds_max_per_order|exceeds_availability) \(items\[0\]\.quantity\), request \S+/)]));
});
