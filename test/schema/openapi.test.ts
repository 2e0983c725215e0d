import { describe, expect, it } from 'vitest';
import {
  buildOpenApiV2,
  buildOpenApiV3GroupVersion,
  buildOpenApiV3Index,
  definitionName,
  definitionPrefix,
  openApiHash,
} from '../../src/schema/openapi.ts';
import { groupTag } from '../../src/schema/openapi-paths.ts';
import { allTypes, configMapType, crontabType } from './sample-types.ts';

type J = Record<string, any>;

describe('definition names', () => {
  it('follows kube naming for built-in and custom groups', () => {
    expect(definitionName(configMapType)).toBe('io.k8s.api.core.v1.ConfigMap');
    expect(definitionPrefix('coordination.k8s.io', 'v1')).toBe('io.k8s.api.coordination.v1');
    expect(definitionPrefix('rbac.authorization.k8s.io', 'v1')).toBe('io.k8s.api.rbac.v1');
    expect(definitionPrefix('events.k8s.io', 'v1')).toBe('io.k8s.api.events.v1');
    expect(definitionPrefix('apps', 'v1')).toBe('io.k8s.api.apps.v1');
    expect(definitionPrefix('apiextensions.k8s.io', 'v1')).toBe('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1');
    expect(definitionName(crontabType)).toBe('com.example.stable.v1.CronTab');
    expect(groupTag('rbac.authorization.k8s.io')).toBe('rbacAuthorization');
    expect(groupTag('')).toBe('core');
  });
});

describe('/openapi/v3', () => {
  it('indexes every group-version with a hash of its document', () => {
    const index = buildOpenApiV3Index(allTypes);
    expect(Object.keys(index.paths)).toEqual(['api/v1', 'apis/coordination.k8s.io/v1', 'apis/stable.example.com/v1']);
    const core = JSON.stringify(buildOpenApiV3GroupVersion(allTypes, '', 'v1'));
    const hash = openApiHash(core);
    expect(hash).toMatch(/^[0-9A-F]{128}$/);
    expect(index.paths['api/v1']!.serverRelativeURL).toBe(`/openapi/v3/api/v1?hash=${hash}`);
    // Static for a given type set.
    expect(openApiHash(JSON.stringify(buildOpenApiV3GroupVersion([...allTypes].reverse(), '', 'v1')))).toBe(hash);
  });

  it('publishes the kind schema with its GVK, ObjectMeta reference and list kind', () => {
    const doc = buildOpenApiV3GroupVersion(allTypes, '', 'v1') as J;
    expect(doc['openapi']).toBe('3.0.0');
    const cm = doc['components'].schemas['io.k8s.api.core.v1.ConfigMap'];
    expect(cm['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    expect(cm.properties.metadata.allOf).toEqual([{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    expect(cm.properties.data.additionalProperties).toEqual({ type: 'string' });
    expect(doc['components'].schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.labels.type).toBe('object');
    expect(doc['components'].schemas['io.k8s.api.core.v1.ConfigMapList']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'ConfigMapList', version: 'v1' }]);
    expect(doc['components'].schemas['com.example.stable.v1.CronTab']).toBeUndefined();
  });

  it('declares fieldValidation on PATCH operations tagged with the GVK', () => {
    const doc = buildOpenApiV3GroupVersion(allTypes, 'stable.example.com', 'v1') as J;
    const item = doc['paths']['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'];
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({ group: 'stable.example.com', kind: 'CronTab', version: 'v1' });
    expect(item.patch.parameters.map((p: J) => p['name'])).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(Object.keys(item.patch.requestBody.content)).not.toContain('application/strategic-merge-patch+json');
    expect(item.patch.operationId).toBe('patchStableExampleComV1NamespacedCronTab');
    expect(doc['paths']['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/status'].patch).toBeDefined();
    expect(doc['paths']['/apis/stable.example.com/v1/crontabs'].get.operationId).toBe('listStableExampleComV1CronTabForAllNamespaces');
    const core = buildOpenApiV3GroupVersion(allTypes, '', 'v1') as J;
    expect(core['paths']['/api/v1/namespaces/{name}'].get['x-kubernetes-group-version-kind'].kind).toBe('Namespace');
    expect(Object.keys(core['paths']['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch.requestBody.content)).toContain('application/strategic-merge-patch+json');
  });
});

describe('/openapi/v2', () => {
  it('is one Swagger 2.0 document with definitions and inline parameters', () => {
    const doc = buildOpenApiV2(allTypes) as J;
    expect(doc['swagger']).toBe('2.0');
    expect(Object.keys(doc['definitions'])).toEqual(expect.arrayContaining(['io.k8s.api.core.v1.ConfigMap', 'com.example.stable.v1.CronTab', 'io.k8s.api.coordination.v1.Lease']));
    const cm = doc['definitions']['io.k8s.api.core.v1.ConfigMap'];
    expect(cm.properties.metadata.$ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    const patch = doc['paths']['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
    expect(patch.parameters.find((p: J) => p['name'] === 'fieldValidation')).toMatchObject({ in: 'query', type: 'string' });
    expect(patch.parameters[0]).toMatchObject({ name: 'body', in: 'body', required: true });
    const note = doc['definitions']['com.example.stable.v1.CronTab'].properties.spec.properties.note;
    expect(note.nullable).toBeUndefined();
  });
});

describe('a custom resource in /openapi/v3 (apiextensions\' own builder, kube-apiserver v1.32.4)', () => {
  const widget = {
    ...crontabType,
    group: 'widgets.example.com',
    resource: 'widgets',
    kind: 'Widget',
    listKind: 'WidgetList',
    unstructured: true,
    fieldSelectors: { 'spec.color': () => '' },
    schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { 'x-kubernetes-int-or-string': true }, color: { type: 'string' } } } } },
  } as typeof crontabType;

  it('spells int-or-string out, lists the selectable fields, and references list items directly without zero defaults', () => {
    const schemas = (buildOpenApiV3GroupVersion([widget], 'widgets.example.com', 'v1') as J)['components'].schemas;
    const kind = schemas['com.example.widgets.v1.Widget'];
    const list = schemas['com.example.widgets.v1.WidgetList'];
    expect(kind.properties.spec.properties.size).toEqual({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true });
    expect(kind['x-kubernetes-selectable-fields']).toEqual([{ fieldPath: 'spec.color' }]);
    expect(list['x-kubernetes-selectable-fields']).toEqual([{ fieldPath: 'spec.color' }]);
    expect(kind.properties.metadata).not.toHaveProperty('default');
    expect(list.properties.metadata).not.toHaveProperty('default');
    expect(list.properties.items.items).toEqual({ $ref: '#/components/schemas/com.example.widgets.v1.Widget' });
  });
});
