/**
 * Walking a structural schema alongside a value: the schema of a member, of list items, and the
 * strategic-merge-patch metadata (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`)
 * of a field. An undefined schema means "unknown": callers fall back to JSON merge semantics.
 */
import type { Schema } from '../schema/types.ts';

/** The schema of member `key` of an object described by `schema`: its property, else additionalProperties. */
export function propertySchema(schema: Schema | undefined, key: string): Schema | undefined {
  if (!schema) return undefined;
  const props = schema.properties;
  if (props && Object.prototype.hasOwnProperty.call(props, key)) return props[key];
  if (typeof schema.additionalProperties === 'object') return schema.additionalProperties;
  for (const sub of schema.allOf ?? []) {
    const found = propertySchema(sub, key);
    if (found) return found;
  }
  return undefined;
}

/** The schema of the items of a list described by `schema`. */
export function itemsSchema(schema: Schema | undefined): Schema | undefined {
  return schema?.items;
}

/** The strategic-merge-patch behaviour of one field, from its schema markers. */
export interface PatchMeta {
  /** `merge` merges lists (by key, or as sets of primitives); `replace` replaces maps; '' is the default. */
  readonly strategy: 'merge' | 'replace' | '';
  /** The strategy also carried `retainKeys` (used when computing patches; applying honours `$retainKeys`). */
  readonly retainKeys: boolean;
  /** The key identifying entries of a merged list of objects. */
  readonly mergeKey: string;
}

const NO_META: PatchMeta = { strategy: '', retainKeys: false, mergeKey: '' };

/** Reads the patch strategy and merge key a field's schema declares; unknown strategies read as none. */
export function patchMeta(schema: Schema | undefined): PatchMeta {
  if (!schema) return NO_META;
  const parts = (schema['x-kubernetes-patch-strategy'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const retainKeys = parts.includes('retainKeys');
  const other = parts.find((p) => p !== 'retainKeys');
  const strategy = other === 'merge' || other === 'replace' ? other : '';
  return { strategy, retainKeys, mergeKey: schema['x-kubernetes-patch-merge-key'] ?? '' };
}
