/**
 * Messages of k8s.io/api admissionregistration/v1 generated.proto (field numbers from there),
 * in Go struct order with Go's JSON facts from types.go: webhook configurations,
 * ValidatingAdmissionPolicy and its binding. RuleWithOperations and NamedRuleWithOperations embed
 * their rule (`json:",inline"`): one nested message on the wire, fields of the parent in JSON.
 */
import { message, type KindDef, type MessageDef } from './schema-types.ts';

const P = 'admissionregistration.';

export const ADMISSIONREGISTRATION_MESSAGES: readonly MessageDef[] = [
  message(`${P}Rule`, [
    ['apiGroups', 1, '[]string'],
    ['apiVersions', 2, '[]string'],
    ['resources', 3, '[]string'],
    ['scope', 4, 'string', 'pointer'],
  ]),
  message(`${P}RuleWithOperations`, [
    ['operations', 1, '[]string'],
    ['rule', 2, `${P}Rule`, 'inline'],
  ]),
  message(`${P}NamedRuleWithOperations`, [
    ['resourceNames', 1, '[]string'],
    ['ruleWithOperations', 2, `${P}RuleWithOperations`, 'inline'],
  ]),
  message(`${P}ServiceReference`, [
    ['namespace', 1, 'string', 'always'],
    ['name', 2, 'string', 'always'],
    ['path', 3, 'string', 'pointer'],
    ['port', 4, 'int32', 'pointer'],
  ]),
  message(`${P}WebhookClientConfig`, [
    ['url', 3, 'string', 'pointer'],
    ['service', 1, `${P}ServiceReference`, 'pointer'],
    ['caBundle', 2, 'bytes'],
  ]),
  message(`${P}MatchCondition`, [
    ['name', 1, 'string', 'always'],
    ['expression', 2, 'string', 'always'],
  ]),
  message(`${P}ValidatingWebhook`, [
    ['name', 1, 'string', 'always'],
    ['clientConfig', 2, `${P}WebhookClientConfig`],
    ['rules', 3, `[]${P}RuleWithOperations`],
    ['failurePolicy', 4, 'string', 'pointer'],
    ['matchPolicy', 9, 'string', 'pointer'],
    ['namespaceSelector', 5, 'LabelSelector', 'pointer'],
    ['objectSelector', 10, 'LabelSelector', 'pointer'],
    ['sideEffects', 6, 'string', 'pointer'],
    ['timeoutSeconds', 7, 'int32', 'pointer'],
    ['admissionReviewVersions', 8, '[]string', 'always'],
    ['matchConditions', 11, `[]${P}MatchCondition`],
  ]),
  message(`${P}MutatingWebhook`, [
    ['name', 1, 'string', 'always'],
    ['clientConfig', 2, `${P}WebhookClientConfig`],
    ['rules', 3, `[]${P}RuleWithOperations`],
    ['failurePolicy', 4, 'string', 'pointer'],
    ['matchPolicy', 9, 'string', 'pointer'],
    ['namespaceSelector', 5, 'LabelSelector', 'pointer'],
    ['objectSelector', 11, 'LabelSelector', 'pointer'],
    ['sideEffects', 6, 'string', 'pointer'],
    ['timeoutSeconds', 7, 'int32', 'pointer'],
    ['admissionReviewVersions', 8, '[]string', 'always'],
    ['reinvocationPolicy', 10, 'string', 'pointer'],
    ['matchConditions', 12, `[]${P}MatchCondition`],
  ]),
  message(`${P}ValidatingWebhookConfiguration`, [
    ['metadata', 1, 'ObjectMeta'],
    ['webhooks', 2, `[]${P}ValidatingWebhook`],
  ]),
  message(`${P}MutatingWebhookConfiguration`, [
    ['metadata', 1, 'ObjectMeta'],
    ['webhooks', 2, `[]${P}MutatingWebhook`],
  ]),
  message(`${P}ParamKind`, [
    ['apiVersion', 1, 'string'],
    ['kind', 2, 'string'],
  ]),
  message(`${P}MatchResources`, [
    ['namespaceSelector', 1, 'LabelSelector', 'pointer'],
    ['objectSelector', 2, 'LabelSelector', 'pointer'],
    ['resourceRules', 3, `[]${P}NamedRuleWithOperations`],
    ['excludeResourceRules', 4, `[]${P}NamedRuleWithOperations`],
    ['matchPolicy', 7, 'string', 'pointer'],
  ]),
  message(`${P}Validation`, [
    ['expression', 1, 'string', 'always'],
    ['message', 2, 'string'],
    ['reason', 3, 'string', 'pointer'],
    ['messageExpression', 4, 'string'],
  ]),
  message(`${P}AuditAnnotation`, [
    ['key', 1, 'string', 'always'],
    ['valueExpression', 2, 'string', 'always'],
  ]),
  message(`${P}Variable`, [
    ['name', 1, 'string', 'always'],
    ['expression', 2, 'string', 'always'],
  ]),
  message(`${P}ValidatingAdmissionPolicySpec`, [
    ['paramKind', 1, `${P}ParamKind`, 'pointer'],
    ['matchConstraints', 2, `${P}MatchResources`, 'pointer'],
    ['validations', 3, `[]${P}Validation`],
    ['failurePolicy', 4, 'string', 'pointer'],
    ['auditAnnotations', 5, `[]${P}AuditAnnotation`],
    ['matchConditions', 6, `[]${P}MatchCondition`],
    ['variables', 7, `[]${P}Variable`],
  ]),
  message(`${P}ExpressionWarning`, [
    ['fieldRef', 2, 'string', 'always'],
    ['warning', 3, 'string', 'always'],
  ]),
  message(`${P}TypeChecking`, [['expressionWarnings', 1, `[]${P}ExpressionWarning`]]),
  message(`${P}ValidatingAdmissionPolicyStatus`, [
    ['observedGeneration', 1, 'int64'],
    ['typeChecking', 2, `${P}TypeChecking`, 'pointer'],
    ['conditions', 3, '[]Condition'],
  ]),
  message(`${P}ValidatingAdmissionPolicy`, [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, `${P}ValidatingAdmissionPolicySpec`],
    ['status', 3, `${P}ValidatingAdmissionPolicyStatus`],
  ]),
  message(`${P}ParamRef`, [
    ['name', 1, 'string'],
    ['namespace', 2, 'string'],
    ['selector', 3, 'LabelSelector', 'pointer'],
    ['parameterNotFoundAction', 4, 'string', 'pointer'],
  ]),
  message(`${P}ValidatingAdmissionPolicyBindingSpec`, [
    ['policyName', 1, 'string'],
    ['paramRef', 2, `${P}ParamRef`, 'pointer'],
    ['matchResources', 3, `${P}MatchResources`, 'pointer'],
    ['validationActions', 4, '[]string'],
  ]),
  message(`${P}ValidatingAdmissionPolicyBinding`, [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, `${P}ValidatingAdmissionPolicyBindingSpec`],
  ]),
];

/** The served kinds and their lists. */
export const ADMISSIONREGISTRATION_KINDS: readonly string[] = [
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
];

export const ADMISSIONREGISTRATION_KIND_DEFS: readonly KindDef[] = ADMISSIONREGISTRATION_KINDS.flatMap((kind) => [
  { apiVersion: 'admissionregistration.k8s.io/v1', kind, message: `${P}${kind}` },
  { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}List`, message: `${P}${kind}List` },
]);

export const ADMISSIONREGISTRATION_LIST_ITEMS: readonly string[] = ADMISSIONREGISTRATION_KINDS.map((k) => `${P}${k}`);
