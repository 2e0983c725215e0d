/**
 * Discovery documents: the legacy per-group documents (`/api`, `/apis`, `/api/v1`,
 * `/apis/<group>/<version>`) and aggregated discovery (apidiscovery.k8s.io v2 and v2beta1),
 * built once from the served resource types and rebuilt when the set changes. Shapes, orders and
 * hashes are kube-apiserver's: groups by the aggregator's priorities, resources by name, verbs
 * and subresources from the route table (so discovery never advertises what the router refuses).
 */
import { createHash } from 'node:crypto';
import { apiVersionOf, isStorageType, type ResourceType } from '../api/types.ts';
import { parseAccept } from '../codec/negotiate.ts';
import { resourceVerbs, subresourcesOf } from '../api/resource-verbs.ts';

export const aggregatedDiscoveryMediaType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

export type AggregatedVersion = 'v2' | 'v2beta1';

/**
 * kube-aggregator's group priorities (DefaultGenericAPIServicePriorities and kube-apiserver's
 * own table): `/apis` lists groups by descending priority, then by name. Groups not listed
 * (custom resources) get the priority kube gives CRD groups.
 */
const groupPriority: Readonly<Record<string, number>> = {
  'apiregistration.k8s.io': 18000,
  apps: 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  autoscaling: 17500,
  batch: 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'internal.apiserver.k8s.io': 16000,
  'resource.k8s.io': 15900,
  'storagemigration.k8s.io': 15800,
};
const customGroupPriority = 1000;

/**
 * A resource served without storage (the access reviews): its own verbs, no storage version hash,
 * no subresources.
 */
export interface VirtualResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
}

type Served = ResourceType | VirtualResource;
const isVirtual = (r: Served): r is VirtualResource => 'verbs' in r;

interface GroupVersions {
  readonly group: string;
  readonly versions: string[];
  readonly byVersion: Map<string, Served[]>;
}

function byName<T>(key: (x: T) => string): (a: T, b: T) => number {
  return (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

function groupTypes(types: readonly Served[]): GroupVersions[] {
  const groups = new Map<string, GroupVersions>();
  for (const rt of types) {
    let g = groups.get(rt.group);
    if (!g) groups.set(rt.group, (g = { group: rt.group, versions: [], byVersion: new Map() }));
    if (!g.byVersion.has(rt.version)) {
      g.versions.push(rt.version);
      g.byVersion.set(rt.version, []);
    }
    g.byVersion.get(rt.version)!.push(rt);
  }
  for (const g of groups.values()) for (const rts of g.byVersion.values()) rts.sort(byName((rt) => rt.resource));
  return [...groups.values()].sort(
    (a, b) => (groupPriority[b.group] ?? customGroupPriority) - (groupPriority[a.group] ?? customGroupPriority) || byName<GroupVersions>((g) => g.group)(a, b),
  );
}

/**
 * kube's discovery.StorageVersionHash: base64 of the first 8 bytes of the SHA-256 of
 * `group/version/kind` of the version the resource is stored in (a kind served in two groups,
 * like events.k8s.io Events, hashes the stored core Event).
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  const key = `${group}/${version}/${kind}`;
  let hash = storageVersionHashes.get(key);
  if (hash === undefined) {
    hash = createHash('sha256').update(key).digest().subarray(0, 8).toString('base64');
    // Discovery is rebuilt on every change of the served types: each hash is computed once.
    if (storageVersionHashes.size > 100_000) storageVersionHashes.clear();
    storageVersionHashes.set(key, hash);
  }
  return hash;
}
const storageVersionHashes = new Map<string, string>();

/** What discovery holds for one group: rebuilt only when the group's own types change. */
interface GroupPieces {
  /** The group's types, by identity and in order, and their storage version hashes. */
  readonly members: readonly Served[];
  readonly hashes: string;
  /** The group's item of aggregated discovery, as JSON text (the same in v2 and v2beta1). */
  readonly aggregatedItem: string;
  readonly resourceLists: ReadonlyMap<string, object>;
}

/**
 * The documents, computed once per set of served types. Built from the previous documents, each
 * group's pieces are reused while its types are the same objects, so adding one CRD builds only
 * its group's pieces (and re-joins the serialized aggregated items).
 */
export class DiscoveryDocuments {
  readonly apiVersions: object;
  readonly apiGroupList: object;
  /** The discovery paths kube's root index (`GET /`) lists: the roots, each group and group version. */
  readonly paths: readonly string[];
  private readonly aggregatedBytes = new Map<string, { body: Buffer; etag: string }>();
  private readonly pieces = new Map<string, GroupPieces>();
  private readonly groups = new Map<string, object>();
  private readonly coreGroup: string | undefined;
  private readonly namedGroups: readonly string[];

  constructor(types: readonly ResourceType[], serverAddress: string, virtual: readonly VirtualResource[] = [], previous?: DiscoveryDocuments) {
    const grouped = groupTypes([...types, ...virtual]);
    const core = grouped.find((g) => g.group === '');
    const named = grouped.filter((g) => g.group !== '');
    // The type each storage prefix is kept as: the one stored in its own version.
    const stored = new Map<string, ResourceType>();
    for (const rt of types) if (isStorageType(rt)) stored.set(rt.storagePrefix, rt);
    const hashOf = (rt: ResourceType): string => {
      const s = stored.get(rt.storagePrefix) ?? rt;
      return storageVersionHash(s.group, s.version, s.kind);
    };
    this.apiVersions = {
      kind: 'APIVersions',
      versions: core?.versions ?? [],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    };
    const groupDoc = (g: GroupVersions) => ({
      name: g.group,
      versions: g.versions.map((v) => ({ groupVersion: `${g.group}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${g.group}/${g.versions[0]}`, version: g.versions[0] },
    });
    this.apiGroupList = { kind: 'APIGroupList', apiVersion: 'v1', groups: named.map(groupDoc) };
    this.paths = [
      '/api',
      ...(core?.versions ?? []).map((v) => `/api/${v}`),
      '/apis',
      '/apis/',
      ...named.flatMap((g) => [`/apis/${g.group}`, ...g.versions.map((v) => `/apis/${g.group}/${v}`)]),
    ];
    for (const g of named) this.groups.set(g.group, { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) });
    for (const g of grouped) {
      const members = g.versions.flatMap((v) => g.byVersion.get(v)!);
      const hashes = members.map((rt) => (isVirtual(rt) ? '' : hashOf(rt))).join(',');
      const old = previous?.pieces.get(g.group);
      const same = old && old.hashes === hashes && old.members.length === members.length && old.members.every((m, i) => m === members[i]);
      this.pieces.set(g.group, same ? old : buildGroupPieces(g, members, hashes, hashOf));
    }
    this.coreGroup = core ? '' : undefined;
    this.namedGroups = named.map((g) => g.group);
  }

  /** `/api` or `/apis` as an aggregated discovery document, serialized once. */
  aggregated(root: 'api' | 'apis', version: AggregatedVersion): Buffer {
    return this.aggregatedDoc(root, version).body;
  }

  /** The quoted ETag of an aggregated document (kube's: the SHA-512 of its bytes, upper-case hex), computed once. */
  aggregatedETag(root: 'api' | 'apis', version: AggregatedVersion): string {
    return this.aggregatedDoc(root, version).etag;
  }

  private aggregatedDoc(root: 'api' | 'apis', version: AggregatedVersion): { body: Buffer; etag: string } {
    const key = `${root}/${version}`;
    let doc = this.aggregatedBytes.get(key);
    if (!doc) {
      const groups = root === 'api' ? (this.coreGroup === undefined ? [] : [this.coreGroup]) : this.namedGroups;
      const items = groups.map((g) => this.pieces.get(g)!.aggregatedItem).join(',');
      const body = Buffer.from(`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/${version}","metadata":{},"items":[${items}]}`);
      doc = { body, etag: `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"` };
      this.aggregatedBytes.set(key, doc);
    }
    return doc;
  }

  /** `/api/v1` or `/apis/<group>/<version>`; undefined when not served. */
  resourceList(group: string, version: string): object | undefined {
    return this.pieces.get(group)?.resourceLists.get(version);
  }

  /** `/apis/<group>`; undefined when not served. */
  group(group: string): object | undefined {
    return this.groups.get(group);
  }
}

function buildGroupPieces(g: GroupVersions, members: readonly Served[], hashes: string, hashOf: (rt: ResourceType) => string): GroupPieces {
  const resourceLists = new Map<string, object>();
  for (const [v, rts] of g.byVersion) {
    const resources = rts.flatMap((rt) => (isVirtual(rt) ? [virtualLegacyResource(rt)] : legacyResources(rt, hashOf(rt))));
    // kube's core group/version list carries no apiVersion (its handler writes the object untyped).
    resourceLists.set(v, g.group ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${g.group}/${v}`, resources } : { kind: 'APIResourceList', groupVersion: v, resources });
  }
  const item = {
    metadata: g.group ? { name: g.group, creationTimestamp: null } : { creationTimestamp: null },
    versions: g.versions.map((v) => ({ version: v, resources: g.byVersion.get(v)!.map((r) => (isVirtual(r) ? virtualAggregatedResource(r) : aggregatedResource(r))), freshness: 'Current' })),
  };
  return { members, hashes, aggregatedItem: JSON.stringify(item), resourceLists };
}

function virtualLegacyResource(r: VirtualResource): object {
  return { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs };
}

function virtualAggregatedResource(r: VirtualResource): object {
  return { resource: r.resource, responseKind: { group: '', version: '', kind: r.kind }, scope: r.namespaced ? 'Namespaced' : 'Cluster', singularResource: r.singular, verbs: r.verbs };
}

function legacyResources(rt: ResourceType, hash: string): object[] {
  const main = {
    name: rt.resource,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: resourceVerbs(rt),
    ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
    ...(rt.categories.length ? { categories: rt.categories } : {}),
    // Never-stored kinds have no storage version (kube lists none for TokenReview).
    ...(rt.virtual ? {} : { storageVersionHash: hash }),
  };
  const subs = subresourcesOf(rt).map((s) => ({
    name: `${rt.resource}/${s.name}`,
    singularName: '',
    namespaced: rt.namespaced,
    ...(s.responseKind ? s.responseKind : {}),
    kind: s.responseKind?.kind ?? rt.kind,
    verbs: s.verbs,
  }));
  return [main, ...subs];
}

/** A response kind in the resource's own group/version is written with empty group and version, as kube does. */
function aggregatedResource(rt: ResourceType): object {
  const responseKind = { group: '', version: '', kind: rt.kind };
  const subresources = subresourcesOf(rt).map((s) => ({ subresource: s.name, responseKind: s.responseKind ?? responseKind, verbs: s.verbs }));
  return {
    resource: rt.resource,
    responseKind,
    scope: rt.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: rt.singular,
    verbs: resourceVerbs(rt),
    ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
    ...(rt.categories.length ? { categories: rt.categories } : {}),
    ...(subresources.length > 0 ? { subresources } : {}),
  };
}

/**
 * Which aggregated discovery version an Accept header picks, if any: as kube's wrapper, the
 * first clause (in negotiation order) that names a servable representation decides; a clause
 * asking for an aggregated version kube does not serve is skipped like any unservable clause.
 */
export function aggregatedDiscoveryVersion(accept: string): AggregatedVersion | undefined {
  for (const c of parseAccept(accept)) {
    const p = c.params;
    const mediaOk =
      (c.type === 'application' && (c.subtype === 'json' || c.subtype === 'yaml' || c.subtype === 'vnd.kubernetes.protobuf' || c.subtype === '*')) ||
      (c.type === '*' && c.subtype === '*');
    if (!mediaOk) continue;
    const converting = 'as' in p || 'g' in p || 'v' in p;
    if (!converting) return undefined;
    // Aggregated documents are written as JSON only.
    if (c.subtype !== 'json') continue;
    if (p['g'] === 'apidiscovery.k8s.io' && p['as'] === 'APIGroupDiscoveryList' && (p['v'] === 'v2' || p['v'] === 'v2beta1')) return p['v'];
  }
  return undefined;
}

export { apiVersionOf };

/** What the discovery handlers read: these documents, or a view merging them with remote groups (src/aggregator/discovery-view.ts). */
export type DiscoverySource = Pick<DiscoveryDocuments, 'apiVersions' | 'apiGroupList' | 'paths' | 'aggregated' | 'aggregatedETag' | 'resourceList' | 'group'>;
