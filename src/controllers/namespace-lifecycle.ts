/**
 * Namespace lifecycle: the built-in namespaces exist at start; deleting a namespace removes every
 * namespaced object in it, then its `kubernetes` finalizer, then the namespace itself. (Refusing
 * writes into missing or terminating namespaces is the NamespaceLifecycle admission plugin's,
 * src/admission/plugins/namespace.ts.)
 */
import { errors, ApiError } from '../api/status-errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';
import { nowRfc3339 } from '../registry/object-meta.ts';
import { cachedCurrent } from '../registry/cached-current.ts';

export const builtinNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

function systemContext(): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-apiserver', subresource: '' };
}

/** Writes of the namespace controller, which runs in kube-controller-manager in a real cluster. */
function controllerContext(subresource: string): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-controller-manager', subresource };
}

export const FINALIZER_KUBERNETES = 'kubernetes';

/** Creates the built-in namespaces that are missing. */
export async function ensureBuiltinNamespaces(namespaces: ResourceStore): Promise<void> {
  // Issued together, committed together, in this order.
  await Promise.all(
    builtinNamespaces.filter((name) => !cachedCurrent(namespaces, '', name)).map((name) =>
      namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, systemContext()).catch((err: unknown) => {
        if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
      }),
    ),
  );
}

/** When the namespace controller acts, as kube-controller-manager's does. */
export interface NamespaceControllerTiming {
  /** After any event of a terminating namespace (kube's namespaceDeletionGracePeriod, 5s). */
  readonly graceMs?: number;
  /** After a pass that left content held by finalizers (kube: estimate/2+1 = 8s). */
  readonly remainingMs?: number;
  /** After a pass that failed. */
  readonly errorMs?: number;
}

/**
 * Watches namespaces; for each terminating one, deletes its content, and when nothing is left,
 * drops the `kubernetes` finalizer so the namespace is removed. Work is scheduled like kube's
 * delaying queue: a namespace is due once, at the earliest time asked for.
 */
/** A resource of a remote API service (src/aggregator), as the namespace deleter addresses it. */
export interface RemoteResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/**
 * Namespaced content the gateway does not store: what remote API services serve. kube's
 * namespace deleter finds it by discovery; a group whose discovery failed keeps the namespace
 * Terminating (NamespaceDeletionDiscoveryFailure) until it answers, so nothing unseen is orphaned.
 */
export interface RemoteNamespacedContent {
  /** The remote namespaced resources to empty, and each failed group/version as `gv: error`. */
  discover(): { readonly resources: readonly RemoteResource[]; readonly failed: readonly string[] };
  /** Deletes every object of the resource in the namespace; resolves with how many remain (held by finalizers). */
  deleteAll(resource: RemoteResource, namespace: string): Promise<number>;
}

export class NamespaceController {
  private stopped = false;
  private handle?: { close(): void };
  private readonly pending = new Set<string>();
  private readonly due = new Map<string, { readonly at: number; readonly timer: NodeJS.Timeout }>();
  private running = false;
  private readonly graceMs: number;
  private readonly remainingMs: number;
  private readonly errorMs: number;

  constructor(
    private readonly namespaces: ResourceStore,
    /** Every namespaced store, one per storage prefix. */
    private readonly contentStores: () => readonly ResourceStore[],
    timing: NamespaceControllerTiming = {},
    private readonly remote?: RemoteNamespacedContent,
  ) {
    this.graceMs = timing.graceMs ?? 5_000;
    this.remainingMs = timing.remainingMs ?? 8_000;
    this.errorMs = timing.errorMs ?? 1_000;
  }

  start(): void {
    const cache = this.namespaces.cache;
    for (const e of cache.list().entries) if (e.value.metadata?.deletionTimestamp) this.schedule(e.value.metadata.name!, this.graceMs);
    this.handle = cache.watch(
      { fromRevision: cache.revision },
      {
        onEvent: (ev) => {
          // Like kube's, every event of a terminating namespace waits out the grace period first.
          if (ev.type !== 'DELETED' && ev.entry.value.metadata?.deletionTimestamp) this.schedule(ev.entry.value.metadata.name!, this.graceMs);
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
    for (const d of this.due.values()) clearTimeout(d.timer);
    this.due.clear();
  }

  /** kube's AddAfter: due in `delayMs`, unless already due sooner. */
  private schedule(name: string, delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs;
    const current = this.due.get(name);
    if (current && current.at <= at) return;
    if (current) clearTimeout(current.timer);
    const timer = setTimeout(() => {
      this.due.delete(name);
      this.pending.add(name);
      void this.drain();
    }, delayMs);
    timer.unref();
    this.due.set(name, { at, timer });
  }

  private async drain(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      while (this.pending.size > 0 && !this.stopped) {
        const name = this.pending.values().next().value as string;
        this.pending.delete(name);
        const outcome = await this.finalize(name).catch(() => 'error' as const);
        if (outcome === 'remaining') this.schedule(name, this.remainingMs);
        else if (outcome === 'error') this.schedule(name, this.errorMs);
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * One pass over a terminating namespace, as kube's namespaced-resources deleter: delete the
   * content, count what remains (objects held by finalizers), write the status conditions, and
   * when nothing remains drop the `kubernetes` finalizer.
   */
  private async finalize(name: string): Promise<'done' | 'remaining' | 'error'> {
    const entry = this.namespaces.cache.get(this.namespaces.key('', name));
    if (!entry || !entry.value.metadata?.deletionTimestamp) return 'done';
    if (!arrayOf(entry.value.spec, 'finalizers').includes(FINALIZER_KUBERNETES)) return 'done';
    const ctx = controllerContext('');
    const remaining = new Map<string, number>();
    const finalizers = new Map<string, number>();
    const deleteErrors: string[] = [];
    const byPrefix = new Map<string, ResourceStore[]>();
    for (const store of this.contentStores()) {
      const same = byPrefix.get(store.rt.storagePrefix);
      if (same) same.push(store);
      else byPrefix.set(store.rt.storagePrefix, [store]);
    }
    for (const stores of byPrefix.values()) {
      const store = stores[0]!;
      const left: KubeObject[] = [];
      for (const e of store.cache.list({ keyPrefix: store.listPrefix(name) }).entries) {
        const meta = e.value.metadata ?? {};
        try {
          const out = meta.deletionTimestamp ? { kind: 'terminating' as const, object: e.value } : await store.delete(name, meta.name ?? '', {}, ctx);
          if (out.kind === 'terminating') left.push(out.object);
        } catch (err) {
          if (err instanceof ApiError && err.code === 404) continue;
          deleteErrors.push(err instanceof Error ? err.message : String(err));
          left.push(e.value);
        }
      }
      if (left.length === 0) continue;
      // Kinds served in two groups share these objects; kube counts them once per resource it discovers.
      for (const s of stores) {
        remaining.set(`${s.rt.resource}.${s.rt.group}`, left.length);
        for (const obj of left) for (const f of obj.metadata?.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
      }
    }
    // Remote content: what discovery can see is deleted; a group it cannot see holds the namespace.
    const found = this.remote?.discover() ?? { resources: [], failed: [] };
    for (const r of found.resources) {
      try {
        const left = await this.remote!.deleteAll(r, name);
        if (left > 0) remaining.set(`${r.resource}.${r.group}`, left);
      } catch (err) {
        deleteErrors.push(err instanceof Error ? err.message : String(err));
      }
    }
    await this.writeConditions(name, deletionConditions(remaining, finalizers, deleteErrors, found.failed));
    if (deleteErrors.length > 0 || found.failed.length > 0) return 'error';
    if (remaining.size > 0) return 'remaining';
    await this.namespaces.update(
      '',
      name,
      (current) => {
        if (!current) throw errors.notFound(this.namespaces.gr, name);
        const spec = (current.spec ?? {}) as { finalizers?: string[] };
        spec.finalizers = (spec.finalizers ?? []).filter((f) => f !== FINALIZER_KUBERNETES);
        if (spec.finalizers.length === 0) delete spec.finalizers;
        current.spec = spec;
        delete current.metadata!.resourceVersion;
        return current;
      },
      controllerContext('finalize'),
      { allowCreate: false, subresource: 'finalize' },
    );
    return 'done';
  }

  /** Merges the pass's conditions into status.conditions as kube's updateConditions does; writes only on change. */
  private async writeConditions(name: string, next: readonly NamespaceCondition[]): Promise<void> {
    const now = nowRfc3339();
    await this.namespaces.update(
      '',
      name,
      (current) => {
        if (!current) throw errors.notFound(this.namespaces.gr, name);
        const status = (current.status ?? {}) as { conditions?: NamespaceCondition[] };
        const conditions = [...(status.conditions ?? [])];
        for (const c of next) {
          const i = conditions.findIndex((o) => o.type === c.type);
          if (i < 0) conditions.push({ type: c.type, status: c.status, lastTransitionTime: now, reason: c.reason, message: c.message });
          else {
            const old = conditions[i]!;
            if (old.status === c.status && old.reason === c.reason && old.message === c.message) continue;
            conditions[i] = { ...old, status: c.status, ...(old.status !== c.status ? { lastTransitionTime: now } : {}), reason: c.reason, message: c.message };
          }
        }
        current.status = { ...status, conditions };
        delete current.metadata!.resourceVersion;
        return current;
      },
      controllerContext('status'),
      { allowCreate: false, subresource: 'status' },
    );
  }
}

interface NamespaceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/** The five conditions kube's namespace deleter maintains, in its order, with its "ok" wording. */
const conditionTypes: readonly (readonly [type: string, okReason: string, okMessage: string])[] = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

/**
 * The conditions of one deletion pass (status_condition_utils.go): True with a reason and the
 * remaining resources, finalizers or errors (each list sorted, as kube sorts for stable updates),
 * else False with the ok wording. Discovery fails only for remote groups; group-version parsing cannot fail here.
 */
export function deletionConditions(
  remaining: ReadonlyMap<string, number>,
  finalizers: ReadonlyMap<string, number>,
  deleteErrors: readonly string[],
  discoveryFailures: readonly string[] = [],
): NamespaceCondition[] {
  const failing = new Map<string, { reason: string; message: string }>();
  if (discoveryFailures.length > 0) {
    // client-go's ErrGroupDiscoveryFailed, wrapped as kube's ProcessDiscoverResourcesErr words it.
    const msgs = [...discoveryFailures].sort();
    failing.set('NamespaceDeletionDiscoveryFailure', {
      reason: 'DiscoveryFailed',
      message: `Discovery failed for some groups, ${msgs.length} failing: unable to retrieve the complete list of server APIs: ${msgs.join(', ')}`,
    });
  }
  if (deleteErrors.length > 0) {
    const msgs = [...deleteErrors].sort();
    failing.set('NamespaceDeletionContentFailure', {
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`,
    });
  }
  if (remaining.size > 0) {
    const parts = [...remaining].map(([gr, n]) => `${gr} has ${n} resource instances`).sort();
    failing.set('NamespaceContentRemaining', { reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${parts.join(', ')}` });
  }
  if (finalizers.size > 0) {
    const parts = [...finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort();
    failing.set('NamespaceFinalizersRemaining', {
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${parts.join(', ')}`,
    });
  }
  return conditionTypes.map(([type, okReason, okMessage]) => {
    const f = failing.get(type);
    return f ? { type, status: 'True', ...f } : { type, status: 'False', reason: okReason, message: okMessage };
  });
}

function arrayOf(obj: unknown, key: string): unknown[] {
  const v = obj && typeof obj === 'object' ? (obj as Record<string, unknown>)[key] : undefined;
  return Array.isArray(v) ? v : [];
}
