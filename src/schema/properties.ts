/**
 * A schema's properties as a list of [name, schema] pairs, in declaration order, made once per
 * schema: validation, defaulting, pruning and Go's wire form walk every object of every request by
 * its schema's properties, and an `Object.entries` per object node was a fifth of what a create
 * allocated. Schemas are immutable once built, so the list never goes stale.
 */
import type { Schema } from './types.ts';

export type PropertyEntries = readonly (readonly [string, Schema])[];

const NONE: PropertyEntries = [];
const cache = new WeakMap<Schema, PropertyEntries>();

export function propertyEntries(s: Schema): PropertyEntries {
  const props = s.properties;
  if (props === undefined) return NONE;
  let entries = cache.get(s);
  if (entries === undefined) {
    entries = Object.entries(props);
    cache.set(s, entries);
  }
  return entries;
}
