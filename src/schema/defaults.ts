/**
 * Structural defaulting as apiextensions does it: first nulls that the schema does not allow
 * (and has no default for) are dropped, then absent properties, and nulls in non-nullable
 * places, get deep copies of their `default`, recursing into properties, additionalProperties
 * and items.
 */
import type { Schema } from './types.ts';
import { cloneJson, isPlainObject } from './walk.ts';

/** Applies schema defaults to `obj` in place (null pruning first, then defaulting); returns the same object. */
export function applyDefaults<T>(obj: T, schema: Schema | undefined): T {
  pruneNonNullableNulls(obj, schema);
  defaultNode(obj, schema);
  return obj;
}

/** Removes (in place) object fields whose value is null where the field's schema is neither nullable nor defaulted. */
export function pruneNonNullableNulls(x: unknown, s: Schema | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNulls(v, s.items);
    return;
  }
  if (!isPlainObject(x)) return;
  for (const k of Object.keys(x)) {
    const prop = propertySchema(s, k);
    if (!prop) continue;
    const v = x[k];
    if (v === null) {
      if (!prop.nullable && prop.default === undefined) delete x[k];
    } else {
      pruneNonNullableNulls(v, prop);
    }
  }
}

function propertySchema(s: Schema, key: string): Schema | undefined {
  if (s.properties && Object.prototype.hasOwnProperty.call(s.properties, key)) return s.properties[key];
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

function needsDefault(v: unknown, s: Schema): boolean {
  return s.default !== undefined && (v === undefined || (v === null && !s.nullable));
}

function defaultNode(x: unknown, s: Schema | undefined): void {
  if (!s || !defaultsBelow(s)) return;
  if (Array.isArray(x)) {
    const items = s.items;
    if (!items) return;
    for (let i = 0; i < x.length; i++) {
      if (needsDefault(x[i], items)) x[i] = cloneJson(items.default);
      defaultNode(x[i], items);
    }
    return;
  }
  if (!isPlainObject(x)) return;
  for (const [k, prop] of defaultedProperties(s)) {
    if (needsDefault(Object.hasOwn(x, k) ? x[k] : undefined, prop)) x[k] = cloneJson(prop.default);
  }
  for (const k of Object.keys(x)) {
    const prop = propertySchema(s, k);
    if (!prop) continue;
    if (needsDefault(x[k], prop)) x[k] = cloneJson(prop.default);
    defaultNode(x[k], prop);
  }
}

/**
 * Whether `applyDefaults` would change `x` (a null it drops, a default it sets), found without
 * copying: reads of stored custom resources default them, and most need nothing, so the copy a
 * read would make for defaulting is skipped for them.
 */
export function defaultsWouldChange(x: unknown, s: Schema | undefined): boolean {
  if (!s) return false;
  if (Array.isArray(x)) {
    const items = s.items;
    if (!items) return false;
    for (const v of x) if (needsDefault(v, items) || defaultsWouldChange(v, items)) return true;
    return false;
  }
  if (!isPlainObject(x)) return false;
  for (const [k, prop] of defaultedProperties(s)) {
    if (needsDefault(Object.hasOwn(x, k) ? x[k] : undefined, prop)) return true;
  }
  for (const k of Object.keys(x)) {
    const prop = propertySchema(s, k);
    if (!prop) continue;
    const v = x[k];
    if (v === null && !prop.nullable && prop.default === undefined) return true;
    if (needsDefault(v, prop) || defaultsWouldChange(v, prop)) return true;
  }
  return false;
}

// Schemas are not changed once built (a changed CRD brings new schema objects), so what defaulting
// needs of each is worked out once: most of an object's subtrees have no default anywhere.
const defaultedCache = new WeakMap<Schema, ReadonlyArray<readonly [string, Schema]>>();
const belowCache = new WeakMap<Schema, boolean>();

/** The properties of `s` that carry a default. */
function defaultedProperties(s: Schema): ReadonlyArray<readonly [string, Schema]> {
  let list = defaultedCache.get(s);
  if (!list) {
    list = Object.entries(s.properties ?? {}).filter(([, prop]) => prop.default !== undefined);
    defaultedCache.set(s, list);
  }
  return list;
}

/** Whether any schema under `s` (properties, additionalProperties, items, at any depth) has a default. */
function defaultsBelow(s: Schema): boolean {
  const known = belowCache.get(s);
  if (known !== undefined) return known;
  // A schema that contains itself: assume defaults until the walk below knows better.
  belowCache.set(s, true);
  const children: Schema[] = [...Object.values(s.properties ?? {})];
  if (typeof s.additionalProperties === 'object') children.push(s.additionalProperties);
  if (s.items) children.push(s.items);
  const found = children.some((c) => c.default !== undefined || defaultsBelow(c));
  belowCache.set(s, found);
  return found;
}
