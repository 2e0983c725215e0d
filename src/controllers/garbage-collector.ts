/**
 * The garbage collector: deletes objects whose owners (metadata.ownerReferences) are gone, and
 * carries out Orphan and Foreground deletion by releasing the `orphan` and `foregroundDeletion`
 * finalizers the registry adds. Owners of kinds this server does not serve are never judged
 * missing, so references to them are left alone.
 */
import { ApiError } from '../api/status-errors.ts';
import { apiVersionOf, type KubeObject } from '../api/types.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';

interface Node {
  readonly store: ResourceStore;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly owners: readonly { readonly uid: string; readonly apiVersion: string; readonly kind: string }[];
  readonly terminating: boolean;
  readonly finalizers: readonly string[];
}

type Job = { readonly kind: 'owner-gone'; readonly uid: string } | { readonly kind: 'release'; readonly uid: string };

function systemContext(): WriteContext {
  // kube's garbage collector runs in kube-controller-manager, whose user agent names the manager.
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-controller-manager', subresource: '' };
}

export class GarbageCollector {
  /** Every object by uid. */
  private readonly nodes = new Map<string, Node>();
  /** Owner uid -> uids of its dependents. */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly served = new Set<string>();
  private readonly queue: Job[] = [];
  private readonly handles: { close(): void }[] = [];
  private running = false;
  private stopped = false;

  /** `stores`: one store per storage prefix (kinds sharing storage appear once). */
  constructor(private readonly stores: readonly ResourceStore[]) {
    for (const s of stores) this.served.add(`${apiVersionOf(s.rt)}/${s.rt.kind}`);
  }

  start(): void {
    for (const store of this.stores) {
      const cache = store.cache;
      for (const e of cache.list().entries) this.observe(store, e.value);
      this.handles.push(
        cache.watch(
          { fromRevision: cache.revision },
          {
            onEvent: (ev) => (ev.type === 'DELETED' ? this.forget(ev.entry.value) : this.observe(store, ev.entry.value)),
            onError: () => {
              // A cache that restarts re-lists; the next event brings the graph back in line.
            },
          },
        ),
      );
    }
    // Dependents whose owners vanished while the server was down.
    for (const node of this.nodes.values()) for (const o of node.owners) if (this.isGone(o)) this.enqueue({ kind: 'owner-gone', uid: o.uid });
  }

  /**
   * Follows one more store (a custom resource type served after start); `kinds` are the
   * `apiVersion/Kind` keys owner references may name it by (every served version). Returns the
   * function that stops following it.
   */
  addStore(store: ResourceStore, kinds: readonly string[]): () => void {
    for (const k of kinds) this.served.add(k);
    const cache = store.cache;
    for (const e of cache.list().entries) this.observe(store, e.value);
    const handle = cache.watch(
      { fromRevision: cache.revision },
      { onEvent: (ev) => (ev.type === 'DELETED' ? this.forget(ev.entry.value) : this.observe(store, ev.entry.value)), onError: () => {} },
    );
    this.handles.push(handle);
    return () => {
      handle.close();
      for (const k of kinds) this.served.delete(k);
    };
  }

  stop(): void {
    this.stopped = true;
    for (const h of this.handles) h.close();
  }

  private observe(store: ResourceStore, obj: KubeObject): void {
    const meta = obj.metadata ?? {};
    const uid = meta.uid;
    if (!uid) return;
    this.unlink(uid);
    const owners = (meta.ownerReferences ?? [])
      .map((r) => ({ uid: String(r.uid ?? ''), apiVersion: String(r.apiVersion ?? ''), kind: String(r.kind ?? '') }))
      .filter((r) => r.uid !== '');
    const node: Node = {
      store,
      namespace: meta.namespace ?? '',
      name: meta.name ?? '',
      uid,
      owners,
      terminating: Boolean(meta.deletionTimestamp),
      finalizers: meta.finalizers ?? [],
    };
    this.nodes.set(uid, node);
    for (const o of owners) {
      let set = this.dependents.get(o.uid);
      if (!set) this.dependents.set(o.uid, (set = new Set()));
      set.add(uid);
      if (this.isGone(o)) this.enqueue({ kind: 'owner-gone', uid: o.uid });
    }
    if (node.terminating && (node.finalizers.includes('orphan') || node.finalizers.includes('foregroundDeletion'))) {
      this.enqueue({ kind: 'release', uid });
    }
  }

  private forget(obj: KubeObject): void {
    const uid = obj.metadata?.uid;
    if (!uid) return;
    const node = this.nodes.get(uid);
    this.unlink(uid);
    this.nodes.delete(uid);
    if (this.dependents.has(uid)) this.enqueue({ kind: 'owner-gone', uid });
    // An owner waiting in the foreground for this dependent may now be free.
    for (const o of node?.owners ?? []) if (this.nodes.get(o.uid)?.finalizers.includes('foregroundDeletion')) this.enqueue({ kind: 'release', uid: o.uid });
  }

  private unlink(uid: string): void {
    const old = this.nodes.get(uid);
    for (const o of old?.owners ?? []) {
      const set = this.dependents.get(o.uid);
      set?.delete(uid);
      if (set && set.size === 0) this.dependents.delete(o.uid);
    }
  }

  /** An owner is gone only if its kind is served here and no object has its uid. */
  private isGone(owner: { uid: string; apiVersion: string; kind: string }): boolean {
    return !this.nodes.has(owner.uid) && this.served.has(`${owner.apiVersion}/${owner.kind}`);
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0 && !this.stopped) {
        const job = this.queue.shift()!;
        try {
          if (job.kind === 'owner-gone') await this.collectDependentsOf(job.uid);
          else await this.release(job.uid);
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) {
            // Transient: try again shortly rather than lose the work.
            setTimeout(() => this.enqueue(job), 1000).unref();
          }
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** Background deletion: dependents left without any existing owner are deleted; others lose the dangling reference. */
  private async collectDependentsOf(ownerUid: string): Promise<void> {
    for (const depUid of [...(this.dependents.get(ownerUid) ?? [])]) {
      const dep = this.nodes.get(depUid);
      if (!dep || dep.terminating) continue;
      const dangling = dep.owners.filter((o) => this.isGone(o));
      if (dangling.length === 0) continue;
      if (dangling.length === dep.owners.length) {
        await dep.store.delete(dep.namespace, dep.name, { preconditions: { uid: dep.uid }, propagationPolicy: 'Background' }, systemContext());
      } else {
        await this.removeOwnerReferences(dep, new Set(dangling.map((o) => o.uid)));
      }
    }
  }

  /** Orphan: detach every dependent, then drop `orphan`. Foreground: delete dependents, drop `foregroundDeletion` once none is left. */
  private async release(uid: string): Promise<void> {
    const owner = this.nodes.get(uid);
    if (!owner || !owner.terminating) return;
    const deps = [...(this.dependents.get(uid) ?? [])].map((d) => this.nodes.get(d)).filter((d): d is Node => d !== undefined);
    if (owner.finalizers.includes('orphan')) {
      for (const dep of deps) await this.removeOwnerReferences(dep, new Set([uid]));
      await this.removeFinalizer(owner, 'orphan');
      return;
    }
    if (owner.finalizers.includes('foregroundDeletion')) {
      for (const dep of deps) {
        if (!dep.terminating) await dep.store.delete(dep.namespace, dep.name, { preconditions: { uid: dep.uid }, propagationPolicy: 'Foreground' }, systemContext());
      }
      // Dependents still present (finalizers of their own, or not yet gone): wait for their DELETED events.
      if (deps.length === 0) await this.removeFinalizer(owner, 'foregroundDeletion');
    }
  }

  private async removeOwnerReferences(dep: Node, uids: ReadonlySet<string>): Promise<void> {
    await dep.store.update(
      dep.namespace,
      dep.name,
      (current) => {
        if (!current || current.metadata?.uid !== dep.uid) throw new ApiError(404, 'NotFound', 'gone');
        const meta = current.metadata!;
        meta.ownerReferences = (meta.ownerReferences ?? []).filter((r) => !uids.has(String(r.uid)));
        delete meta.resourceVersion;
        return current;
      },
      systemContext(),
      { allowCreate: false, subresource: '' },
    );
  }

  private async removeFinalizer(node: Node, finalizer: string): Promise<void> {
    await node.store.update(
      node.namespace,
      node.name,
      (current) => {
        if (!current || current.metadata?.uid !== node.uid) throw new ApiError(404, 'NotFound', 'gone');
        const meta = current.metadata!;
        meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== finalizer);
        delete meta.resourceVersion;
        return current;
      },
      systemContext(),
      { allowCreate: false, subresource: '' },
    );
  }
}
