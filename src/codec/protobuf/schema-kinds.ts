/**
 * Messages of k8s.io/api core/v1, coordination/v1, rbac/v1 and events/v1 generated.proto for
 * the built-in kinds we serve in protobuf, and the table of (apiVersion, kind) to message.
 */
import { message, type KindDef, type MessageDef } from './schema-types.ts';
import { ADMISSIONREGISTRATION_KIND_DEFS, ADMISSIONREGISTRATION_LIST_ITEMS, ADMISSIONREGISTRATION_MESSAGES } from './schema-admissionregistration.ts';
import { APIREGISTRATION_KIND_DEFS, APIREGISTRATION_LIST_ITEMS, APIREGISTRATION_MESSAGES } from './schema-apiregistration.ts';
import { APIEXTENSIONS_KIND_DEFS, APIEXTENSIONS_LIST_ITEMS, APIEXTENSIONS_MESSAGES } from './schema-apiextensions.ts';
import { FLOWCONTROL_KIND_DEFS, FLOWCONTROL_LIST_ITEMS, FLOWCONTROL_MESSAGES } from './schema-flowcontrol.ts';

const CORE: readonly MessageDef[] = [
  message('Namespace', [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, 'NamespaceSpec'],
    ['status', 3, 'NamespaceStatus'],
  ]),
  message('NamespaceSpec', [['finalizers', 1, '[]string']]),
  message('NamespaceStatus', [
    ['phase', 1, 'string'],
    ['conditions', 2, '[]NamespaceCondition'],
  ]),
  message('NamespaceCondition', [
    ['type', 1, 'string', 'always'],
    ['status', 2, 'string', 'always'],
    ['lastTransitionTime', 4, 'Time'],
    ['reason', 5, 'string'],
    ['message', 6, 'string'],
  ]),
  message('ConfigMap', [
    ['metadata', 1, 'ObjectMeta'],
    ['immutable', 4, 'bool', 'pointer'],
    ['data', 2, 'map<string,string>'],
    ['binaryData', 3, 'map<string,bytes>'],
  ]),
  message('Secret', [
    ['metadata', 1, 'ObjectMeta'],
    ['immutable', 5, 'bool', 'pointer'],
    ['data', 2, 'map<string,bytes>'],
    ['stringData', 4, 'map<string,string>'],
    ['type', 3, 'string'],
  ]),
  message('ServiceAccount', [
    ['metadata', 1, 'ObjectMeta'],
    ['secrets', 2, '[]ObjectReference'],
    ['imagePullSecrets', 3, '[]LocalObjectReference'],
    ['automountServiceAccountToken', 4, 'bool', 'pointer'],
  ]),
  message('ObjectReference', [
    ['kind', 1, 'string'],
    ['namespace', 2, 'string'],
    ['name', 3, 'string'],
    ['uid', 4, 'string'],
    ['apiVersion', 5, 'string'],
    ['resourceVersion', 6, 'string'],
    ['fieldPath', 7, 'string'],
  ]),
  message('LocalObjectReference', [['name', 1, 'string']]),
  message('Event', [
    ['metadata', 1, 'ObjectMeta'],
    ['involvedObject', 2, 'ObjectReference'],
    ['reason', 3, 'string'],
    ['message', 4, 'string'],
    ['source', 5, 'EventSource'],
    ['firstTimestamp', 6, 'Time'],
    ['lastTimestamp', 7, 'Time'],
    ['count', 8, 'int32'],
    ['type', 9, 'string'],
    ['eventTime', 10, 'MicroTime'],
    ['series', 11, 'EventSeries', 'pointer'],
    ['action', 12, 'string'],
    ['related', 13, 'ObjectReference', 'pointer'],
    ['reportingComponent', 14, 'string', 'always'],
    ['reportingInstance', 15, 'string', 'always'],
  ]),
  message('EventSource', [
    ['component', 1, 'string'],
    ['host', 2, 'string'],
  ]),
  message('EventSeries', [
    ['count', 1, 'int32'],
    ['lastObservedTime', 2, 'MicroTime'],
  ]),
];

const EVENTS: readonly MessageDef[] = [
  message('events.Event', [
    ['metadata', 1, 'ObjectMeta'],
    ['eventTime', 2, 'MicroTime'],
    ['series', 3, 'events.EventSeries', 'pointer'],
    ['reportingController', 4, 'string'],
    ['reportingInstance', 5, 'string'],
    ['action', 6, 'string'],
    ['reason', 7, 'string'],
    ['regarding', 8, 'ObjectReference'],
    ['related', 9, 'ObjectReference', 'pointer'],
    ['note', 10, 'string'],
    ['type', 11, 'string'],
    ['deprecatedSource', 12, 'EventSource'],
    ['deprecatedFirstTimestamp', 13, 'Time'],
    ['deprecatedLastTimestamp', 14, 'Time'],
    ['deprecatedCount', 15, 'int32'],
  ]),
  message('events.EventSeries', [
    ['count', 1, 'int32', 'always'],
    ['lastObservedTime', 2, 'MicroTime'],
  ]),
];

const COORDINATION: readonly MessageDef[] = [
  message('Lease', [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, 'LeaseSpec'],
  ]),
  message('LeaseSpec', [
    ['holderIdentity', 1, 'string', 'pointer'],
    ['leaseDurationSeconds', 2, 'int32', 'pointer'],
    ['acquireTime', 3, 'MicroTime', 'pointer'],
    ['renewTime', 4, 'MicroTime', 'pointer'],
    ['leaseTransitions', 5, 'int32', 'pointer'],
    ['strategy', 6, 'string', 'pointer'],
    ['preferredHolder', 7, 'string', 'pointer'],
  ]),
];

const RBAC: readonly MessageDef[] = [
  message('Role', [
    ['metadata', 1, 'ObjectMeta'],
    ['rules', 2, '[]PolicyRule', 'always'],
  ]),
  message('ClusterRole', [
    ['metadata', 1, 'ObjectMeta'],
    ['rules', 2, '[]PolicyRule', 'always'],
    ['aggregationRule', 3, 'AggregationRule', 'pointer'],
  ]),
  message('AggregationRule', [['clusterRoleSelectors', 1, '[]LabelSelector']]),
  message('PolicyRule', [
    ['verbs', 1, '[]string', 'always'],
    ['apiGroups', 2, '[]string'],
    ['resources', 3, '[]string'],
    ['resourceNames', 4, '[]string'],
    ['nonResourceURLs', 5, '[]string'],
  ]),
  message('RoleBinding', [
    ['metadata', 1, 'ObjectMeta'],
    ['subjects', 2, '[]Subject'],
    ['roleRef', 3, 'RoleRef'],
  ]),
  message('ClusterRoleBinding', [
    ['metadata', 1, 'ObjectMeta'],
    ['subjects', 2, '[]Subject'],
    ['roleRef', 3, 'RoleRef'],
  ]),
  message('Subject', [
    ['kind', 1, 'string', 'always'],
    ['apiGroup', 2, 'string'],
    ['name', 3, 'string', 'always'],
    ['namespace', 4, 'string'],
  ]),
  message('RoleRef', [
    ['apiGroup', 1, 'string', 'always'],
    ['kind', 2, 'string', 'always'],
    ['name', 3, 'string', 'always'],
  ]),
];

/** authentication/v1: token requests and reviews, and the review of oneself (`create token`, `auth whoami`). */
const AUTHENTICATION: readonly MessageDef[] = [
  message('authentication.TokenRequest', [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, 'authentication.TokenRequestSpec', 'always'],
    ['status', 3, 'authentication.TokenRequestStatus', 'always'],
  ]),
  message('authentication.TokenRequestSpec', [
    ['audiences', 1, '[]string', 'always'],
    ['expirationSeconds', 4, 'int64', 'pointer'],
    ['boundObjectRef', 3, 'authentication.BoundObjectReference', 'pointer'],
  ]),
  message('authentication.BoundObjectReference', [
    ['kind', 1, 'string'],
    ['apiVersion', 2, 'string'],
    ['name', 3, 'string'],
    ['uid', 4, 'string'],
  ]),
  message('authentication.TokenRequestStatus', [
    ['token', 1, 'string', 'always'],
    ['expirationTimestamp', 2, 'Time', 'always'],
  ]),
  message('authentication.TokenReview', [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, 'authentication.TokenReviewSpec'],
    ['status', 3, 'authentication.TokenReviewStatus'],
  ]),
  message('authentication.TokenReviewSpec', [
    ['token', 1, 'string'],
    ['audiences', 2, '[]string'],
  ]),
  message('authentication.TokenReviewStatus', [
    ['authenticated', 1, 'bool'],
    ['user', 2, 'authentication.UserInfo'],
    ['audiences', 4, '[]string'],
    ['error', 3, 'string'],
  ]),
  message('authentication.UserInfo', [
    ['username', 1, 'string'],
    ['uid', 2, 'string'],
    ['groups', 3, '[]string'],
    ['extra', 4, 'map<string,ExtraValue>'],
  ]),
  message('authentication.SelfSubjectReview', [
    ['metadata', 1, 'ObjectMeta'],
    ['status', 2, 'authentication.SelfSubjectReviewStatus'],
  ]),
  message('authentication.SelfSubjectReviewStatus', [['userInfo', 1, 'authentication.UserInfo']]),
];

/** authorization.k8s.io/v1 access reviews (create-only; no lists). Field numbers from k8s.io/api authorization/v1 generated.proto. */
const AUTHORIZATION: readonly MessageDef[] = [
  message('SubjectAccessReview', [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, 'SubjectAccessReviewSpec', 'always'],
    ['status', 3, 'SubjectAccessReviewStatus', 'always'],
  ]),
  message('LocalSubjectAccessReview', [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, 'SubjectAccessReviewSpec', 'always'],
    ['status', 3, 'SubjectAccessReviewStatus', 'always'],
  ]),
  message('SelfSubjectAccessReview', [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, 'SelfSubjectAccessReviewSpec', 'always'],
    ['status', 3, 'SubjectAccessReviewStatus', 'always'],
  ]),
  message('SubjectAccessReviewSpec', [
    ['resourceAttributes', 1, 'ResourceAttributes', 'pointer'],
    ['nonResourceAttributes', 2, 'NonResourceAttributes', 'pointer'],
    ['user', 3, 'string'],
    ['groups', 4, '[]string'],
    ['extra', 5, 'map<string,ExtraValue>'],
    ['uid', 6, 'string'],
  ]),
  message('SelfSubjectAccessReviewSpec', [
    ['resourceAttributes', 1, 'ResourceAttributes', 'pointer'],
    ['nonResourceAttributes', 2, 'NonResourceAttributes', 'pointer'],
  ]),
  message('ResourceAttributes', [
    ['namespace', 1, 'string'],
    ['verb', 2, 'string'],
    ['group', 3, 'string'],
    ['version', 4, 'string'],
    ['resource', 5, 'string'],
    ['subresource', 6, 'string'],
    ['name', 7, 'string'],
    ['fieldSelector', 8, 'FieldSelectorAttributes', 'pointer'],
    ['labelSelector', 9, 'LabelSelectorAttributes', 'pointer'],
  ]),
  message('FieldSelectorAttributes', [
    ['rawSelector', 1, 'string'],
    ['requirements', 2, '[]FieldSelectorRequirement'],
  ]),
  message('LabelSelectorAttributes', [
    ['rawSelector', 1, 'string'],
    ['requirements', 2, '[]LabelSelectorRequirement'],
  ]),
  message('NonResourceAttributes', [
    ['path', 1, 'string'],
    ['verb', 2, 'string'],
  ]),
  message('SubjectAccessReviewStatus', [
    ['allowed', 1, 'bool', 'always'],
    ['reason', 2, 'string'],
    ['evaluationError', 3, 'string'],
    ['denied', 4, 'bool'],
  ]),
  message('SelfSubjectRulesReview', [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, 'SelfSubjectRulesReviewSpec', 'always'],
    ['status', 3, 'SubjectRulesReviewStatus', 'always'],
  ]),
  message('SelfSubjectRulesReviewSpec', [['namespace', 1, 'string']]),
  message('SubjectRulesReviewStatus', [
    ['resourceRules', 1, '[]ResourceRule', 'always'],
    ['nonResourceRules', 2, '[]NonResourceRule', 'always'],
    ['incomplete', 3, 'bool', 'always'],
    ['evaluationError', 4, 'string'],
  ]),
  message('ResourceRule', [
    ['verbs', 1, '[]string', 'always'],
    ['apiGroups', 2, '[]string'],
    ['resources', 3, '[]string'],
    ['resourceNames', 4, '[]string'],
  ]),
  message('NonResourceRule', [
    ['verbs', 1, '[]string', 'always'],
    ['nonResourceURLs', 2, '[]string'],
  ]),
];

/** A `<Kind>List` message: ListMeta and the items. */
function listOf(itemMessage: string, name = `${itemMessage}List`): MessageDef {
  return message(name, [
    ['metadata', 1, 'ListMeta'],
    ['items', 2, `[]${itemMessage}`, 'always'],
  ]);
}

const LIST_ITEMS = [
  'Namespace',
  'ConfigMap',
  'Secret',
  'ServiceAccount',
  'Event',
  'events.Event',
  'Lease',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
] as const;

export const KIND_MESSAGES: readonly MessageDef[] = [
  ...CORE,
  ...EVENTS,
  ...COORDINATION,
  ...RBAC,
  ...AUTHENTICATION,
  ...AUTHORIZATION,
  ...LIST_ITEMS.map((item) => listOf(item)),
  ...ADMISSIONREGISTRATION_MESSAGES,
  ...ADMISSIONREGISTRATION_LIST_ITEMS.map((item) => listOf(item)),
  ...APIREGISTRATION_MESSAGES,
  ...APIREGISTRATION_LIST_ITEMS.map((item) => listOf(item)),
  ...APIEXTENSIONS_MESSAGES,
  ...APIEXTENSIONS_LIST_ITEMS.map((item) => listOf(item)),
  ...FLOWCONTROL_MESSAGES,
  ...FLOWCONTROL_LIST_ITEMS.map((item) => listOf(item)),
];

function kinds(apiVersion: string, pairs: readonly (readonly [kind: string, message: string])[]): KindDef[] {
  return pairs.flatMap(([kind, msg]) => [
    { apiVersion, kind, message: msg },
    { apiVersion, kind: `${kind}List`, message: `${msg}List` },
  ]);
}

export const KINDS: readonly KindDef[] = [
  ...kinds('v1', [
    ['Namespace', 'Namespace'],
    ['ConfigMap', 'ConfigMap'],
    ['Secret', 'Secret'],
    ['ServiceAccount', 'ServiceAccount'],
    ['Event', 'Event'],
  ]),
  ...kinds('events.k8s.io/v1', [['Event', 'events.Event']]),
  ...kinds('coordination.k8s.io/v1', [['Lease', 'Lease']]),
  // kinds() adds each List: PartialObjectMetadataList.
  ...kinds('meta.k8s.io/v1', [['PartialObjectMetadata', 'PartialObjectMetadata']]),
  ...kinds('meta.k8s.io/v1beta1', [['PartialObjectMetadata', 'PartialObjectMetadata']]),
  ...kinds('rbac.authorization.k8s.io/v1', [
    ['Role', 'Role'],
    ['ClusterRole', 'ClusterRole'],
    ['RoleBinding', 'RoleBinding'],
    ['ClusterRoleBinding', 'ClusterRoleBinding'],
  ]),
  { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', message: 'authentication.TokenRequest' },
  { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', message: 'authentication.SelfSubjectReview' },
  { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', message: 'authentication.TokenReview' },
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', message: 'SubjectAccessReview' },
  { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', message: 'LocalSubjectAccessReview' },
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', message: 'SelfSubjectAccessReview' },
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', message: 'SelfSubjectRulesReview' },
  { apiVersion: 'v1', kind: 'Status', message: 'Status' },
  ...ADMISSIONREGISTRATION_KIND_DEFS,
  ...APIREGISTRATION_KIND_DEFS,
  ...APIEXTENSIONS_KIND_DEFS,
  ...FLOWCONTROL_KIND_DEFS,
  // Discovery: the legacy documents (/api, /api/v1) carry no apiVersion, the groups' do.
  { apiVersion: '', kind: 'APIVersions', message: 'APIVersions' },
  { apiVersion: '', kind: 'APIResourceList', message: 'APIResourceList' },
  { apiVersion: 'v1', kind: 'APIResourceList', message: 'APIResourceList' },
  { apiVersion: 'v1', kind: 'APIGroupList', message: 'APIGroupList' },
  { apiVersion: 'v1', kind: 'APIGroup', message: 'APIGroup' },
  { apiVersion: 'meta.k8s.io/v1', kind: 'Status', message: 'Status' },
];

/** Kinds kube registers in every group version (client-go sends DeleteOptions under the resource's group). */
export const ANY_VERSION_KINDS: ReadonlyMap<string, string> = new Map([
  ['DeleteOptions', 'DeleteOptions'],
  ['WatchEvent', 'WatchEvent'],
]);
