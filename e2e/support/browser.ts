/** Debian's Chromium driven by playwright-core (installed by deploy/local/browser.sh). */
import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('Chromium is not installed: run deploy/local/browser.sh (make test-e2e does)');
  }
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in a container has no user namespaces for the sandbox; the pages are our own, on loopback.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run', '--disable-gpu'],
  });
}
