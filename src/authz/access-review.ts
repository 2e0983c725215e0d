/**
 * The access reviews of authorization.k8s.io/v1, answered by the configured chain as kube's
 * registry/authorization does: SubjectAccessReview (any user, given in the spec),
 * LocalSubjectAccessReview (the same, in the namespace of the path), SelfSubjectAccessReview (the
 * caller). Create-only and never stored: the answer is the request with `status` filled.
 */
import { errors } from '../api/status-errors.ts';
import { goLiteral, type FieldError } from '../api/field-errors.ts';
import { goObjectMeta } from '../api/go-print.ts';
import { goQuote } from '../schema/prune.ts';
import type { RequestUser } from '../request/user.ts';
import type { Attributes, Authorizer } from './authorizer.ts';
import type { VirtualResource } from '../discovery/discovery.ts';
import { reviewSelector, selectorEvaluationErrors, validateReviewSelectors } from './selector-attributes.ts';

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

/**
 * Answers one review; `namespace` is the path's (LocalSubjectAccessReview); `selectors` is the
 * AuthorizeWithSelectors gate (off, a review's selectors are dropped before anything looks at
 * them, as kube's REST handlers do). Throws ApiError for bad input.
 */
export async function answerAccessReview(resource: string, body: unknown, caller: RequestUser, namespace: string, authorizer: Authorizer, selectors = true): Promise<Obj> {
  const kind = ACCESS_REVIEW_KINDS[resource]!;
  const review = obj(body) ?? {};
  const spec = obj(review.spec) ?? {};
  if (kind === 'SelfSubjectRulesReview') return answerRulesReview(spec, caller, authorizer);
  let ra = obj(spec.resourceAttributes);
  if (ra && !selectors && ('fieldSelector' in ra || 'labelSelector' in ra)) {
    const { fieldSelector: _f, labelSelector: _l, ...rest } = ra;
    spec.resourceAttributes = ra = rest;
  }
  const nra = obj(spec.nonResourceAttributes);
  const errs: FieldError[] = [];
  if (ra && nra) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', badValue: goLiteral(goNonResourceAttributes(nra)), detail: 'cannot be specified in combination with resourceAttributes' });
  if (!ra && !nra) errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes', badValue: 'null', detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  let user: RequestUser = caller;
  if (kind !== 'SelfSubjectAccessReview') {
    const groups = Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === 'string') : [];
    if (str(spec.user) === '' && groups.length === 0) errs.push({ type: 'FieldValueInvalid', field: 'spec.user', badValue: '', detail: 'at least one of user or group must be specified' });
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(obj(spec.extra) ?? {})) if (Array.isArray(v)) extra[k] = v.filter((x): x is string => typeof x === 'string');
    user = { username: str(spec.user), ...(str(spec.uid) ? { uid: str(spec.uid) } : {}), groups, extra };
  }
  if (ra) errs.push(...validateReviewSelectors(ra));
  // kube's ValidateSubjectAccessReview and its siblings: no metadata but what they allow.
  if (!metadataEmpty(review.metadata, kind === 'LocalSubjectAccessReview')) {
    // A namespaced create's metadata takes the path's namespace before validation.
    const shown = kind === 'LocalSubjectAccessReview' ? { ...obj(review.metadata), namespace: str(obj(review.metadata)?.namespace) || namespace } : review.metadata;
    errs.push({ type: 'FieldValueInvalid', field: 'metadata', badValue: goLiteral(goObjectMeta(shown)), detail: kind === 'LocalSubjectAccessReview' ? 'must be empty except for namespace' : 'must be empty' });
  }
  if (kind === 'LocalSubjectAccessReview') {
    const metaNs = str(obj(review.metadata)?.namespace);
    if (ra && str(ra.namespace) !== namespace) errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', badValue: str(ra.namespace), detail: 'must match metadata.namespace' });
    if (nra) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', badValue: goLiteral(goNonResourceAttributes(nra)), detail: 'disallowed on this kind of request' });
    if (metaNs !== '' && metaNs !== namespace) throw errors.badRequest(`namespace ${JSON.stringify(metaNs)} does not match the namespace of the request ${JSON.stringify(namespace)}`);
  }
  // kube validates the internal object, whose kind is empty: its message names `.authorization.k8s.io ""`.
  if (errs.length > 0) throw errors.invalid(`.${AUTHORIZATION_GROUP}`, AUTHORIZATION_GROUP, '', '', errs);

  // kube's ResourceAttributesFrom: an empty version asks about every version.
  const fieldSelector = reviewSelector('fieldSelector', ra?.fieldSelector);
  const labelSelector = reviewSelector('labelSelector', ra?.labelSelector);
  const attrs: Attributes = ra
    ? {
        user,
        verb: str(ra.verb),
        isResourceRequest: true,
        path: '',
        apiGroup: str(ra.group),
        apiVersion: str(ra.version) || '*',
        resource: str(ra.resource),
        subresource: str(ra.subresource),
        namespace: str(ra.namespace),
        name: str(ra.name),
        ...(fieldSelector.selector !== undefined ? { fieldSelector: fieldSelector.selector } : {}),
        ...(labelSelector.selector !== undefined ? { labelSelector: labelSelector.selector } : {}),
      }
    : { user, verb: str(nra!.verb), isResourceRequest: false, path: str(nra!.path), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  const d = await authorizer.authorize(attrs);
  const status: Obj = { allowed: d.decision === 'allow' };
  if (d.decision === 'deny') status.denied = true;
  if (d.reason !== '') status.reason = d.reason;
  // kube's BuildEvaluationError: the authorizer's error, then what of the selectors was ignored.
  const evaluationErrors = [...(d.error !== undefined ? [d.error] : []), ...selectorEvaluationErrors(fieldSelector, labelSelector)];
  if (evaluationErrors.length > 0) status.evaluationError = evaluationErrors.join('; ');
  const metadata = { ...(obj(review.metadata) ?? {}), creationTimestamp: null };
  return { kind, apiVersion: `${AUTHORIZATION_GROUP}/v1`, metadata, spec, status };
}

/** The internal NonResourceAttributes as Go's `%#v` prints it. */
function goNonResourceAttributes(nra: Obj): string {
  return `authorization.NonResourceAttributes{Path:${goQuote(str(nra.path))}, Verb:${goQuote(str(nra.verb))}}`;
}

/**
 * Whether a review's metadata is empty as kube's semantic equality sees it: managedFields (which
 * the create handler stamps) never count, nor (for a LocalSubjectAccessReview) the namespace;
 * an empty map or list is as good as none.
 */
const OBJECT_META_KEYS = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields']);

function metadataEmpty(metadata: unknown, namespaceAllowed: boolean): boolean {
  const m = obj(metadata);
  if (!m) return true;
  for (const [k, v] of Object.entries(m)) {
    // Keys ObjectMeta does not have are dropped by the decoding, as kube's is.
    if (!OBJECT_META_KEYS.has(k) || k === 'managedFields' || (k === 'namespace' && namespaceAllowed)) continue;
    if (v === null || v === undefined || v === '' || v === 0) continue;
    if (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0) continue;
    return false;
  }
  return true;
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
