/**
 * The server's registry of served resource types and their stores, looked up by the request info.
 */
import type { ResourceType } from '../api/types.ts';
import type { ResourceStore } from './resource-store.ts';

export interface ServedResource {
  readonly rt: ResourceType;
  readonly store: ResourceStore;
}

/**
 * Group/version -> resource -> store. Built-in kinds are added at start; custom resources come
 * and go while the server runs, and every change moves `generation` on, so that what is derived
 * from the catalog (route tables, discovery, OpenAPI) knows to rebuild.
 */
export class ResourceCatalog {
  private readonly byGroupVersion = new Map<string, Map<string, ServedResource>>();
  private readonly listeners: Array<() => void> = [];
  /** Moves on with every add and remove. */
  generation = 0;
  private allCache: { readonly generation: number; readonly served: readonly ServedResource[] } | undefined;

  /** Calls `fn` after every change (after `generation` moved on). */
  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  private changed(): void {
    this.generation++;
    for (const fn of this.listeners) fn();
  }

  /** Stops serving one resource; returns what was served. */
  remove(group: string, version: string, resource: string): ServedResource | undefined {
    const gv = `${group}/${version}`;
    const m = this.byGroupVersion.get(gv);
    const served = m?.get(resource);
    if (!m || !served) return undefined;
    m.delete(resource);
    if (m.size === 0) this.byGroupVersion.delete(gv);
    this.changed();
    return served;
  }

  add(served: ServedResource): void {
    const gv = `${served.rt.group}/${served.rt.version}`;
    let m = this.byGroupVersion.get(gv);
    if (!m) this.byGroupVersion.set(gv, (m = new Map()));
    m.set(served.rt.resource, served);
    this.changed();
  }

  /** The resources of one group/version, or undefined when the group/version is not served. */
  groupVersion(group: string, version: string): ReadonlyMap<string, ServedResource> | undefined {
    return this.byGroupVersion.get(`${group}/${version}`);
  }

  lookup(group: string, version: string, resource: string): ServedResource | undefined {
    return this.byGroupVersion.get(`${group}/${version}`)?.get(resource);
  }

  /** Every served resource; built once per generation (admission asks on every write). */
  all(): readonly ServedResource[] {
    if (this.allCache?.generation !== this.generation) {
      this.allCache = { generation: this.generation, served: [...this.byGroupVersion.values()].flatMap((m) => [...m.values()]) };
    }
    return this.allCache.served;
  }

  types(): ResourceType[] {
    return this.all().map((s) => s.rt);
  }
}
