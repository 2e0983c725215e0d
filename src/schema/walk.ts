/**
 * Small read-only helpers for walking a structural schema alongside an object. Every function
 * is pure and tolerates an undefined schema (meaning "nothing is known here").
 */
import type { Schema } from './types.ts';

/** The schema of property `key` of an object: a declared property first, then additionalProperties; undefined when unknown. */
export function childSchema(schema: Schema | undefined, key: string): Schema | undefined {
  if (!schema) return undefined;
  const declared = schema.properties?.[key];
  if (declared && Object.prototype.hasOwnProperty.call(schema.properties, key)) return declared;
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object') return extra;
  return undefined;
}

/** The schema of the entries of an array; undefined when not declared. */
export function itemSchema(schema: Schema | undefined): Schema | undefined {
  return schema?.items;
}

/**
 * The list type for server-side apply and strategic merge: the explicit marker, else `map` when a
 * patch merge key is declared (strategic-merge lists are keyed), else `atomic`.
 */
export function listType(schema: Schema | undefined): 'atomic' | 'set' | 'map' {
  const explicit = schema?.['x-kubernetes-list-type'];
  if (explicit) return explicit;
  if (schema?.['x-kubernetes-patch-merge-key']) return 'map';
  return 'atomic';
}

/** The map type of an object schema: `atomic` only when marked so, `granular` otherwise. */
export function mapType(schema: Schema | undefined): 'atomic' | 'granular' {
  return schema?.['x-kubernetes-map-type'] === 'atomic' ? 'atomic' : 'granular';
}

/** The key fields of a `map` list: the explicit list-map-keys, else the patch merge key alone, else none. */
export function listMapKeys(schema: Schema | undefined): readonly string[] {
  const keys = schema?.['x-kubernetes-list-map-keys'];
  if (keys && keys.length > 0) return keys;
  const mergeKey = schema?.['x-kubernetes-patch-merge-key'];
  return mergeKey ? [mergeKey] : [];
}

/** The strategic-merge-patch merge key of a list, if any. */
export function patchMergeKey(schema: Schema | undefined): string | undefined {
  return schema?.['x-kubernetes-patch-merge-key'];
}

/** The strategic-merge-patch strategies of a field (`merge`, `replace`, `retainKeys`), split on commas. */
export function patchStrategies(schema: Schema | undefined): readonly string[] {
  const s = schema?.['x-kubernetes-patch-strategy'];
  return s ? s.split(',').map((p) => p.trim()).filter(Boolean) : [];
}

/** Whether a value may be an integer or a string (`x-kubernetes-int-or-string`). */
export function isIntOrString(schema: Schema | undefined): boolean {
  return schema?.['x-kubernetes-int-or-string'] === true;
}

/** Whether unknown fields under this node are kept (`x-kubernetes-preserve-unknown-fields: true`). */
export function preservesUnknown(schema: Schema | undefined): boolean {
  return schema?.['x-kubernetes-preserve-unknown-fields'] === true;
}

/** Whether this node is an embedded resource (keeps apiVersion, kind and metadata). */
export function isEmbeddedResource(schema: Schema | undefined): boolean {
  return schema?.['x-kubernetes-embedded-resource'] === true;
}

/** The JSON type name of a decoded value, as the OpenAPI validators name it (`integer` for whole numbers). */
export function jsonTypeOf(value: unknown): 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object' {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

/** True for a plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of a decoded JSON tree, several times faster than structuredClone (which serializes
 * through V8's value serializer). Anything that is not a plain object or array (a Date, a Buffer)
 * is copied by structuredClone, so the result is always what structuredClone would give.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = cloneJson((value as Record<string, unknown>)[k]);
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out as T;
}
