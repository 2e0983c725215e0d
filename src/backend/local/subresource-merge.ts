/**
 * What a write through the main resource or the status subresource may change, for kinds with a
 * status subresource: shared by update, patch and apply.
 */
import type { KubeObject, ResourceType } from '../../api/types.ts';
import { cloneObject } from '../../registry/object-meta.ts';

/**
 * Status writes change only status; main-resource writes keep the current status (for kinds
 * with a status subresource). Kinds with their own subresource strategy (namespaces) are left
 * to it: the store runs it. Mutates `next`.
 */
export function mergeSubresource(next: KubeObject, current: KubeObject, subresource: string, rt: ResourceType): void {
  if (subresource !== '' && rt.strategy.subresources?.[subresource]) return;
  if (!rt.hasStatus) return;
  if (subresource === 'status') {
    const status = next.status;
    const rv = next.metadata?.resourceVersion;
    // Ownership computed for this write (server-side apply) survives; everything else is the current object's.
    const managedFields = next.metadata?.managedFields;
    for (const k of Object.keys(next)) delete next[k];
    Object.assign(next, cloneObject(current));
    if (managedFields !== undefined) next.metadata!.managedFields = managedFields;
    if (status === undefined) delete next.status;
    else next.status = status;
    if (rv) next.metadata!.resourceVersion = rv;
    else delete next.metadata!.resourceVersion;
  } else {
    if (current.status === undefined) delete next.status;
    else next.status = cloneObject(current.status);
  }
}
