/**
 * The types of the admission CEL `request` variable (kube's BuildRequestType,
 * k8s.io/apiserver/pkg/admission/plugin/cel): the AdmissionRequest's fields, so that the checker
 * refuses `request.nope` as kube's does ("undefined field 'nope'"). At run time the value is the
 * request as a plain object, as in kube.
 */
import type { CelType } from './schema-types.ts';

const STRING: CelType = { kind: 'string' };
const gvk: CelType = { kind: 'object', fields: { group: STRING, version: STRING, kind: STRING } };
const gvr: CelType = { kind: 'object', fields: { group: STRING, version: STRING, resource: STRING } };
const userInfo: CelType = {
  kind: 'object',
  fields: {
    username: STRING,
    uid: STRING,
    groups: { kind: 'list', element: STRING, listType: 'atomic' },
    extra: { kind: 'map', key: STRING, value: { kind: 'list', element: STRING, listType: 'atomic' } },
  },
};

export const ADMISSION_REQUEST_TYPE: CelType = {
  kind: 'object',
  fields: {
    kind: gvk,
    resource: gvr,
    subResource: STRING,
    requestKind: gvk,
    requestResource: gvr,
    requestSubResource: STRING,
    name: STRING,
    namespace: STRING,
    operation: STRING,
    userInfo,
    dryRun: { kind: 'bool' },
    options: { kind: 'dyn' },
  },
};

const STRINGS: CelType = { kind: 'list', element: STRING, listType: 'atomic' };
const STRING_MAP: CelType = { kind: 'map', key: STRING, value: STRING };

/**
 * The type of a policy's `namespaceObject` (kube's BuildNamespaceType): a Namespace with the
 * metadata fields kube declares, `UID` spelled as kube spells it.
 */
export const NAMESPACE_OBJECT_TYPE: CelType = {
  kind: 'object',
  fields: {
    metadata: {
      kind: 'object',
      fields: {
        name: STRING,
        generateName: STRING,
        namespace: STRING,
        labels: STRING_MAP,
        annotations: STRING_MAP,
        UID: STRING,
        creationTimestamp: { kind: 'timestamp' },
        deletionGracePeriodSeconds: { kind: 'int' },
        deletionTimestamp: { kind: 'timestamp' },
        generation: { kind: 'int' },
        resourceVersion: STRING,
        finalizers: STRINGS,
      },
    },
    spec: { kind: 'object', fields: { finalizers: STRINGS } },
    status: {
      kind: 'object',
      fields: {
        conditions: { kind: 'list', listType: 'atomic', element: { kind: 'object', fields: { status: STRING, type: STRING, lastTransitionTime: { kind: 'timestamp' }, message: STRING, reason: STRING } } },
        phase: STRING,
      },
    },
  },
};
