/**
 * The generic REST store: the verbs over storage for one resource type. It owns keys,
 * optimistic concurrency, the create/update/delete pipelines, deletion with finalizers, dry run
 * and the read semantics of lists; per-kind behaviour comes from the ResourceType's strategy,
 * and admission from the hooks it is given. Storage errors become API errors at one boundary
 * (storage-errors.ts).
 */
import type { RequestUser } from '../request/user.ts';
import { goWireForm, inGoFieldOrder } from '../codec/go-zero.ts';
import { stringifyGo } from '../codec/json-encode.ts';
import type { Store, KeyValue } from '../storage/types.ts';
import { isStorageError, type StorageError } from '../storage/types.ts';
import type { WatchCache } from '../storage/watch-cache.ts';
import { apiVersionOf, qualifiedKind, type KubeObject, type ManagedFieldsEntry, type ObjectMeta, type ResourceType } from '../api/types.ts';
import { errors, ApiError, groupResourceString, isApiError, type GroupResource } from '../api/status-errors.ts';
import { fieldErr, goLiteral, type FieldError } from '../api/field-errors.ts';
import { cloneObject, dedupOwnerReferences, generateName, orderedMeta, metaOf, normalizeEmptyMeta, resetServerOwnedMetaForCreate, carryServerOwnedMetaOnUpdate, jsonEqual } from './object-meta.ts';
import { encodeContinue } from './continue-token.ts';
import type { ListQuery } from './list-options.ts';
import type { ObjectFilter } from './object-filter.ts';
import { decodeStored, detachedEntry, encodeForStorage, type Entry } from './stored-object.ts';
import { storageErrorToApi, type ReadContext } from './storage-errors.ts';
import { normalizeGoValues } from '../schema/go-values.ts';
import { sortedKeys } from '../crd/go-order.ts';

/** The finalizer kube-apiserver adds for Orphan and Foreground deletion. */
export function garbageCollectionFinalizer(opts: DeleteOptions): 'orphan' | 'foregroundDeletion' | undefined {
  if (opts.propagationPolicy === 'Orphan' || (opts.propagationPolicy === undefined && opts.orphanDependents === true)) return 'orphan';
  if (opts.propagationPolicy === 'Foreground') return 'foregroundDeletion';
  return undefined;
}

/** How long a consistent read on etcd waits for the cache before reading etcd itself. */
const freshWaitEtcdMs = 300;

/** A key's bytes when it was read from the cache: the update path uses only its revisions. */
const NO_BYTES = new Uint8Array(0);

export type { Entry } from './stored-object.ts';

/** Everything a write needs to know about who asks and how. */
export interface WriteContext {
  readonly dryRun: boolean;
  /** Warnings for `Warning` headers; the store appends to it. */
  readonly warnings: string[];
  readonly now: Date;
  /** The field manager recorded in managedFields for this write. */
  readonly manager?: string;
  /** `status` for status writes, empty for the main resource. */
  readonly subresource?: string;
  /** Server-side apply already computed managedFields; the update tracker must not run. */
  readonly skipManagedFields?: boolean;
  /** The request verb; a patch's duplicate owner references are reported as found after admission, as kube does. */
  readonly operation?: 'create' | 'update' | 'patch';
  /**
   * Who asks: a write with a user is a client's request and passes admission; the server's own
   * writes (its controllers, bootstrap) carry none and are exempt, so no plugin or webhook can
   * stop the gateway's own work.
   */
  readonly user?: RequestUser;
  /**
   * The request's options as kube's admission attributes carry them (dryRun, fieldManager,
   * fieldValidation; DeleteOptions' fields for a delete), without kind and apiVersion: the
   * admission adapter types them by the operation (a patch that creates carries CreateOptions).
   */
  readonly options?: Readonly<Record<string, unknown>>;
  /** Audit annotations admission plugins add for this request. */
  readonly auditAnnotations?: Record<string, string>;
  /** A deletecollection: kube's admission sees each object of it with an empty name. */
  readonly collection?: boolean;
  /** What admission sees of this write when it is not the stored kind (a custom resource's scale: autoscaling/v1 Scale). */
  readonly admissionView?: AdmissionView;
}

/**
 * A subresource written through another kind (kube's scale subresource): admission is given that
 * kind and the objects converted to it, and a mutated view is carried back into the object.
 */
export interface AdmissionView {
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  /** The view of an object in its served form. */
  toView(obj: KubeObject): KubeObject;
  /** `obj` (served form) with what the view's fields say written into it. */
  fromView(view: KubeObject, obj: KubeObject): KubeObject;
}

/** kube's warnings for duplicate owner references (endpoints/handlers/rest.go). */
function duplicateOwnerReferencesWarning(uids: readonly string[], afterAdmission: boolean): string {
  const where = afterAdmission ? ' after mutating admission happens' : '';
  return `.metadata.ownerReferences contains duplicate entries${where}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uids.join(', ')}`;
}

/** Checks that run on writes, in this order, before persistence (admission lives here). */
export interface WriteHooks {
  /**
   * What kube-apiserver does to a written object before its registry sees it: decode-time
   * defaulting, then managed fields. Runs before the strategy, whose changes nobody owns.
   */
  decoded?(op: 'create' | 'update', obj: KubeObject, old: KubeObject | null, ctx: WriteContext): void;
  /**
   * Mutating stage: may change the object (admission mutation). On delete `obj` is null and `old`
   * the object being deleted.
   */
  mutate?(op: 'create' | 'update' | 'delete', obj: KubeObject | null, old: KubeObject | null, ctx: WriteContext): Promise<void> | void;
  /** Validating stage, after the schema validated the mutated object again: throws ApiError to reject. */
  validate?(op: 'create' | 'update' | 'delete', obj: KubeObject | null, old: KubeObject | null, ctx: WriteContext): Promise<void> | void;
  /**
   * What a kind takes from shared pools for the object (a Service's cluster IP and node ports),
   * after validation, as kube's service registry allocates in BeginCreate/BeginUpdate; may set
   * fields of `obj`. The store reverts it when the write does not happen (dry run, a failed or
   * retried write) and commits it once written. Throws ApiError to reject.
   */
  allocate?(op: 'create' | 'update', obj: KubeObject, old: KubeObject | null, ctx: WriteContext): Promise<Allocation | undefined>;
  /** The object is gone from storage: give back what it held. */
  removed?(obj: KubeObject): Promise<void> | void;
}

/** A write's allocations (see WriteHooks.allocate). */
export interface Allocation {
  /** The write happened: release what the new object no longer holds. */
  commit(): Promise<void>;
  /** The write did not happen: give back what was taken for it. */
  revert(): Promise<void>;
}

export interface ListOutcome {
  readonly entries: readonly Entry[];
  readonly resourceVersion: string;
  readonly continueToken?: string;
  readonly remainingItemCount?: number;
}

export interface DeleteOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: string;
  readonly orphanDependents?: boolean;
}

export interface UpdateOptions {
  /** PUT and apply may create a missing object. */
  readonly allowCreate: boolean;
  readonly subresource: string;
  /** The uid a PUT body carries: a mismatch with the stored object is 409, as kube's update preconditions. */
  readonly preconditions?: { readonly uid?: string };
  /** A PUT without resourceVersion is refused (kinds whose kube strategy disallows unconditional updates). */
  readonly requireResourceVersion?: boolean;
}

export type DeleteOutcome =
  | { readonly kind: 'deleted'; readonly object: KubeObject }
  | { readonly kind: 'terminating'; readonly object: KubeObject };

/**
 * Which reads the watch cache may answer (feature gates): `consistent` (ConsistentListFromCache),
 * reads at the latest revision once the cache is provably fresh, else from the store;
 * `snapshots` (ListFromCacheSnapshot), Exact lists and continue pages at a past revision, else
 * from the store.
 */
export interface CacheReads {
  readonly consistent: boolean;
  readonly snapshots: boolean;
}

/** Validates and persists objects of one type; see the file comment. */
export class ResourceStore {
  readonly gr: GroupResource;
  /** Objects of a kind converted by webhook in this version, by the stored object they came from (shared by every reader). */
  private readonly converted = new WeakMap<KubeObject, KubeObject | Promise<KubeObject>>();

  constructor(
    readonly rt: ResourceType,
    private readonly store: Store,
    readonly cache: WatchCache<KubeObject>,
    private readonly hooks: WriteHooks,
    private readonly validateGeneric: (obj: KubeObject, old: KubeObject | null) => FieldError[],
    private readonly reads: CacheReads = { consistent: true, snapshots: true },
  ) {
    this.gr = { group: rt.group, resource: rt.resource };
  }

  /** The store key of one object. */
  key(namespace: string, name: string): string {
    return this.rt.namespaced ? `${this.rt.storagePrefix}${namespace}/${name}` : `${this.rt.storagePrefix}${name}`;
  }

  /** The key prefix a list covers (one namespace, or all). */
  listPrefix(namespace: string): string {
    if (!this.rt.namespaced || !namespace) return this.rt.storagePrefix;
    // One string per namespace, which every watch and list of it shares.
    let prefix = this.namespacePrefixes.get(namespace);
    if (prefix === undefined) {
      if (this.namespacePrefixes.size >= 10_000) this.namespacePrefixes.clear();
      this.namespacePrefixes.set(namespace, (prefix = `${this.rt.storagePrefix}${namespace}/`));
    }
    return prefix;
  }

  private readonly namespacePrefixes = new Map<string, string>();

  /**
   * `served(obj)` kept with the stored object, for readers that never change what they get (a
   * Table's cells, a watch's selector): a large Table then renders each built-in object once per
   * version, not once per request, and an event's object is rendered once for all the watchers
   * with a selector, not once each. Custom resources are not kept (their served form follows
   * their conversion).
   */
  servedReadOnly(obj: KubeObject): KubeObject {
    if (this.rt.unstructured) return this.served(obj);
    let out = this.servedMemo.get(obj);
    if (out === undefined) {
      out = this.served(obj);
      this.servedMemo.set(obj, out);
    }
    return out;
  }
  private readonly servedMemo = new WeakMap<KubeObject, KubeObject>();

  /**
   * The served form of a stored object (converted for kinds that share storage). A kind converted
   * by webhook serves only what `prepare` converted (get and list do it; a watch per event).
   */
  served(obj: KubeObject): KubeObject {
    // Custom resources are served as stored (defaulted, converted): unstructured JSON has no Go zero values.
    if (this.rt.unstructured) return sortedKeys(this.fromStored(obj));
    // A converted object is written in the served kind's Go field order.
    const served = this.rt.storageConversion ? inGoFieldOrder(this.rt.storageConversion.fromStorage(obj), this.rt.schema) : obj;
    // Zero values as the Go types' JSON tags write them (copy-on-write: unchanged objects pass as they are).
    return goWireForm(served, this.rt.schema);
  }

  /** The encoding key for memoized bytes: objects shared between kinds encode per kind. */
  get formatKey(): string {
    return this.rt.storageConversion || this.rt.asyncConversion ? `json@${apiVersionOf(this.rt)}` : 'json';
  }

  /** A custom resource as read: defaulted as stored, and converted when stored in another version. */
  private fromStored(obj: KubeObject): KubeObject {
    const conv = this.rt.asyncConversion;
    if (conv && obj.apiVersion !== this.apiVersion) {
      const done = this.converted.get(obj);
      // Every read path prepares what it serves; reaching this is a defect, reported rather than served unconverted.
      if (done === undefined || done instanceof Promise) throw new ApiError(500, '', `${qualifiedKind(this.rt)} ${obj.metadata?.name ?? ''} was not converted to ${this.apiVersion}`);
      return done;
    }
    if (this.rt.storageConversion) return this.rt.storageConversion.fromStorage(obj);
    return this.rt.readDefaults ? this.rt.readDefaults(obj) : obj;
  }

  private get apiVersion(): string {
    return apiVersionOf(this.rt);
  }

  /**
   * Converts stored objects of a kind converted by webhook (one call for those not converted yet)
   * so that `served` can serve them; each stored object is converted once for every reader.
   * Undefined when there is nothing to wait for, so other kinds pay no await.
   */
  prepare(objs: readonly (KubeObject | undefined)[]): Promise<void> | undefined {
    const conv = this.rt.asyncConversion;
    if (!conv) return undefined;
    const missing = new Set<KubeObject>();
    const waits: Promise<unknown>[] = [];
    for (const o of objs) {
      if (!o || o.apiVersion === this.apiVersion) continue;
      const done = this.converted.get(o);
      if (done === undefined) missing.add(o);
      else if (done instanceof Promise) waits.push(done);
    }
    if (missing.size > 0) {
      const list = [...missing];
      const batch = conv.fromStorage(list);
      list.forEach((o, i) => {
        const one = batch.then((r) => {
          this.converted.set(o, r[i]!);
          return r[i]!;
        });
        // A failed conversion is tried again by the next reader.
        one.catch(() => this.converted.delete(o));
        this.converted.set(o, one);
      });
      waits.push(batch);
    }
    return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
  }

  /** `value` is `from` with another resourceVersion (a watch's deleted object): it is served as `from` converted. */
  derive(value: KubeObject, from: KubeObject): void {
    const done = this.converted.get(from);
    if (!done || done instanceof Promise) return;
    this.converted.set(value, { ...done, metadata: { ...done.metadata, resourceVersion: value.metadata?.resourceVersion } });
  }

  /** Stored form -> the form a write works on: the version of the request for kinds converted by webhook. */
  private async toWorkingForm(stored: KubeObject): Promise<KubeObject> {
    const conv = this.rt.asyncConversion;
    if (!conv) return stored;
    return (await conv.fromStorage([stored]))[0]!;
  }

  /** The form a write works on -> stored form. */
  private async toStoredForm(obj: KubeObject): Promise<KubeObject> {
    const conv = this.rt.asyncConversion;
    return conv ? conv.toStorage(obj) : obj;
  }

  /** The response for a stored object, converting it when it must be. */
  private async respond(stored: KubeObject): Promise<KubeObject> {
    const p = this.prepare([stored]);
    if (p) await p;
    return this.served(stored);
  }

  /** Memoized JSON of the served object. */
  encodeJson(entry: Entry): Uint8Array {
    return entry.encode(this.formatKey, (v) => Buffer.from(stringifyGo(this.served(v))));
  }

  /** Get with the resourceVersion semantics of SPEC.md (unset: most recent; 0: any; n: not older than n). */
  async get(namespace: string, name: string, resourceVersion: string): Promise<Entry> {
    const key = this.key(namespace, name);
    try {
      if (resourceVersion === '') {
        if (!this.reads.consistent || !(await this.cacheIsFresh())) return this.getFromStore(key, name);
      } else if (resourceVersion !== '0') await this.cache.waitForRevision(Number(resourceVersion));
    } catch (err) {
      throw this.translate(err, name, { kind: 'get', revision: Number(resourceVersion) || 0 });
    }
    const entry = this.cache.get(key);
    if (!entry) throw errors.notFound(this.gr, name);
    this.assertReadable(entry);
    const p = this.prepare([entry.value]);
    if (p) await p;
    return entry;
  }

  /** Lists with the read semantics of SPEC.md's list table, filtered, optionally paged. */
  async list(namespace: string, q: ListQuery, filter: ObjectFilter): Promise<ListOutcome> {
    if (!this.rt.asyncConversion) return this.listStored(namespace, q, filter);
    // A kind converted by webhook: the filter needs converted objects, so a page from the cache is
    // cut again once the objects it met are converted; what is served is converted before it returns.
    for (let attempt = 0; ; attempt++) {
      const missing: KubeObject[] = [];
      const from = { store: false };
      let out: ListOutcome;
      try {
        out = await this.listStored(namespace, q, filter, missing, from);
        const p = this.prepare([...missing, ...out.entries.map((e) => e.value)]);
        if (p) await p;
      } catch (err) {
        throw from.store ? err : cacheInitializing(err);
      }
      if (missing.length === 0 || attempt >= 5) return out;
    }
  }

  /**
   * A watch's initial objects of a kind converted by webhook: the cache's objects under `keyPrefix`
   * that pass the filter, each converted. A failing conversion is kube's 429 (its per-version cache
   * cannot start while the webhook fails).
   */
  async listCacheConverted(keyPrefix: string, filter: ObjectFilter): Promise<{ entries: Entry[]; revision: number }> {
    for (let attempt = 0; ; attempt++) {
      const missing: KubeObject[] = [];
      const listed = this.cache.list({ keyPrefix, filter: filter.always ? undefined : (e) => this.matchesStored(e.value, filter, missing) });
      try {
        const p = this.prepare([...missing, ...listed.entries.map((e) => e.value)]);
        if (p) await p;
      } catch (err) {
        throw cacheInitializing(err);
      }
      if (missing.length === 0 || attempt >= 5) return { entries: [...listed.entries], revision: listed.revision };
    }
  }

  /**
   * Whether a stored object passes the filter. For a kind converted by webhook, an object of the
   * cache not converted yet is left out and noted in `missing` (the list is cut again).
   */
  private matchesStored(stored: KubeObject, filter: ObjectFilter, missing: KubeObject[] | undefined): boolean {
    if (filter.always) return true;
    if (missing && this.rt.asyncConversion && stored.apiVersion !== this.apiVersion) {
      const done = this.converted.get(stored);
      if (!done || done instanceof Promise) {
        missing.push(stored);
        return false;
      }
    }
    return filter.matches(this.served(stored));
  }

  private async listStored(namespace: string, q: ListQuery, filter: ObjectFilter, missing?: KubeObject[], from?: { store: boolean }): Promise<ListOutcome> {
    const prefix = this.listPrefix(namespace);
    const sem = q.semantics;
    try {
      if (sem.kind === 'exact' || sem.kind === 'continue') {
        const revision = sem.kind === 'exact' ? sem.revision : sem.position.revision;
        const startKey = sem.kind === 'continue' ? prefix + sem.position.start : undefined;
        // Nothing under the prefix changed since the snapshot, and the store could still read it:
        // the cache holds the store's answer exactly (items, order, counts, continue token). A
        // continue page is read from it whatever the gates say: kube reads it from etcd, and the
        // answer is the same. Only a store this process alone writes knows its compacted revision
        // here (etcd is compacted by any replica), so continue pages on etcd, and Exact lists
        // anywhere, wait for ListFromCacheSnapshot.
        const fromCache =
          (this.reads.snapshots || (sem.kind === 'continue' && this.store.backend !== 'etcd')) &&
          revision >= this.store.compactedRevision() &&
          this.cache.unchangedSince(prefix, revision);
        if (fromCache) return this.listFromCache(prefix, revision, startKey, q.limit, filter, missing);
        if (from) from.store = true;
        try {
          return await this.listFromStore(prefix, revision, startKey, q.limit, filter);
        } catch (err) {
          throw this.translate(err, '', { kind: sem.kind === 'continue' ? 'continue' : 'list', revision });
        }
      }
      if (sem.kind === 'most-recent') {
        if (!this.reads.consistent || !(await this.cacheIsFresh())) {
          if (from) from.store = true;
          return await this.listFromStore(prefix, 0, undefined, q.limit, filter);
        }
      } else if (sem.kind === 'not-older-than') await this.cache.waitForRevision(sem.revision);
    } catch (err) {
      throw this.translate(err, '', { kind: 'list', revision: sem.kind === 'not-older-than' ? sem.revision : 0 });
    }
    return this.listFromCache(prefix, undefined, undefined, q.limit, filter, missing);
  }

  /** A page from the cache, labelled with `revision` (a snapshot it is known to equal) or its own. */
  private listFromCache(prefix: string, revision: number | undefined, startKey: string | undefined, limit: number, filter: ObjectFilter, missing?: KubeObject[]): ListOutcome {
    const res = this.cache.list({
      keyPrefix: prefix,
      startKey,
      limit: limit > 0 ? limit : undefined,
      filter: filter.always ? undefined : (e) => this.matchesStored(e.value, filter, missing),
    });
    for (const e of res.entries) this.assertReadable(e);
    const rev = revision ?? res.revision;
    // The next page starts just after the last item, as the store's (and kube's) tokens say.
    const last = res.entries.at(-1);
    const nextKey = res.nextKey !== undefined && last ? `${last.key}\u0000` : res.nextKey;
    return this.listOutcome(res.entries, prefix, rev, nextKey, res.remaining, filter);
  }

  /**
   * Brings the cache up to the store's current revision for a consistent read. The cache learns
   * the revision from progress notifications; a store that sends none while a prefix is idle
   * (etcd without a progress-notify interval) cannot prove freshness quickly, and then the read
   * goes to the store itself, as kube-apiserver's quorum reads do.
   */
  private async cacheIsFresh(): Promise<boolean> {
    try {
      await this.cache.waitUntilFresh(this.store.backend === 'etcd' ? freshWaitEtcdMs : undefined);
      return true;
    } catch (err) {
      if (this.store.backend === 'etcd' && isStorageError(err, 'TooLarge')) return false;
      throw err;
    }
  }

  /** Before a watch that starts at "most recent": the cache catches up as far as the store lets it prove. */
  async syncForWatch(): Promise<void> {
    await this.cacheIsFresh();
  }

  private async getFromStore(key: string, name: string): Promise<Entry> {
    const kv = await this.store.get(key);
    if (!kv) throw errors.notFound(this.gr, name);
    const entry = detachedEntry(kv);
    this.assertReadable(entry);
    return entry;
  }

  /** Lists from the store at `revision` (0: the latest, a quorum read), paging and filtering. */
  private async listFromStore(prefix: string, revision: number, startKey: string | undefined, limit: number, filter: ObjectFilter): Promise<ListOutcome> {
    const out: Entry[] = [];
    let start = startKey;
    let nextKey: string | undefined;
    let remaining = 0;
    for (;;) {
      // Unfiltered pages read exactly what is missing; filtered ones read ahead in chunks.
      const chunk = limit > 0 ? (filter.always ? limit - out.length : Math.max(limit - out.length, 500)) : 0;
      const page = await this.store.list(prefix, { revision, limit: chunk, startKey: start });
      // A latest read pins its snapshot on the first page; later pages read the same one.
      revision = page.revision;
      const entries = page.kvs.map((kv) => detachedEntry(kv));
      for (const entry of entries) this.assertReadable(entry);
      // A kind converted by webhook converts each page (one call) before filtering it.
      if (!filter.always) {
        const p = this.prepare(entries.map((e) => e.value));
        if (p) await p;
      }
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i]!;
        if (this.matchesStored(entry.value, filter, undefined)) out.push(entry);
        if (limit > 0 && out.length >= limit) {
          remaining = page.kvs.length - 1 - i + page.remaining;
          if (remaining > 0) nextKey = `${entry.key}\u0000`;
          return this.listOutcome(out, prefix, revision, nextKey, remaining, filter);
        }
      }
      if (page.remaining === 0 || page.kvs.length === 0 || limit === 0) break;
      start = `${page.kvs[page.kvs.length - 1]!.key}\u0000`;
    }
    return this.listOutcome(out, prefix, revision, undefined, 0, filter);
  }

  private listOutcome(entries: Entry[], prefix: string, revision: number, nextKey: string | undefined, remaining: number, filter: ObjectFilter): ListOutcome {
    return {
      entries,
      resourceVersion: String(revision),
      ...(nextKey ? { continueToken: encodeContinue({ revision, start: nextKey.slice(prefix.length) }) } : {}),
      ...(nextKey && filter.always ? { remainingItemCount: remaining } : {}),
    };
  }

  /**
   * Creates an object (already decoded, pruned and type-checked by the caller). Runs: server
   * metadata -> strategy prepare -> mutating hooks -> validation -> validating hooks -> persist.
   */
  async create(namespace: string, input: KubeObject, ctx: WriteContext): Promise<KubeObject> {
    this.decodeAsGo(input, ctx);
    const obj = this.rt.storageConversion ? this.rt.storageConversion.toStorage(input) : input;
    const meta = metaOf(obj);
    if (this.rt.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    const clientRv = meta.resourceVersion;
    resetServerOwnedMetaForCreate(meta, ctx.now, this.rt.tracksGeneration === true);
    // kube's create handler de-duplicates owner references before managed fields are computed.
    this.dedupOwnerReferences(obj, ctx);
    this.hooks.decoded?.('create', obj, null, ctx);
    // kube generates the name in BeforeCreate, after decoding and managed fields: what defaulting
    // derives from the name (a namespace's kubernetes.io/metadata.name label) is then the strategy's,
    // owned by nobody. (The hook replaces the metadata object: read it again.)
    const decodedMeta = metaOf(obj);
    if (!decodedMeta.name && decodedMeta.generateName) decodedMeta.name = generateName(decodedMeta.generateName);
    this.rt.strategy.prepareForCreate?.(obj);
    await this.hooks.mutate?.('create', obj, null, ctx);
    // Hooks may replace the metadata object: read it again.
    const finalMeta = metaOf(obj);
    normalizeEmptyMeta(finalMeta);
    this.validateOrThrow(obj, null);
    await this.hooks.validate?.('create', obj, null, ctx);
    const allocation = await this.hooks.allocate?.('create', obj, null, ctx);
    if (ctx.dryRun) {
      // Allocations of a dry run are not kept.
      await allocation?.revert();
      // A dry run stops only short of the write: the name must be free as for a real create.
      const { kv } = await this.readLatest(this.key(namespace, finalMeta.name!), finalMeta.name ?? '');
      if (kv) throw errors.alreadyExists(this.gr, finalMeta.name ?? '');
      // kube's dry-run storage copies the object as given: a client's resourceVersion stays.
      if (typeof clientRv === 'string' && clientRv !== '') obj.metadata = orderedMeta(finalMeta, { resourceVersion: clientRv });
      return this.served(obj);
    }
    if (setsCreateRevision(clientRv)) {
      await allocation?.revert();
      // etcd3's store refuses it with a plain error, which kube serves as a reason-less 500.
      throw new ApiError(500, '', 'resourceVersion should not be set on objects to be created');
    }
    let stored: KubeObject;
    try {
      stored = this.rt.asyncConversion ? await this.toStoredForm(obj) : obj;
    } catch (err) {
      await allocation?.revert();
      throw err;
    }
    let kv: KeyValue;
    try {
      kv = await this.store.create(this.key(namespace, finalMeta.name!), encodeForStorage(stored));
    } catch (err) {
      await allocation?.revert();
      throw this.translate(err, finalMeta.name ?? '');
    }
    await allocation?.commit();
    // A kind converted by webhook answers with the stored object read back (defaulted, converted), as kube.
    if (stored !== obj) return this.respond({ ...stored, metadata: orderedMeta(metaOf(stored), { resourceVersion: String(kv.modRevision) }) });
    obj.metadata = orderedMeta(finalMeta, { resourceVersion: String(kv.modRevision) });
    return this.served(obj);
  }

  /**
   * Guaranteed update: reads the current object, asks `tryUpdate` for the new one, and writes it
   * with compare-and-swap, retrying `tryUpdate` on conflict unless `tryUpdate` pinned a
   * resourceVersion (then a stale one is 409). `tryUpdate` may be called several times and must
   * not mutate its argument. With `allowCreate`, a missing object is created (PUT, apply).
   */
  async update(
    namespace: string,
    name: string,
    tryUpdate: (current: KubeObject | null) => Promise<KubeObject> | KubeObject,
    ctx: WriteContext,
    opts: UpdateOptions,
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      // A conflict means the state was not current: every attempt after the first reads the store.
      const latest = (attempt === 0 ? await this.cachedLatest(key) : undefined) ?? (await this.readLatest(key, name));
      const kv = latest.kv;
      // A kind converted by webhook works in the request's version from here to the write.
      const current = latest.current && this.rt.asyncConversion ? await this.toWorkingForm(latest.current) : latest.current;
      const currentServed = current ? this.served(current) : null;
      // A PUT body's uid is a precondition, checked before the update is computed (kube's storage
      // Preconditions), even against a missing object, whose uid is empty.
      const uid = opts.preconditions?.uid;
      if (uid && uid !== (current?.metadata?.uid ?? '')) {
        throw errors.conflict(this.gr, name, this.invalidObjectError(namespace, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current?.metadata?.uid ?? ''}`));
      }
      if (!current && !opts.allowCreate) throw errors.notFound(this.gr, name);
      const proposed = await tryUpdate(currentServed ? cloneObject(currentServed) : null);
      if (current) this.decodeAsGo(proposed, ctx);
      const pinnedRv = proposed.metadata?.resourceVersion;
      if (!current) {
        if (pinnedRv) throw errors.notFound(this.gr, name);
        metaOf(proposed).name = name;
        const object = await this.create(namespace, proposed, ctx);
        return { object, created: true };
      }
      if (!pinnedRv && opts.requireResourceVersion) {
        // Kinds whose strategy refuses unconditional updates (Lease): kube's Invalid names the resource, not the kind.
        throw errors.invalid(groupResourceString(this.gr), this.gr.group, this.gr.resource, name, [
          // The version is a uint64 there, which a field error prints with %#v.
          fieldErr.invalid('metadata.resourceVersion', goLiteral('0x0'), 'must be specified for an update'),
        ]);
      }
      if (pinnedRv && pinnedRv !== String(kv!.modRevision)) throw errors.staleResourceVersion(this.gr, name);
      const obj = this.rt.storageConversion ? this.rt.storageConversion.toStorage(proposed) : proposed;
      carryServerOwnedMetaOnUpdate(metaOf(obj), current.metadata ?? {}, this.rt.tracksGeneration === true);
      if (this.rt.namespaced) metaOf(obj).namespace = namespace;
      // Owner references are de-duplicated before managed fields for a PUT, after them for a patch (kube's handlers).
      if (ctx.operation !== 'patch') this.dedupOwnerReferences(obj, ctx);
      this.hooks.decoded?.('update', obj, current, ctx);
      if (opts.subresource === '') this.rt.strategy.prepareForUpdate?.(obj, current);
      else this.rt.strategy.subresources?.[opts.subresource]?.prepareForUpdate(obj, current);
      if (ctx.operation === 'patch') this.dedupOwnerReferences(obj, ctx);
      await this.hooks.mutate?.('update', obj, current, ctx);
      // Hooks may replace the metadata object: read it after them.
      const meta = metaOf(obj);
      normalizeEmptyMeta(meta);
      if (this.rt.tracksGeneration) bumpGeneration(obj, current);
      this.validateOrThrow(obj, current, opts.subresource, currentServed);
      await this.hooks.validate?.('update', obj, current, ctx);
      const allocation = opts.subresource === '' ? await this.hooks.allocate?.('update', obj, current, ctx) : undefined;
      // An update that changes nothing is not written (kube returns the object unchanged).
      delete meta.resourceVersion;
      const { resourceVersion: _rv, ...curMeta } = current.metadata ?? {};
      keepTimestampsOfNoOp(obj, meta, current, curMeta);
      if (jsonEqual({ ...obj, metadata: meta }, { ...current, metadata: curMeta })) {
        await allocation?.revert();
        obj.metadata = orderedMeta(meta, { resourceVersion: String(kv!.modRevision) });
        return { object: this.served(obj), created: false };
      }
      if (ctx.dryRun) {
        await allocation?.revert();
        obj.metadata = orderedMeta(meta, { resourceVersion: String(kv!.modRevision) });
        return { object: this.served(obj), created: false };
      }
      // A finalized, terminating object is removed instead of being written.
      if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0 && !this.needsNamespaceFinalization(obj)) {
        await allocation?.revert();
        try {
          await this.store.delete(key, kv!.modRevision);
          await this.hooks.removed?.(current);
          // kube's deleteWithoutFinalizers answers with the object of the request, which carries
          // the version it was computed from, not the revision of the delete.
          obj.metadata = orderedMeta(meta, { resourceVersion: String(kv!.modRevision) });
          return { object: this.served(obj), created: false };
        } catch (err) {
          if (isStorageError(err, 'Conflict') && !pinnedRv && attempt < 20) continue;
          throw this.translate(err, name);
        }
      }
      let written: KeyValue;
      let stored = obj;
      try {
        stored = this.rt.asyncConversion ? await this.toStoredForm(obj) : obj;
        written = await this.store.update(key, encodeForStorage(stored), kv!.modRevision);
      } catch (err) {
        await allocation?.revert();
        if (isStorageError(err, 'Conflict') && !pinnedRv && attempt < 20) continue;
        if (isStorageError(err, 'Conflict')) throw errors.staleResourceVersion(this.gr, name);
        throw this.translate(err, name);
      }
      await allocation?.commit();
      if (stored !== obj) return { object: await this.respond({ ...stored, metadata: orderedMeta(metaOf(stored), { resourceVersion: String(written.modRevision) }) }), created: false };
      obj.metadata = orderedMeta(meta, { resourceVersion: String(written.modRevision) });
      return { object: this.served(obj), created: false };
    }
  }

  /**
   * Deletes one object: preconditions, then either marks it terminating (finalizers present)
   * or removes it. A terminating object stays until its last finalizer is removed.
   */
  async delete(namespace: string, name: string, opts: DeleteOptions, ctx: WriteContext): Promise<DeleteOutcome> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const { kv, current } = await this.readLatest(key, name);
      if (!kv || !current) throw errors.notFound(this.gr, name);
      const meta = metaOf(current);
      this.checkDeletePreconditions(name, meta, opts.preconditions);
      // kube's delete admission: both phases, with no object and the one being deleted as the old one.
      if (this.hooks.mutate || this.hooks.validate) {
        const old = this.rt.asyncConversion ? await this.toWorkingForm(current) : current;
        await this.hooks.mutate?.('delete', null, old, ctx);
        await this.hooks.validate?.('delete', null, old, ctx);
      }
      const finalizers = meta.finalizers ?? [];
      // Orphan and Foreground deletion leave the dependents to the garbage collector, which
      // releases the object by removing these finalizers (kube-apiserver adds them the same way).
      const gcFinalizer = garbageCollectionFinalizer(opts);
      const addGcFinalizer = gcFinalizer !== undefined && !finalizers.includes(gcFinalizer) && !meta.deletionTimestamp;
      const kindFinalizers = meta.deletionTimestamp ? [] : (this.rt.strategy.deleteFinalizers?.(current) ?? []).filter((f) => !finalizers.includes(f));
      const pendingFinalization = finalizers.length > 0 || addGcFinalizer || kindFinalizers.length > 0 || this.needsNamespaceFinalization(current);
      if (pendingFinalization) {
        if (meta.deletionTimestamp) return { kind: 'terminating', object: await this.respond(current) };
        const next = cloneObject(current);
        const nmeta = metaOf(next);
        if (addGcFinalizer || kindFinalizers.length > 0) nmeta.finalizers = [...finalizers, ...kindFinalizers, ...(addGcFinalizer ? [gcFinalizer] : [])];
        nmeta.deletionTimestamp = new Date(ctx.now).toISOString().replace(/\.\d{3}Z$/, 'Z');
        nmeta.deletionGracePeriodSeconds = 0;
        // Controllers of an object that starts terminating should see it change: kube's store bumps
        // a set generation with the first deletionTimestamp. (Kinds with their own delete, CRDs and
        // namespaces, do not.)
        if (!this.rt.strategy.prepareForDelete && typeof nmeta.generation === 'number' && nmeta.generation > 0) nmeta.generation += 1;
        this.rt.strategy.prepareForDelete?.(next);
        // The new deletion fields take their places among the metadata, as Go serializes them.
        next.metadata = orderedMeta(metaOf(next));
        if (ctx.dryRun) return { kind: 'terminating', object: await this.respond(next) };
        delete next.metadata.resourceVersion;
        try {
          const written = await this.store.update(key, encodeForStorage(next), kv.modRevision);
          next.metadata = orderedMeta(next.metadata, { resourceVersion: String(written.modRevision) });
          return { kind: 'terminating', object: await this.respond(next) };
        } catch (err) {
          if (isStorageError(err, 'Conflict') && attempt < 20) continue;
          throw this.translate(err, name);
        }
      }
      if (ctx.dryRun) return { kind: 'deleted', object: await this.respond(current) };
      try {
        const deleted = await this.store.delete(key, kv.modRevision);
        await this.hooks.removed?.(current);
        current.metadata = orderedMeta(meta, { resourceVersion: String(deleted.modRevision) });
        return { kind: 'deleted', object: await this.respond(current) };
      } catch (err) {
        if (isStorageError(err, 'Conflict') && attempt < 20) continue;
        if (isStorageError(err, 'NotFound')) throw errors.notFound(this.gr, name);
        throw this.translate(err, name);
      }
    }
  }

  /**
   * Delete preconditions with kube's wording: the namespace registry checks them itself; every
   * other kind fails early in rest.BeforeDelete, whose Conflict names the kind, not the resource.
   */
  private checkDeletePreconditions(name: string, meta: ObjectMeta, pre: DeleteOptions['preconditions']): void {
    const uid = meta.uid ?? '';
    const rv = meta.resourceVersion ?? '';
    if (this.isNamespaces()) {
      if (pre?.uid !== undefined && pre.uid !== uid) {
        throw errors.conflict(this.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${uid}`);
      }
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== rv) {
        throw errors.conflict(this.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${rv}`);
      }
      return;
    }
    const byKind = { group: this.rt.internalGroup ?? this.rt.group, resource: this.rt.kind };
    if (pre?.uid !== undefined && pre.uid !== uid) {
      throw errors.conflict(byKind, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`);
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== rv) {
      throw errors.conflict(byKind, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${rv}). The object might have been modified`);
    }
  }

  /**
   * The text of kube's storage "invalid object" error (code 4) for a failed precondition. The key
   * is kube's etcd key for the object: built-in kinds live under /registry/<resource>/.
   */
  private invalidObjectError(namespace: string, name: string, detail: string): string {
    const key = `/registry/${this.rt.resource}/${this.rt.namespaced ? `${namespace}/` : ''}${name}`;
    return `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${detail}`;
  }

  private isNamespaces(): boolean {
    return this.rt.group === '' && this.rt.resource === 'namespaces';
  }

  /**
   * Gives the object the values decoding into the kind's Go type would (null fields absent, times
   * in Go's encoding). A value Go cannot decode fails as kube fails it: a create or update body is
   * 400 "cannot be handled as"; a patched object is 422 on the `patch` field.
   */
  private decodeAsGo(obj: KubeObject, ctx: WriteContext): void {
    if (this.rt.unstructured) return;
    const err = normalizeGoValues(obj, this.rt.schema);
    if (!err) return;
    if (ctx.operation === 'patch') {
      throw errors.invalid('', '', '', '', [fieldErr.invalid('patch', JSON.stringify(obj), err.message)]);
    }
    const kind = typeof obj.kind === 'string' && obj.kind ? obj.kind : this.rt.kind;
    throw errors.badRequest(`${kind} in version ${JSON.stringify(this.rt.version)} cannot be handled as a ${this.rt.kind}: ${err.message}`);
  }

  /** Duplicate owner references are dropped with a warning, before managed fields are computed (kube's handlers). */
  private dedupOwnerReferences(obj: KubeObject, ctx: WriteContext): void {
    const uids = dedupOwnerReferences(metaOf(obj));
    if (uids.length > 0) ctx.warnings.push(duplicateOwnerReferencesWarning(uids, ctx.operation === 'patch'));
  }

  /**
   * The current object as the watch cache holds it, when the cache can prove it is current: with
   * the embedded stores it knows the store's revision at once, as a consistent get does, and
   * catches up within the event loop's turn. This saves an update the read of the store (its
   * decoding too). With etcd proving freshness takes a progress request; the store is read then.
   * Undefined when the store is to be read (etcd, a key the cache does not hold, a corrupt entry).
   */
  private async cachedLatest(key: string): Promise<{ kv: KeyValue; current: KubeObject } | undefined> {
    if (this.store.backend === 'etcd' || !this.cache.get(key)) return undefined;
    try {
      if (!(await this.cacheIsFresh())) return undefined;
    } catch {
      // A cache that does not catch up: the store answers, and says what is wrong.
      return undefined;
    }
    // Looked up again: the wait may have let a write through.
    const entry = this.cache.get(key);
    if (entry === undefined || entry.corrupt) return undefined;
    // A copy: the update path treats the current object as its own, and the cache's is shared.
    return { kv: { key, value: NO_BYTES, createRevision: entry.createRevision, modRevision: entry.modRevision }, current: cloneObject(entry.value) };
  }

  /** The latest stored value of a key, decoded; storage and decoding errors become API errors. */
  private async readLatest(key: string, name: string): Promise<{ kv: KeyValue | null; current: KubeObject | null }> {
    try {
      const kv = await this.store.get(key);
      return { kv, current: kv ? decodeStored(kv) : null };
    } catch (err) {
      throw this.translate(err, name);
    }
  }

  /** Removes an object that cannot be decoded, skipping finalizers and preconditions (unsafe delete). */
  async deleteCorrupt(namespace: string, name: string): Promise<void> {
    try {
      await this.store.delete(this.key(namespace, name));
    } catch (err) {
      throw this.translate(err, name);
    }
  }

  /** Namespaces carry their own finalizer list in spec.finalizers. */
  private needsNamespaceFinalization(obj: KubeObject): boolean {
    if (this.rt.group !== '' || this.rt.resource !== 'namespaces') return false;
    const spec = obj.spec as { finalizers?: string[] } | undefined;
    return (spec?.finalizers ?? []).length > 0;
  }

  /** `oldServed`: the old object as served, when the caller has it already (an update computed it first). */
  private validateOrThrow(obj: KubeObject, old: KubeObject | null, subresource = '', oldServed?: KubeObject | null): void {
    const errs = [...this.validateGeneric(obj, old)];
    const served = this.served(obj);
    const servedOld = oldServed ?? (old ? this.served(old) : null);
    const sub = subresource ? this.rt.strategy.subresources?.[subresource] : undefined;
    const validateUpdate = sub ? sub.validateUpdate : this.rt.strategy.validateUpdate;
    errs.push(...(servedOld ? validateUpdate?.(served, servedOld) ?? [] : this.rt.strategy.validate?.(served) ?? []));
    if (errs.length > 0) {
      const group = this.rt.internalGroup ?? this.rt.group;
      throw errors.invalid(qualifiedKind({ group, kind: this.rt.kind }), group, this.rt.kind, obj.metadata?.name ?? '', errs);
    }
  }

  private assertReadable(entry: Entry): void {
    const corrupt = (entry as { corrupt?: StorageError }).corrupt;
    if (corrupt) throw this.translate(corrupt, entry.key.slice(entry.key.lastIndexOf('/') + 1));
  }

  /** Storage errors become API errors here and nowhere else (see storage-errors.ts). */
  translate(err: unknown, name: string, read?: ReadContext): ApiError {
    return storageErrorToApi(err, this.gr, name, read);
  }
}

/** kube's answer while a custom resource version's cache cannot start (its conversion webhook fails). */
function cacheInitializing(err: unknown): unknown {
  if (!isApiError(err) || err.code !== 500) return err;
  return new ApiError(429, 'TooManyRequests', 'storage is (re)initializing', { retryAfterSeconds: 1 }, { 'Retry-After': '1' });
}

/** Generation moves on when anything but metadata and status changes (kube's rule for most kinds). */
function bumpGeneration(obj: KubeObject, old: KubeObject): void {
  const strip = (o: KubeObject) => {
    const { metadata: _m, status: _s, ...rest } = o;
    return rest;
  };
  const meta = metaOf(obj);
  const oldGen = old.metadata?.generation ?? 1;
  meta.generation = jsonEqual(strip(obj), strip(old)) ? oldGen : oldGen + 1;
}

/**
 * Whether a client's resourceVersion on create makes kube's etcd3 store refuse the write: it
 * parses as a non-zero uint64 (strconv.ParseUint). "0", "" and unparsable values pass.
 */
function setsCreateRevision(rv: unknown): boolean {
  return typeof rv === 'string' && /^\d{1,20}$/.test(rv) && BigInt(rv) > 0n && BigInt(rv) <= 0xffffffffffffffffn;
}

/**
 * kube's IgnoreManagedFieldsTimestampsTransformer, which its generic store runs after the
 * strategy: when the managedFields differ from the live ones only in their times and the rest of
 * the object is unchanged (a change the strategy reset, like a namespace's spec.finalizers through
 * the main resource), the live entries are kept, so the update is a no-op and is not written.
 * Mutates `meta`.
 */
function keepTimestampsOfNoOp(obj: KubeObject, meta: ObjectMeta, current: KubeObject, curMeta: ObjectMeta): void {
  const mine = meta.managedFields;
  const live = curMeta.managedFields;
  if (!Array.isArray(mine) || !Array.isArray(live) || mine.length !== live.length) return;
  const untimed = (e: ManagedFieldsEntry) => ({ ...e, time: undefined });
  if (!mine.every((e, i) => jsonEqual(untimed(e), untimed(live[i]!)))) return;
  if (mine.every((e, i) => e.time === live[i]!.time)) return;
  const { managedFields: _m, ...restMeta } = meta;
  const { managedFields: _l, ...restLive } = curMeta;
  if (!jsonEqual({ ...obj, metadata: restMeta }, { ...current, metadata: restLive })) return;
  meta.managedFields = live;
}
