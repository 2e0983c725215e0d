/**
 * Zero values as kube writes them. kube keeps objects as Go structs (in etcd as protobuf, where
 * an empty list or map and an absent one are the same nil), and its JSON is what the Go types'
 * tags produce from them:
 *
 * - a list or map field with `omitempty` (most of them) is left out when empty;
 * - a list or map field without `omitempty` (Role `rules`, PolicyRule `verbs`) is `null` when
 *   empty or absent;
 * - a `metav1.Time` / `MicroTime` held by value (core Event `firstTimestamp`, `eventTime`; Go
 *   never omits a struct) is `null` when zero;
 * - a string with `omitempty` held by value (events.k8s.io `reportingController`) is left out
 *   when empty.
 *
 * The kind schemas say which fields are which: `goWire.always(...)` and `goWire.omitZero(...)`
 * mark a property's schema node; lists and maps are `omitempty` unless marked. The marks live
 * beside the schema (not in it), so the published OpenAPI is unchanged. `goWireForm` renders an
 * object accordingly, copying only what it changes.
 */
import type { Schema } from '../schema/types.ts';
import { propertyEntries } from '../schema/properties.ts';

type Mark = 'always' | 'omitZero';
const marks = new WeakMap<Schema, Mark>();

export const goWire = {
  /** A field Go always writes: `null` when a list, map or time is empty (no `omitempty`, or a struct time). */
  always<S extends Schema>(schema: S): S {
    marks.set(schema, 'always');
    return schema;
  },
  /** A scalar with `omitempty` held by value: its zero ("", 0, false) is left out. */
  omitZero<S extends Schema>(schema: S): S {
    marks.set(schema, 'omitZero');
    return schema;
  },
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isListOrMap(s: Schema): 'list' | 'map' | undefined {
  if (s.type === 'array') return 'list';
  if (s.type === 'object' && !s.properties && typeof s.additionalProperties === 'object') return 'map';
  return undefined;
}

/** A schema renderValue passes every value through unchanged under (a map of strings' values, say). */
function isLeaf(s: Schema): boolean {
  return !s.properties && !s.items && typeof s.additionalProperties !== 'object';
}

function isTime(s: Schema): boolean {
  return s.type === 'string' && (s.format === 'date-time' || s.format === 'date-time-micro');
}

function isEmpty(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

function isZeroScalar(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

/**
 * The rendering of one property: the value to write, or `undefined` to leave it out; returns
 * `value` itself when nothing changes.
 */
type Mode = 'wire' | 'decode' | 'track';

function renderField(value: unknown, present: boolean, s: Schema, mode: Mode): unknown {
  const mark = marks.get(s);
  const shape = isListOrMap(s);
  if (shape) {
    if (mark === 'always') {
      // Decoding keeps an empty non-omitempty list as given (it is a field the writer set).
      if (mode !== 'wire' && present) return value === null || isEmpty(value) ? value : renderValue(value, s, mode);
      if (mode === 'decode') return undefined;
      return !present || value === null || isEmpty(value) ? null : renderValue(value, s, mode);
    }
    if (!present || value === null || isEmpty(value)) return undefined;
    return renderValue(value, s, mode);
  }
  if (mode === 'wire' && mark === 'always' && isTime(s) && (!present || value === null)) return null;
  if (mode === 'track' && mark === 'always' && isTime(s) && !present) return null;
  if (!present) return undefined;
  if (mark === 'omitZero' && isZeroScalar(value)) return undefined;
  return renderValue(value, s, mode);
}

/**
 * What rendering an object of a schema with properties looks at, worked out once per schema
 * (every create, update and answer renders its object two or three times): the properties
 * renderField may change (lists, maps, nested structs, marked fields; an unmarked scalar is
 * always written as it is), and every property name in struct order, for fields it adds.
 */
interface Plan {
  readonly fields: readonly (readonly [string, Schema])[];
  readonly names: readonly string[];
}

const plans = new WeakMap<Schema, Plan>();

function planOf(s: Schema): Plan {
  let plan = plans.get(s);
  if (plan === undefined) {
    const fields = propertyEntries(s).filter(([, ps]) => marks.has(ps) || isListOrMap(ps) !== undefined || ps.properties !== undefined || ps.items !== undefined);
    plan = { fields, names: Object.keys(s.properties ?? {}) };
    plans.set(s, plan);
  }
  return plan;
}

function renderValue(value: unknown, s: Schema, mode: Mode): unknown {
  if (Array.isArray(value)) {
    const items = s.items;
    if (!items) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const r = renderValue(v, items, mode);
      if (r !== v) (out ??= value.slice())[i] = r;
    }
    return out ?? value;
  }
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  if (s.properties) {
    const plan = planOf(s);
    let added: string[] | undefined;
    for (const [k, ps] of plan.fields) {
      const present = Object.hasOwn(value, k);
      const v = present ? value[k] : undefined;
      const r = renderField(v, present, ps, mode);
      if (r === v && !(present && r === undefined)) continue;
      out ??= { ...value };
      if (r === undefined) delete out[k];
      else out[k] = r;
      if (!present && r !== undefined) (added ??= []).push(k);
    }
    if (out && added) out = inStructOrder(out, added, plan.names);
  } else if (typeof s.additionalProperties === 'object' && !isLeaf(s.additionalProperties)) {
    const ps = s.additionalProperties;
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      const v = value[k];
      const r = renderValue(v, ps, mode);
      if (r === v) continue;
      out ??= { ...value };
      if (r === undefined) delete out[k];
      else out[k] = r;
    }
  }
  return out ?? value;
}

/**
 * Places fields that were added (Go writes them, the stored object lacked them) where Go's struct
 * order puts them: right after the nearest earlier field of the schema that is present.
 */
function inStructOrder(obj: Record<string, unknown>, added: readonly string[], names: readonly string[]): Record<string, unknown> {
  const addedSet = new Set(added);
  const keys = Object.keys(obj).filter((k) => !addedSet.has(k));
  for (const k of added) {
    let at = 0;
    for (let i = names.indexOf(k) - 1; i >= 0; i--) {
      const j = keys.indexOf(names[i]!);
      if (j >= 0) {
        at = j + 1;
        break;
      }
    }
    keys.splice(at, 0, k);
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = obj[k];
  return out;
}

/** kube's JSON of an object of the schema's kind (see the module comment); `obj` is not changed. */
export function goWireForm<T>(obj: T, schema: Schema): T {
  return renderValue(obj, schema, 'wire') as T;
}

/**
 * A create or update body as kube sees it after decoding into the Go type and back
 * (ToUnstructured, which managedFields are computed from): empty omitempty lists, maps and
 * strings are gone; nothing is added. `obj` is not changed.
 */
export function goDecodedForm<T>(obj: T, schema: Schema): T {
  return renderValue(obj, schema, 'decode') as T;
}

/**
 * A decoded body (goDecodedForm) as kube's field manager compares it: fields Go always writes that
 * the body left out are `null` (a nil slice, a zero time), so leaving out a list that was set is a
 * change of value, owned by the writer, not a removal; an empty list the body set stays `[]`.
 */
export function goTrackedForm<T>(obj: T, schema: Schema): T {
  return renderValue(obj, schema, 'track') as T;
}

/**
 * The top-level fields of an object in Go's struct order (kind, apiVersion, metadata, then the
 * schema's properties), for objects assembled by conversion rather than decoded from a client's
 * body (events.k8s.io Events read from core/v1 storage). The schema must list fields in Go order.
 */
export function inGoFieldOrder<T extends Record<string, unknown>>(obj: T, schema: Schema): T {
  const order = ['kind', 'apiVersion', 'metadata', ...Object.keys(schema.properties ?? {})];
  const out: Record<string, unknown> = {};
  for (const k of order) if (Object.hasOwn(obj, k)) out[k] = obj[k];
  for (const k of Object.keys(obj)) if (!Object.hasOwn(out, k)) out[k] = obj[k];
  return out as T;
}
