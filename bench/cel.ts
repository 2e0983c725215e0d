// Benchmark: evaluations per second of a typical 3-clause validation rule on a 20-field object,
// and compile time. Run: npx tsx bench/cel.ts
import { performance } from 'node:perf_hooks';
import { compile, evaluate, isCompileError, toCelValue } from '../src/cel/index.ts';

/** The key this benchmark's figures are printed under. */
export const CEL_BENCH_KEY = 'cel';

const rule = "self.spec.replicas <= self.spec.maxReplicas && self.metadata.name.startsWith('web') && self.spec.mode in ['a', 'b']";
const spec: Record<string, unknown> = { replicas: 3, maxReplicas: 10, mode: 'a' };
for (let i = 0; i < 17; i++) spec[`field${i}`] = `value-${i}`;
const self = toCelValue({ metadata: { name: 'web-1' }, spec });
const env = { variables: { self: { type: 'dyn' as const } } };

const compileRuns = 200;
const t0 = performance.now();
for (let i = 0; i < compileRuns; i++) {
  // A distinct expression each time so the compile cache does not answer.
  const c = compile(`${rule} && ${i} >= 0`, env);
  if (isCompileError(c)) throw new Error(c.message);
}
const compileMs = (performance.now() - t0) / compileRuns;

const compiled = compile(rule, env);
if (isCompileError(compiled)) throw new Error(compiled.message);
const first = evaluate(compiled, { self });
if (first.kind !== 'value' || first.value !== true) throw new Error(`unexpected result ${JSON.stringify(first)}`);
const n = 200_000;
for (let i = 0; i < 20_000; i++) evaluate(compiled, { self });
const t1 = performance.now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < n; i++) evaluate(compiled, { self });
const evalsPerSecond = Math.round(n / ((performance.now() - t1) / 1000));
// Per second of this process's CPU time: on a shared, loaded machine wall-clock figures mostly
// measure the other processes; this one is what the code costs.
const cpu = process.cpuUsage(cpu0);
const evalsPerCpuSecond = Math.round(n / ((cpu.user + cpu.system) / 1e6));

console.log(JSON.stringify({ [CEL_BENCH_KEY]: { evalsPerSecond, evalsPerCpuSecond, compileMicroseconds: Math.round(compileMs * 1000), costPerEval: first.cost } }));
