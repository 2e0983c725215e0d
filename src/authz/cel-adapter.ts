/**
 * The expression language's `authorizer` variable backed by the configured chain, as kube's CEL
 * authorizer library asks it: resource checks with API version `*`, path checks with the path,
 * for the request's user or (authorizer.serviceAccount) a service account with its groups, with
 * the selectors a check names (AuthzSelectors).
 * Expressions cannot wait, so a mode that would have to call out (a webhook without a cached
 * answer) makes the check an error, which kube's library counts as not allowed.
 */
import type { Authorizer as CelAuthorizer, AuthorizationAttributes, AuthorizationDecision } from '../cel/index.ts';
import type { RequestUser } from '../request/user.ts';
import { authorizeSync, type Attributes, type Authorizer } from './authorizer.ts';

export function celAuthorizerFor(authorizer: Authorizer, user: RequestUser): CelAuthorizer {
  return {
    authorize: (a) => decide(authorizer, user, a),
    forServiceAccount: (namespace, name) =>
      celAuthorizerFor(authorizer, { username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`], extra: {} }),
  };
}

function decide(authorizer: Authorizer, user: RequestUser, a: AuthorizationAttributes): AuthorizationDecision {
  const r = a.resource;
  const attrs: Attributes = r
    ? {
        user,
        verb: a.verb,
        isResourceRequest: true,
        path: '',
        apiGroup: r.group,
        apiVersion: '*',
        resource: r.resource,
        subresource: r.subresource,
        namespace: r.namespace,
        name: r.name,
        // .fieldSelector(s) / .labelSelector(s): the raw text, parsed by the mode that reads selectors.
        ...(r.fieldSelector ? { fieldSelector: r.fieldSelector } : {}),
        ...(r.labelSelector ? { labelSelector: r.labelSelector } : {}),
      }
    : { user, verb: a.verb, isResourceRequest: false, path: a.path ?? '', apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  const d = authorizeSync(authorizer, attrs);
  if ('error' in d && !('decision' in d)) return { decision: 'noOpinion', reason: '', error: d.error };
  return d.error !== undefined ? { decision: d.decision, reason: d.reason, error: d.error } : { decision: d.decision, reason: d.reason };
}
