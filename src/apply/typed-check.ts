/**
 * The check kube-apiserver's field manager makes when it turns an applied configuration into a
 * typed value (structured-merge-diff's validation): fields the schema does not declare and
 * scalars of the wrong type fail the apply with a 500 naming each path, in any field
 * validation mode. (Create and update prune unknown fields instead; apply never does.)
 */
import { ApiError } from '../api/status-errors.ts';
import type { Schema } from '../schema/types.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Go's `%#v` of a decoded JSON value (`1`, `"x"`, `[]interface {}{1}`, `map[string]interface {}{"a":1}`). */
function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[string]interface {}{${keys.map((k) => `${JSON.stringify(k)}:${goSharpV(v[k])}`).join(', ')}}`;
  }
  return String(v);
}

/** Go's `%v` of a decoded JSON value (`map[a:1]`, `[1 2]`). */
function goV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (isObject(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goV(v[k])}`).join(' ')}]`;
  return String(v);
}

/** Go's `%T` of a decoded JSON value. */
function goT(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Number.isInteger(v) ? 'int64' : 'float64';
}

/**
 * How structured-merge-diff names a list entry in a path: `[k="v",n=1]` in an associative
 * list, `[="v"]` in a set, `[i]` in an atomic list (or when the entry lacks a key).
 */
function listElement(s: Schema, el: unknown, i: number): string {
  let listType = s['x-kubernetes-list-type'];
  let keys: readonly string[] = s['x-kubernetes-list-map-keys'] ?? [];
  if (!listType && (s['x-kubernetes-patch-strategy'] ?? '').split(',').includes('merge')) {
    const mergeKey = s['x-kubernetes-patch-merge-key'];
    listType = mergeKey ? 'map' : 'set';
    keys = mergeKey ? [mergeKey] : [];
  }
  if (listType === 'set' && (el === null || typeof el !== 'object')) return `[=${JSON.stringify(el)}]`;
  if (listType === 'map' && keys.length > 0 && isObject(el)) {
    // A missing key takes its default: kube publishes the Go zero value ("" or 0) for the
    // non-pointer fields list keys are.
    const zero = (k: string) => {
      const ks = s.items?.properties?.[k];
      if (ks?.default !== undefined) return ks.default;
      return ks?.type === 'string' ? '' : ks?.type === 'integer' ? 0 : undefined;
    };
    const values = keys.map((k) => (el[k] !== undefined ? el[k] : zero(k)));
    if (values.every((x) => x !== undefined)) return `[${keys.map((k, j) => `${k}=${JSON.stringify(values[j])}`).join(',')}]`;
  }
  return `[${i}]`;
}

function walk(v: unknown, s: Schema | undefined, path: string, out: string[]): void {
  if (!s || v === null || v === undefined || s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-int-or-string']) return;
  const isMap = s.type === 'object' || (!s.type && (s.properties !== undefined || s.additionalProperties !== undefined));
  const isList = s.type === 'array' || (!s.type && s.items !== undefined);
  if (isMap) {
    if (!isObject(v)) {
      out.push(`${path}: expected map, got &{${goV(v)}}`);
      return;
    }
    const extra = s.additionalProperties;
    for (const k of Object.keys(v)) {
      const child = `${path}.${k}`;
      if (s.properties && Object.prototype.hasOwnProperty.call(s.properties, k)) walk(v[k], s.properties[k], child, out);
      else if (isObject(extra)) walk(v[k], extra as Schema, child, out);
      else if (extra !== true) out.push(`${child}: field not declared in schema`);
    }
    return;
  }
  if (isList) {
    if (!Array.isArray(v)) {
      out.push(`${path}: expected list, got &{${goV(v)}}`);
      return;
    }
    const seen = new Set<string>();
    v.forEach((el, i) => {
      const pe = listElement(s, el, i);
      // Associative lists and sets may not repeat an entry (the applied object is typed without AllowDuplicates).
      if (!/^\[\d+\]$/.test(pe)) {
        if (seen.has(pe)) out.push(`${path}: duplicate entries for key ${pe}`);
        seen.add(pe);
      }
      walk(el, s.items, `${path}${pe}`, out);
    });
    return;
  }
  switch (s.type) {
    case 'string':
      if (typeof v !== 'string') out.push(`${path}: expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}`);
      break;
    case 'integer':
    case 'number':
      if (typeof v !== 'number' && typeof v !== 'bigint') out.push(`${path}: expected numeric (int or float), got ${goT(v)}`);
      break;
    case 'boolean':
      if (typeof v !== 'boolean') out.push(`${path}: expected boolean, got &{${goV(v)}}`);
      break;
    default:
  }
}

/** The typing failures of an applied object against its kind's schema, sorted by path. */
export function typedPatchErrors(applied: unknown, schema: Schema | undefined): string[] {
  const out: string[] = [];
  walk(applied, schema, '', out);
  return out.sort();
}

/**
 * kube's 500 for an applied configuration that does not fit the schema:
 * `failed to create typed patch object (ns/name; group/version, Kind=K): <errors>`.
 */
export function typedPatchError(applied: Record<string, unknown>, errs: readonly string[]): ApiError {
  const meta = isObject(applied.metadata) ? applied.metadata : {};
  const str = (x: unknown) => (typeof x === 'string' ? x : '');
  const av = str(applied.apiVersion);
  const slash = av.lastIndexOf('/');
  const gvk = `${slash >= 0 ? av.slice(0, slash) : ''}/${slash >= 0 ? av.slice(slash + 1) : av}, Kind=${str(applied.kind)}`;
  const detail = errs.length === 1 ? errs[0]! : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
  return new ApiError(500, '', `failed to create typed patch object (${str(meta.namespace)}/${str(meta.name)}; ${gvk}): ${detail}`);
}
