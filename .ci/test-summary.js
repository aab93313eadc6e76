// Prints one closing line over every Jest suite's JSON report:
// "Tests: N passed, N failed". Exits non-zero when a suite failed or none ran.
const fs = require('node:fs');
const path = require('node:path');

const dir = process.argv[2] ?? '.data/test-results';
let passed = 0;
let failed = 0;
for (const file of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
  if (!file.endsWith('.json')) continue;
  const report = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests + report.numRuntimeErrorTestSuites;
}
console.log(`Tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
