/** core/v1 Namespace: cluster-scoped, DNS-label names, `kubernetes` finalizer and Active phase on create. */
import type { FieldError } from '../field-errors.ts';
import { fieldErr } from '../field-errors.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { isStandardFinalizerName, validateCoreFinalizerNames, validateCoreObjectMetaUpdate, validateObjectMeta } from '../validation/metadata.ts';
import { isQualifiedName } from '../validation/names.ts';
import { arrField, objField, s, strField } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { ageColumn, nameColumn, stringColumn } from './table-columns.ts';

/** The label kube keeps equal to the namespace's name. */
export const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';
export const FINALIZER_KUBERNETES = 'kubernetes';

const namespaceConditionSchema = s.object(
  'The state of one aspect of a namespace.',
  {
    type: s.string('Type of namespace controller condition.', { default: '' }),
    status: s.string('Status of the condition: True, False or Unknown.', { default: '' }),
    lastTransitionTime: s.dateTime('Last time the condition changed.'),
    reason: s.string('Machine-readable reason for the last transition.'),
    message: s.string('Human-readable message about the last transition.'),
  },
  { required: ['type', 'status'] },
);

const schema = kindSchema('A scope for names; objects in a namespace are deleted with it.', {
  // Non-pointer structs of the Go type: always present (kube's OpenAPI `default: {}`).
  spec: s.object('What the namespace should be.', { finalizers: s.atomicStrings('Values that must be empty before the namespace is removed from storage.') }, { default: {} }),
  status: s.object('What the namespace is.', {
    phase: s.string('Active or Terminating.', { enum: ['Active', 'Terminating'] }),
    conditions: {
      type: 'array',
      description: 'The latest observations of the namespace state.',
      items: namespaceConditionSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
    },
  }, { default: {} }),
});

/** Sets `kubernetes.io/metadata.name` to the name (call again once a generated name is known). */
export function canonicalizeNamespace(obj: KubeObject): void {
  const name = obj.metadata?.name;
  if (!name) return;
  obj.metadata = { ...obj.metadata, labels: { ...(obj.metadata?.labels ?? {}), [LABEL_METADATA_NAME]: name } };
}

function specOf(obj: KubeObject): Record<string, unknown> {
  const spec = objField(obj, 'spec') ?? {};
  obj.spec = spec;
  return spec;
}

function validateNamespace(obj: KubeObject): FieldError[] {
  const errs = validateCoreFinalizerNames(obj.metadata);
  for (const f of arrField(obj.spec, 'finalizers')) {
    const name = typeof f === 'string' ? f : '';
    for (const msg of isQualifiedName(name)) errs.push(fieldErr.invalid('spec.finalizers', name, msg));
    if (!name.includes('/') && !isStandardFinalizerName(name)) {
      errs.push(fieldErr.invalid('spec.finalizers', name, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
  return errs;
}

/** ValidateNamespaceStatusUpdate: the phase must agree with deletionTimestamp (kube's path says `Phase`). */
function validateNamespaceStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(obj.metadata, old.metadata);
  const phase = strField(obj, 'status', 'phase');
  if (!obj.metadata?.deletionTimestamp) {
    if (phase !== 'Active') errs.push(fieldErr.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty"));
  } else if (phase !== 'Terminating') {
    errs.push(fieldErr.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
  }
  return errs;
}

/** ValidateNamespaceFinalizeUpdate: each spec.finalizers entry is a qualified, standard or prefixed name (indexed paths). */
function validateNamespaceFinalizeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(obj.metadata, old.metadata);
  arrField(obj.spec, 'finalizers').forEach((f, i) => {
    const name = typeof f === 'string' ? f : '';
    const path = `spec.finalizers[${i}]`;
    for (const msg of isQualifiedName(name)) errs.push(fieldErr.invalid(path, name, msg));
    if (!name.includes('/') && !isStandardFinalizerName(name)) {
      errs.push(fieldErr.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

export const namespaceType: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  singular: 'namespace',
  namespaced: false,
  shortNames: ['ns'],
  categories: [],
  schema,
  hasStatus: true,
  nameValidation: 'dns1123-label',
  tableColumns: [
    nameColumn(),
    stringColumn('Status', 'The status of the namespace', (obj) => strField(obj, 'status', 'phase')),
    ageColumn,
  ],
  fieldSelectors: {
    'status.phase': (obj) => strField(obj, 'status', 'phase'),
    name: (obj) => obj.metadata?.name ?? '',
  },
  strategy: {
    // The namespace registry answers a DELETE with the namespace (ReturnDeletedObject).
    returnDeletedObject: true,
    // SetDefaults_Namespace sets the name label at decode (the writer owns it); strategy and
    // canonicalization set it again for generated names, which are not known before.
    defaults: canonicalizeNamespace,
    prepareForCreate(obj) {
      // spec before status: the order of the Go struct, which the stored and served JSON keep.
      const spec = specOf(obj);
      delete obj.status;
      obj.status = { phase: 'Active' };
      const finalizers = arrField(spec, 'finalizers');
      // Required on create only: the namespace controller removes it through the finalize subresource.
      spec.finalizers = finalizers.includes(FINALIZER_KUBERNETES) ? finalizers : [...finalizers, FINALIZER_KUBERNETES];
      canonicalizeNamespace(obj);
    },
    prepareForUpdate(obj, old) {
      // Finalizers change only through /finalize and status only through /status.
      const oldFinalizers = objField(old, 'spec')?.finalizers;
      if (oldFinalizers !== undefined) specOf(obj).finalizers = oldFinalizers;
      else if (objField(obj, 'spec')) delete specOf(obj).finalizers;
      if (old.status !== undefined) obj.status = old.status;
      else delete obj.status;
      canonicalizeNamespace(obj);
    },
    prepareForDelete(obj) {
      // The first delete turns the namespace Terminating; the namespace controller empties it.
      // kube's namespace registry sets only deletionTimestamp: no grace period, unlike markAsDeleting.
      if (obj.metadata) delete obj.metadata.deletionGracePeriodSeconds;
      obj.status = { ...((obj.status as Record<string, unknown> | undefined) ?? {}), phase: 'Terminating' };
    },
    validate: validateNamespace,
    // kube's namespace strategy: ValidateNamespace (ObjectMeta included), then ValidateNamespaceUpdate.
    validateUpdate: (obj, old) => [
      ...validateObjectMeta(obj.metadata, { namespaced: false, nameValidation: 'dns1123-label' }),
      ...validateNamespace(obj),
      ...validateCoreObjectMetaUpdate(obj.metadata, old.metadata),
    ],
    subresources: {
      // kube's namespaceStatusStrategy: the request's metadata and status, the stored spec.
      status: {
        prepareForUpdate(obj, old) {
          if (old.spec === undefined) delete obj.spec;
          else obj.spec = structuredClone(old.spec);
          canonicalizeNamespace(obj);
        },
        validateUpdate: validateNamespaceStatusUpdate,
      },
      // kube's namespaceFinalizeStrategy: the request's metadata and spec, the stored status.
      finalize: {
        prepareForUpdate(obj, old) {
          if (old.status === undefined) delete obj.status;
          else obj.status = structuredClone(old.status);
          canonicalizeNamespace(obj);
        },
        validateUpdate: validateNamespaceFinalizeUpdate,
      },
    },
  },
  storagePrefix: '/registry/namespaces/',
};
