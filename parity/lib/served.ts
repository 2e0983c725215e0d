/**
 * What kube-gateway serves, and what the reference has that kube-gateway deliberately does not: the
 * normalizer uses this to compare discovery documents only on served kinds, and to drop the objects
 * kube-controller-manager creates in every namespace.
 */

/** Served resources by API group ('' is the core group). */
const SERVED: Readonly<Record<string, readonly string[]>> = {
  '': ['namespaces', 'configmaps', 'secrets', 'serviceaccounts', 'events'],
  'events.k8s.io': ['events'],
  'coordination.k8s.io': ['leases'],
  'rbac.authorization.k8s.io': ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'],
};

/** Objects kube-controller-manager creates in every namespace (kube-gateway runs no such controllers). */
const CONTROLLER_OBJECTS: ReadonlyArray<{ kind: string; name: string }> = [
  { kind: 'ConfigMap', name: 'kube-root-ca.crt' },
  { kind: 'ServiceAccount', name: 'default' },
];

const CONTROLLER_MANAGER = 'kube-controller-manager';

/**
 * Is this one of the objects kube-controller-manager adds to every namespace? As a
 * PartialObjectMetadata (metadata lists, Table rows) the kind is gone: the name and the
 * controller manager's managedFields entry identify it instead.
 */
export function isControllerObject(o: unknown): boolean {
  if (!o || typeof o !== 'object') return false;
  const obj = o as { kind?: unknown; metadata?: { name?: unknown; managedFields?: Array<{ manager?: unknown }> } };
  if (obj.kind === 'PartialObjectMetadata') {
    const byController = obj.metadata?.managedFields?.some((m) => m.manager === CONTROLLER_MANAGER) ?? false;
    return byController && CONTROLLER_OBJECTS.some((c) => c.name === obj.metadata?.name);
  }
  return CONTROLLER_OBJECTS.some((c) => c.kind === obj.kind && c.name === obj.metadata?.name);
}

/**
 * The same test on a protobuf list item decoded schema-less (ObjectMeta is field 1: name is its
 * field 1, managedFields its field 17 with the manager in field 1).
 */
export function isControllerObjectProtobuf(itemKind: string, item: unknown): boolean {
  const meta = (item as Record<string, unknown> | null)?.['1'] as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object') return false;
  const name = meta['1'];
  const mf = meta['17'];
  const managers = (Array.isArray(mf) ? mf : mf ? [mf] : []).map((m) => (m as Record<string, unknown>)['1']);
  if (itemKind === 'PartialObjectMetadata') return managers.includes(CONTROLLER_MANAGER) && CONTROLLER_OBJECTS.some((c) => c.name === name);
  return CONTROLLER_OBJECTS.some((c) => c.kind === itemKind && c.name === name);
}

/** Restricts discovery documents (legacy and aggregated) to the served groups and resources. */
export function filterDiscovery(doc: unknown): unknown {
  if (!doc || typeof doc !== 'object') return doc;
  const o = doc as Record<string, unknown>;
  const served = (group: string, resource: string) => SERVED[group]?.includes(resource.split('/')[0]!) ?? false;
  // The root index (`GET /`): its group paths, like the group list, only for served groups.
  if (o.kind === undefined && Array.isArray(o.paths)) {
    return { ...o, paths: o.paths.filter((p) => typeof p !== 'string' || !p.startsWith('/apis/') || p === '/apis/' || p.split('/')[2]! in SERVED) };
  }
  if (o.kind === 'APIGroupList' && Array.isArray(o.groups)) {
    return { ...o, groups: o.groups.filter((g: { name?: string }) => g.name !== undefined && g.name in SERVED) };
  }
  if (o.kind === 'APIResourceList' && Array.isArray(o.resources) && typeof o.groupVersion === 'string') {
    const group = o.groupVersion.includes('/') ? o.groupVersion.split('/')[0]! : '';
    if (!(group in SERVED)) return o;
    return { ...o, resources: o.resources.filter((r: { name?: string }) => served(group, r.name ?? '')) };
  }
  if (o.kind === 'APIGroupDiscoveryList' && Array.isArray(o.items)) {
    const items = (o.items as Array<{ metadata?: { name?: string }; versions?: Array<{ resources?: Array<{ resource?: string }> }> }>)
      .filter((g) => (g.metadata?.name ?? '') in SERVED)
      .map((g) => ({
        ...g,
        versions: g.versions?.map((v) => ({ ...v, resources: v.resources?.filter((r) => served(g.metadata?.name ?? '', r.resource ?? '')) })),
      }));
    return { ...o, items };
  }
  return doc;
}
