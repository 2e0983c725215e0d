// Prints agreement with the Go reference per aspect and per corpus group, and with --write-known
// rewrites known-disagreements.json from the current state (each entry keeps or gets a reason).
// Run: npx tsx test/cel/differential/report.ts [--write-known] [--show=group-prefix]
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { loadCorpus, runOurs, disagreements, ASPECTS, type Aspect } from './harness.ts';
import { reasonFor } from './reasons.ts';

const knownPath = new URL('./known-disagreements.json', import.meta.url);
const known: Record<string, { aspects: Aspect[]; reason: string }> = existsSync(knownPath) ? JSON.parse(readFileSync(knownPath, 'utf8')) : {};
const show = process.argv.find((a) => a.startsWith('--show='))?.slice(7);
const { corpus, expected } = loadCorpus();
const perAspect = Object.fromEntries(ASPECTS.map((a) => [a, 0])) as Record<Aspect, number>;
const perGroup = new Map<string, [number, number]>();
const next: typeof known = {};
let agree = 0;
for (const e of corpus) {
  const exp = expected.get(e.id);
  if (exp === undefined) throw new Error(`no expectation for ${e.id}`);
  const ours = runOurs(e);
  const d = disagreements(exp, ours);
  const group = e.id.replace(/\/\d+$/, '');
  const g = perGroup.get(group) ?? [0, 0];
  g[1]++;
  if (d.length === 0) {
    agree++;
    g[0]++;
  } else {
    for (const a of d) perAspect[a]++;
    next[e.id] = { aspects: d, reason: process.argv.includes('--reasons') ? reasonFor(e, exp, ours, d) : known[e.id]?.reason ?? reasonFor(e, exp, ours, d) };
    if (show !== undefined && e.id.startsWith(show)) {
      console.log(`${e.id} ${JSON.stringify(e.expr).slice(0, 120)} [${d.join(',')}]\n  go:   ${JSON.stringify({ ...exp, id: undefined }).slice(0, 300)}\n  ours: ${JSON.stringify({ ...ours, id: undefined }).slice(0, 300)}`);
    }
  }
  perGroup.set(group, g);
}
console.log(`agreement: ${agree}/${corpus.length} (${((100 * agree) / corpus.length).toFixed(1)}%)`);
console.log(`disagreements by aspect: ${JSON.stringify(perAspect)}`);
const groups = [...perGroup.entries()].filter(([, [a, n]]) => a < n).sort((x, y) => y[1][1] - y[1][0] - (x[1][1] - x[1][0]));
console.log(groups.map(([k, [a, n]]) => `${k}: ${a}/${n}`).join('\n'));
if (process.argv.includes('--write-known')) {
  writeFileSync(knownPath, `${JSON.stringify(next, null, 1)}\n`);
  console.log(`wrote ${Object.keys(next).length} known disagreements`);
}
