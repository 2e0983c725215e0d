/**
 * Messages of k8s.io/api flowcontrol/v1 generated.proto (field numbers from there), in Go struct
 * order with Go's JSON facts from types.go: FlowSchema, PriorityLevelConfiguration and their lists.
 */
import { message, type KindDef, type MessageDef } from './schema-types.ts';

const P = 'flowcontrol.';

function condition(name: string): MessageDef {
  return message(name, [
    ['type', 1, 'string'],
    ['status', 2, 'string'],
    ['lastTransitionTime', 3, 'Time'],
    ['reason', 4, 'string'],
    ['message', 5, 'string'],
  ]);
}

export const FLOWCONTROL_MESSAGES: readonly MessageDef[] = [
  message(`${P}FlowSchema`, [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, `${P}FlowSchemaSpec`],
    ['status', 3, `${P}FlowSchemaStatus`],
  ]),
  message(`${P}FlowSchemaSpec`, [
    ['priorityLevelConfiguration', 1, `${P}PriorityLevelConfigurationReference`],
    ['matchingPrecedence', 2, 'int32', 'always'],
    ['distinguisherMethod', 3, `${P}FlowDistinguisherMethod`, 'pointer'],
    ['rules', 4, `[]${P}PolicyRulesWithSubjects`],
  ]),
  message(`${P}FlowDistinguisherMethod`, [['type', 1, 'string', 'always']]),
  message(`${P}PriorityLevelConfigurationReference`, [['name', 1, 'string', 'always']]),
  message(`${P}PolicyRulesWithSubjects`, [
    ['subjects', 1, `[]${P}Subject`, 'always'],
    ['resourceRules', 2, `[]${P}ResourcePolicyRule`],
    ['nonResourceRules', 3, `[]${P}NonResourcePolicyRule`],
  ]),
  message(`${P}Subject`, [
    ['kind', 1, 'string', 'always'],
    ['user', 2, `${P}UserSubject`, 'pointer'],
    ['group', 3, `${P}GroupSubject`, 'pointer'],
    ['serviceAccount', 4, `${P}ServiceAccountSubject`, 'pointer'],
  ]),
  message(`${P}UserSubject`, [['name', 1, 'string', 'always']]),
  message(`${P}GroupSubject`, [['name', 1, 'string', 'always']]),
  message(`${P}ServiceAccountSubject`, [
    ['namespace', 1, 'string', 'always'],
    ['name', 2, 'string', 'always'],
  ]),
  message(`${P}ResourcePolicyRule`, [
    ['verbs', 1, '[]string', 'always'],
    ['apiGroups', 2, '[]string', 'always'],
    ['resources', 3, '[]string', 'always'],
    ['clusterScope', 4, 'bool'],
    ['namespaces', 5, '[]string', 'always'],
  ]),
  message(`${P}NonResourcePolicyRule`, [
    ['verbs', 1, '[]string', 'always'],
    ['nonResourceURLs', 6, '[]string', 'always'],
  ]),
  message(`${P}FlowSchemaStatus`, [['conditions', 1, `[]${P}FlowSchemaCondition`]]),
  condition(`${P}FlowSchemaCondition`),
  message(`${P}PriorityLevelConfiguration`, [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, `${P}PriorityLevelConfigurationSpec`],
    ['status', 3, `${P}PriorityLevelConfigurationStatus`],
  ]),
  message(`${P}PriorityLevelConfigurationSpec`, [
    ['type', 1, 'string', 'always'],
    ['limited', 2, `${P}LimitedPriorityLevelConfiguration`, 'pointer'],
    ['exempt', 3, `${P}ExemptPriorityLevelConfiguration`, 'pointer'],
  ]),
  message(`${P}LimitedPriorityLevelConfiguration`, [
    ['nominalConcurrencyShares', 1, 'int32', 'pointer'],
    ['limitResponse', 2, `${P}LimitResponse`],
    ['lendablePercent', 3, 'int32', 'pointer'],
    ['borrowingLimitPercent', 4, 'int32', 'pointer'],
  ]),
  message(`${P}ExemptPriorityLevelConfiguration`, [
    ['nominalConcurrencyShares', 1, 'int32', 'pointer'],
    ['lendablePercent', 2, 'int32', 'pointer'],
  ]),
  message(`${P}LimitResponse`, [
    ['type', 1, 'string', 'always'],
    ['queuing', 2, `${P}QueuingConfiguration`, 'pointer'],
  ]),
  message(`${P}QueuingConfiguration`, [
    ['queues', 1, 'int32', 'always'],
    ['handSize', 2, 'int32', 'always'],
    ['queueLengthLimit', 3, 'int32', 'always'],
  ]),
  message(`${P}PriorityLevelConfigurationStatus`, [['conditions', 1, `[]${P}PriorityLevelConfigurationCondition`]]),
  condition(`${P}PriorityLevelConfigurationCondition`),
];

const V1 = 'flowcontrol.apiserver.k8s.io/v1';

export const FLOWCONTROL_KIND_DEFS: readonly KindDef[] = ['FlowSchema', 'PriorityLevelConfiguration'].flatMap((kind) => [
  { apiVersion: V1, kind, message: `${P}${kind}` },
  { apiVersion: V1, kind: `${kind}List`, message: `${P}${kind}List` },
]);

export const FLOWCONTROL_LIST_ITEMS: readonly string[] = [`${P}FlowSchema`, `${P}PriorityLevelConfiguration`];
