/**
 * The structural schema of ObjectMeta and TypeMeta shared by every built-in kind, with the list and
 * patch markers the real OpenAPI declares (finalizers a merge set, ownerReferences a map keyed by uid,
 * managedFields atomic).
 */
import { goTimeLayout, type Schema } from '../../schema/types.ts';
import { API_VERSION_DESCRIPTION, KIND_DESCRIPTION } from '../../schema/openapi-meta.ts';

const str = (description: string): Schema => ({ type: 'string', description });
const dateTime = (description: string): Schema => ({ type: 'string', format: 'date-time', description, [goTimeLayout]: 'Time' });
const int64 = (description: string): Schema => ({ type: 'integer', format: 'int64', description });
const stringMap = (description: string): Schema => ({ type: 'object', description, additionalProperties: { type: 'string', default: '' } });

export const ownerReferenceSchema: Schema = {
  type: 'object',
  description: 'Enough information to identify an owning object in the same namespace.',
  required: ['apiVersion', 'kind', 'name', 'uid'],
  properties: {
    apiVersion: str('API version of the owner.'),
    kind: str('Kind of the owner.'),
    name: str('Name of the owner.'),
    uid: str('UID of the owner.'),
    controller: { type: 'boolean', description: 'True if this owner is the managing controller.' },
    blockOwnerDeletion: { type: 'boolean', description: 'If true, the owner cannot be deleted from storage until this reference is removed.' },
  },
  'x-kubernetes-map-type': 'atomic',
};

export const managedFieldsEntrySchema: Schema = {
  type: 'object',
  description: 'A workflow-id, a set of fields it manages, and the operation that set them.',
  properties: {
    manager: str('Identifier of the workflow managing these fields.'),
    operation: str('Apply or Update: the kind of operation that led to this entry.'),
    apiVersion: str('Version of the resource the field set applies to.'),
    time: dateTime('When the fields were last changed by this manager.'),
    fieldsType: str('Format of the fields field; only FieldsV1.'),
    fieldsV1: {
      type: 'object',
      description: 'The field set, as a trie of `f:`, `k:`, `v:` and `i:` keys.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    subresource: str('Subresource used to update the object; empty for the main resource.'),
  },
};

export const objectMetaSchema: Schema = {
  type: 'object',
  description: 'Standard object metadata that every persisted resource has.',
  properties: {
    name: str('Name, unique within a namespace; cannot be updated.'),
    generateName: str('Prefix from which the server generates a unique name when name is empty.'),
    namespace: str('Namespace of the object; empty for cluster-scoped objects.'),
    uid: str('Unique identity assigned by the server, never reused.'),
    resourceVersion: str('Opaque version of this object, for optimistic concurrency and watches.'),
    generation: int64('Sequence number of changes to the desired state.'),
    creationTimestamp: dateTime('When the object was created; set by the server.'),
    deletionTimestamp: dateTime('When the object will be deleted; set by the server on a graceful delete.'),
    deletionGracePeriodSeconds: int64('Seconds allowed for graceful termination before removal.'),
    labels: stringMap('String keys and values that can be used to organize and select objects.'),
    annotations: stringMap('Unstructured key/value data stored with the object.'),
    ownerReferences: {
      type: 'array',
      description: 'Objects this object depends on; used by garbage collection.',
      items: ownerReferenceSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
    finalizers: {
      type: 'array',
      description: 'Conditions that must be cleared before the object is removed from storage.',
      items: { type: 'string', default: '' },
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    },
    managedFields: {
      type: 'array',
      description: 'Which manager owns which fields.',
      items: managedFieldsEntrySchema,
      'x-kubernetes-list-type': 'atomic',
    },
  },
};

/** `apiVersion` and `kind`, present on every object, described as kube publishes them (kubectl explain shows it). */
export const typeMetaProperties: Readonly<Record<string, Schema>> = {
  apiVersion: str(API_VERSION_DESCRIPTION),
  kind: str(KIND_DESCRIPTION),
};

/** A top-level kind schema: TypeMeta, metadata, and the kind's own properties. */
export function kindSchema(description: string, properties: Readonly<Record<string, Schema>>, required: readonly string[] = []): Schema {
  const schema: Schema = {
    type: 'object',
    description,
    properties: { ...typeMetaProperties, metadata: objectMetaSchema, ...properties },
  };
  return required.length > 0 ? { ...schema, required } : schema;
}
