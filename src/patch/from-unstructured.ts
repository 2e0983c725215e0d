/**
 * The first error of kube's runtime.DefaultUnstructuredConverter.FromUnstructured on an object,
 * which is how a strategic-merge-patched object becomes the kind's Go type (not through JSON,
 * so the messages are the converter's: `cannot convert int64 to string`, `cannot restore map
 * from string`). Struct fields are visited in declaration (schema) order. Values the converter
 * hands to a JSON unmarshaler (times, quantities, int-or-string) are not judged here.
 */
import type { Schema } from '../schema/types.ts';
import { isJsonObject } from './json-value.ts';
import { propertyEntries } from '../schema/properties.ts';

/** Go's reflect.Kind name of a decoded JSON value, as the converter prints it. */
function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  if (isJsonObject(v)) return 'map';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Number.isInteger(v) ? 'int64' : 'float64';
}

/** The Go type a scalar schema decodes into. */
function scalarType(s: Schema): string | undefined {
  switch (s.type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'integer':
      return s.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    default:
      return undefined;
  }
}

function convertScalar(v: unknown, s: Schema): string | undefined {
  // []byte travels as a base64 string; anything else is no slice.
  if (s.type === 'string' && s.format === 'byte') return typeof v === 'string' ? undefined : `cannot restore slice from ${kindOf(v)}`;
  const dt = scalarType(s);
  if (dt === undefined) return undefined;
  const st = kindOf(v);
  if (st === dt) return undefined;
  const numeric = (t: string) => t === 'int32' || t === 'int64' || t === 'float64';
  // Go-convertible pairs keep JSON's groups: numbers among themselves (a float only when whole);
  // an integer is convertible to a string in Go but refused. Anything else is not convertible.
  if (st === 'int64' && numeric(dt)) return undefined;
  if (st === 'float64' && numeric(dt)) return Number.isInteger(v) ? undefined : `cannot convert float64 to ${dt}`;
  if (st === 'int64' && dt === 'string') return 'cannot convert int64 to string';
  return `unrecognized type: ${dt === 'int32' || dt === 'int64' || dt === 'float64' || dt === 'bool' || dt === 'string' ? dt : 'invalid'}`;
}

function walk(v: unknown, s: Schema | undefined, directives: boolean): string | undefined {
  if (!s || v === null || v === undefined) return undefined;
  if (s['x-kubernetes-int-or-string'] || s['x-kubernetes-preserve-unknown-fields'] || s.format === 'date-time') return undefined;
  if (s.properties) {
    if (!isJsonObject(v)) return `cannot restore struct from: ${kindOf(v)}`;
    for (const [k, prop] of propertyEntries(s)) {
      const err = walk(v[k], prop, directives);
      if (err) return err;
    }
    return undefined;
  }
  if (s.type === 'object' || s.additionalProperties !== undefined) {
    if (!isJsonObject(v)) return `cannot restore map from ${kindOf(v)}`;
    const elem = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    for (const k of Object.keys(v)) {
      if (directives && k.startsWith('$')) continue;
      const err = walk(v[k], elem, directives);
      if (err) return err;
    }
    return undefined;
  }
  if (s.type === 'array' || s.items) {
    if (!Array.isArray(v)) return `cannot restore slice from ${kindOf(v)}`;
    for (const el of v) {
      if (directives && isJsonObject(el) && '$patch' in el) continue;
      const err = walk(el, s.items, directives);
      if (err) return err;
    }
    return undefined;
  }
  return convertScalar(v, s);
}

/**
 * The converter's first complaint about `obj` against the kind's schema, or undefined. With
 * `patchDirectives`, `obj` is a strategic merge patch: `$` keys and `$patch` list entries are
 * directives, not values.
 */
export function fromUnstructuredError(obj: unknown, schema: Schema | undefined, opts: { patchDirectives?: boolean } = {}): string | undefined {
  return walk(obj, schema, opts.patchDirectives === true);
}
