/**
 * What decoding into a Go struct does to values that JSON alone does not settle, applied to a
 * decoded object in place: a `null` struct field becomes the field's zero value (here: absent,
 * which the encoder renders as Go would), and metav1.Time / MicroTime strings are parsed with
 * Go's layouts and re-encoded as Go's MarshalJSON writes them. Walks the kind's schema; values
 * under preserve-unknown-fields or outside the schema are left alone.
 */
import { parseGoTime } from './go-time.ts';
import { goTimeLayout, type Schema } from './types.ts';

/** Go's decode error for one value (`parsing time "x" as "...": cannot parse ...`). */
export interface GoValueError {
  readonly path: string;
  readonly message: string;
}

/** Normalizes `value` against `schema`; returns the first decode error (document order), if any. */
export function normalizeGoValues(value: unknown, schema: Schema): GoValueError | undefined {
  return walk(value, schema, '');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function walk(value: unknown, schema: Schema, path: string): GoValueError | undefined {
  if (Array.isArray(value)) {
    if (!schema.items) return undefined;
    for (let i = 0; i < value.length; i++) {
      const err = walkChild(value, i, schema.items, `${path}[${i}]`);
      if (err) return err;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const props = schema.properties;
  if (props) {
    for (const key of Object.keys(value)) {
      const ps = props[key];
      if (!ps) continue;
      if (value[key] === null && !ps.nullable) {
        delete value[key];
        continue;
      }
      const err = walkChild(value, key, ps, path ? `${path}.${key}` : key);
      if (err) return err;
    }
  } else if (typeof schema.additionalProperties === 'object') {
    for (const key of Object.keys(value)) {
      const err = walkChild(value, key, schema.additionalProperties, `${path}[${key}]`);
      if (err) return err;
    }
  }
  return undefined;
}

function walkChild(parent: Record<string, unknown> | unknown[], key: string | number, schema: Schema, path: string): GoValueError | undefined {
  const v = (parent as Record<string | number, unknown>)[key];
  const layout = schema[goTimeLayout];
  if (layout && typeof v === 'string') {
    const r = parseGoTime(v, layout);
    if (!r.ok) return { path, message: r.message };
    // Go's zero time (year 1) encodes as null: the same as absent.
    if (isZeroTime(r.value) && !Array.isArray(parent)) delete parent[key as string];
    else (parent as Record<string | number, unknown>)[key] = r.value;
    return undefined;
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return undefined;
  return walk(v, schema, path);
}

function isZeroTime(encoded: string): boolean {
  return encoded === '0001-01-01T00:00:00Z' || encoded === '0001-01-01T00:00:00.000000Z';
}
