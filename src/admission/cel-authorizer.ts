/**
 * The expression language's `authorizer` variable for one admission request: checks are asked of
 * the server's authorizer as the requesting user (or, through authorizer.serviceAccount, as a
 * service account), as kube's admission CEL environment does.
 */
import { authorizeSync, type Authorizer } from '../authz/authorizer.ts';
import type { Authorizer as CelAuthorizer } from '../cel/index.ts';
import type { RequestUser } from '../server/user.ts';
import type { AdmissionAttributes } from './types.ts';

/**
 * What `authorizer.requestResource` checks: the request's own resource (kube's
 * NewResourceAuthorizerVal over the versioned attributes: group, resource, subresource, namespace, name).
 */
export function requestResourceOf(a: AdmissionAttributes): { group: string; resource: string; subresource: string; namespace: string; name: string } {
  return { group: a.resource.group, resource: a.resource.resource, subresource: a.subresource, namespace: a.namespace, name: a.name };
}

export function celAuthorizerFor(authz: Authorizer, user: RequestUser): CelAuthorizer {
  return {
    authorize(a) {
      const r = a.resource;
      // Expressions cannot wait: a mode that would need I/O answers with an error (the check is then not allowed).
      const d = authorizeSync(authz, {
        user,
        verb: a.verb,
        isResourceRequest: r !== undefined,
        path: a.path ?? '',
        apiGroup: r?.group ?? '',
        apiVersion: '*',
        resource: r?.resource ?? '',
        subresource: r?.subresource ?? '',
        namespace: r?.namespace ?? '',
        name: r?.name ?? '',
      });
      if ('error' in d) return { decision: 'noOpinion', reason: '', error: d.error };
      return { decision: d.decision, reason: d.reason };
    },
    forServiceAccount(namespace, name) {
      return celAuthorizerFor(authz, {
        username: `system:serviceaccount:${namespace}:${name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
        extra: {},
      });
    },
  };
}
