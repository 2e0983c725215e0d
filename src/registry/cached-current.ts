/**
 * What a reconciler of default objects (the RBAC policy, APF bootstrap configuration, system
 * namespaces, ...) compares its wanted object with before writing: the watch cache's copy, read
 * without a store round trip. An unchanged data dir then costs a start only reads (issue 19);
 * a write goes through the store's full create/update path only when something is to change.
 */
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore } from './resource-store.ts';

/** The cached object, or undefined when it is missing or its stored bytes do not decode (the caller then writes as before). */
export function cachedCurrent(store: ResourceStore, namespace: string, name: string): KubeObject | undefined {
  const entry = store.cache.get(store.key(namespace, name));
  if (!entry || entry.corrupt) return undefined;
  return entry.value;
}
