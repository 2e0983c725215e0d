/**
 * Discovery as clients see it: the documents of the groups served in process (src/discovery)
 * merged with the remote APIServices', in kube-aggregator's order (groupPriorityMinimum
 * descending, then group name; inside a group versionPriority descending, then kube's version
 * order). Remote groups are listed from their APIService objects whether or not the backend
 * answers, as kube does; in aggregated discovery a remote version carries the last resources its
 * backend published, `freshness: Stale` while the backend is unavailable (or never answered: then
 * without resources, as kube writes it). Built once per change of either side, never per request.
 */
import { createHash } from 'node:crypto';
import type { DiscoveryDocuments, AggregatedVersion, DiscoverySource } from '../discovery/discovery.ts';
import { compareKubeVersions, localPriority } from './priorities.ts';
import type { RemoteDiscovery } from './remote-discovery.ts';

export type { DiscoverySource };

type Obj = Record<string, unknown>;

interface VersionEntry {
  readonly version: string;
  readonly priority: number;
  /** The aggregated discovery entry (with freshness). */
  readonly aggregated: Obj;
}

interface GroupEntry {
  readonly name: string;
  priority: number;
  readonly versions: VersionEntry[];
}

function byPriority(a: { priority: number; name: string }, b: { priority: number; name: string }): number {
  return b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

export class MergedDiscovery implements DiscoverySource {
  readonly apiVersions: object;
  readonly apiGroupList: object;
  readonly paths: readonly string[];
  private readonly groups = new Map<string, object>();
  private readonly aggregatedBytes = new Map<AggregatedVersion, Buffer>();
  private readonly aggregatedETags = new Map<AggregatedVersion, string>();

  constructor(
    private readonly local: DiscoveryDocuments,
    remote: RemoteDiscovery,
  ) {
    this.apiVersions = local.apiVersions;
    const byGroup = new Map<string, GroupEntry>();
    // Local groups, with their versions as the local documents order them.
    const localAggregated = JSON.parse(local.aggregated('apis', 'v2').toString('utf8')) as { items: Obj[] };
    for (const item of localAggregated.items) {
      const name = String((item.metadata as Obj).name ?? '');
      const versions = (item.versions as Obj[]).map((v) => ({ version: String(v.version), priority: localPriority(name, String(v.version)).version, aggregated: v }));
      byGroup.set(name, { name, priority: localPriority(name, versions[0]?.version ?? '').group, versions });
    }
    for (const r of remote.entries()) {
      const { group, version, groupPriorityMinimum, versionPriority } = r.spec;
      let g = byGroup.get(group);
      if (!g) byGroup.set(group, (g = { name: group, priority: groupPriorityMinimum, versions: [] }));
      // A group's priority is the highest any of its APIServices asks for.
      g.priority = Math.max(g.priority, groupPriorityMinimum);
      if (g.versions.some((v) => v.version === version)) continue;
      const aggregated = r.entry ? { ...r.entry, version, freshness: r.stale ? 'Stale' : 'Current' } : { version, freshness: 'Stale' };
      g.versions.push({ version, priority: versionPriority, aggregated });
    }
    const sorted = [...byGroup.values()].sort(byPriority);
    for (const g of sorted) g.versions.sort((a, b) => b.priority - a.priority || compareKubeVersions(a.version, b.version));
    const groupDoc = (g: GroupEntry) => ({
      name: g.name,
      versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v.version}`, version: v.version })),
      preferredVersion: { groupVersion: `${g.name}/${g.versions[0]!.version}`, version: g.versions[0]!.version },
    });
    this.apiGroupList = { kind: 'APIGroupList', apiVersion: 'v1', groups: sorted.map(groupDoc) };
    for (const g of sorted) this.groups.set(g.name, { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) });
    const localPaths = local.paths.filter((p) => !(p.startsWith('/apis/') && p.length > 6));
    this.paths = [...localPaths, ...sorted.flatMap((g) => [`/apis/${g.name}`, ...g.versions.map((v) => `/apis/${g.name}/${v.version}`)])];
    for (const version of ['v2', 'v2beta1'] as const) {
      const doc = {
        kind: 'APIGroupDiscoveryList',
        apiVersion: `apidiscovery.k8s.io/${version}`,
        metadata: {},
        items: sorted.map((g) => ({ metadata: { name: g.name, creationTimestamp: null }, versions: g.versions.map((v) => v.aggregated) })),
      };
      this.aggregatedBytes.set(version, Buffer.from(JSON.stringify(doc)));
    }
  }

  aggregated(root: 'api' | 'apis', version: AggregatedVersion): Buffer {
    return root === 'api' ? this.local.aggregated('api', version) : this.aggregatedBytes.get(version)!;
  }

  /** As the local documents' (kube's: the SHA-512 of the bytes, upper-case hex), computed once per view. */
  aggregatedETag(root: 'api' | 'apis', version: AggregatedVersion): string {
    if (root === 'api') return this.local.aggregatedETag('api', version);
    let etag = this.aggregatedETags.get(version);
    if (etag === undefined) {
      etag = `"${createHash('sha512').update(this.aggregated('apis', version)).digest('hex').toUpperCase()}"`;
      this.aggregatedETags.set(version, etag);
    }
    return etag;
  }

  resourceList(group: string, version: string): object | undefined {
    return this.local.resourceList(group, version);
  }

  group(group: string): object | undefined {
    return this.groups.get(group);
  }
}
