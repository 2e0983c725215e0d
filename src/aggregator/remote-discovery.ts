/**
 * What the remote API services publish for discovery, kept in the gateway: fetched in the
 * background by the availability probes (with ETags, within the probe timeout), never on a
 * client's request path. The last good copy of a group/version is kept when its backend fails
 * and served marked `freshness: Stale` (aggregated discovery v2), so `/apis` answers at once and
 * whole whatever the backends do.
 */
import { aggregatedDiscoveryMediaType } from '../discovery/discovery.ts';
import type { APIServiceSpec } from './apiservice.ts';
import type { RemoteBackend } from './remote-backend.ts';

/** One remote APIService as discovery sees it. */
export interface RemoteGroup {
  readonly name: string;
  readonly spec: APIServiceSpec;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Known {
  spec: APIServiceSpec;
  /** The version's entry of the backend's aggregated discovery (apidiscovery.k8s.io APIVersionDiscovery), without freshness. */
  entry?: Obj;
  etag?: string;
  stale: boolean;
  /** The backend's `/openapi/v3` entry for this group/version (`/openapi/v3/apis/<g>/<v>?hash=...`), when it publishes one. */
  openapiV3?: string;
  /** The backend's last good `/openapi/v2` document and its ETag (kept while the backend fails). */
  openapiV2?: Obj;
  openapiV2ETag?: string;
}

export class RemoteDiscovery {
  private readonly known = new Map<string, Known>();

  constructor(private readonly changed: () => void) {}

  /** The remote APIServices now; true when the set or a spec changed. */
  setServices(groups: readonly RemoteGroup[]): boolean {
    let changed = false;
    const names = new Set(groups.map((g) => g.name));
    for (const name of [...this.known.keys()]) {
      if (!names.has(name)) {
        this.known.delete(name);
        changed = true;
      }
    }
    for (const g of groups) {
      const k = this.known.get(g.name);
      if (!k) {
        this.known.set(g.name, { spec: g.spec, stale: true });
        changed = true;
      } else if (JSON.stringify(k.spec) !== JSON.stringify(g.spec)) {
        // Another group or version: what was fetched no longer describes it.
        this.known.set(g.name, { spec: g.spec, stale: true });
        changed = true;
      }
    }
    return changed;
  }

  markStale(name: string): void {
    const k = this.known.get(name);
    if (!k || k.stale) return;
    k.stale = true;
    this.changed();
  }

  /**
   * Refreshes one APIService's entry: the backend's aggregated `/apis` (If-None-Match the last
   * ETag), or, from a backend without aggregated discovery, its APIResourceList (`legacyBody`,
   * just fetched by the availability probe) converted.
   */
  async refresh(name: string, backend: RemoteBackend, legacyBody: Buffer, timeoutMs: number): Promise<void> {
    const k = this.known.get(name);
    if (!k) return;
    const headers: Record<string, string> = { accept: `${aggregatedDiscoveryMediaType},application/json;q=0.9` };
    if (k.etag && k.entry) headers['if-none-match'] = k.etag;
    const res = await backend.fetch('/apis', headers, timeoutMs);
    if (this.known.get(name) !== k) return;
    const v2Changed = await this.refreshOpenApiV2(k, backend, timeoutMs);
    if (res.status === 304 && k.entry) {
      if (k.stale || v2Changed) {
        k.stale = false;
        this.changed();
      }
      return;
    }
    // The OpenAPI v3 entry is refreshed with the discovery document (a changed API changes both).
    const openapiV3 = await this.openapiV3Entry(backend, k.spec, timeoutMs);
    let entry: Obj | undefined;
    const contentType = String(res.headers['content-type'] ?? '');
    if (res.status === 200 && contentType.includes('apidiscovery.k8s.io')) {
      const doc = JSON.parse(res.body.toString('utf8')) as Obj;
      const items = Array.isArray(doc.items) ? doc.items.filter(isObj) : [];
      const group = items.find((i) => isObj(i.metadata) && (i.metadata.name ?? '') === k.spec.group);
      const versions = group && Array.isArray(group.versions) ? group.versions.filter(isObj) : [];
      entry = versions.find((v) => v.version === k.spec.version);
    }
    entry ??= fromResourceList(k.spec.version, JSON.parse(legacyBody.toString('utf8')) as Obj);
    const { freshness: _f, ...clean } = entry;
    const etag = typeof res.headers.etag === 'string' && res.status === 200 && contentType.includes('apidiscovery.k8s.io') ? res.headers.etag : undefined;
    const same = k.entry !== undefined && JSON.stringify(k.entry) === JSON.stringify(clean) && !k.stale && k.openapiV3 === openapiV3 && !v2Changed;
    k.entry = clean;
    k.openapiV3 = openapiV3;
    k.etag = etag;
    k.stale = false;
    if (!same) this.changed();
  }

  /**
   * Fetches the backend's `/openapi/v2` (If-None-Match its last ETag); true when a new document
   * was taken. A failure or an unusable answer keeps the last good copy.
   */
  private async refreshOpenApiV2(k: Known, backend: RemoteBackend, timeoutMs: number): Promise<boolean> {
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (k.openapiV2 && k.openapiV2ETag) headers['if-none-match'] = k.openapiV2ETag;
      const res = await backend.fetch('/openapi/v2', headers, timeoutMs, 64 * 1024 * 1024);
      if (res.status !== 200) return false;
      const doc = JSON.parse(res.body.toString('utf8')) as unknown;
      if (!isObj(doc) || (doc.swagger !== '2.0' && !isObj(doc.paths))) return false;
      const etag = typeof res.headers.etag === 'string' ? res.headers.etag : undefined;
      const same = k.openapiV2 !== undefined && JSON.stringify(k.openapiV2) === JSON.stringify(doc);
      k.openapiV2 = doc;
      if (etag) k.openapiV2ETag = etag;
      else delete k.openapiV2ETag;
      return !same;
    } catch {
      return false;
    }
  }

  /** The last good `/openapi/v2` documents of the remote APIServices, in kube-aggregator's merge order (highest priority first). */
  openapiV2Documents(): Obj[] {
    return [...this.known.values()]
      .filter((k) => k.openapiV2 !== undefined)
      .sort((a, b) => b.spec.groupPriorityMinimum - a.spec.groupPriorityMinimum || b.spec.versionPriority - a.spec.versionPriority)
      .map((k) => k.openapiV2!);
  }

  /** The backend's `/openapi/v3` index entry for the group/version, or undefined (no OpenAPI v3, or not listed). */
  private async openapiV3Entry(backend: RemoteBackend, spec: APIServiceSpec, timeoutMs: number): Promise<string | undefined> {
    try {
      const res = await backend.fetch('/openapi/v3', { accept: 'application/json' }, timeoutMs);
      if (res.status !== 200) return undefined;
      const index = JSON.parse(res.body.toString('utf8')) as { paths?: Record<string, { serverRelativeURL?: unknown }> };
      const url = index.paths?.[`apis/${spec.group}/${spec.version}`]?.serverRelativeURL;
      return typeof url === 'string' && url.startsWith(`/openapi/v3/apis/${spec.group}/${spec.version}`) ? url : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every remote APIService with what is known of it. */
  entries(): ReadonlyArray<{ readonly name: string; readonly spec: APIServiceSpec; readonly entry?: Obj; readonly stale: boolean; readonly openapiV3?: string }> {
    return [...this.known].map(([name, k]) => ({ name, spec: k.spec, ...(k.entry ? { entry: k.entry } : {}), stale: k.stale, ...(k.openapiV3 ? { openapiV3: k.openapiV3 } : {}) }));
  }
}

/** An APIResourceList as an aggregated APIVersionDiscovery entry (for backends without aggregated discovery). */
function fromResourceList(version: string, list: Obj): Obj {
  const all = Array.isArray(list.resources) ? list.resources.filter(isObj) : [];
  const kindOf = (r: Obj) => ({ group: typeof r.group === 'string' ? r.group : '', version: typeof r.version === 'string' ? r.version : '', kind: r.kind ?? '' });
  const resources = all
    .filter((r) => typeof r.name === 'string' && !r.name.includes('/'))
    .map((r) => {
      const subs = all
        .filter((s) => typeof s.name === 'string' && s.name.startsWith(`${r.name as string}/`))
        .map((s) => ({ subresource: (s.name as string).split('/')[1], responseKind: kindOf(s), verbs: s.verbs ?? [] }));
      return {
        resource: r.name,
        responseKind: kindOf(r),
        scope: r.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: r.singularName ?? '',
        verbs: r.verbs ?? [],
        ...(Array.isArray(r.shortNames) && r.shortNames.length ? { shortNames: r.shortNames } : {}),
        ...(Array.isArray(r.categories) && r.categories.length ? { categories: r.categories } : {}),
        ...(subs.length ? { subresources: subs } : {}),
      };
    });
  return { version, resources };
}
