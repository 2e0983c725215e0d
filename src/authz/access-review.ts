/**
 * The access reviews of authorization.k8s.io/v1, answered by the configured chain as kube's
 * registry/authorization does: SubjectAccessReview (any user, given in the spec),
 * LocalSubjectAccessReview (the same, in the namespace of the path), SelfSubjectAccessReview (the
 * caller). Create-only and never stored: the answer is the request with `status` filled.
 */
import { errors } from '../api/status-errors.ts';
import type { FieldError } from '../api/field-errors.ts';
import type { RequestUser } from '../request/user.ts';
import type { Attributes, Authorizer } from './authorizer.ts';
import type { VirtualResource } from '../discovery/discovery.ts';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

export const ACCESS_REVIEW_KINDS: Readonly<Record<string, string>> = {
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview',
};

type Obj = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);

/** Answers one review; `namespace` is the path's (LocalSubjectAccessReview). Throws ApiError for bad input. */
export async function answerAccessReview(resource: string, body: unknown, caller: RequestUser, namespace: string, authorizer: Authorizer): Promise<Obj> {
  const kind = ACCESS_REVIEW_KINDS[resource]!;
  const review = obj(body) ?? {};
  const spec = obj(review.spec) ?? {};
  if (kind === 'SelfSubjectRulesReview') return answerRulesReview(spec, caller, authorizer);
  const ra = obj(spec.resourceAttributes);
  const nra = obj(spec.nonResourceAttributes);
  const errs: FieldError[] = [];
  if (ra && nra) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', badValue: nra, detail: 'cannot be specified in combination with resourceAttributes' });
  if (!ra && !nra) errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes', badValue: 'null', detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  let user: RequestUser = caller;
  if (kind !== 'SelfSubjectAccessReview') {
    const groups = Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === 'string') : [];
    if (str(spec.user) === '' && groups.length === 0) errs.push({ type: 'FieldValueInvalid', field: 'spec.user', badValue: '', detail: 'at least one of user or group must be specified' });
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(obj(spec.extra) ?? {})) if (Array.isArray(v)) extra[k] = v.filter((x): x is string => typeof x === 'string');
    user = { username: str(spec.user), ...(str(spec.uid) ? { uid: str(spec.uid) } : {}), groups, extra };
  }
  if (kind === 'LocalSubjectAccessReview') {
    const metaNs = str(obj(review.metadata)?.namespace);
    if (ra && str(ra.namespace) !== namespace) errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', badValue: str(ra.namespace), detail: 'must match metadata.namespace' });
    if (nra) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', badValue: nra, detail: 'disallowed on this kind of request' });
    if (metaNs !== '' && metaNs !== namespace) throw errors.badRequest(`namespace ${JSON.stringify(metaNs)} does not match the namespace of the request ${JSON.stringify(namespace)}`);
  }
  // kube validates the internal object, whose kind is empty: its message names `.authorization.k8s.io ""`.
  if (errs.length > 0) throw errors.invalid(`.${AUTHORIZATION_GROUP}`, AUTHORIZATION_GROUP, '', '', errs);

  const attrs: Attributes = ra
    ? {
        user,
        verb: str(ra.verb),
        isResourceRequest: true,
        path: '',
        apiGroup: str(ra.group),
        apiVersion: str(ra.version),
        resource: str(ra.resource),
        subresource: str(ra.subresource),
        namespace: str(ra.namespace),
        name: str(ra.name),
      }
    : { user, verb: str(nra!.verb), isResourceRequest: false, path: str(nra!.path), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  const d = await authorizer.authorize(attrs);
  const status: Obj = { allowed: d.decision === 'allow' };
  if (d.decision === 'deny') status.denied = true;
  if (d.reason !== '') status.reason = d.reason;
  if (d.error !== undefined) status.evaluationError = d.error;
  const metadata = { ...(obj(review.metadata) ?? {}), creationTimestamp: null };
  return { kind, apiVersion: `${AUTHORIZATION_GROUP}/v1`, metadata, spec, status };
}

/**
 * SelfSubjectRulesReview, as kube's registry answers it: a new object (the request's metadata and
 * spec are not echoed) with the chain's rules for the caller in `spec.namespace`.
 */
function answerRulesReview(spec: Obj, caller: RequestUser, authorizer: Authorizer): Obj {
  const namespace = str(spec.namespace);
  if (namespace === '') throw errors.badRequest('no namespace on request');
  const r = authorizer.rulesFor?.(caller, namespace) ?? { resourceRules: [], nonResourceRules: [], incomplete: false };
  const status: Obj = {
    resourceRules: r.resourceRules.map((x) => withoutEmpty({ verbs: x.verbs, apiGroups: x.apiGroups, resources: x.resources, resourceNames: x.resourceNames })),
    nonResourceRules: r.nonResourceRules.map((x) => withoutEmpty({ verbs: x.verbs, nonResourceURLs: x.nonResourceURLs })),
    incomplete: r.incomplete,
  };
  if (r.error !== undefined) status.evaluationError = r.error;
  return { kind: 'SelfSubjectRulesReview', apiVersion: `${AUTHORIZATION_GROUP}/v1`, metadata: { creationTimestamp: null }, spec: {}, status };
}

/** Go's omitempty on the optional lists; `verbs` is always written (null when empty). */
function withoutEmpty(rule: Record<string, readonly string[] | undefined>): Obj {
  const out: Obj = { verbs: rule.verbs && rule.verbs.length > 0 ? rule.verbs : null };
  for (const [k, v] of Object.entries(rule)) if (k !== 'verbs' && v && v.length > 0) out[k] = v;
  return out;
}

/** How discovery lists them: create-only, as kube-apiserver v1.32.4's /apis/authorization.k8s.io/v1. */
export const ACCESS_REVIEW_RESOURCES: readonly VirtualResource[] = [
  { group: AUTHORIZATION_GROUP, version: 'v1', resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', singular: 'localsubjectaccessreview', namespaced: true, verbs: ['create'] },
  { group: AUTHORIZATION_GROUP, version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', singular: 'selfsubjectaccessreview', namespaced: false, verbs: ['create'] },
  { group: AUTHORIZATION_GROUP, version: 'v1', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', singular: 'selfsubjectrulesreview', namespaced: false, verbs: ['create'] },
  { group: AUTHORIZATION_GROUP, version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', singular: 'subjectaccessreview', namespaced: false, verbs: ['create'] },
];

export function isAccessReviewPath(group: string, version: string, resource: string): boolean {
  return group === AUTHORIZATION_GROUP && version === 'v1' && resource in ACCESS_REVIEW_KINDS;
}
