/**
 * partnerctl as an operator runs it: the built CLI in a Node process of its
 * own, with the suites' environment (the stack's DATABASE_URL, REDIS_URL).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const CLI = path.join(__dirname, '..', '..', 'services', 'cli', 'dist', 'main.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Resolves with the exit code and output, whatever the code. */
export function partnerctl(...args: string[]): Promise<CliRun> {
  return partnerctlWithEnv({}, ...args);
}

/** As partnerctl, with these settings over the suites' environment. */
export async function partnerctlWithEnv(settings: Record<string, string>, ...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, ...settings } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A refusal as an operator should see it: one clear line on stderr, no stack trace, nothing on stdout, exit code 1. */
export function expectRefused(run: CliRun, message: RegExp): void {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
  expect(run.stderr).toMatch(/^error: /);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

/** stdout's JSON lines, parsed. */
export const jsonLines = <T>(run: CliRun): T[] =>
  run.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
