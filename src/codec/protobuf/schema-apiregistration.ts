/**
 * Messages of k8s.io/kube-aggregator apiregistration/v1 generated.proto (field numbers from
 * there; 6 is the retired `priority`), in Go struct order with Go's JSON facts from types.go:
 * APIService and its list.
 */
import { message, type KindDef, type MessageDef } from './schema-types.ts';

const P = 'apiregistration.';

export const APIREGISTRATION_MESSAGES: readonly MessageDef[] = [
  message(`${P}ServiceReference`, [
    ['namespace', 1, 'string'],
    ['name', 2, 'string'],
    ['port', 3, 'int32', 'pointer'],
  ]),
  message(`${P}APIServiceSpec`, [
    ['service', 1, `${P}ServiceReference`, 'pointer'],
    ['group', 2, 'string'],
    ['version', 3, 'string'],
    ['insecureSkipTLSVerify', 4, 'bool'],
    ['caBundle', 5, 'bytes'],
    ['groupPriorityMinimum', 7, 'int32', 'always'],
    ['versionPriority', 8, 'int32', 'always'],
  ]),
  message(`${P}APIServiceCondition`, [
    ['type', 1, 'string', 'always'],
    ['status', 2, 'string', 'always'],
    ['lastTransitionTime', 3, 'Time'],
    ['reason', 4, 'string'],
    ['message', 5, 'string'],
  ]),
  message(`${P}APIServiceStatus`, [['conditions', 1, `[]${P}APIServiceCondition`]]),
  message(`${P}APIService`, [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, `${P}APIServiceSpec`],
    ['status', 3, `${P}APIServiceStatus`],
  ]),
];

export const APIREGISTRATION_KIND_DEFS: readonly KindDef[] = [
  { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', message: `${P}APIService` },
  { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIServiceList', message: `${P}APIServiceList` },
];

export const APIREGISTRATION_LIST_ITEMS: readonly string[] = [`${P}APIService`];
