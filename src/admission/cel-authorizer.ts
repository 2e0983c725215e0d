/**
 * The expression language's `authorizer` variable for one admission request (policies and webhook
 * match conditions): one implementation, src/authz/cel-adapter.ts, so admission asks exactly as
 * kube's CEL authorizer library does (a service account is its user and its two groups, without
 * system:authenticated, as serviceaccount.UserInfo gives them).
 */
import type { AdmissionAttributes } from './types.ts';

export { celAuthorizerFor } from '../authz/cel-adapter.ts';

/**
 * What `authorizer.requestResource` checks: the request's own resource (kube's
 * NewResourceAuthorizerVal over the versioned attributes: group, resource, subresource, namespace, name).
 */
export function requestResourceOf(a: AdmissionAttributes): { group: string; resource: string; subresource: string; namespace: string; name: string } {
  return { group: a.resource.group, resource: a.resource.resource, subresource: a.subresource, namespace: a.namespace, name: a.name };
}
