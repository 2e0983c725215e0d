/**
 * Discovery documents: the legacy per-group documents (`/api`, `/apis`, `/api/v1`,
 * `/apis/<group>/<version>`) and aggregated discovery (apidiscovery.k8s.io/v2), built once from
 * the served resource types and rebuilt when the set changes.
 */
import { apiVersionOf, type ResourceType } from '../api/types.ts';

export const aggregatedDiscoveryMediaType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const aggregatedV2beta1MediaType = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

const resourceVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const statusVerbs = ['get', 'patch', 'update'];

/**
 * A resource served without storage (access reviews, token reviews): create-only or otherwise
 * limited verbs, no storage version hash, nothing in lists of stored kinds.
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
  return [...groups.values()];
}

function storageVersionHash(rt: ResourceType): string {
  // A stable short hash of group/version/kind, as clients only compare it for equality.
  let h = 0x811c9dc5;
  for (const ch of `${rt.group}/${rt.version}/${rt.kind}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return Buffer.from(h.toString(16).padStart(8, '0')).toString('base64').slice(0, 11);
}

/** The documents, computed once per set of served types. */
export class DiscoveryDocuments {
  readonly apiVersions: object;
  readonly apiGroupList: object;
  readonly aggregatedApis: object;
  readonly aggregatedGroups: object;
  private readonly resourceLists = new Map<string, object>();
  private readonly groups = new Map<string, object>();

  constructor(types: readonly ResourceType[], serverAddress: string, virtual: readonly VirtualResource[] = []) {
    const grouped = groupTypes([...types, ...virtual]);
    const core = grouped.find((g) => g.group === '');
    const named = grouped.filter((g) => g.group !== '');
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
    for (const g of named) this.groups.set(g.group, { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) });
    for (const g of grouped) {
      for (const [v, rts] of g.byVersion) {
        this.resourceLists.set(`${g.group}/${v}`, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: g.group ? `${g.group}/${v}` : v,
          resources: rts.flatMap((rt) => legacyResources(rt)),
        });
      }
    }
    const aggregated = (gs: GroupVersions[]) => ({
      kind: 'APIGroupDiscoveryList',
      apiVersion: 'apidiscovery.k8s.io/v2',
      metadata: {},
      items: gs.map((g) => ({
        metadata: g.group ? { name: g.group } : {},
        versions: g.versions.map((v) => ({ version: v, resources: g.byVersion.get(v)!.map(aggregatedResource), freshness: 'Current' })),
      })),
    });
    this.aggregatedApis = aggregated(core ? [core] : []);
    this.aggregatedGroups = aggregated(named);
  }

  /** `/api/v1` or `/apis/<group>/<version>`; undefined when not served. */
  resourceList(group: string, version: string): object | undefined {
    return this.resourceLists.get(`${group}/${version}`);
  }

  /** `/apis/<group>`; undefined when not served. */
  group(group: string): object | undefined {
    return this.groups.get(group);
  }
}

function legacyResources(r: Served): object[] {
  if (isVirtual(r)) return [{ name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs }];
  const rt = r;
  const main = {
    name: rt.resource,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: resourceVerbs,
    ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
    ...(rt.categories.length ? { categories: rt.categories } : {}),
    storageVersionHash: storageVersionHash(rt),
  };
  const out: object[] = [main];
  if (rt.hasStatus) out.push({ name: `${rt.resource}/status`, singularName: '', namespaced: rt.namespaced, kind: rt.kind, verbs: statusVerbs });
  if (rt.group === '' && rt.resource === 'namespaces') out.push({ name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
  return out;
}

function aggregatedResource(r: Served): object {
  const responseKind = { group: r.group, version: r.version, kind: r.kind };
  if (isVirtual(r)) return { resource: r.resource, responseKind, scope: r.namespaced ? 'Namespaced' : 'Cluster', singularResource: r.singular, verbs: r.verbs };
  const rt = r;
  return {
    resource: rt.resource,
    responseKind,
    scope: rt.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: rt.singular,
    verbs: resourceVerbs,
    ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
    ...(rt.categories.length ? { categories: rt.categories } : {}),
    ...(subresourcesOf(rt, responseKind).length > 0 ? { subresources: subresourcesOf(rt, responseKind) } : {}),
  };
}

/** Whether an Accept header asks for aggregated discovery, and in which version. */
export function wantsAggregated(accept: string): string | undefined {
  for (const part of accept.split(',')) {
    const p = part.replace(/\s+/g, '');
    if (p.includes('g=apidiscovery.k8s.io') && p.includes('as=APIGroupDiscoveryList')) {
      if (p.includes('v=v2beta1')) return aggregatedV2beta1MediaType;
      if (p.includes('v=v2')) return aggregatedDiscoveryMediaType;
    }
    if (p.startsWith('application/json') && !p.includes('as=')) return undefined;
  }
  return undefined;
}

export { apiVersionOf };

function subresourcesOf(rt: ResourceType, responseKind: object): object[] {
  const out: object[] = [];
  if (rt.hasStatus) out.push({ subresource: 'status', responseKind, verbs: statusVerbs });
  if (rt.group === '' && rt.resource === 'namespaces') out.push({ subresource: 'finalize', responseKind, verbs: ['update'] });
  return out;
}
