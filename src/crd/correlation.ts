/**
 * How validation ratcheting matches a new value with the old one (kube's correlated objects):
 * fields by name and map values by key; list items only in map-type lists, by their map keys.
 * Items of other lists have nothing to correlate with.
 */
import type { Schema } from '../schema/types.ts';
import { isPlainObject } from '../schema/walk.ts';

/** The old item that `item` of a list of schema `list` correlates with, or undefined. */
export function correlatedItem(item: unknown, oldItems: unknown, list: Schema | undefined): unknown {
  const keys = list?.['x-kubernetes-list-type'] === 'map' ? (list['x-kubernetes-list-map-keys'] ?? []) : [];
  if (keys.length === 0 || !isPlainObject(item) || !Array.isArray(oldItems)) return undefined;
  return oldItems.find((o) => isPlainObject(o) && keys.every((k) => o[k] === item[k]));
}
