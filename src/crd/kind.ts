/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition as a built-in kind: its schema (the JSON
 * schema of each version is free-form here; the CRD validation checks it), kube's defaulting
 * and strategy (status kept apart, storedVersions seeded on create), and its validation.
 */
import type { KubeObject, ResourceType } from '../api/types.ts';
import type { Schema } from '../schema/types.ts';
import { kindSchema } from '../api/kinds/object-meta-schema.ts';
import { s } from '../api/kinds/common-schemas.ts';
import { createdAtColumn, nameColumn } from '../api/kinds/table-columns.ts';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './validation.ts';
import { crdInGoOrder } from './go-order.ts';
import { schemaPropsTypeError } from './schema-props.ts';
import { errors } from '../api/status-errors.ts';
import { goWire } from '../codec/go-zero.ts';

export const CRD_GROUP = 'apiextensions.k8s.io';
/** The finalizer that holds a deleted CRD until its custom resources are gone. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/**
 * Sets a CRD's Terminating condition (kube's SetCRDCondition): it replaces the one there, and
 * keeps its lastTransitionTime unless the status changes.
 */
export function setTerminating(crd: KubeObject, status: 'True' | 'False', reason: string, message: string): void {
  const st = (isObj(crd.status) ? crd.status : (crd.status = {})) as Obj;
  const conditions = (Array.isArray(st.conditions) ? st.conditions : []).filter(isObj);
  const old = conditions.find((c) => c.type === 'Terminating');
  const lastTransitionTime = old && old.status === status && typeof old.lastTransitionTime === 'string' ? old.lastTransitionTime : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const next = { type: 'Terminating', status, lastTransitionTime, reason, message };
  st.conditions = old ? conditions.map((c) => (c === old ? next : c)) : [...conditions, next];
}

const freeForm: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const strings = (d: string): Schema => ({ type: 'array', description: d, items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic' });

const namesSchema = s.object('The resource and kind names of the custom resource.', {
  plural: s.string('The plural name of the resource to serve: /apis/<group>/<version>/.../<plural>. Must be all lowercase.'),
  singular: s.string('The singular name of the resource. Must be all lowercase. Defaults to the lowercased kind.'),
  shortNames: strings('Short names for the resource, exposed in API discovery documents, used by clients such as kubectl get <shortname>.'),
  kind: s.string('The serialized kind of the resource. It is normally CamelCase and singular.'),
  listKind: s.string('The serialized kind of the list for this resource. Defaults to "`kind`List".'),
  categories: strings('Grouped resources this custom resource belongs to (e.g. "all"), used by clients such as kubectl get all.'),
});

const conditionSchema = s.object('A state of the CustomResourceDefinition.', {
  type: s.string('The type of the condition: Established, NamesAccepted, NonStructuralSchema, Terminating.'),
  status: s.string('The status of the condition: True, False, Unknown.'),
  lastTransitionTime: s.dateTime('The last time the condition transitioned from one status to another.'),
  reason: s.string('A unique, one-word, CamelCase reason for the condition\'s last transition.'),
  message: s.string('A human-readable message indicating details about last transition.'),
});

const versionSchema = s.object('A version of the custom resource definition.', {
  name: s.string('The version name, e.g. "v1", "v2beta1"; served under /apis/<group>/<version>/...'),
  served: s.boolean('Whether this version is served by REST APIs.'),
  storage: s.boolean('Whether this version is the one custom resources are persisted in. Exactly one version has storage=true.'),
  deprecated: s.boolean('Whether this version is deprecated; requests to it get a warning header.'),
  deprecationWarning: s.string('Overrides the default warning returned to API clients.'),
  schema: s.object('The schema used for validation, pruning, and defaulting of this version.', { openAPIV3Schema: { ...freeForm, description: 'The OpenAPI v3 schema to use for validation and pruning.' } }),
  subresources: s.object('The subresources this version of the custom resource has.', {
    status: { ...freeForm, description: 'Enables the status subresource.' },
    scale: s.object('Enables the scale subresource.', {
      specReplicasPath: s.string('The JSON path inside a custom resource that corresponds to Scale spec.replicas.'),
      statusReplicasPath: s.string('The JSON path inside a custom resource that corresponds to Scale status.replicas.'),
      labelSelectorPath: s.string('The JSON path inside a custom resource that corresponds to Scale status.selector.'),
    }),
  }),
  additionalPrinterColumns: {
    type: 'array',
    description: 'Additional columns returned in Table output.',
    'x-kubernetes-list-type': 'atomic',
    items: s.object('A column of the Table output.', {
      name: s.string('A human readable name for the column.'),
      type: s.string('An OpenAPI type definition for this column.'),
      format: s.string('An optional OpenAPI type definition for this column.'),
      description: s.string('A human readable description of this column.'),
      priority: s.int32('An integer defining the relative importance of this column; 0 is shown in standard view, higher only in wide view.'),
      jsonPath: s.string('A simple JSON path evaluated against each custom resource to produce the value for this column.'),
    }),
  },
  selectableFields: {
    type: 'array',
    description: 'Fields that may be used as field selectors.',
    'x-kubernetes-list-type': 'atomic',
    items: s.object('A field that may be used as a field selector.', { jsonPath: s.string('A simple JSON path evaluated against each custom resource.') }),
  },
});

const schema: Schema = kindSchema('CustomResourceDefinition represents a resource that should be exposed on the API server.', {
  spec: s.object('Describes how the user wants the resources to appear.', {
    group: s.string('The API group of the defined custom resource.'),
    names: { ...namesSchema, default: {} },
    scope: s.string('Whether the resource is cluster-scoped or namespace-scoped: Cluster or Namespaced.'),
    versions: { type: 'array', description: 'The API versions of the defined custom resource.', items: versionSchema, 'x-kubernetes-list-type': 'atomic' },
    conversion: s.object('Defines conversion settings for the CRD.', {
      strategy: s.string('How custom resources are converted between versions: None or Webhook.'),
      webhook: { ...freeForm, description: 'How to call the conversion webhook (when strategy is Webhook).' },
    }),
    preserveUnknownFields: s.boolean('Deprecated; must be false.'),
  }, { default: {} }),
  status: s.object('The actual state of the CustomResourceDefinition.', {
    // Go writes conditions without omitempty: null until the controller sets them.
    conditions: goWire.always({ type: 'array', description: 'The observations of the CRD\'s current state.', items: conditionSchema, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
    acceptedNames: { ...namesSchema, default: {} },
    storedVersions: strings('All versions of this CustomResource that were ever persisted.'),
  }, { default: {} }),
}, ['spec']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** kube's SetDefaults for v1 CRDs: singular, listKind, conversion strategy, service ports. */
function defaultCrd(obj: KubeObject): void {
  if (!isObj(obj.spec)) return;
  const spec = obj.spec;
  if (isObj(spec.names)) {
    const names = spec.names;
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if (!names.singular) names.singular = kind.toLowerCase();
    if (!names.listKind && kind) names.listKind = `${kind}List`;
  }
  if (!isObj(spec.conversion)) spec.conversion = { strategy: 'None' };
  const cc = isObj(spec.conversion) && isObj(spec.conversion.webhook) && isObj(spec.conversion.webhook.clientConfig) ? spec.conversion.webhook.clientConfig : undefined;
  if (cc && isObj(cc.service) && cc.service.port === undefined) cc.service.port = 443;
}

/** The storage version's name, or undefined. */
export function storageVersionOf(crd: KubeObject): string | undefined {
  const versions = isObj(crd.spec) && Array.isArray(crd.spec.versions) ? crd.spec.versions : [];
  const v = versions.find((x) => isObj(x) && x.storage === true) as Obj | undefined;
  return typeof v?.name === 'string' ? v.name : undefined;
}

/** Adds the storage version to status.storedVersions (kube's strategy, on create and on every update). */
function recordStorageVersion(obj: KubeObject): void {
  const storage = storageVersionOf(obj);
  if (!storage) return;
  const status = (isObj(obj.status) ? obj.status : (obj.status = {})) as Obj;
  const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as string[]) : [];
  if (!stored.includes(storage)) status.storedVersions = [...stored, storage];
}

/** A new CRD's status: no names accepted yet, as kube writes it. */
function freshStatus(): Obj {
  return { acceptedNames: { plural: '', kind: '' }, storedVersions: [] };
}

export const customResourceDefinitionType: ResourceType = {
  group: CRD_GROUP,
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  singular: 'customresourcedefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  schema,
  hasStatus: true,
  tracksGeneration: true,
  nameValidation: 'dns1123-subdomain',
  // kube's default table: Name and Created At.
  tableColumns: [nameColumn(), createdAtColumn],
  fieldSelectors: {},
  storagePrefix: `/registry/${CRD_GROUP}/customresourcedefinitions/`,
  strategy: {
    defaults(obj) {
      // The version schemas are free-form in our schema of the kind: their Go typing is checked here.
      const versions = isObj(obj.spec) && Array.isArray(obj.spec.versions) ? obj.spec.versions : [];
      for (const v of versions) {
        const schema = isObj(v) && isObj(v.schema) ? v.schema.openAPIV3Schema : undefined;
        if (schema === undefined || schema === null) continue;
        const err = isObj(schema)
          ? schemaPropsTypeError(schema, 'spec.versions.schema.openAPIV3Schema')
          : `json: cannot unmarshal ${Array.isArray(schema) ? 'array' : typeof schema === 'boolean' ? 'bool' : typeof schema} into Go struct field CustomResourceValidation.spec.versions.schema.openAPIV3Schema of type v1.JSONSchemaProps`;
        if (err) throw errors.badRequest(`CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: ${err}`);
      }
      defaultCrd(obj);
      crdInGoOrder(obj);
    },
    prepareForCreate(obj) {
      obj.status = freshStatus();
      recordStorageVersion(obj);
      crdInGoOrder(obj);
    },
    prepareForUpdate(obj, old) {
      obj.status = structuredClone(old.status ?? freshStatus());
      recordStorageVersion(obj);
      crdInGoOrder(obj);
    },
    // kube's CRD registry: a delete first adds the cleanup finalizer and turns the CRD Terminating
    // (pending: the finalizer controller moves it on). Its own delete sets no grace period.
    deleteFinalizers: () => [CRD_CLEANUP_FINALIZER],
    prepareForDelete(obj) {
      if (obj.metadata) delete obj.metadata.deletionGracePeriodSeconds;
      setTerminating(obj, 'True', 'InstanceDeletionPending', 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon');
    },
    validate: validateCustomResourceDefinition,
    validateUpdate: validateCustomResourceDefinitionUpdate,
    subresources: {
      status: {
        prepareForUpdate(obj, old) {
          const status = obj.status;
          for (const k of Object.keys(obj)) if (k !== 'status' && k !== 'metadata') delete obj[k];
          for (const [k, v] of Object.entries(old)) if (k !== 'status' && k !== 'metadata') obj[k] = structuredClone(v);
          obj.status = status;
        },
      },
    },
  },
};
