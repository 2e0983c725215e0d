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
import { ValidatingAdmissionPolicyPlugin, type ListedObject, type ParamSource } from './plugin.ts';
import { PolicyStatusController } from './status-controller.ts';

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

function paramSourceOf(store: ResourceStore): ParamSource {
  const value = (e: CachedEntry<KubeObject> | undefined) => (e === undefined || e.corrupt ? undefined : store.served(e.value));
  return {
    namespaced: store.rt.namespaced,
    get: async (namespace, name) => {
      const cached = value(store.cache.get(store.key(namespace, name)));
      if (cached !== undefined) return cached;
      try {
        return (await store.get(namespace, name, '')).value;
      } catch (err) {
        if (isApiError(err) && err.code === 404) return undefined;
        throw err;
      }
    },
    list: (namespace, matches) => {
      const out: KubeObject[] = [];
      for (const e of store.cache.list({ keyPrefix: store.listPrefix(namespace) }).entries) {
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
      for (const s of served.values()) if (s.rt.kind === kind) return paramSourceOf(s.store);
      return undefined;
    },
    namespace: (name) => {
      const e = namespaces?.cache.get(namespaces.key('', name));
      return e === undefined || e.corrupt ? undefined : e.value;
    },
    namespaced: (r) => catalog.lookup(r.group, r.version, r.resource)?.rt.namespaced,
    // Resources sharing storage are one set of objects served in two groups (core/v1 and events.k8s.io/v1 Events).
    equivalents: (r) => {
      const own = catalog.lookup(r.group, r.version, r.resource);
      if (own === undefined) return [];
      return catalog
        .all()
        .filter((s) => s.rt.storagePrefix === own.rt.storagePrefix && s !== own)
        .map((s) => ({ resource: { group: s.rt.group, version: s.rt.version, resource: s.rt.resource }, kind: { group: s.rt.group, version: s.rt.version, kind: s.rt.kind } }));
    },
    convert: (obj, from, to) => {
      const source = catalog.lookup(from.group, from.version, from.resource)?.rt;
      const target = catalog.lookup(to.group, to.version, to.resource)?.rt;
      const stored = source?.storageConversion ? source.storageConversion.toStorage(structuredClone(obj)) : obj;
      return target?.storageConversion ? target.storageConversion.fromStorage(structuredClone(stored)) : stored;
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
