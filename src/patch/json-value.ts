/**
 * Small helpers over plain JSON values (the decoded form of a request body or stored object),
 * shared by the three patch formats.
 */

export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A deep copy of a JSON value; the input is never shared with the result. */
export function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => deepCopy(x)) as T;
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) setOwn(out, k, deepCopy(v[k]));
    return out as T;
  }
  return v;
}

/** Structural equality of two JSON values (object key order does not matter). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) {
      if (!Object.prototype.hasOwnProperty.call(b, k) || !deepEqual(a[k], b[k])) return false;
    }
    return true;
  }
  return false;
}

/** The kind of a JSON value, as Go's decoder would type it (used for "same type" checks). */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export function jsonKind(v: unknown): JsonKind {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  return 'boolean';
}

/** The Go type name `encoding/json` gives a decoded value, for error texts (`map[string]interface {}`). */
export function goTypeName(v: unknown): string {
  switch (jsonKind(v)) {
    case 'object':
      return 'map[string]interface {}';
    case 'array':
      return '[]interface {}';
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    default:
      return '<nil>';
  }
}

/** Formats a value the way Go's `%v` prints decoded JSON (`map[a:1 b:[x y]]`), for error texts. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** True when `k` is an own key of `o` (never consults the prototype chain). */
export function hasOwn(o: JsonObject, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** Sets an own key, safely even for `__proto__` (which plain assignment would treat as the prototype). */
export function setOwn(o: JsonObject, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}
