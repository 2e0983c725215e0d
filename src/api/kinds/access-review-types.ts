/**
 * The access review kinds of authorization.k8s.io/v1 as types with schemas, for what needs the
 * shape of a request body (the managedFields kube's create handler stamps on every create). They
 * are answered by the authorizer (src/authz/access-review.ts), never stored.
 */
import type { ResourceType } from '../types.ts';
import { s } from './common-schemas.ts';
import { createOnlyType } from './create-only-type.ts';
import { kindSchema } from './object-meta-schema.ts';

const GROUP = 'authorization.k8s.io';

// Pointers in the Go types (no default): a body that sets them owns the struct itself too.
const selectorRequirement = s.object('A selector requirement.', {
  key: s.string('The label or field key.'),
  operator: s.string('How the key relates to the values.'),
  values: s.atomicStrings('The values.'),
});
const resourceAttributes = s.object('The attributes of a resource request.', {
  namespace: s.string('The namespace of the action.'),
  verb: s.string('A kubernetes resource API verb.'),
  group: s.string('The API group of the resource.'),
  version: s.string('The API version of the resource.'),
  resource: s.string('One of the existing resource types.'),
  subresource: s.string('One of the existing resource types.'),
  name: s.string('The name of the resource being requested.'),
  fieldSelector: s.object('Field selector of a list or watch.', { rawSelector: s.string('The raw selector.'), requirements: { type: 'array', description: 'Parsed requirements.', items: selectorRequirement, 'x-kubernetes-list-type': 'atomic' } }),
  labelSelector: s.object('Label selector of a list or watch.', { rawSelector: s.string('The raw selector.'), requirements: { type: 'array', description: 'Parsed requirements.', items: selectorRequirement, 'x-kubernetes-list-type': 'atomic' } }),
});
const nonResourceAttributes = s.object('The attributes of a non-resource request.', {
  path: s.string('The URL path of the request.'),
  verb: s.string('The standard HTTP verb.'),
});
const extra = { type: 'object', description: 'Extra user information.', additionalProperties: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic' } } as const;
const status = s.object('Whether the request is allowed.', {
  allowed: s.boolean('Whether the action is allowed.'),
  denied: s.boolean('Whether the action is denied.'),
  reason: s.string('Why the action was allowed or denied.'),
  evaluationError: s.string('An error while checking authorization.'),
}, { default: {} });

function reviewType(resource: string, kind: string, namespaced: boolean, spec: Record<string, unknown>): ResourceType {
  // spec and status are non-pointer structs (kube's OpenAPI `default: {}`).
  const schema = kindSchema(`${kind} checks whether an action is allowed.`, { spec: s.object('The request being evaluated.', spec as never, { default: {} }), status });
  return createOnlyType(GROUP, resource, kind, namespaced, schema);
}

const subjectSpec = {
  resourceAttributes,
  nonResourceAttributes,
  user: s.string('The user to test for.'),
  groups: s.atomicStrings('The groups to test for.'),
  extra,
  uid: s.string('The UID of the user.'),
};
const selfSpec = { resourceAttributes, nonResourceAttributes };

/**
 * The access review types whose answer is the request object with a status (so it keeps the
 * managedFields the create handler stamped). SelfSubjectRulesReview is not among them: kube
 * answers it with a fresh object.
 */
export const accessReviewTypes: Readonly<Record<string, ResourceType>> = {
  subjectaccessreviews: reviewType('subjectaccessreviews', 'SubjectAccessReview', false, subjectSpec),
  localsubjectaccessreviews: reviewType('localsubjectaccessreviews', 'LocalSubjectAccessReview', true, subjectSpec),
  selfsubjectaccessreviews: reviewType('selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, selfSpec),
};
