/**
 * `npm run bench`: every benchmark in turn, each in its own process so one cannot skew another.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// One per line, so that benchmarks added on different branches merge without conflicts.
const benches = [
  'startup.ts',
  'storage.ts',
  'api.ts',
  'apply.ts',
  'cel.ts',
  'authz.ts',
  'authn.ts',
  'admission.ts',
  'crd.ts',
  'admission-policy.ts',
  'codec.ts',
  'protobuf-list.ts',
  'robustness.ts',
  'aggregator.ts',
];
for (const b of benches) {
  console.log(`\n== ${b} ==`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`./${b}`, import.meta.url))], { stdio: 'inherit' });
  if (r.status !== 0) console.log(`(${b} exited with ${r.status})`);
}
