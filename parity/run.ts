/**
 * `npm run parity`: builds (once) and starts kube-apiserver v1.32.4 and kube-gateway, sends the
 * corpus to both, and prints every difference and a summary.
 *
 *   npm run parity -- [--filter SUBSTR] [--ref-dir DIR] [--keep-ref] [--backend memory|sqlite]
 *                     [--no-build] [--json FILE] [--quiet] [--suffix S]
 *
 * --ref-dir reuses (or starts) the reference in DIR instead of a fresh private one; --keep-ref leaves
 * it running for the next run (with a reused reference pass --suffix so namespaces do not collide
 * with the previous run's).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { closeEndpoint } from './lib/http.ts';
import { formatDiffLine } from './lib/diff.ts';
import { loadCorpus } from './lib/scenario.ts';
import { runScenario, type StepResult } from './lib/runner.ts';
import { startGateway, startReference } from './lib/servers.ts';

const here = import.meta.dirname;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      filter: { type: 'string' },
      'ref-dir': { type: 'string' },
      'keep-ref': { type: 'boolean', default: false },
      backend: { type: 'string', default: 'memory' },
      'no-build': { type: 'boolean', default: false },
      json: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      suffix: { type: 'string', default: '' },
      concurrency: { type: 'string', default: '3' },
    },
  });
  const corpus = loadCorpus(join(here, 'corpus'), values.suffix ?? '').filter((s) => !values.filter || s.id.includes(values.filter));
  if (corpus.length === 0) {
    process.stderr.write('no scenario matches\n');
    return 2;
  }
  if (!values['no-build']) execFileSync(join(here, 'build-reference.sh'), ['default'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const refDir = values['ref-dir'] ? resolve(values['ref-dir']) : mkdtempSync(join(tmpdir(), 'parity-ref-'));
  const keepRef = values['keep-ref'] || values['ref-dir'] !== undefined;
  const backend = values.backend === 'sqlite' ? 'sqlite' : 'memory';
  const [ref, gw] = await Promise.all([startReference(refDir, { keep: keepRef }), startGateway({ backend })]);
  process.stderr.write(`kube: ${ref.endpoint.url} (log ${ref.logPath})\nours: ${gw.endpoint.url} (log ${gw.logPath})\n`);

  const results: StepResult[] = [];
  try {
    // Scenarios are independent (own namespaces), so a few run at once; steps within one are sequential.
    const queue = corpus.filter((s) => !s.exclusive);
    const workers = Array.from({ length: Math.max(1, Number(values.concurrency)) }, async () => {
      for (let sc = queue.shift(); sc; sc = queue.shift()) {
        const r = await runScenario(sc, ref.endpoint, gw.endpoint);
        results.push(...r);
        if (!values.quiet) printScenario(r);
      }
    });
    await Promise.all(workers);
    for (const sc of corpus.filter((s) => s.exclusive)) {
      const r = await runScenario(sc, ref.endpoint, gw.endpoint);
      results.push(...r);
      if (!values.quiet) printScenario(r);
    }
  } finally {
    closeEndpoint(ref.endpoint);
    closeEndpoint(gw.endpoint);
    await Promise.all([ref.stop(), gw.stop()]);
  }
  results.sort((a, b) => (a.scenario === b.scenario ? a.index - b.index : a.scenario < b.scenario ? -1 : 1));
  const different = results.filter((r) => r.diffs.length > 0);
  const statusDiff = different.filter((r) => r.kube.status !== r.ours.status);
  if (values.json) writeFileSync(values.json, JSON.stringify(results, null, 1));
  printSummary(results);
  process.stdout.write(
    `\nparity: ${results.length} requests in ${corpus.length} scenarios: ${results.length - different.length} identical, ` +
      `${different.length} different (${statusDiff.length} with a different status code)\n`,
  );
  return different.length === 0 ? 0 : 1;
}

/** One line per corpus file: how many of its requests answered identically. */
function printSummary(results: readonly StepResult[]): void {
  const byFile = new Map<string, { total: number; same: number; status: number }>();
  for (const r of results) {
    const e = byFile.get(r.file) ?? { total: 0, same: 0, status: 0 };
    e.total++;
    if (r.diffs.length === 0) e.same++;
    else if (r.kube.status !== r.ours.status) e.status++;
    byFile.set(r.file, e);
  }
  process.stdout.write('\nper corpus file: identical / requests (requests with a different status code)\n');
  for (const [file, e] of [...byFile].sort()) {
    process.stdout.write(`  ${file.padEnd(24)} ${String(e.same).padStart(4)} / ${String(e.total).padEnd(4)} (${e.status})\n`);
  }
}

function printScenario(results: readonly StepResult[]): void {
  for (const r of results) {
    if (r.diffs.length === 0) continue;
    process.stdout.write(`\n✗ ${r.scenario} #${r.index + 1} ${r.name}\n  ${r.method} ${r.path}\n`);
    for (const d of r.diffs.slice(0, 30)) process.stdout.write(`    ${formatDiffLine(d)}\n`);
    if (r.diffs.length > 30) process.stdout.write(`    … ${r.diffs.length - 30} more\n`);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(2);
  },
);
