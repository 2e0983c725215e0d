/** Hand-written resource types for the schema tests: a ConfigMap-like core kind and a nested CRD-like kind. */
import type { ResourceType } from '../../src/api/types.ts';
import type { Schema } from '../../src/schema/types.ts';

const meta: Schema = { type: 'object' };

export const configMapSchema: Schema = {
  type: 'object',
  description: 'ConfigMap holds configuration data for pods to consume.',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: meta,
    data: {
      type: 'object',
      description: 'Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.',
      additionalProperties: { type: 'string' },
    },
    binaryData: {
      type: 'object',
      description: 'BinaryData contains the binary data.',
      additionalProperties: { type: 'string', format: 'byte' },
    },
    immutable: { type: 'boolean', description: 'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.' },
  },
};

export const crontabSchema: Schema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: meta,
    spec: {
      type: 'object',
      description: 'Spec of the CronTab.',
      required: ['cronSpec'],
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$', description: 'The cron schedule.' },
        image: { type: 'string', maxLength: 10 },
        replicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 10, default: 1 },
        policy: { type: 'string', enum: ['Allow', 'Forbid'], default: 'Allow' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 } },
          },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        size: { 'x-kubernetes-int-or-string': true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
        note: { type: 'string', nullable: true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

const base = {
  shortNames: [] as string[],
  categories: [] as string[],
  hasStatus: false,
  nameValidation: 'dns1123-subdomain' as const,
  tableColumns: [],
  fieldSelectors: {},
  strategy: {},
};

export const configMapType: ResourceType = {
  ...base,
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  singular: 'configmap',
  namespaced: true,
  shortNames: ['cm'],
  schema: configMapSchema,
  storagePrefix: '/registry/configmaps/',
};

export const namespaceType: ResourceType = {
  ...base,
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  singular: 'namespace',
  namespaced: false,
  shortNames: ['ns'],
  hasStatus: true,
  schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: meta, spec: { type: 'object', properties: { finalizers: { type: 'array', items: { type: 'string' } } } } } },
  storagePrefix: '/registry/namespaces/',
};

export const crontabType: ResourceType = {
  ...base,
  group: 'stable.example.com',
  version: 'v1',
  resource: 'crontabs',
  kind: 'CronTab',
  listKind: 'CronTabList',
  singular: 'crontab',
  namespaced: true,
  hasStatus: true,
  schema: crontabSchema,
  storagePrefix: '/registry/stable.example.com/crontabs/',
};

export const leaseType: ResourceType = {
  ...base,
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  listKind: 'LeaseList',
  singular: 'lease',
  namespaced: true,
  schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: meta, spec: { type: 'object', properties: { holderIdentity: { type: 'string' } } } } },
  storagePrefix: '/registry/leases/',
};

export const allTypes: readonly ResourceType[] = [configMapType, namespaceType, crontabType, leaseType];
