/**
 * The server's registry of served resource types and their stores, looked up by the request info.
 */
import type { ResourceType } from '../api/types.ts';
import type { ResourceStore } from '../registry/resource-store.ts';

export interface ServedResource {
  readonly rt: ResourceType;
  readonly store: ResourceStore;
}

/** Group/version -> resource -> store. Built once at start (CRDs will add to it later). */
export class ResourceCatalog {
  private readonly byGroupVersion = new Map<string, Map<string, ServedResource>>();

  add(served: ServedResource): void {
    const gv = `${served.rt.group}/${served.rt.version}`;
    let m = this.byGroupVersion.get(gv);
    if (!m) this.byGroupVersion.set(gv, (m = new Map()));
    m.set(served.rt.resource, served);
  }

  /** The resources of one group/version, or undefined when the group/version is not served. */
  groupVersion(group: string, version: string): ReadonlyMap<string, ServedResource> | undefined {
    return this.byGroupVersion.get(`${group}/${version}`);
  }

  lookup(group: string, version: string, resource: string): ServedResource | undefined {
    return this.byGroupVersion.get(`${group}/${version}`)?.get(resource);
  }

  all(): ServedResource[] {
    return [...this.byGroupVersion.values()].flatMap((m) => [...m.values()]);
  }

  types(): ResourceType[] {
    return this.all().map((s) => s.rt);
  }
}
