/**
 * The one statement of which verbs each resource and subresource serves: the route table builds
 * its routes from it and discovery lists it.
 */
import type { ResourceType } from './types.ts';

/** A subresource and the verbs it serves, as listed in discovery. */
export interface Subresource {
  readonly name: string;
  readonly verbs: readonly string[];
  /** The kind the subresource takes and returns when it is not the parent's own. */
  readonly responseKind?: { readonly group: string; readonly version: string; readonly kind: string };
}

const CUSTOM_RESOURCE_VERBS: readonly string[] = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** The discovery verbs of a resource's main endpoint, sorted as kube lists them. */
export function resourceVerbs(rt: ResourceType): readonly string[] {
  // Computed kinds (TokenReview) serve only what they declare.
  if (rt.virtual) return rt.virtual.verbs;
  // Namespaces have no collection delete in kube (their REST storage does not offer one).
  if (isNamespaces(rt)) return ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
  // Custom resources: the apiextensions discovery controller's own list, in its order.
  if (rt.unstructured) return CUSTOM_RESOURCE_VERBS;
  return ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
}

/** The subresources of a resource, sorted by name as kube lists them. */
export function subresourcesOf(rt: ResourceType): readonly Subresource[] {
  const out: Subresource[] = [];
  if (isNamespaces(rt)) out.push({ name: 'finalize', verbs: ['update'] });
  if (rt.hasStatus) out.push({ name: 'status', verbs: ['get', 'patch', 'update'] });
  if (rt.scale) out.push({ name: 'scale', verbs: ['get', 'patch', 'update'], responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } });
  if (rt.group === '' && rt.resource === 'serviceaccounts') {
    out.push({ name: 'token', verbs: ['create'], responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' } });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function isNamespaces(rt: ResourceType): boolean {
  return rt.group === '' && rt.resource === 'namespaces';
}
