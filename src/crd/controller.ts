/**
 * The CRD controllers of kube-apiextensions-apiserver in one loop: for every CRD it decides which
 * names are accepted (conflicts with other CRDs of the group give NamesAccepted=False), serves
 * the CRD's versions (a ResourceType per served version, registered in the catalog with its own
 * watch cache and store; discovery, OpenAPI and routes follow the catalog), writes the status
 * (acceptedNames, NamesAccepted, Established), and on deletion deletes every custom resource,
 * releases the CRD's cleanup finalizer and stops serving.
 */
import { isStorageType, type KubeObject, type ResourceType } from '../api/types.ts';
import type { ResourceCatalog } from '../registry/resource-catalog.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';
import type { WatchCache } from '../storage/watch-cache.ts';
import { isApiError } from '../api/status-errors.ts';
import { jsonEqual } from '../registry/object-meta.ts';
import { customResourceType, servedVersions, type CustomResourceLifecycle } from './custom-resource.ts';
import { CRD_CLEANUP_FINALIZER, setTerminating, storageVersionOf } from './kind.ts';
import { withConversions } from './conversion.ts';
import type { ServiceResolver } from '../aggregator/service-resolver.ts';

/** The Terminating condition while the finalizer controller deletes a CRD's resources. */
const IN_PROGRESS = { reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface CrdControllerDeps {
  readonly crds: ResourceStore;
  readonly catalog: ResourceCatalog;
  /** A started watch cache over one storage prefix. */
  cacheFor(prefix: string): Promise<WatchCache<KubeObject>>;
  /** The store of a custom resource type, with the server's write hooks (admission). */
  storeFor(rt: ResourceType, cache: WatchCache<KubeObject>): ResourceStore;
  /** Logs a problem the loop retries. */
  warn?(msg: string): void;
  /** Gate CRDValidationRatcheting (default on): updates not refused for values they leave unchanged. */
  readonly ratcheting?: boolean;
  /** The server's one service resolver: where conversion webhooks given as a service reference are dialled. */
  resolveService?: ServiceResolver;
}

type Accepted = { ok: true; names: Obj } | { ok: false; names: Obj; reason: string; message: string };

function crdNamesInOrder(n: Obj): Obj {
  const out: Obj = {};
  for (const k of ['plural', 'singular', 'shortNames', 'kind', 'listKind', 'categories']) if (n[k] !== undefined) out[k] = n[k];
  return out;
}

interface Served {
  /** What the served types were built from: a change rebuilds them. */
  readonly signature: string;
  readonly lifecycle: CustomResourceLifecycle;
  readonly types: ResourceType[];
  readonly cache: WatchCache<KubeObject>;
}

function condition(type: string, status: 'True' | 'False', reason: string, message: string, now: string, old: Obj[]): Obj {
  const prev = old.find((c) => c.type === type);
  const lastTransitionTime = prev && prev.status === status && typeof prev.lastTransitionTime === 'string' ? prev.lastTransitionTime : now;
  return { type, status, lastTransitionTime, reason, message };
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Told when a CRD's resource types start and stop being served (the garbage collector follows them). */
export interface CrdServingListener {
  served(name: string, storage: ResourceStore, types: readonly ResourceType[]): void;
  unserved(name: string): void;
}

export class CrdController {
  /** Set once the listener exists; CRDs served before are reported then. */
  private listener: CrdServingListener | undefined;
  private readonly served = new Map<string, Served>();
  private readonly queue = new Set<string>();
  private running = false;
  private stopped = false;
  private handle: { close(): void } | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly deps: CrdControllerDeps) {}

  /** Serves every stored CRD before returning, then follows changes. */
  async start(): Promise<void> {
    const cache = this.deps.crds.cache;
    const listed = cache.list();
    for (const e of listed.entries) this.queue.add(e.value.metadata?.name ?? '');
    await this.drain();
    const follow = (from: number) => {
      this.handle = cache.watch(
        { fromRevision: from },
        {
          onEvent: (ev) => {
            this.enqueue(ev.entry.value.metadata?.name ?? '');
            // A change may free names another CRD of the group waits for.
            for (const name of this.waitingForNames()) this.enqueue(name);
          },
          onError: () => {
            this.handle?.close();
            if (this.stopped) return;
            const t = setTimeout(() => {
              this.timers.delete(t);
              const l = cache.list();
              for (const e of l.entries) this.enqueue(e.value.metadata?.name ?? '');
              for (const name of this.served.keys()) this.enqueue(name);
              follow(l.revision);
            }, 100);
            this.timers.add(t);
          },
        },
      );
    };
    follow(listed.revision);
  }

  /** Starts telling `listener` about served CRDs, beginning with those served now. */
  listen(listener: CrdServingListener): void {
    this.listener = listener;
    for (const [name, s] of this.served) this.report(name, s);
  }

  private report(name: string, s: Served): void {
    const storage = s.types.find(isStorageType) ?? s.types[0];
    const store = storage ? this.deps.catalog.lookup(storage.group, storage.version, storage.resource)?.store : undefined;
    if (store) this.listener?.served(name, store, s.types);
  }

  stop(): void {
    this.stopped = true;
    this.handle?.close();
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.served.values()) s.cache.stop();
  }

  /** Resolves once every queued CRD has been handled (tests, benchmarks). */
  idle(): Promise<void> {
    if (!this.running && this.queue.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** CRDs whose names are not (all) accepted. */
  private waitingForNames(): string[] {
    return this.deps.crds.cache
      .list()
      .entries.filter((e) => {
        const st = e.value.status as Obj | undefined;
        const conds = Array.isArray(st?.conditions) ? (st.conditions as Obj[]) : [];
        return conds.some((c) => c.type === 'NamesAccepted' && c.status === 'False');
      })
      .map((e) => e.value.metadata?.name ?? '');
  }

  private enqueue(name: string): void {
    if (this.stopped || !name) return;
    this.queue.add(name);
    void this.drain();
  }

  private retryLater(name: string, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.enqueue(name);
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.size > 0 && !this.stopped) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        try {
          await this.reconcile(name);
        } catch (err) {
          this.deps.warn?.(`customresourcedefinition ${name}: ${(err as Error).message}`);
          this.retryLater(name, 500);
        }
      }
    } finally {
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private current(name: string): KubeObject | undefined {
    const e = this.deps.crds.cache.get(this.deps.crds.key('', name));
    return e?.value;
  }

  private async reconcile(name: string): Promise<void> {
    const crd = this.current(name);
    if (!crd) {
      this.unserve(name);
      return;
    }
    if (crd.metadata?.deletionTimestamp) {
      try {
        await this.finalize(name, crd);
      } catch (err) {
        // The cache was behind: the CRD is already gone, finalized by an earlier pass.
        if (!(isApiError(err) && err.code === 404)) throw err;
        this.unserve(name);
      }
      return;
    }
    const accepted = this.namesAccepted(crd);
    if (accepted.ok) await this.serve(name, crd);
    await this.writeStatus(name, crd, accepted);
  }

  /**
   * kube's NamingConditionController: each requested name is accepted unless another CRD of the
   * group already accepted it (resource names: plural, singular, short names; kinds: kind and
   * listKind); names this CRD accepted before stay its own. The last conflict found is reported.
   */
  private namesAccepted(crd: KubeObject): Accepted {
    const spec = crd.spec as Obj;
    const names = (isObj(spec.names) ? spec.names : {}) as Obj;
    const status = isObj(crd.status) ? crd.status : {};
    const mineAccepted = (isObj(status.acceptedNames) ? status.acceptedNames : {}) as Obj;
    const group = str(spec.group);
    const mine = crd.metadata?.name ?? '';
    const takenResources = new Set<string>();
    const takenKinds = new Set<string>();
    for (const e of this.deps.crds.cache.list().entries) {
      const other = e.value;
      if (other.metadata?.name === mine) continue;
      const ospec = isObj(other.spec) ? other.spec : {};
      if (str(ospec.group) !== group) continue;
      const st = isObj(other.status) ? other.status : {};
      const an = isObj(st.acceptedNames) ? st.acceptedNames : {};
      for (const n of [str(an.plural), str(an.singular), ...(Array.isArray(an.shortNames) ? an.shortNames.map(str) : [])]) if (n) takenResources.add(n);
      for (const k of [str(an.kind), str(an.listKind)]) if (k) takenKinds.add(k);
    }
    const accepted: Obj = {};
    let conflict: { reason: string; message: string } | undefined;
    const check = (key: string, reason: string, taken: Set<string>) => {
      const want = names[key];
      if (want === undefined) return;
      const values = Array.isArray(want) ? want.map(str) : [str(want)];
      const bad = values.find((v) => v !== '' && taken.has(v) && !(Array.isArray(mineAccepted[key]) ? (mineAccepted[key] as string[]).includes(v) : mineAccepted[key] === v));
      if (bad !== undefined) conflict = { reason, message: `${JSON.stringify(bad)} is already in use` };
      else accepted[key] = structuredClone(want);
    };
    check('plural', 'PluralConflict', takenResources);
    check('singular', 'SingularConflict', takenResources);
    check('shortNames', 'ShortNamesConflict', takenResources);
    check('kind', 'KindConflict', takenKinds);
    check('listKind', 'ListKindConflict', takenKinds);
    if (names.categories !== undefined) accepted.categories = structuredClone(names.categories);
    if (accepted.kind === undefined) accepted.kind = '';
    if (accepted.plural === undefined) accepted.plural = '';
    return conflict ? { ok: false, names: crdNamesInOrder(accepted), ...conflict } : { ok: true, names: crdNamesInOrder(accepted) };
  }

  private async serve(name: string, crd: KubeObject): Promise<void> {
    const spec = crd.spec as Obj;
    const signature = JSON.stringify([spec.group, spec.names, spec.scope, spec.versions, spec.conversion]);
    const prev = this.served.get(name);
    if (prev?.signature === signature) return;
    const versions = servedVersions(crd);
    const lifecycle = prev?.lifecycle ?? { terminating: false };
    const types = versions.map((v) => customResourceType(crd, v, lifecycle, { ratcheting: this.deps.ratcheting ?? true }));
    const storage = storageVersionOf(crd) ?? types[0]?.version ?? '';
    // Objects are stored in the storage version; other versions convert (strategy None or Webhook).
    const preferred = versions.find((v) => v.deprecated !== true && v.name === storage) ?? versions.find((v) => v.deprecated !== true);
    const withDeprecation = types.map((rt, i): ResourceType => {
      const v = versions[i]!;
      const kind = str((spec.names as Obj | undefined)?.kind);
      const deprecationWarning =
        v.deprecated === true
          ? typeof v.deprecationWarning === 'string'
            ? v.deprecationWarning
            : `${rt.group}/${rt.version} ${kind} is deprecated${preferred ? `; use ${rt.group}/${str(preferred.name)} ${kind}` : ''}`
          : undefined;
      // An empty deprecationWarning sends no Warning, but the version is still deprecated (metric, audit).
      return deprecationWarning !== undefined ? { ...rt, deprecationWarning } : rt;
    });
    // Every served version converts to every other: managers recorded in any of them are kept.
    const apiVersions = withDeprecation.map((rt) => `${rt.group}/${rt.version}`);
    const withSiblings = withDeprecation.map((rt): ResourceType => (apiVersions.length > 1 ? { ...rt, convertibleApiVersions: apiVersions.filter((v) => v !== `${rt.group}/${rt.version}`) } : rt));
    const withConversion = withConversions(crd, withSiblings, storage, this.deps.resolveService);
    const prefix = types[0]?.storagePrefix;
    if (prev && prefix !== prev.types[0]?.storagePrefix) this.unserve(name);
    // Every change gets a cache of its own, as kube's CRD handler builds new storage: the entries
    // of the old one carry bytes encoded (defaulted, converted) by the old schemas, and its
    // watches end, so that clients watch again and see the new ones.
    const cache = prefix ? await this.deps.cacheFor(prefix) : undefined;
    if (!cache) return;
    const stale = this.served.get(name)?.cache;
    for (const old of prev?.types ?? []) {
      if (!withConversion.some((t) => t.version === old.version)) this.deps.catalog.remove(old.group, old.version, old.resource);
    }
    for (const rt of withConversion) {
      if (prev) this.deps.catalog.remove(rt.group, rt.version, rt.resource);
      this.deps.catalog.add({ rt, store: this.deps.storeFor(rt, cache) });
    }
    const entry = { signature, lifecycle, types: withConversion, cache };
    this.served.set(name, entry);
    if (prev) this.listener?.unserved(name);
    this.report(name, entry);
    stale?.stop();
  }

  private unserve(name: string): void {
    const s = this.served.get(name);
    if (!s) return;
    this.served.delete(name);
    this.listener?.unserved(name);
    for (const rt of s.types) this.deps.catalog.remove(rt.group, rt.version, rt.resource);
    s.cache.stop();
  }

  private ctx(subresource: string): WriteContext {
    return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-apiserver', subresource, operation: 'update' };
  }

  private async writeStatus(name: string, crd: KubeObject, accepted: Accepted): Promise<void> {
    const now = rfc3339(new Date());
    const status = (isObj(crd.status) ? crd.status : {}) as Obj;
    const old = (Array.isArray(status.conditions) ? status.conditions : []).filter(isObj);
    const conditions: Obj[] = [];
    const acceptedNames = accepted.names;
    if (accepted.ok) {
      conditions.push(condition('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found', now, old));
      conditions.push(condition('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted', now, old));
    } else {
      conditions.push(condition('NamesAccepted', 'False', accepted.reason, accepted.message, now, old));
      conditions.push(condition('Established', 'False', 'NotAccepted', 'not all names are accepted', now, old));
    }
    const next = { ...status, acceptedNames, conditions };
    if (jsonEqual(next, status)) return;
    await this.updateStatus(name, (s) => Object.assign(s, { conditions, acceptedNames }));
  }

  private async updateStatus(name: string, change: (status: Obj) => void): Promise<void> {
    await this.deps.crds.update(
      '',
      name,
      (current) => {
        if (!current) throw new Error('gone');
        const status = (isObj(current.status) ? structuredClone(current.status) : {}) as Obj;
        change(status);
        return { ...current, status };
      },
      this.ctx('status'),
      { allowCreate: false, subresource: 'status' },
    );
  }

  /** A terminating CRD: its custom resources are deleted, then the cleanup finalizer goes. */
  private async finalize(name: string, crd: KubeObject): Promise<void> {
    const finalizers = crd.metadata?.finalizers ?? [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) return;
    const s = this.served.get(name);
    if (s) s.lifecycle.terminating = true;
    // kube's finalizer controller says so before it starts (the delete left it pending).
    const terminating = (isObj(crd.status) && Array.isArray(crd.status.conditions) ? crd.status.conditions : []).find((c) => isObj(c) && c.type === 'Terminating') as Obj | undefined;
    if (terminating?.reason !== IN_PROGRESS.reason) await this.updateStatus(name, (status) => setTerminating({ status } as KubeObject, 'True', IN_PROGRESS.reason, IN_PROGRESS.message));
    const storage = s?.types.find(isStorageType) ?? s?.types[0];
    const store = storage ? this.deps.catalog.lookup(storage.group, storage.version, storage.resource)?.store : undefined;
    if (store) {
      const remaining = store.cache.list().entries;
      for (const e of remaining) {
        const meta = e.value.metadata ?? {};
        if (meta.deletionTimestamp) continue;
        try {
          await store.delete(meta.namespace ?? '', meta.name ?? '', {}, this.ctx(''));
        } catch (err) {
          if (!(isApiError(err) && err.code === 404)) throw err;
        }
      }
      if (store.cache.list().entries.length > 0) {
        // Some carry finalizers of their own: come back when their owners released them.
        this.retryLater(name, 200);
        return;
      }
    }
    this.unserve(name);
    await this.updateStatus(name, (status) => setTerminating({ status } as KubeObject, 'False', 'InstanceDeletionCompleted', 'removed all instances'));
    await this.deps.crds.update(
      '',
      name,
      (current) => {
        if (!current) throw new Error('gone');
        const meta = { ...current.metadata, finalizers: (current.metadata?.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER) };
        return { ...current, metadata: meta };
      },
      this.ctx(''),
      { allowCreate: false, subresource: '' },
    );
  }
}
