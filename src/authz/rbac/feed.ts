/**
 * Keeps an RbacIndex current from the four RBAC watch caches: their current contents first
 * (synchronously, so the index is complete before the server answers), then every change.
 */
import type { KubeObject } from '../../api/types.ts';
import type { CachedEntry, WatchCache } from '../../storage/watch-cache.ts';
import { bindingOf, type RbacIndex } from './index.ts';

export interface RbacCaches {
  readonly roles: WatchCache<KubeObject>;
  readonly clusterRoles: WatchCache<KubeObject>;
  readonly roleBindings: WatchCache<KubeObject>;
  readonly clusterRoleBindings: WatchCache<KubeObject>;
}

type Kind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';

/** Starts feeding `index`; returns a function that stops it. */
export function feedRbacIndex(index: RbacIndex, caches: RbacCaches): () => void {
  const handles = [
    follow(caches.roles, 'Role', index),
    follow(caches.clusterRoles, 'ClusterRole', index),
    follow(caches.roleBindings, 'RoleBinding', index),
    follow(caches.clusterRoleBindings, 'ClusterRoleBinding', index),
  ];
  return () => {
    for (const h of handles) h.close();
  };
}

function follow(cache: WatchCache<KubeObject>, kind: Kind, index: RbacIndex): { close(): void } {
  let handle: { close(): void } | undefined;
  let closed = false;
  // What the index holds of this kind (`namespace/name`), so a relist can drop what went missing meanwhile.
  const known = new Map<string, CachedEntry<KubeObject>>();
  const track = (op: 'set' | 'delete', e: CachedEntry<KubeObject>) => {
    const key = keyOf(e);
    if (key === undefined) return;
    if (op === 'set') known.set(key, e);
    else known.delete(key);
    apply(index, kind, op, e);
  };
  const start = () => {
    const listed = cache.list();
    const present = new Set<string>();
    for (const e of listed.entries) {
      const key = keyOf(e);
      if (key !== undefined) present.add(key);
      track('set', e);
    }
    // Objects deleted while the watch was down: a relist alone would leave their grants in place.
    for (const [key, e] of [...known]) if (!present.has(key)) track('delete', e);
    handle = cache.watch(
      { fromRevision: listed.revision },
      {
        onEvent: (ev) => track(ev.type === 'DELETED' ? 'delete' : 'set', ev.entry),
        // The cache restarted or fell behind: relist (a set replaces, so replaying is harmless).
        onError: () => {
          handle?.close();
          if (!closed) setTimeout(start, 100).unref();
        },
      },
    );
  };
  start();
  return {
    close: () => {
      closed = true;
      handle?.close();
    },
  };
}

function keyOf(entry: CachedEntry<KubeObject>): string | undefined {
  try {
    const m = entry.value.metadata;
    return `${m?.namespace ?? ''}/${m?.name ?? ''}`;
  } catch {
    return undefined;
  }
}

function apply(index: RbacIndex, kind: Kind, op: 'set' | 'delete', entry: CachedEntry<KubeObject>): void {
  let obj: KubeObject;
  try {
    obj = entry.value;
  } catch {
    return; // A corrupt object grants nothing.
  }
  const name = obj.metadata?.name ?? '';
  const namespace = obj.metadata?.namespace ?? '';
  switch (kind) {
    case 'ClusterRole':
      return op === 'set' ? index.setClusterRole(name, obj) : index.deleteClusterRole(name);
    case 'Role':
      return op === 'set' ? index.setRole(namespace, name, obj) : index.deleteRole(namespace, name);
    default: {
      if (op === 'delete') return index.deleteBinding(kind, kind === 'RoleBinding' ? namespace : '', name);
      const b = bindingOf(kind, obj);
      if (b) index.setBinding(b);
    }
  }
}
