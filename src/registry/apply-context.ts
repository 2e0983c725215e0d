/**
 * The server-side-apply context of one write: which schema, manager and subresource, and which
 * fields the write may not own (status on the main resource, everything but status on /status).
 */
import type { ApplyContext } from '../apply/index.ts';
import { apiVersionOf, type ResourceType } from '../api/types.ts';
import { nowRfc3339 } from './object-meta.ts';

export function applyContextFor(rt: ResourceType, manager: string, subresource: string, now: Date): ApplyContext {
  const statusWrite = subresource === 'status';
  const topLevel = Object.keys(rt.schema.properties ?? {}).filter((k) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata' && k !== 'status');
  return {
    schema: rt.schema,
    apiVersion: apiVersionOf(rt),
    kind: rt.kind,
    manager,
    subresource: subresource || undefined,
    now: nowRfc3339(now),
    ...(rt.hasStatus ? { resetFields: statusWrite ? topLevel.map((k) => [k]) : [['status']] } : {}),
    // Creates are compared against the kind's zero value, as kube's typed objects are.
    emptyObject: { metadata: { creationTimestamp: null } },
  };
}
