/**
 * Tests find infrastructure the way the services do: URLs already in the
 * environment win; otherwise the local servers that deploy/local/infra.sh
 * started (recorded in .data/infra.env), and the demo keys in .data/demo.env.
 */
const fs = require('node:fs');
const path = require('node:path');

for (const file of ['infra.env', 'demo.env']) {
  const full = path.join(__dirname, '.data', file);
  if (!fs.existsSync(full)) continue;
  for (const line of fs.readFileSync(full, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && process.env[line.slice(0, at)] === undefined) process.env[line.slice(0, at)] = line.slice(at + 1);
  }
}
process.env.OTEL_SDK_DISABLED ??= 'true';
