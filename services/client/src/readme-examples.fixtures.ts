/**
 * The `ts` blocks of the package README as one script: its imports, then
 * every other line in the body of `export default async function run()`.
 * The unit suite type-checks it and the e2e suite runs it, so the README's
 * examples cannot drift from the client.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const README_PATH = join(__dirname, '..', 'README.md');

export function readmeBlocks(): string[] {
  return [...readFileSync(README_PATH, 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** The script, with the client imported from `clientModule` (the package name, or a path for the type check). */
export function readmeScript(clientModule = '@partner-api/client'): string {
  const lines = readmeBlocks().join('\n').split('\n');
  const imports = lines.filter((line) => line.startsWith('import ')).map((line) => line.replace("'@partner-api/client'", `'${clientModule}'`));
  const body = lines.filter((line) => !line.startsWith('import '));
  return `${imports.join('\n')}\nexport default async function run(): Promise<void> {\n${body.join('\n')}\n}\n`;
}
