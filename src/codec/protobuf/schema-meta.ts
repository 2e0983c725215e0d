/**
 * Messages of k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto and
 * k8s.io/apimachinery/pkg/runtime/generated.proto that our kinds use. Field numbers are
 * kube's; presence follows the Go json tags of the same types.
 */
import { message, type MessageDef } from './schema-types.ts';

export const META_MESSAGES: readonly MessageDef[] = [
  message('ObjectMeta', [
    ['name', 1, 'string'],
    ['generateName', 2, 'string'],
    ['namespace', 3, 'string'],
    ['selfLink', 4, 'string'],
    ['uid', 5, 'string'],
    ['resourceVersion', 6, 'string'],
    ['generation', 7, 'int64'],
    ['creationTimestamp', 8, 'Time'],
    ['deletionTimestamp', 9, 'Time', 'pointer'],
    ['deletionGracePeriodSeconds', 10, 'int64', 'pointer'],
    ['labels', 11, 'map<string,string>'],
    ['annotations', 12, 'map<string,string>'],
    ['ownerReferences', 13, '[]OwnerReference'],
    ['finalizers', 14, '[]string'],
    ['managedFields', 17, '[]ManagedFieldsEntry'],
  ]),
  message('ListMeta', [
    ['selfLink', 1, 'string'],
    ['resourceVersion', 2, 'string'],
    ['continue', 3, 'string'],
    ['remainingItemCount', 4, 'int64', 'pointer'],
  ]),
  message('OwnerReference', [
    ['apiVersion', 5, 'string', 'always'],
    ['kind', 1, 'string', 'always'],
    ['name', 3, 'string', 'always'],
    ['uid', 4, 'string', 'always'],
    ['controller', 6, 'bool', 'pointer'],
    ['blockOwnerDeletion', 7, 'bool', 'pointer'],
  ]),
  message('ManagedFieldsEntry', [
    ['manager', 1, 'string'],
    ['operation', 2, 'string'],
    ['apiVersion', 3, 'string'],
    ['time', 4, 'Time', 'pointer'],
    ['fieldsType', 6, 'string'],
    ['fieldsV1', 7, 'FieldsV1', 'pointer'],
    ['subresource', 8, 'string'],
  ]),
  message('LabelSelector', [
    ['matchLabels', 1, 'map<string,string>'],
    ['matchExpressions', 2, '[]LabelSelectorRequirement'],
  ]),
  // metav1.Condition: every field but observedGeneration without omitempty.
  message('Condition', [
    ['type', 1, 'string', 'always'],
    ['status', 2, 'string', 'always'],
    ['observedGeneration', 3, 'int64'],
    ['lastTransitionTime', 4, 'Time'],
    ['reason', 5, 'string', 'always'],
    ['message', 6, 'string', 'always'],
  ]),
  message('LabelSelectorRequirement', [
    ['key', 1, 'string', 'always'],
    ['operator', 2, 'string', 'always'],
    ['values', 3, '[]string'],
  ]),
  message('FieldSelectorRequirement', [
    ['key', 1, 'string', 'always'],
    ['operator', 2, 'string', 'always'],
    ['values', 3, '[]string'],
  ]),
  message('Status', [
    ['metadata', 1, 'ListMeta'],
    ['status', 2, 'string'],
    ['message', 3, 'string'],
    ['reason', 4, 'string'],
    ['details', 5, 'StatusDetails', 'pointer'],
    ['code', 6, 'int32'],
  ]),
  message('StatusDetails', [
    ['name', 1, 'string'],
    ['group', 2, 'string'],
    ['kind', 3, 'string'],
    ['uid', 6, 'string'],
    ['causes', 4, '[]StatusCause'],
    ['retryAfterSeconds', 5, 'int32'],
  ]),
  message('StatusCause', [
    ['reason', 1, 'string'],
    ['message', 2, 'string'],
    ['field', 3, 'string'],
  ]),
  // The metadata-only views (meta/v1 and v1beta1 share these messages): no TypeMeta on the wire.
  message('PartialObjectMetadata', [['metadata', 1, 'ObjectMeta']]),
  message('PartialObjectMetadataList', [
    ['metadata', 1, 'ListMeta'],
    ['items', 2, '[]PartialObjectMetadata'],
  ]),
  message('DeleteOptions', [
    ['gracePeriodSeconds', 1, 'int64', 'pointer'],
    ['preconditions', 2, 'Preconditions', 'pointer'],
    ['orphanDependents', 3, 'bool', 'pointer'],
    ['propagationPolicy', 4, 'string', 'pointer'],
    ['dryRun', 5, '[]string'],
    // Not confirmed against generated.proto (the indexed copies predate the field); 6 is the
    // next free number and the one kube assigned.
    ['ignoreStoreReadErrorWithClusterBreakingPotential', 6, 'bool', 'pointer'],
  ]),
  message('Preconditions', [
    ['uid', 1, 'string', 'pointer'],
    ['resourceVersion', 2, 'string', 'pointer'],
  ]),
  message('WatchEvent', [
    ['type', 1, 'string', 'always'],
    ['object', 2, 'RawExtension', 'always'],
  ]),
  message('RawExtension', [['raw', 1, 'bytes']]),
  // Discovery documents (/api, /apis, /apis/<group>, a group version's APIResourceList).
  message('APIVersions', [
    ['versions', 1, '[]string'],
    ['serverAddressByClientCIDRs', 2, '[]ServerAddressByClientCIDR'],
  ]),
  message('ServerAddressByClientCIDR', [
    ['clientCIDR', 1, 'string', 'always'],
    ['serverAddress', 2, 'string', 'always'],
  ]),
  message('APIGroupList', [['groups', 1, '[]APIGroup']]),
  message('APIGroup', [
    ['name', 1, 'string', 'always'],
    ['versions', 2, '[]GroupVersionForDiscovery'],
    ['preferredVersion', 3, 'GroupVersionForDiscovery'],
    ['serverAddressByClientCIDRs', 4, '[]ServerAddressByClientCIDR'],
  ]),
  message('GroupVersionForDiscovery', [
    ['groupVersion', 1, 'string', 'always'],
    ['version', 2, 'string', 'always'],
  ]),
  message('APIResourceList', [
    ['groupVersion', 1, 'string', 'always'],
    ['resources', 2, '[]APIResource'],
  ]),
  message('APIResource', [
    ['name', 1, 'string', 'always'],
    ['singularName', 6, 'string', 'always'],
    ['namespaced', 2, 'bool', 'always'],
    ['group', 8, 'string'],
    ['version', 9, 'string'],
    ['kind', 3, 'string', 'always'],
    // JSON's verbs list is the message Verbs{items} on the wire, written when not nil.
    ['verbs', 4, 'Verbs', 'pointer'],
    ['shortNames', 5, '[]string'],
    ['categories', 7, '[]string'],
    ['storageVersionHash', 10, 'string'],
  ]),
  message('Verbs', [['items', 1, '[]string']]),
];
