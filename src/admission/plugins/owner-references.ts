/**
 * OwnerReferencesPermissionEnforcement (kube's plugin/pkg/admission/gc): changing an object's
 * owner references needs permission to delete the object (except on create), and setting
 * blockOwnerDeletion needs permission to update the owner's finalizers, since that lets the
 * writer hold up the owner's deletion.
 */
import { errors } from '../../api/status-errors.ts';
import type { Attributes, Authorizer } from '../../authz/authorizer.ts';
import { jsonEqual } from '../../registry/object-meta.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginDeps } from '../chain.ts';
import type { ResourceCatalog } from '../../registry/resource-catalog.ts';
import { gvrGroupResource } from './namespace.ts';

type OwnerRef = { apiVersion?: string; kind?: string; name?: string; uid?: string; blockOwnerDeletion?: boolean };

const refsOf = (o: AdmissionAttributes['object']): OwnerRef[] => (o?.metadata?.ownerReferences ?? []) as OwnerRef[];

/** Go's fmt of a nil error, as kube's message prints it. */
const goErr = (e?: string) => e ?? '<nil>';

function resourceAttributes(a: AdmissionAttributes, over: Partial<Attributes>): Attributes {
  return {
    user: a.userInfo,
    verb: 'delete',
    isResourceRequest: true,
    path: '',
    apiGroup: a.resource.group,
    apiVersion: a.resource.version,
    resource: a.resource.resource,
    subresource: a.subresource,
    namespace: a.namespace,
    name: a.name,
    ...over,
  };
}

/** References that newly block owner deletion (not already blocking in the old object, by uid). */
function newBlockingRefs(a: AdmissionAttributes): OwnerRef[] {
  const old = new Set(refsOf(a.oldObject).filter((r) => r.blockOwnerDeletion === true).map((r) => r.uid));
  return refsOf(a.object).filter((r) => r.blockOwnerDeletion === true && !old.has(r.uid));
}

/** The served resources an owner reference may name (its group/version and kind). */
function ownerResources(catalog: ResourceCatalog, ref: OwnerRef): Array<{ group: string; version: string; resource: string; namespaced: boolean }> {
  const gv = ref.apiVersion ?? '';
  const slash = gv.indexOf('/');
  const group = slash < 0 ? '' : gv.slice(0, slash);
  const version = slash < 0 ? gv : gv.slice(slash + 1);
  return catalog.types().filter((t) => t.group === group && t.version === version && t.kind === ref.kind).map((t) => ({ group, version, resource: t.resource, namespaced: t.namespaced }));
}

export function ownerReferencesPermissionEnforcement(deps: AdmissionPluginDeps): AdmissionPlugin {
  const authz: Authorizer = deps.authorizer;
  return {
    name: 'OwnerReferencesPermissionEnforcement',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    async validate(a) {
      const changing = a.operation === 'CREATE' ? refsOf(a.object).length > 0 : !jsonEqual(refsOf(a.object), refsOf(a.oldObject));
      if (!changing) return;
      const gr = gvrGroupResource(a);
      if (a.operation !== 'CREATE') {
        const d = await authz.authorize(resourceAttributes(a, {}));
        if (d.decision !== 'allow') throw errors.forbidden(gr, a.name, `cannot set an ownerRef on a resource you can't delete: ${d.reason}, ${goErr()}`);
      }
      const blocking = newBlockingRefs(a);
      if (blocking.length === 0) return;
      // Whoever may update the finalizers of anything needs no per-owner check.
      const anything = await authz.authorize(resourceAttributes(a, { verb: 'update', apiGroup: '*', apiVersion: '*', resource: '*', subresource: 'finalizers', namespace: '', name: '' }));
      if (anything.decision === 'allow') return;
      for (const ref of blocking) {
        const targets = ownerResources(deps.catalog, ref);
        if (targets.length === 0) {
          throw errors.forbidden(gr, a.name, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion ?? ''} Kind ${ref.kind ?? ''}: no matches for kind ${JSON.stringify(ref.kind ?? '')} in version ${JSON.stringify(ref.apiVersion ?? '')}`);
        }
        for (const t of targets) {
          const d = await authz.authorize(
            resourceAttributes(a, { verb: 'update', apiGroup: t.group, apiVersion: t.version, resource: t.resource, subresource: 'finalizers', name: ref.name ?? '', namespace: t.namespaced ? a.namespace : '' }),
          );
          if (d.decision !== 'allow') {
            throw errors.forbidden(gr, a.name, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${d.reason}, ${goErr()}`);
          }
        }
      }
    },
  };
}
