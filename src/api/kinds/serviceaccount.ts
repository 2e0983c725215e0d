/** core/v1 ServiceAccount: an identity for pods, with the secrets it may mount and pull with. */
import type { KubeObject, ResourceType } from '../types.ts';
import { validateCoreFinalizerNames, validateCoreObjectMetaUpdate, validateObjectMeta } from '../validation/metadata.ts';
import { arrField, localObjectReferenceSchema, objectReferenceSchema, s } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { ageColumn, nameColumn, stringColumn } from './table-columns.ts';

const schema = kindSchema('An identity for processes that run in a pod.', {
  secrets: {
    type: 'array',
    description: 'Secrets in the same namespace that pods running as this account may use.',
    items: objectReferenceSchema,
    'x-kubernetes-patch-merge-key': 'name',
    'x-kubernetes-patch-strategy': 'merge',
  },
  imagePullSecrets: {
    type: 'array',
    description: 'Secrets in the same namespace used to pull images for pods running as this account.',
    items: localObjectReferenceSchema,
    'x-kubernetes-list-type': 'atomic',
  },
  automountServiceAccountToken: s.boolean('Whether pods running as this account get an API token mounted automatically.'),
});

export const serviceAccountType: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  singular: 'serviceaccount',
  namespaced: true,
  shortNames: ['sa'],
  categories: [],
  schema,
  hasStatus: false,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [
    nameColumn(),
    stringColumn('Secrets', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret', (obj) => arrField(obj, 'secrets').length),
    ageColumn,
  ],
  fieldSelectors: {},
  strategy: {
    // kube's service account registry answers a DELETE with the object (ReturnDeletedObject).
    returnDeletedObject: true,
    prepareForCreate: cleanSecretReferences,
    prepareForUpdate: (obj) => cleanSecretReferences(obj),
    validate: (obj) => validateCoreFinalizerNames(obj.metadata),
    // kube's ValidateServiceAccountUpdate: the update checks, then the whole ValidateServiceAccount (ObjectMeta included).
    validateUpdate: (obj, old) => [
      ...validateCoreObjectMetaUpdate(obj.metadata, old.metadata),
      ...validateObjectMeta(obj.metadata, { namespaced: true, nameValidation: 'dns1123-subdomain' }),
      ...validateCoreFinalizerNames(obj.metadata),
    ],
  },
  storagePrefix: '/registry/serviceaccounts/',
};

/** kube keeps only the name of each secret reference (they are always in the account's namespace). */
function cleanSecretReferences(obj: KubeObject): void {
  if (!Array.isArray(obj.secrets)) return;
  obj.secrets = obj.secrets.map((ref: unknown) => {
    const name = ref !== null && typeof ref === 'object' ? (ref as Record<string, unknown>).name : undefined;
    return typeof name === 'string' && name !== '' ? { name } : {};
  });
}
