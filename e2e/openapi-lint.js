// Lints the running gateway's /openapi.json with Redocly's recommended rules;
// exits non-zero on any error. Run by `make test-e2e` (outside Jest: the
// linter ships as ES modules, which plain Node 20.19 loads with require).
const { createConfig, lintFromString } = require('@redocly/openapi-core');
const { loadEnv } = require('./bench/lib');

async function main() {
  loadEnv();
  const response = await fetch(`${process.env.BASE_URL}/openapi.json`);
  if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: await response.text(), absoluteRef: 'openapi.json', config });
  for (const problem of problems) {
    console.log(`${problem.severity}: ${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer ?? ''})`);
  }
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  console.log(`openapi lint: ${errors} errors, ${problems.length - errors} warnings`);
  if (errors > 0) process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
