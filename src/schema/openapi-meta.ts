/**
 * The shared meta/v1 definitions every published OpenAPI document carries (ObjectMeta,
 * ListMeta, Status, DeleteOptions, ...), named as kube-apiserver names them. Built by a function
 * of the reference style, so the same text serves Swagger 2.0 and OpenAPI 3.0.
 */

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const PATCH = `${META}.Patch`;
export const WATCH_EVENT = `${META}.WatchEvent`;

export type Json = Record<string, unknown>;

/** How a document refers to a definition, and how it wraps a reference that has siblings. */
export interface RefStyle {
  ref(name: string): Json;
  /** A reference with a description (v3 wraps `$ref` in `allOf`, as kube does; v2 puts them side by side). */
  refWith(name: string, extra: Json): Json;
}

export const v2Refs: RefStyle = {
  ref: (name) => ({ $ref: `#/definitions/${name}` }),
  refWith: (name, extra) => {
    const { default: _omit, ...rest } = extra;
    return { ...rest, $ref: `#/definitions/${name}` };
  },
};

export const v3Refs: RefStyle = {
  ref: (name) => ({ $ref: `#/components/schemas/${name}` }),
  refWith: (name, extra) => ({ ...extra, allOf: [{ $ref: `#/components/schemas/${name}` }] }),
};

export const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
export const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
export const OBJECT_METADATA_DESCRIPTION =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
export const LIST_METADATA_DESCRIPTION =
  "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

const str = (description: string): Json => ({ type: 'string', description });
const int = (description: string, format = 'int64'): Json => ({ type: 'integer', format, description });
const strMap = (description: string): Json => ({ type: 'object', additionalProperties: { type: 'string', default: '' }, description });
const strList = (description: string, listType = 'atomic'): Json => ({
  type: 'array',
  items: { type: 'string', default: '' },
  description,
  'x-kubernetes-list-type': listType,
});
const time = (r: RefStyle, description: string): Json => r.refWith(`${META}.Time`, { description });

/** The meta/v1 definitions, keyed by definition name. */
export function metaDefinitions(r: RefStyle): Record<string, Json> {
  return {
    [`${META}.Time`]: {
      type: 'string',
      format: 'date-time',
      description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.',
    },
    [`${META}.FieldsV1`]: {
      type: 'object',
      description: "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.\n\nEach key is either a '.' representing the field itself, and will always map to an empty set, or a string representing a sub-field or item. The string will follow one of these four formats: 'f:<name>', where <name> is the name of a field in a struct, or key in a map 'v:<value>', where <value> is the exact json formatted value of a list item 'i:<index>', where <index> is position of a item in a list 'k:<keys>', where <keys> is a map of  a list item's key fields to their unique values If a key maps to an empty Fields value, the field that key represents is part of the set.\n\nThe exact format is defined in sigs.k8s.io/structured-merge-diff",
    },
    [`${META}.OwnerReference`]: {
      type: 'object',
      required: ['apiVersion', 'kind', 'name', 'uid'],
      description: 'OwnerReference contains enough information to let you identify an owning object. An owning object must be in the same namespace as the dependent, or be cluster-scoped, so there is no namespace field.',
      properties: {
        apiVersion: str('API version of the referent.'),
        blockOwnerDeletion: { type: 'boolean', description: 'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.' },
        controller: { type: 'boolean', description: 'If true, this reference points to the managing controller.' },
        kind: str(KIND_DESCRIPTION.replace('Kind is a string value representing the REST resource this object represents.', 'Kind of the referent.')),
        name: str('Name of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names'),
        uid: str('UID of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids'),
      },
      'x-kubernetes-map-type': 'atomic',
    },
    [`${META}.ManagedFieldsEntry`]: {
      type: 'object',
      description: 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
      properties: {
        apiVersion: str('APIVersion defines the version of this resource that this field set applies to. The format is "group/version" just like the top-level APIVersion field. It is necessary to track the version of a field set because it cannot be automatically converted.'),
        fieldsType: str('FieldsType is the discriminator for the different fields format and version. There is currently only 1 possible value: "FieldsV1"'),
        fieldsV1: r.refWith(`${META}.FieldsV1`, { description: 'FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.' }),
        manager: str('Manager is an identifier of the workflow managing these fields.'),
        operation: str("Operation is the type of operation which lead to this ManagedFieldsEntry being created. The only valid values for this field are 'Apply' and 'Update'."),
        subresource: str('Subresource is the name of the subresource used to update that object, or empty string if the object was updated through the main resource.'),
        time: time(r, 'Time is the timestamp of when the ManagedFields entry was added.'),
      },
    },
    [OBJECT_META]: {
      type: 'object',
      description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
      properties: {
        annotations: strMap('Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations'),
        creationTimestamp: time(r, 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.'),
        deletionGracePeriodSeconds: int('Number of seconds allowed for this object to gracefully terminate before it will be removed from the system. Only set when deletionTimestamp is also set. May only be shortened. Read-only.'),
        deletionTimestamp: time(r, 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. This field is set by the server when a graceful deletion is requested by the user, and is not directly settable by a client.'),
        finalizers: {
          ...strList('Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list.', 'set'),
          'x-kubernetes-patch-strategy': 'merge',
        },
        generateName: str('GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.'),
        generation: int('A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.'),
        labels: strMap('Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels'),
        managedFields: {
          type: 'array',
          items: r.refWith(`${META}.ManagedFieldsEntry`, { default: {} }),
          description: "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow. This is mostly for internal housekeeping, and users typically shouldn't need to set or understand this field.",
          'x-kubernetes-list-type': 'atomic',
        },
        name: str('Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names'),
        namespace: str('Namespace defines the space within which each name must be unique. An empty namespace is equivalent to the "default" namespace, but "default" is the canonical representation. Not all objects are required to be scoped to a namespace - the value of this field for those objects will be ignored. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces'),
        ownerReferences: {
          type: 'array',
          items: r.refWith(`${META}.OwnerReference`, { default: {} }),
          description: 'List of objects depended by this object. If ALL objects in the list have been deleted, this object will be garbage collected.',
          'x-kubernetes-list-map-keys': ['uid'],
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-patch-merge-key': 'uid',
          'x-kubernetes-patch-strategy': 'merge',
        },
        resourceVersion: str('An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency'),
        selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
        uid: str('UID is the unique in time and space value for this object. It is typically generated by the server on successful creation of a resource and is not allowed to change on PUT operations. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids'),
      },
    },
    [LIST_META]: {
      type: 'object',
      description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects. A resource may have only one of {ObjectMeta, ListMeta}.',
      properties: {
        continue: str('continue may be set if the user set a limit on the number of items returned, and indicates that the server has more data available.'),
        remainingItemCount: int('remainingItemCount is the number of subsequent items in the list which are not included in this list response.'),
        resourceVersion: str("String that identifies the server's internal version of this object that can be used by clients to determine when objects have changed."),
        selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
      },
    },
    [`${META}.StatusCause`]: {
      type: 'object',
      description: 'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.',
      properties: {
        field: str('The field of the resource that has caused this error, as named by its JSON serialization.'),
        message: str('A human-readable description of the cause of the error.'),
        reason: str('A machine-readable description of the cause of the error. If this value is empty there is no information available.'),
      },
    },
    [`${META}.StatusDetails`]: {
      type: 'object',
      description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
      properties: {
        causes: { type: 'array', items: r.refWith(`${META}.StatusCause`, { default: {} }), description: 'The Causes array includes more details associated with the StatusReason failure.', 'x-kubernetes-list-type': 'atomic' },
        group: str('The group attribute of the resource associated with the status StatusReason.'),
        kind: str('The kind attribute of the resource associated with the status StatusReason.'),
        name: str('The name attribute of the resource associated with the status StatusReason (when there is a single name which can be described).'),
        retryAfterSeconds: int('If specified, the time in seconds before the operation should be retried.', 'int32'),
        uid: str('UID of the resource. (when there is a single resource which can be described).'),
      },
    },
    [STATUS]: {
      type: 'object',
      description: 'Status is a return value for calls that don\'t return other objects.',
      properties: {
        apiVersion: str(API_VERSION_DESCRIPTION),
        code: int('Suggested HTTP return code for this status, 0 if not set.', 'int32'),
        details: r.refWith(`${META}.StatusDetails`, { description: 'Extended data associated with the reason.' }),
        kind: str(KIND_DESCRIPTION),
        message: str('A human-readable description of the status of this operation.'),
        metadata: r.refWith(LIST_META, { default: {}, description: LIST_METADATA_DESCRIPTION }),
        reason: str('A machine-readable description of why this operation is in the "Failure" status.'),
        status: str('Status of the operation. One of: "Success" or "Failure".'),
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
    },
    [`${META}.Preconditions`]: {
      type: 'object',
      description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
      properties: {
        resourceVersion: str('Specifies the target ResourceVersion'),
        uid: str('Specifies the target UID.'),
      },
    },
    [DELETE_OPTIONS]: {
      type: 'object',
      description: 'DeleteOptions may be provided when deleting an API object.',
      properties: {
        apiVersion: str(API_VERSION_DESCRIPTION),
        dryRun: strList('When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed'),
        gracePeriodSeconds: int('The duration in seconds before the object should be deleted.'),
        ignoreStoreReadErrorWithClusterBreakingPotential: { type: 'boolean', description: 'if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error.' },
        kind: str(KIND_DESCRIPTION),
        orphanDependents: { type: 'boolean', description: 'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7.' },
        preconditions: r.refWith(`${META}.Preconditions`, { description: 'Must be fulfilled before a deletion is carried out.' }),
        propagationPolicy: str("Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'."),
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'DeleteOptions', version: 'v1' }],
    },
    [PATCH]: {
      type: 'object',
      description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
    },
    [WATCH_EVENT]: {
      type: 'object',
      required: ['type', 'object'],
      description: 'Event represents a single event to a watched resource.',
      properties: {
        object: { type: 'object', description: 'Object is:\n * If Type is Added or Modified: the new state of the object.\n * If Type is Deleted: the state of the object immediately before deletion.\n * If Type is Error: *Status is recommended; other types may make sense\n   depending on context.' },
        type: { type: 'string', default: '' },
      },
    },
  };
}
