#!/usr/bin/env node
/**
 * Every metric the dashboard's queries and the alert rules name must be one
 * the services declare. Declared: each `new Counter|Gauge|Histogram({ name })`
 * under services/<name>/src (histograms add _bucket, _sum and _count).
 * Named: the identifiers left in a PromQL expression once strings, label
 * matchers, ranges, grouping clauses, functions, keywords and numbers are
 * taken out. Usage: metric-references.js <dashboard.json> <rules.json>
 * (the rules as JSON: { groups: [{ rules: [{ expr }] }] }).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const declared = new Set();
const walk = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      const text = fs.readFileSync(full, 'utf8');
      for (const [, kind, name] of text.matchAll(/new (Counter|Gauge|Histogram)\(\{\s*name: '([a-zA-Z_:][\w:]*)'/g)) {
        declared.add(name);
        if (kind === 'Histogram') for (const suffix of ['_bucket', '_sum', '_count']) declared.add(name + suffix);
      }
    }
  }
};
for (const service of fs.readdirSync(path.join(root, 'services'))) {
  const src = path.join(root, 'services', service, 'src');
  if (fs.existsSync(src)) walk(src);
}

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);
function metricsIn(expr) {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/[a-zA-Z_:][\w:]*(?!\w|\s*\()/g)].map((match) => match[0]).filter((name) => !KEYWORDS.has(name.toLowerCase()));
}

const [dashboardFile, rulesFile] = process.argv.slice(2);
const dashboard = JSON.parse(fs.readFileSync(dashboardFile, 'utf8'));
const rules = JSON.parse(fs.readFileSync(rulesFile, 'utf8'));
const queries = [
  ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => [`panel "${panel.title}"`, target.expr])),
  ...rules.groups.flatMap((group) => group.rules.map((rule) => [`alert ${rule.alert}`, rule.expr])),
];
const unknown = queries.flatMap(([where, expr]) => metricsIn(expr).filter((name) => !declared.has(name)).map((name) => `${where}: ${name}`));
if (queries.length === 0 || declared.size === 0) {
  console.error('no queries or no declared metrics found');
  process.exit(1);
}
if (unknown.length > 0) {
  console.error(`metrics no service declares:\n  ${unknown.join('\n  ')}`);
  process.exit(1);
}
console.log(`${queries.length} queries name only the ${declared.size} declared metric series`);
