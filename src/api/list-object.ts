/**
 * A collection as kube-apiserver writes it for a kind. A built-in kind's list is typed: kind,
 * apiVersion, metadata (continue only when there is more), items without kind and apiVersion. A
 * custom resource's list is unstructured: keys sorted, `continue` always there (empty on the last
 * page), items keeping kind and apiVersion.
 */
import { apiVersionOf, type KubeObject, type ResourceType } from './types.ts';

export interface ListPosition {
  readonly resourceVersion: string;
  readonly continueToken?: string;
  readonly remainingItemCount?: number;
}

/** The list's metadata, in the kind's form. */
export function listMetaOf(rt: ResourceType, p: ListPosition): Record<string, unknown> {
  const remaining = p.remainingItemCount !== undefined ? { remainingItemCount: p.remainingItemCount } : {};
  if (rt.unstructured) return { continue: p.continueToken ?? '', ...remaining, resourceVersion: p.resourceVersion };
  return { resourceVersion: p.resourceVersion, ...(p.continueToken ? { continue: p.continueToken } : {}), ...remaining };
}

/** The list object around items already in their list form (see listItem). */
export function listObjectOf(rt: ResourceType, metadata: Record<string, unknown>, items: readonly unknown[]): Record<string, unknown> {
  return rt.unstructured
    ? { apiVersion: apiVersionOf(rt), items, kind: rt.listKind, metadata }
    : { kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata, items };
}

/** An object as an item of its kind's list: a typed list's items carry no kind and apiVersion. */
export function listItem(rt: ResourceType, obj: KubeObject): KubeObject {
  if (rt.unstructured) return obj;
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return rest;
}
