import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { Optional } from '@marcbachmann/cel-js';
import { compile, evaluate, isCompileError } from '../../src/cel/index.ts';
import { collectConformanceCases, canonicalExpected, SKIPPED_SECTIONS, type ConfValue, type ConformanceCase } from './conformance-data.ts';

const knownFailures = new Set<string>(JSON.parse(readFileSync(new URL('./conformance-known-failures.json', import.meta.url), 'utf8')) as string[]);

function input(v: ConfValue): unknown {
  switch (v.kind) {
    case 'int': return BigInt(v.value);
    case 'uint': return new UnsignedInt(BigInt(v.value));
    case 'null': return null;
    case 'list': return v.value.map(input);
    case 'map': return new Map(v.value.map(([k, x]) => [input(k), input(x)]));
    default: return v.value;
  }
}

function canon(v: unknown): string {
  if (v === null || v === undefined) return 'n';
  if (typeof v === 'bigint') return `i:${v}`;
  if (typeof v === 'number') return Number.isNaN(v) ? 'd:NaN' : `d:${Object.is(v, -0) ? 0 : v}`;
  if (typeof v === 'string') return `s:${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return `b:${v}`;
  if (v instanceof Uint8Array) return `y:${Buffer.from(v).toString('hex')}`;
  if (v instanceof UnsignedInt) return `u:${v.value}`;
  if (v instanceof Optional) return 'optional';
  if (Array.isArray(v)) return `l:[${v.map(canon).join(',')}]`;
  const ctor = (v as object).constructor?.name;
  if (ctor === 'Type' || ctor === 'TypeDeclaration') return `t:${(v as { name: string }).name}`;
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
  return `m:{${entries.map(([k, x]) => `${canon(k)}=${canon(x)}`).sort().join(',')}}`;
}

/** kube-apiserver's environment requires homogeneous list and map literals (cel.HomogeneousAggregateLiterals). */
const HETEROGENEOUS_LITERAL = /^(List elements must have the same type|Map key uses wrong type|Map value uses wrong type)/;

function passes(c: ConformanceCase): boolean | 'kube-rejects' {
  // The stored-expressions environment has every library of kube 1.32 (two-variable macros included).
  const compiled = compile(c.expr, { expressions: 'stored', variables: Object.fromEntries(Object.keys(c.bindings).map((k) => [k, { type: 'dyn' as const }])) });
  if (isCompileError(compiled) && c.expect.kind !== 'error' && HETEROGENEOUS_LITERAL.test(compiled.message)) return 'kube-rejects';
  if (isCompileError(compiled)) return c.expect.kind === 'error';
  const r = evaluate(compiled, Object.fromEntries(Object.entries(c.bindings).map(([k, v]) => [k, input(v)])), { costBudget: 10_000_000 });
  if (r.kind === 'error') return c.expect.kind === 'error';
  return c.expect.kind === 'value' && canon(r.value) === canonicalExpected(c.expect.value);
}

const { run, skipped } = collectConformanceCases(conformance);

describe('cel-spec conformance (simple tests)', () => {
  it('skips only whole sections or cases with a stated reason', () => {
    expect(skipped.length).toBeGreaterThan(0);
    for (const s of skipped) expect(s.reason.length).toBeGreaterThan(10);
    expect(Object.keys(SKIPPED_SECTIONS)).toContain('proto3');
  });

  it('passes every applicable case outside the recorded known-failure list, and the pass rate does not regress', () => {
    const unexpected: string[] = [];
    let pass = 0;
    let rejected = 0;
    for (const c of run) {
      const ok = passes(c);
      if (ok === 'kube-rejects') rejected++;
      else if (ok) pass++;
      else if (!knownFailures.has(c.id)) unexpected.push(c.id);
    }
    expect(unexpected).toEqual([]);
    // Cases with heterogeneous list/map literals (cel-spec assumes them allowed) do not apply to
    // kube-apiserver, whose environment rejects them at compile time; 54 at the time of writing.
    expect(rejected).toBeLessThanOrEqual(54);
    // Measured 96.7% of the remaining applicable cases. Thirty-five known failures are where
    // kube-apiserver 1.32 (cel-go v0.22, checked with the differential test) differs from today's
    // cel-spec: eq/ne_mixed_types are rejected by its checker; repeated and null map keys are
    // accepted; indexOf/lastIndexOf past the end return -1 and lastIndexOf on '' fails; it has no
    // cel.bind and no backquoted field names; its string.format renders %e as x/text does
    // ("1.052033 × 10⁰³", six decimals whatever the precision), infinities as ∞, quotes strings
    // inside %s of lists and maps, and refuses NaN/infinity for %d.
    expect(pass / (run.length - rejected)).toBeGreaterThanOrEqual(0.9666);
  });
});
