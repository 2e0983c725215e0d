/**
 * Live watches by what they watch (kube's watchTracker, k8s.io/apiserver/pkg/util/flowcontrol):
 * how many watchers a write will wake, for the mutating work estimate. A watch is counted under
 * its group, resource, namespace and name. Pods watched by node (`spec.nodeName=<node>`, kube's
 * built-in index) are left out: the watch cache sends them only their node's events, so a write
 * elsewhere costs them nothing.
 */
import { parseFieldSelector } from '../registry/field-selector.ts';
import type { ResourceRequestInfo } from '../request/request-info.ts';

/** Resources whose watch cache has an index on a field, and that field. */
const INDEXED_FIELDS: Readonly<Record<string, string>> = { pods: 'spec.nodeName' };

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch', 'proxy']);

/** The value a field selector requires exactly for `field` ('' when none or unparsable). */
function exactFieldValue(fieldSelector: string | null, field: string): string {
  if (!fieldSelector) return '';
  try {
    const sel = parseFieldSelector(fieldSelector);
    return sel.requirements.find((r) => r.field === field && r.op === '=')?.value ?? '';
  } catch {
    return '';
  }
}

export class WatchCountTracker {
  private readonly counts = new Map<string, number>();

  /**
   * Counts a watch (when it starts executing); the returned function forgets one watch of its key
   * and is shared by the watches of that key, so it is called once per registration (response
   * end work runs once: src/request/response-end.ts).
   */
  register(info: ResourceRequestInfo, name: string, query: URLSearchParams): () => void {
    const indexed = INDEXED_FIELDS[info.resource];
    if (indexed !== undefined && exactFieldValue(query.get('fieldSelector'), indexed) !== '') return () => {};
    const key = watchKey(info.apiGroup, info.resource, info.namespace, name);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    // One function per key, shared by its watches (each called once: src/request/response-end.ts).
    let unregister = this.unregisters.get(key);
    if (unregister === undefined) {
      unregister = () => {
        const n = (this.counts.get(key) ?? 1) - 1;
        if (n > 0) return void this.counts.set(key, n);
        this.counts.delete(key);
        this.unregisters.delete(key);
      };
      this.unregisters.set(key, unregister);
    }
    return unregister;
  }

  private readonly unregisters = new Map<string, () => void>();

  /** Watchers a write to the request's object may wake: of all namespaces, of its namespace, of its name. */
  interested(info: ResourceRequestInfo): number {
    // No watch at all (the usual case off a controller's path): no keys to build.
    if (this.counts.size === 0 || READ_ONLY_VERBS.has(info.verb)) return 0;
    let n = this.counts.get(watchKey(info.apiGroup, info.resource, '', '')) ?? 0;
    if (info.namespace !== '') n += this.counts.get(watchKey(info.apiGroup, info.resource, info.namespace, '')) ?? 0;
    if (info.name !== '') n += this.counts.get(watchKey(info.apiGroup, info.resource, info.namespace, info.name)) ?? 0;
    return n;
  }
}

function watchKey(group: string, resource: string, namespace: string, name: string): string {
  return `${group}\u0000${resource}\u0000${namespace}\u0000${name}`;
}
