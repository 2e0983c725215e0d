/**
 * The expression language's `authorizer` variable for one admission request: checks are asked of
 * the server's authorizer as the requesting user (or, through authorizer.serviceAccount, as a
 * service account), as kube's admission CEL environment does.
 */
import type { Authorizer } from '../authz/authorizer.ts';
import type { Authorizer as CelAuthorizer } from '../cel/index.ts';
import type { RequestUser } from '../server/user.ts';

export function celAuthorizerFor(authz: Authorizer, user: RequestUser): CelAuthorizer {
  return {
    authorize(a) {
      const r = a.resource;
      const d = authz.authorize({
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
      // Expressions evaluate synchronously; an authorizer that answers later (the webhook mode) cannot
      // be waited for here, and its check counts as failed, with the reason saying so.
      if (d instanceof Promise) {
        d.catch(() => undefined);
        return { decision: 'noOpinion', reason: '', error: 'the authorizer answers asynchronously; not available to expressions' };
      }
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
