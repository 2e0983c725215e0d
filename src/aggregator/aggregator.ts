/**
 * The gateway's aggregation layer, kube-aggregator's controllers in one place:
 * - the automanaged local APIServices (autoregister controller): one per group/version served in
 *   process, labelled kube-aggregator.kubernetes.io/automanaged (`onstart` for kube's own groups,
 *   `true` for custom-resource groups), created, corrected and removed as the served set changes;
 * - the remote backends: one RemoteBackend per APIService with `spec.service`, rebuilt when its
 *   spec or traffic annotations change;
 * - the availability controller: Available with kube's reasons (Local, ServiceNotFound,
 *   MissingEndpoints, FailedDiscoveryCheck, Passed), probed in the background on an interval;
 * - the discovery cache of remote groups (see remote-discovery.ts), fed by the same probes.
 * The front door asks `backendFor(path)` for each request; discovery reads `remoteGroups()`.
 */
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';
import { isApiError } from '../api/status-errors.ts';
import { jsonEqual } from '../registry/object-meta.ts';
import { AUTOMANAGED_LABEL, LOCAL_AVAILABLE as LOCAL_AVAILABLE_WORDS, apiServiceSpec, availableCondition, type APIServiceSpec } from './apiservice.ts';
import { isKubeGroupVersion, localPriority } from './priorities.ts';
import { RemoteBackend, type ProxySettings } from './remote-backend.ts';
import { trafficContractOf, type TrafficContract } from './traffic.ts';
import { RemoteDiscovery, type RemoteGroup } from './remote-discovery.ts';
import type { RemoteNamespacedContent, RemoteResource } from '../controllers/namespace-lifecycle.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A group/version served in process, and whether it comes from a CRD. */
export interface LocalGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly custom: boolean;
}

export interface AggregatorOptions {
  readonly apiServices: ResourceStore;
  /** Every group/version the gateway serves itself, now. */
  readonly localGroupVersions: () => readonly LocalGroupVersion[];
  readonly proxy: ProxySettings;
  readonly trafficDefaults: TrafficContract;
  /** How often each remote APIService is probed (availability and discovery); default 5 s. */
  readonly probeIntervalMs?: number;
  /** How long a probe waits for the backend; default 5 s. */
  readonly probeTimeoutMs?: number;
  readonly warn?: (msg: string) => void;
}

interface Condition {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

const LOCAL_AVAILABLE: Condition = { status: 'True', ...LOCAL_AVAILABLE_WORDS };

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function controllerContext(subresource: string): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-apiserver', subresource, operation: 'update' };
}

export class Aggregator {
  private readonly backends = new Map<string, { signature: string; backend: RemoteBackend }>();
  /** Group/version (`group/version`) -> APIService name, for remote APIServices only. */
  private readonly routes = new Map<string, string>();
  readonly discovery: RemoteDiscovery;
  private handle: { close(): void } | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private syncQueued = false;
  private syncing: Promise<void> | undefined;
  private stopped = false;
  private probing = false;
  /** Moves on whenever the remote set or its discovery changes (discovery views rebuild on it). */
  generation = 0;

  constructor(private readonly opts: AggregatorOptions) {
    this.discovery = new RemoteDiscovery(() => {
      this.generation++;
    });
  }

  private get store(): ResourceStore {
    return this.opts.apiServices;
  }

  private warn(msg: string): void {
    this.opts.warn?.(msg);
  }

  /** Syncs once (local APIServices written, backends built), then follows changes and probes. */
  async start(): Promise<void> {
    const cache = this.store.cache;
    const listed = cache.list();
    await this.sync();
    const follow = (from: number) => {
      this.handle = cache.watch(
        { fromRevision: from },
        {
          onEvent: () => this.requestSync(),
          onError: () => {
            this.handle?.close();
            if (this.stopped) return;
            setTimeout(() => {
              if (this.stopped) return;
              const l = cache.list();
              this.requestSync();
              follow(l.revision);
            }, 100).unref();
          },
        },
      );
    };
    follow(listed.revision);
    void this.probeAll();
    const interval = this.opts.probeIntervalMs ?? 5000;
    this.probeTimer = setInterval(() => void this.probeAll(), interval);
    this.probeTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    this.handle?.close();
    clearInterval(this.probeTimer);
    clearTimeout(this.retryTimer);
    for (const { backend } of this.backends.values()) backend.close();
    this.backends.clear();
    this.routes.clear();
  }

  /** The served set changed (a CRD came or went): local APIServices follow. */
  requestSync(): void {
    if (this.stopped) return;
    if (this.syncing) {
      this.syncQueued = true;
      return;
    }
    this.syncing = this.sync()
      .catch((err) => this.warn(`apiservice sync: ${(err as Error).message}`))
      .finally(() => {
        this.syncing = undefined;
        if (this.syncQueued) {
          this.syncQueued = false;
          this.requestSync();
        }
      });
  }

  private retryTimer: NodeJS.Timeout | undefined;

  private retrySoon(): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.requestSync();
    }, 50);
    this.retryTimer.unref();
  }

  /** Resolves once no sync is running or queued (tests). */
  async idle(): Promise<void> {
    while (this.syncing) await this.syncing;
  }

  private all(): KubeObject[] {
    return this.store.cache.list().entries.map((e) => e.value);
  }

  /** One pass: automanaged APIServices to the served set, Local conditions, backends to the remote set. */
  private async sync(): Promise<void> {
    const existing = new Map(this.all().map((o) => [o.metadata?.name ?? '', o]));
    const desired = new Map<string, KubeObject>();
    for (const gv of this.opts.localGroupVersions()) {
      // kube-aggregator serves its own group and lists no APIService for it.
      if (gv.group === 'apiregistration.k8s.io') continue;
      const name = `${gv.version}.${gv.group}`;
      const p = localPriority(gv.group, gv.version);
      const label = gv.custom || !isKubeGroupVersion(gv.group, gv.version) ? 'true' : 'onstart';
      desired.set(name, {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name, labels: { [AUTOMANAGED_LABEL]: label } },
        // The core group's `group` is empty, which Go's omitempty leaves out.
        spec: { ...(gv.group ? { group: gv.group } : {}), version: gv.version, groupPriorityMinimum: p.group, versionPriority: p.version },
      });
    }
    for (const [name, want] of desired) {
      const have = existing.get(name);
      try {
        if (!have) await this.store.create('', want, controllerContext(''));
        else if (have.metadata?.labels?.[AUTOMANAGED_LABEL] !== undefined && !jsonEqual(have.spec, want.spec)) {
          // kube's autoregister controller puts its spec back; a user-made APIService is left alone.
          await this.store.update('', name, (cur) => ({ ...cur!, spec: want.spec }), controllerContext(''), { allowCreate: false, subresource: '' });
        }
      } catch (err) {
        if (!(isApiError(err) && (err.code === 409 || err.code === 404))) throw err;
        // The watch cache has not seen the store's latest yet: syncing again at once would read the
        // same stale list and fail the same way, a loop of promises that never lets the cache (or
        // anything else) run. Try again once the event loop has turned.
        this.retrySoon();
      }
    }
    for (const [name, have] of existing) {
      if (desired.has(name) || have.metadata?.labels?.[AUTOMANAGED_LABEL] === undefined || have.metadata?.deletionTimestamp) continue;
      // An automanaged APIService whose group/version is no longer served here goes.
      try {
        await this.store.delete('', name, {}, controllerContext(''));
      } catch (err) {
        if (!(isApiError(err) && err.code === 404)) throw err;
      }
    }
    // Local APIServices (no service) are always available.
    for (const obj of this.all()) {
      if (!apiServiceSpec(obj).service) await this.writeAvailable(obj.metadata?.name ?? '', LOCAL_AVAILABLE);
    }
    this.syncBackends();
  }

  /** Backends follow the remote APIServices: built when new or changed, closed when gone. */
  private syncBackends(): void {
    const local = new Set(this.opts.localGroupVersions().map((gv) => `${gv.group}/${gv.version}`));
    const seen = new Set<string>();
    const routes = new Map<string, string>();
    const groups: RemoteGroup[] = [];
    for (const obj of this.all()) {
      const name = obj.metadata?.name ?? '';
      const spec = apiServiceSpec(obj);
      if (!spec.service) continue;
      const gv = `${spec.group}/${spec.version}`;
      // A group/version served in process stays local (kube's handler would prefer the APIService; we never shadow a stored kind).
      if (local.has(gv)) continue;
      seen.add(name);
      const contract = trafficContractOf(obj, this.opts.trafficDefaults, (m) => this.warn(m));
      const signature = JSON.stringify([spec, contract]);
      const cur = this.backends.get(name);
      if (!cur || cur.signature !== signature) {
        const backend = new RemoteBackend(name, spec, contract, this.opts.proxy);
        // A rebuilt backend keeps what is known of its availability until the next probe.
        backend.available = cur ? cur.backend.available : availableCondition(obj)?.status === 'True';
        cur?.backend.close();
        this.backends.set(name, { signature, backend });
      }
      routes.set(gv, name);
      groups.push({ name, spec });
    }
    for (const [name, { backend }] of this.backends) {
      if (seen.has(name)) continue;
      backend.close();
      this.backends.delete(name);
    }
    this.routes.clear();
    for (const [k, v] of routes) this.routes.set(k, v);
    if (this.discovery.setServices(groups)) this.generation++;
    // A new backend is probed at once rather than at the next tick.
    for (const name of seen) if (!this.probedOnce.has(name)) void this.probe(name);
  }

  private readonly probedOnce = new Set<string>();

  /** The backend that serves a request path, when the path belongs to a remote group/version. */
  backendFor(path: string): RemoteBackend | undefined {
    if (this.routes.size === 0) return undefined;
    // A remote group/version's resources, and its OpenAPI v3 document (kube-aggregator proxies both).
    const prefix = path.startsWith('/apis/') ? 6 : path.startsWith('/openapi/v3/apis/') ? 17 : -1;
    if (prefix < 0) return undefined;
    const slash2 = path.indexOf('/', prefix);
    if (slash2 < 0) return undefined;
    const slash3 = path.indexOf('/', slash2 + 1);
    if (prefix === 17 && slash3 >= 0) return undefined;
    const gv = path.slice(prefix, slash3 < 0 ? undefined : slash3);
    const name = this.routes.get(gv);
    return name === undefined ? undefined : this.backends.get(name)?.backend;
  }

  /**
   * The remote side of namespace deletion: the namespaced resources remote discovery lists (those
   * that can be listed and deleted as a collection), and the group/versions it cannot see now
   * (stale or never fetched), worded as client-go's StaleGroupVersionError.
   */
  namespacedContent(): RemoteNamespacedContent {
    const timeoutMs = this.opts.probeTimeoutMs ?? 5000;
    return {
      discover: () => {
        const resources: RemoteResource[] = [];
        const failed: string[] = [];
        for (const e of this.discovery.entries()) {
          const { group, version } = e.spec;
          const gv = `${group}/${version}`;
          if (e.stale || !e.entry) {
            failed.push(`${gv}: stale GroupVersion discovery: ${gv}`);
            continue;
          }
          const list = Array.isArray(e.entry.resources) ? (e.entry.resources as Obj[]) : [];
          for (const r of list) {
            const verbs = Array.isArray(r.verbs) ? r.verbs : [];
            if (r.scope === 'Namespaced' && typeof r.resource === 'string' && verbs.includes('list') && verbs.includes('deletecollection')) resources.push({ group, version, resource: r.resource });
          }
        }
        return { resources, failed };
      },
      deleteAll: async (r, namespace) => {
        const backend = this.backendFor(`/apis/${r.group}/${r.version}/`);
        if (!backend) return 0;
        const path = `/apis/${r.group}/${r.version}/namespaces/${encodeURIComponent(namespace)}/${r.resource}`;
        const del = await backend.fetch(path, { accept: 'application/json' }, timeoutMs, 64 * 1024 * 1024, 'DELETE');
        if ((del.status < 200 || del.status >= 300) && del.status !== 404) throw new Error(`unexpected status ${del.status} deleting ${r.resource}.${r.group}: ${del.body.toString('utf8').slice(0, 200)}`);
        const left = await backend.fetch(path, { accept: 'application/json' }, timeoutMs, 64 * 1024 * 1024);
        if (left.status !== 200) return 0;
        const items = (JSON.parse(left.body.toString('utf8')) as { items?: unknown[] }).items;
        return Array.isArray(items) ? items.length : 0;
      },
    };
  }

  backend(name: string): RemoteBackend | undefined {
    return this.backends.get(name)?.backend;
  }

  /** Probes every remote APIService; never two rounds at once. */
  async probeAll(): Promise<void> {
    if (this.probing || this.stopped) return;
    this.probing = true;
    try {
      await Promise.all([...this.backends.keys()].map((name) => this.probe(name)));
    } finally {
      this.probing = false;
    }
  }

  /** kube's availability check of one APIService, then its discovery refreshed when it answers. */
  private async probe(name: string): Promise<void> {
    const entry = this.backends.get(name);
    if (!entry) return;
    this.probedOnce.add(name);
    const { backend } = entry;
    const spec: APIServiceSpec = backend.spec;
    const svc = spec.service!;
    const timeoutMs = this.opts.probeTimeoutMs ?? 5000;
    let cond: Condition;
    const target = backend.resolve();
    if (target.kind === 'service-not-found') cond = { status: 'False', reason: 'ServiceNotFound', message: `service/${svc.name} in ${JSON.stringify(svc.namespace)} is not present` };
    else if (target.kind === 'unreachable') cond = { status: 'False', reason: target.reason, message: target.message };
    else {
      const host = target.host.includes(':') ? `[${target.host}]` : target.host;
      const url = `https://${host}:${target.port}/apis/${spec.group}/${spec.version}`;
      try {
        const res = await backend.fetch(`/apis/${spec.group}/${spec.version}`, { accept: 'application/json' }, timeoutMs, 64 * 1024 * 1024);
        // Any answer outside 2xx fails the check, as kube-aggregator's availability controller counts it.
        if (res.status < 200 || res.status >= 300) {
          cond = { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: bad status from ${url}: ${res.status}` };
        } else {
          cond = { status: 'True', reason: 'Passed', message: 'all checks passed' };
          await this.discovery.refresh(name, backend, res.body, timeoutMs).catch((err) => this.warn(`discovery of APIService ${name}: ${(err as Error).message}`));
        }
      } catch (err) {
        cond = { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: ${(err as Error).message}` };
      }
    }
    if (this.backends.get(name)?.backend !== backend) return;
    const wasAvailable = backend.available;
    backend.available = cond.status === 'True';
    this.opts.proxy.metrics?.unavailable.set(name, !backend.available);
    if (!backend.available && wasAvailable) this.opts.proxy.metrics?.markUnavailable(name, cond.reason);
    if (!backend.available) this.discovery.markStale(name);
    try {
      await this.writeAvailable(name, cond);
    } catch (err) {
      if (!(isApiError(err) && (err.code === 404 || err.code === 409))) this.warn(`apiservice ${name} status: ${(err as Error).message}`);
    }
  }

  /** Writes the Available condition when it differs; the transition time moves only with the status. */
  private async writeAvailable(name: string, cond: Condition): Promise<void> {
    const cur = this.store.cache.get(this.store.key('', name))?.value;
    if (!cur) return;
    const old = availableCondition(cur);
    if (old && old.status === cond.status && old.reason === cond.reason && old.message === cond.message) return;
    await this.store.update(
      '',
      name,
      (current) => {
        if (!current) throw new Error('gone');
        const status = (isObj(current.status) ? structuredClone(current.status) : {}) as Obj;
        const conds = (Array.isArray(status.conditions) ? status.conditions : []).filter(isObj);
        const prev = conds.find((c) => c.type === 'Available');
        const lastTransitionTime = prev && prev.status === cond.status && typeof prev.lastTransitionTime === 'string' ? prev.lastTransitionTime : rfc3339(new Date());
        const next = { type: 'Available', status: cond.status, lastTransitionTime, reason: cond.reason, message: cond.message };
        status.conditions = [...conds.filter((c) => c.type !== 'Available'), next];
        return { ...current, status };
      },
      controllerContext('status'),
      { allowCreate: false, subresource: 'status' },
    );
  }
}
