/**
 * The common YAML body is JSON on one line: kubectl, client-go and client-node send server-side
 * apply bodies as compact JSON under application/apply-patch+yaml. For such a body go-yaml v2
 * (and decodeYaml, which reads as it does) gives exactly what JSON.parse gives, once map keys are
 * sorted as sigs.k8s.io/yaml's Go maps sort them, at a fraction of the cost of a YAML parse.
 *
 * Only bodies where the two provably agree take this path; any other body (undefined here) goes
 * through the YAML parser, with its errors and duplicate-key reports:
 * - one line of printable ASCII without backslashes: no escapes (YAML and JSON escapes differ),
 *   no characters go-yaml refuses, no tabs, no multi-line keys;
 * - a top-level object, valid JSON, no repeated keys, within the nesting limit;
 * - every key's `:` within 1,000 characters of its opening quote (go-yaml stops looking for a
 *   key's `:` after 1,024 characters and then fails);
 * - every number finite and not -0 (go-yaml reads `-0` as the integer 0, and `1e400` as a string).
 */
import { scanDuplicateKeys } from './json-decode.ts';

/** Longest distance from a key's opening quote to its `:` taken here; go-yaml's limit is 1,024. */
const MAX_KEY_SPAN = 1000;

/** The value decodeYaml gives `text`, when `text` is a body of the form above; otherwise undefined. */
export function decodeJsonShapedYaml(text: string, maxDepth: number): Record<string, unknown> | undefined {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end--;
  if (end === 0 || text.charCodeAt(0) !== 0x7b) return undefined;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x5c) return undefined;
  }
  if (!keysCloseToColons(text, end)) return undefined;
  const duplicates = scanDuplicateKeys(text, maxDepth);
  if (duplicates === undefined || duplicates.length > 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const sorted = goOrdered(value);
  return sorted === INELIGIBLE ? undefined : (sorted as Record<string, unknown>);
}

/**
 * Without backslashes every `"` opens or closes a string, so strings pair up from the left; a
 * string followed by `:` (after blanks) is a key.
 */
function keysCloseToColons(text: string, end: number): boolean {
  for (let i = text.indexOf('"'); i >= 0 && i < end; ) {
    const close = text.indexOf('"', i + 1);
    if (close < 0) return true; // Unterminated: JSON.parse refuses it.
    let j = close + 1;
    while (j < end && text.charCodeAt(j) === 0x20) j++;
    if (text.charCodeAt(j) === 0x3a && j - i >= MAX_KEY_SPAN) return false;
    i = text.indexOf('"', close + 1);
  }
  return true;
}

const INELIGIBLE = Symbol('ineligible');

/** A copy with object keys in Go's sorted order; INELIGIBLE when a number reads otherwise in YAML. */
function goOrdered(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : INELIGIBLE;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const el = goOrdered(v[i]);
      if (el === INELIGIBLE) return INELIGIBLE;
      v[i] = el;
    }
    return v;
  }
  const o = v as Record<string, unknown>;
  // Keys are ASCII here, so UTF-16 order is Go's byte order.
  const keys = Object.keys(o).sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const el = goOrdered(o[k]);
    if (el === INELIGIBLE) return INELIGIBLE;
    if (k === '__proto__') Object.defineProperty(out, k, { value: el, enumerable: true, writable: true, configurable: true });
    else out[k] = el;
  }
  return out;
}
