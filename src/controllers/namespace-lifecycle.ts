/**
 * Namespace lifecycle: the built-in namespaces exist at start; creating into a missing or
 * terminating namespace is refused (admission); deleting a namespace removes every namespaced
 * object in it, then its `kubernetes` finalizer, then the namespace itself.
 */
import { errors, ApiError, type GroupResource } from '../api/status-errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';
import { nowRfc3339 } from '../registry/object-meta.ts';

export const builtinNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

function systemContext(): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-apiserver', subresource: '' };
}

/** Creates the built-in namespaces that are missing. */
export async function ensureBuiltinNamespaces(namespaces: ResourceStore): Promise<void> {
  for (const name of builtinNamespaces) {
    try {
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, systemContext());
    } catch (err) {
      if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
    }
  }
}

/** Namespaces kube's NamespaceLifecycle admission never lets be deleted. */
export const immortalNamespaces: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/**
 * kube's NamespaceLifecycle admission: the immortal namespaces cannot be deleted; a create of
 * a namespaced object needs its namespace to exist and be active. Everything else passes.
 */
export function namespaceLifecycleAdmission(namespaces: ResourceStore) {
  return async (op: 'create' | 'update' | 'delete', target: GroupResource & { readonly namespaced: boolean }, obj: KubeObject): Promise<void> => {
    const gr = { group: target.group, resource: target.resource };
    if (op === 'delete' && target.group === '' && target.resource === 'namespaces') {
      const name = obj.metadata?.name ?? '';
      if (immortalNamespaces.has(name)) throw errors.forbidden(gr, name, 'this namespace may not be deleted');
      return;
    }
    if (op !== 'create' || !target.namespaced) return;
    const ns = obj.metadata?.namespace;
    if (!ns) return;
    // The namespace may have been created an instant ago: a miss is checked with a consistent read.
    const entry = namespaces.cache.get(namespaces.key('', ns)) ?? (await namespaces.get('', ns, ''));
    if (entry.value.metadata?.deletionTimestamp) {
      const name = obj.metadata?.name ?? '';
      const base = errors.forbidden(gr, name, `unable to create new content in namespace ${ns} because it is being terminated`);
      throw new ApiError(403, 'Forbidden', base.message, {
        ...base.details,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  };
}

/**
 * Watches namespaces; for each terminating one, deletes its content, and when nothing is left,
 * drops the `kubernetes` finalizer so the namespace is removed.
 */
export class NamespaceController {
  private stopped = false;
  private handle?: { close(): void };
  private readonly pending = new Set<string>();
  private running = false;
  private retryTimer?: NodeJS.Timeout;

  constructor(
    private readonly namespaces: ResourceStore,
    /** Every namespaced store, one per storage prefix. */
    private readonly contentStores: () => readonly ResourceStore[],
  ) {}

  start(): void {
    const cache = this.namespaces.cache;
    for (const e of cache.list().entries) if (e.value.metadata?.deletionTimestamp) this.enqueue(e.value.metadata.name!);
    this.handle = cache.watch(
      { fromRevision: cache.revision },
      {
        onEvent: (ev) => {
          if (ev.type !== 'DELETED' && ev.entry.value.metadata?.deletionTimestamp) this.enqueue(ev.entry.value.metadata.name!);
        },
        onError: () => {
          if (!this.stopped) setTimeout(() => this.start(), 1000).unref();
        },
      },
    );
  }

  stop(): void {
    this.stopped = true;
    this.handle?.close();
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  private enqueue(name: string): void {
    this.pending.add(name);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      while (this.pending.size > 0 && !this.stopped) {
        const name = this.pending.values().next().value as string;
        this.pending.delete(name);
        const done = await this.finalize(name).catch(() => false);
        if (!done && !this.stopped) {
          // Content with finalizers of its own, or a transient error: look again shortly.
          this.retryTimer = setTimeout(() => this.enqueue(name), 1000);
          this.retryTimer.unref();
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** One pass over a terminating namespace; true when it is gone or no longer terminating. */
  private async finalize(name: string): Promise<boolean> {
    const ctx = systemContext();
    const entry = this.namespaces.cache.get(this.namespaces.key('', name));
    if (!entry || !entry.value.metadata?.deletionTimestamp) return true;
    let remaining = 0;
    for (const store of this.contentStores()) {
      const prefix = store.listPrefix(name);
      for (const e of store.cache.list({ keyPrefix: prefix }).entries) {
        remaining++;
        const meta = e.value.metadata ?? {};
        if (meta.deletionTimestamp) continue;
        try {
          await store.delete(name, meta.name ?? '', {}, ctx);
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 404)) throw err;
        }
      }
    }
    if (remaining > 0) {
      // Deleted objects leave the cache asynchronously: check again on the next pass.
      return false;
    }
    await this.namespaces.update(
      '',
      name,
      (current) => {
        if (!current) throw errors.notFound(this.namespaces.gr, name);
        const spec = (current.spec ?? {}) as { finalizers?: string[] };
        spec.finalizers = (spec.finalizers ?? []).filter((f) => f !== 'kubernetes');
        if (spec.finalizers.length === 0) delete spec.finalizers;
        current.spec = spec;
        const status = (current.status ?? {}) as Record<string, unknown>;
        status.phase = 'Terminating';
        current.status = status;
        delete current.metadata!.resourceVersion;
        return current;
      },
      { ...ctx, now: new Date(nowRfc3339()) },
      { allowCreate: false, subresource: 'finalize' },
    );
    return true;
  }
}
