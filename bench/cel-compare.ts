// Compares the candidate CEL evaluators on the cel-spec conformance data (simple tests) and on
// the speed of a typical Kubernetes validation rule. Run: npx tsx bench/cel-compare.ts
import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import * as marcIndex from '@marcbachmann/cel-js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
const marc = { ...marcIndex, UnsignedInt };
import * as celjs from 'cel-js';
import * as buf from '@bufbuild/cel';
import { strings as bufStrings } from '@bufbuild/cel/ext';
import { performance } from 'node:perf_hooks';
import { collectConformanceCases, canonicalExpected, type ConformanceCase, type ConfValue } from '../test/cel/conformance-data.ts';

interface Adapter {
  readonly name: string;
  /** Returns a runner for the expression, or throws on compile errors. */
  prepare(expr: string, vars: readonly string[]): (bindings: Record<string, unknown>) => unknown;
  input(v: ConfValue): unknown;
  canon(v: unknown): string;
}

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

function canonDouble(n: number): string {
  if (Number.isNaN(n)) return 'd:NaN';
  return `d:${Object.is(n, -0) ? 0 : n}`;
}

function mapEntries(v: unknown): Array<[unknown, unknown]> | undefined {
  if (v instanceof Map) return [...v.entries()];
  return undefined;
}

function genericCanon(v: unknown, typeName: (v: unknown) => string | undefined): string {
  if (v === null || v === undefined) return 'n';
  if (typeof v === 'bigint') return `i:${v}`;
  if (typeof v === 'number') return canonDouble(v);
  if (typeof v === 'string') return `s:${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return `b:${v}`;
  if (v instanceof Uint8Array) return `y:${hex(v)}`;
  const t = typeName(v);
  if (t !== undefined) return t;
  if (Array.isArray(v)) return `l:[${v.map((x) => genericCanon(x, typeName)).join(',')}]`;
  const entries = mapEntries(v) ?? Object.entries(v as object);
  return `m:{${entries.map(([k, x]) => `${genericCanon(k, typeName)}=${genericCanon(x, typeName)}`).sort().join(',')}}`;
}

function plainInput(v: ConfValue, uint: (s: string) => unknown, map: (e: Array<[unknown, unknown]>) => unknown): unknown {
  switch (v.kind) {
    case 'int': return BigInt(v.value);
    case 'uint': return uint(v.value);
    case 'double': return v.value;
    case 'string': return v.value;
    case 'bytes': return v.value;
    case 'bool': return v.value;
    case 'null': return null;
    case 'list': return v.value.map((x) => plainInput(x, uint, map));
    case 'map': return map(v.value.map(([k, x]) => [plainInput(k, uint, map), plainInput(x, uint, map)]));
    case 'type': return v.value;
  }
}

const marcEnv = new marc.Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false });
const marcAdapter: Adapter = {
  name: '@marcbachmann/cel-js',
  prepare(expr) {
    const p = marcEnv.parse(expr);
    return (b) => p(b);
  },
  input: (v) => plainInput(v, (s) => new marc.UnsignedInt(BigInt(s)), (e) => new Map(e)),
  canon: (v) =>
    genericCanon(v, (x) => {
      if (x instanceof marc.UnsignedInt) return `u:${x.value}`;
      if (x instanceof marc.Optional) return 'optional';
      const ctor = (x as object).constructor?.name;
      if (ctor === 'Type' || ctor === 'TypeDeclaration') return `t:${(x as { name: string }).name}`;
      return undefined;
    }),
};

const celjsAdapter: Adapter = {
  name: 'cel-js',
  prepare(expr) {
    const parsed = celjs.parse(expr);
    if (!parsed.isSuccess) throw new Error('parse error');
    return (b) => celjs.evaluate(parsed.cst, b);
  },
  input: (v) => {
    const conv = (x: ConfValue): unknown => {
      switch (x.kind) {
        case 'int': case 'uint': return Number(x.value);
        case 'list': return x.value.map(conv);
        case 'map': return Object.fromEntries(x.value.map(([k, y]) => [String(plainInput(k, String, (e) => e)), conv(y)]));
        default: return plainInput(x, Number, (e) => Object.fromEntries(e as Array<[string, unknown]>));
      }
    };
    return conv(v);
  },
  // cel-js has no int/double distinction: integers compare as ints when integral.
  canon: (v) =>
    genericCanon(typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v, () => undefined),
};

const bufEnv = buf.celEnv({ funcs: bufStrings });
const bufAdapter: Adapter = {
  name: '@bufbuild/cel',
  prepare(expr) {
    const p = buf.plan(bufEnv, buf.parse(expr));
    return (b) => {
      const r = p(b as never);
      if (buf.isCelError(r)) throw new Error(String(r.message));
      return r;
    };
  },
  input: (v) => plainInput(v, (s) => buf.celUint(BigInt(s)), (e) => new Map(e)),
  canon: (v) => {
    const c = (x: unknown): string => {
      if (buf.isCelUint(x)) return `u:${x.value}`;
      if (buf.isCelType(x)) return `t:${x.name}`;
      if (buf.isCelList(x)) return `l:[${[...x].map(c).join(',')}]`;
      if (buf.isCelMap(x)) return `m:{${[...x.entries()].map(([k, y]) => `${c(k)}=${c(y)}`).sort().join(',')}}`;
      return genericCanon(x, (y) => (buf.isCelList(y) || buf.isCelMap(y) || buf.isCelUint(y) || buf.isCelType(y) ? c(y) : undefined));
    };
    return c(v);
  },
};

// Our module: the chosen engine plus the Kubernetes environment and cost tracking.
const ours = process.argv.includes('--no-ours') ? undefined : await import('../src/cel/index.ts');
const oursAdapter: Adapter = {
  name: 'src/cel (ours)',
  prepare(expr, vars) {
    if (ours === undefined) throw new Error('not loaded');
    const { compile, evaluate, isCompileError } = ours;
    const c = compile(expr, { variables: Object.fromEntries(vars.map((v) => [v, { type: 'dyn' }])) });
    if (isCompileError(c)) throw new Error(c.message);
    return (b) => {
      const r = evaluate(c, b, { costBudget: 10_000_000 });
      if (r.kind === 'error') throw new Error(r.message);
      return r.value;
    };
  },
  input: marcAdapter.input,
  canon: marcAdapter.canon,
};

interface Outcome {
  readonly pass: number;
  readonly fail: number;
  readonly failures: string[];
}

function runCase(a: Adapter, c: ConformanceCase): boolean {
  let runner: (b: Record<string, unknown>) => unknown;
  try {
    runner = a.prepare(c.expr, Object.keys(c.bindings));
  } catch {
    return c.expect.kind === 'error';
  }
  const bindings = Object.fromEntries(Object.entries(c.bindings).map(([k, v]) => [k, a.input(v)]));
  try {
    const out = runner(bindings);
    if (c.expect.kind === 'error') return false;
    return a.canon(out) === canonicalExpected(c.expect.value);
  } catch {
    return c.expect.kind === 'error';
  }
}

function runAll(a: Adapter, cases: readonly ConformanceCase[]): Outcome {
  let pass = 0;
  const failures: string[] = [];
  for (const c of cases) {
    if (runCase(a, c)) pass++;
    else failures.push(c.id);
  }
  return { pass, fail: failures.length, failures };
}

function evalsPerSecond(a: Adapter): number {
  const expr = "self.spec.replicas <= self.spec.maxReplicas && self.metadata.name.startsWith('web') && self.spec.mode in ['a', 'b']";
  const fields: Record<string, unknown> = { replicas: 3n, maxReplicas: 10n, mode: 'a' };
  for (let i = 0; i < 17; i++) fields[`f${i}`] = `value-${i}`;
  const self = { metadata: { name: 'web-1' }, spec: fields };
  const input = a.name === 'cel-js' ? JSON.parse(JSON.stringify(self, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))) : a.name === '@bufbuild/cel' ? toMaps(self) : self;
  const run = a.prepare(expr, ['self']);
  const b = { self: input };
  if (run(b) !== true) throw new Error(`${a.name}: rule did not evaluate to true`);
  const n = 50_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) run(b);
  return Math.round(n / ((performance.now() - t0) / 1000));
}

function toMaps(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toMaps);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [k, toMaps(x)]));
  return v;
}

const { run: cases, skipped } = collectConformanceCases(conformance);
console.log(`conformance cases: ${cases.length} run, ${skipped.length} skipped (reasons in test/cel/conformance-data.ts)`);
for (const a of ours === undefined ? [celjsAdapter, bufAdapter, marcAdapter] : [celjsAdapter, bufAdapter, marcAdapter, oursAdapter]) {
  const o = runAll(a, cases);
  let speed = 'n/a';
  try {
    speed = `${evalsPerSecond(a).toLocaleString('en-US')} evals/s`;
  } catch (e) {
    speed = `failed: ${(e as Error).message}`;
  }
  console.log(`${a.name.padEnd(22)} pass ${o.pass}/${cases.length} (${((100 * o.pass) / cases.length).toFixed(1)}%)  k8s rule: ${speed}`);
  if (process.argv.includes('--failures')) console.log(`  failures: ${o.failures.join('\n    ')}`);
}

// Records our module's failing case ids so the conformance test can hold the line on everything else.
if (process.argv.includes('--write-known-failures')) {
  const { writeFileSync } = await import('node:fs');
  const o = runAll(oursAdapter, cases);
  writeFileSync(new URL('../test/cel/conformance-known-failures.json', import.meta.url), `${JSON.stringify(o.failures, null, 1)}\n`);
}
