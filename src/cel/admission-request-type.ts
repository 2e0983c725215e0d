/**
 * The type of the admission CEL `request` variable (kube's BuildRequestType,
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
