// Lints the running gateway's /openapi.json with Redocly's recommended rules
// (exits non-zero on any error) and Spectral's `oas` ruleset, which generated
// clients' authors use (exits non-zero on any warning). Run by `make
// test-e2e` (outside Jest: the linters ship as ES modules, which plain Node
// 20.19 loads with require).
const { createConfig, lintFromString } = require('@redocly/openapi-core');
const { Document, Spectral } = require('@stoplight/spectral-core');
const { Json } = require('@stoplight/spectral-parsers');
const { oas } = require('@stoplight/spectral-rulesets');
const { loadEnv } = require('./bench/lib');

async function main() {
  loadEnv();
  const response = await fetch(`${process.env.BASE_URL}/openapi.json`);
  if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
  const source = await response.text();
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  for (const problem of problems) {
    console.log(`${problem.severity}: ${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer ?? ''})`);
  }
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  console.log(`openapi lint: ${errors} errors, ${problems.length - errors} warnings`);

  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas] });
  const findings = await spectral.run(new Document(source, Json, 'openapi.json'));
  for (const finding of findings) console.log(`spectral: ${finding.code}: ${finding.message} (${finding.path.join('.')})`);
  console.log(`spectral oas: ${findings.length} problems`);
  if (errors > 0 || findings.length > 0) process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
