/**
 * The ValidatingAdmissionPolicy plugin over this server's watch caches: policies, bindings,
 * parameter objects of any served kind, and namespaces are all read from memory.
 */
import type { KubeObject } from '../../api/types.ts';
import { isApiError } from '../../api/status-errors.ts';
import type { CachedEntry } from '../../storage/watch-cache.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import type { AdmissionPluginDeps } from '../chain.ts';
import type { AdmissionPlugin } from '../types.ts';
import { ParamsNotSynced, ValidatingAdmissionPolicyPlugin, type ListedObject, type ParamSource } from './plugin.ts';
import { PolicyStatusController } from './status-controller.ts';
import { convertEquivalent } from '../equivalent-conversion.ts';

/** The kind of a custom resource's scale subresource, whatever the version. */
const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

export { ValidatingAdmissionPolicyPlugin } from './plugin.ts';

const GROUP = 'admissionregistration.k8s.io';

/** Decodable entries only: a corrupt stored policy is skipped (kube's informer never sees it). */
function listed(entries: readonly CachedEntry<KubeObject>[]): ListedObject[] {
  const out: ListedObject[] = [];
  for (const e of entries) {
    if (e.corrupt) continue;
    out.push({ key: e.key, modRevision: e.modRevision, value: e.value });
  }
  return out;
}

/**
 * The objects of a paramKind as its informer would hold them: in the paramKind's version, so a
 * custom resource converted by webhook is converted (each stored object once, by the store).
 */
function paramSourceOf(store: ResourceStore, apiVersion: string, kind: string): ParamSource {
  const value = (e: CachedEntry<KubeObject> | undefined) => (e === undefined || e.corrupt ? undefined : store.served(e.value));
  /** Converts what `served` is about to serve, when the kind needs a conversion webhook for it. */
  const converted = async (objs: readonly KubeObject[]): Promise<void> => {
    try {
      await store.prepare(objs);
    } catch (err) {
      if (isApiError(err)) throw new ParamsNotSynced(apiVersion, kind);
      throw err;
    }
  };
  return {
    namespaced: store.rt.namespaced,
    get: async (namespace, name) => {
      const e = store.cache.get(store.key(namespace, name));
      if (e !== undefined && !e.corrupt) await converted([e.value]);
      const cached = value(e);
      if (cached !== undefined) return cached;
      try {
        return store.served((await store.get(namespace, name, '')).value);
      } catch (err) {
        if (isApiError(err) && err.code === 404) return undefined;
        if (isApiError(err) && store.rt.asyncConversion) throw new ParamsNotSynced(apiVersion, kind);
        throw err;
      }
    },
    list: async (namespace, matches) => {
      const entries = store.cache.list({ keyPrefix: store.listPrefix(namespace) }).entries.filter((e) => !e.corrupt);
      // The selector matches the converted labels (a conversion webhook may change them).
      await converted(entries.map((e) => e.value));
      const out: KubeObject[] = [];
      for (const e of entries) {
        const obj = value(e);
        if (obj !== undefined && matches(obj.metadata?.labels ?? {})) out.push(obj);
      }
      return out;
    },
  };
}

/** The plugin factory registered as `ValidatingAdmissionPolicy`. */
export function validatingAdmissionPolicy(deps: AdmissionPluginDeps): AdmissionPlugin {
  const { catalog } = deps;
  const storeOf = (resource: string) => {
    const s = catalog.lookup(GROUP, 'v1', resource)?.store;
    if (!s) throw new Error(`the ${resource}.${GROUP} resource type is missing`);
    return s;
  };
  const policies = storeOf('validatingadmissionpolicies');
  const bindings = storeOf('validatingadmissionpolicybindings');
  const namespaces = catalog.lookup('', 'v1', 'namespaces')?.store;
  return new ValidatingAdmissionPolicyPlugin({
    policies: () => listed(policies.cache.list().entries),
    bindings: () => listed(bindings.cache.list().entries),
    paramSource: (group, version, kind) => {
      const served = catalog.groupVersion(group, version);
      if (served === undefined) return undefined;
      for (const s of served.values()) if (s.rt.kind === kind) return paramSourceOf(s.store, group ? `${group}/${version}` : version, kind);
      return undefined;
    },
    namespace: (name) => {
      const e = namespaces?.cache.get(namespaces.key('', name));
      return e === undefined || e.corrupt ? undefined : e.value;
    },
    namespaced: (r) => catalog.lookup(r.group, r.version, r.resource)?.rt.namespaced,
    // Resources sharing storage are one set of objects served in two groups (core/v1 and events.k8s.io/v1 Events).
    // A custom resource's scale subresource is autoscaling/v1 Scale in every version (kube's equivalent resource registry).
    equivalents: (r, subresource) => {
      const own = catalog.lookup(r.group, r.version, r.resource);
      if (own === undefined) return [];
      return catalog
        .all()
        .filter((s) => s.rt.storagePrefix === own.rt.storagePrefix && s !== own)
        .map((s) => ({
          resource: { group: s.rt.group, version: s.rt.version, resource: s.rt.resource },
          kind: subresource === 'scale' && s.rt.scale ? SCALE_KIND : { group: s.rt.group, version: s.rt.version, kind: s.rt.kind },
        }));
    },
    convert: async (obj, from, to) => {
      if (obj.apiVersion === 'autoscaling/v1' && obj.kind === 'Scale') return obj;
      const target = catalog.lookup(to.group, to.version, to.resource)?.rt;
      return target ? convertEquivalent(obj, catalog.lookup(from.group, from.version, from.resource)?.rt, target) : obj;
    },
    authorizer: deps.authorizer,
    metrics: deps.metrics,
  });
}

/** The status controller over the served kinds (type checking against each kind's schema). */
export function policyStatusController(catalog: AdmissionPluginDeps['catalog'], onError: (err: Error) => void): PolicyStatusController | undefined {
  const policies = catalog.lookup(GROUP, 'v1', 'validatingadmissionpolicies')?.store;
  if (policies === undefined) return undefined;
  return new PolicyStatusController(
    policies,
    {
      byResource: (group, version, resource) => {
        const s = catalog.lookup(group, version, resource);
        return s === undefined ? undefined : { group, version, kind: s.rt.kind, schema: s.rt.schema };
      },
      byKind: (group, version, kind) => [...(catalog.groupVersion(group, version)?.values() ?? [])].find((s) => s.rt.kind === kind)?.rt.schema,
    },
    onError,
  );
}
