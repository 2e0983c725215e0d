// Runs one corpus entry through src/cel and compares the outcome with the Go reference's
// (kube-apiserver v1.32.4) on each aspect: error phase, value, cost-limit outcome, runtime cost,
// and the static estimate. Shared by differential.test.ts and report.ts.
import { readFileSync } from 'node:fs';
import { Optional } from '@marcbachmann/cel-js';
import { UnsignedInt, Duration } from '@marcbachmann/cel-js/evaluator';
import { compile, evaluate, isCompileError, estimateCost, toCelValue, celTypeFromSchema, parseTypeName, type CelType, type VariableDeclaration } from '../../../src/cel/index.ts';
import { canonicalValue, type Tagged } from '../../../src/cel/canonical.ts';
import type { Schema } from '../../../src/schema/types.ts';

export interface CorpusEntry {
  readonly id: string;
  readonly expr: string;
  readonly env?: 'new' | 'stored';
  readonly vars?: Readonly<Record<string, string>>;
  readonly schema?: Schema;
  readonly bindings?: Readonly<Record<string, unknown>>;
  readonly costLimit?: number;
}

export interface Outcome {
  readonly id: string;
  readonly phase: 'compile' | 'eval' | 'value' | 'setup' | 'panic';
  readonly error?: string;
  readonly value?: Tagged;
  readonly cost?: number;
  readonly estimate?: { readonly min: number; readonly max: number };
  readonly costLimitExceeded?: boolean;
}

export type Aspect = 'phase' | 'value' | 'costLimit' | 'cost' | 'estimate' | 'message' | 'compileMessage';
/**
 * `message`: an evaluation error's text (what a policy denial or a CRD rule failure shows);
 * `compileMessage`: a compile error's cel-go display text (what a refused CRD or policy shows after
 * `compilation failed: `).
 */
export const ASPECTS: readonly Aspect[] = ['phase', 'value', 'costLimit', 'cost', 'estimate', 'message', 'compileMessage'];

const here = new URL('.', import.meta.url);

function readLines<T>(name: string): T[] {
  return readFileSync(new URL(name, here), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as T);
}

export function loadCorpus(): { corpus: CorpusEntry[]; expected: Map<string, Outcome> } {
  const corpus = readLines<CorpusEntry>('corpus.jsonl');
  const expected = new Map(readLines<Outcome>('expectations.jsonl').map((o) => [o.id, o]));
  return { corpus, expected };
}

/** A tagged corpus value (go-reference/main.go's format) as the engine's value. */
export function fromTagged(v: Tagged): unknown {
  switch (v.t) {
    case 'null': return null;
    case 'bool': return v.v;
    case 'int': return BigInt(v.v as string);
    case 'uint': return new UnsignedInt(BigInt(v.v as string));
    case 'double': return Number(v.v);
    case 'string': return v.v;
    case 'bytes': return new Uint8Array(Buffer.from(v.v as string, 'base64'));
    case 'timestamp': return toCelValue(v.v, { kind: 'timestamp' });
    case 'duration': {
      const n = BigInt(v.v as string);
      return new Duration(n / 1_000_000_000n, Number(n % 1_000_000_000n));
    }
    case 'list': return (v.v as Tagged[]).map(fromTagged);
    case 'map': {
      const pairs = (v.v as Array<[Tagged, Tagged]>).map(([k, x]) => [fromTagged(k), fromTagged(x)] as const);
      if (pairs.every(([k]) => typeof k === 'string')) return Object.fromEntries(pairs);
      return new Map(pairs);
    }
    case 'optional': return v.v === undefined ? Optional.none() : Optional.of(fromTagged(v.v as Tagged));
    default: throw new Error(`cannot bind a ${v.t}`);
  }
}

/** Runs a corpus entry through src/cel, producing the reference's outcome shape. */
export function runOurs(e: CorpusEntry): Outcome {
  const variables: Record<string, VariableDeclaration> = {};
  const types: Record<string, CelType> = {};
  const activation: Record<string, unknown> = {};
  let schemaType: CelType | undefined;
  if (e.schema !== undefined) {
    schemaType = celTypeFromSchema(e.schema);
    variables.self = { type: schemaType };
    variables.oldSelf = { type: schemaType };
    types.self = schemaType;
    types.oldSelf = schemaType;
  }
  for (const [name, typeName] of Object.entries(e.vars ?? {})) {
    const t = parseTypeName(typeName);
    variables[name] = { type: t };
    types[name] = t;
  }
  for (const [name, raw] of Object.entries(e.bindings ?? {})) {
    activation[name] = schemaType !== undefined && (name === 'self' || name === 'oldSelf') ? toCelValue(raw, schemaType) : fromTagged(raw as Tagged);
  }
  const env = { variables, expressions: e.env ?? 'new' } as const;
  const compiled = compile(e.expr, env);
  if (isCompileError(compiled)) return { id: e.id, phase: 'compile', error: compiled.celGoText };
  const est = estimateCost(e.expr, types, env);
  const estimate = est.kind === 'estimate' ? { min: est.min, max: est.max } : undefined;
  const r = evaluate(compiled, activation, e.costLimit === undefined ? {} : { costBudget: e.costLimit });
  if (r.kind === 'error') {
    return { id: e.id, phase: 'eval', error: r.message, cost: r.cost, estimate, costLimitExceeded: r.reason === 'CostLimitExceeded' };
  }
  let value: Tagged;
  try {
    value = canonicalValue(r.value);
  } catch (error) {
    return { id: e.id, phase: 'eval', error: `unrepresentable value: ${String(error)}`, cost: r.cost, estimate };
  }
  return { id: e.id, phase: 'value', value, cost: r.cost, estimate };
}

function sameDouble(a: string, b: string): boolean {
  if (a === b) return true;
  const x = a === '+Inf' ? Infinity : Number(a);
  const y = b === '+Inf' ? Infinity : Number(b);
  return Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));
}

/** Structural equality of tagged values; doubles compare by value, not by spelling. */
export function sameValue(a: Tagged | undefined, b: Tagged | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.t !== b.t) return false;
  if (a.t === 'double') return sameDouble(String(a.v), String(b.v));
  if (a.t === 'list') {
    const x = a.v as Tagged[];
    const y = b.v as Tagged[];
    return x.length === y.length && x.every((v, i) => sameValue(v, y[i]));
  }
  if (a.t === 'map') {
    const x = a.v as Array<[Tagged, Tagged]>;
    const y = b.v as Array<[Tagged, Tagged]>;
    return x.length === y.length && x.every(([k, v]) => y.some(([k2, v2]) => sameValue(k, k2) && sameValue(v, v2)));
  }
  if (a.t === 'optional') return sameValue(a.v as Tagged | undefined, b.v as Tagged | undefined);
  return JSON.stringify(a.v) === JSON.stringify(b.v) && (a as { type?: string }).type === (b as { type?: string }).type;
}

/** The aspects on which our outcome differs from the reference's. */
export function disagreements(expected: Outcome, ours: Outcome): Aspect[] {
  const out: Aspect[] = [];
  if (expected.phase !== ours.phase) out.push('phase');
  else if (expected.phase === 'value' && !sameValue(expected.value, ours.value)) out.push('value');
  if (Boolean(expected.costLimitExceeded) !== Boolean(ours.costLimitExceeded)) out.push('costLimit');
  if (expected.phase === ours.phase && expected.phase !== 'compile' && expected.cost !== ours.cost) out.push('cost');
  if (expected.estimate !== undefined && ours.phase !== 'compile' && (expected.estimate.min !== ours.estimate?.min || expected.estimate.max !== ours.estimate?.max)) out.push('estimate');
  if (expected.phase === 'eval' && ours.phase === 'eval' && expected.error !== ours.error) out.push('message');
  if (expected.phase === 'compile' && ours.phase === 'compile' && expected.error !== ours.error) out.push('compileMessage');
  return out;
}
