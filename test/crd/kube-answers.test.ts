/**
 * Custom resource answers found different from kube-apiserver v1.32.4 by the parity corpus
 * (parity/corpus/crds.yaml), each pinned here with kube's answer: which schema errors leave the
 * CEL rules unchecked, a rule's evaluation error, a CR list's metadata and key order, the order of
 * unknown fields, the unsupported field selector message, the scale subresource's manager without
 * a time, and the CRD schema checks (rules compiled only where the schema is sound, structural
 * errors first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { CRDS, createCrd, crdManifest, crdVersion } from './crd-setup.ts';

const group = 'answers.example.com';
const base = `/apis/${group}/v1/namespaces/default/widgets`;
const widget = (name: string, spec: object, more: object = {}) => ({ body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec, ...more } });

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['size'],
        'x-kubernetes-validations': [{ rule: "self.size < 8 || self.color == 'red'", message: 'big widgets are red' }],
        properties: {
          size: { type: 'integer', minimum: 1, maximum: 10 },
          color: { type: 'string', enum: ['red', 'blue'] },
          replicas: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        },
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  };
  await createCrd(t, crdManifest(group, { plural: 'widgets', kind: 'Widget' }, [crdVersion('v1', schema, { subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } })]));
});
afterAll(async () => {
  await t?.close();
});

const messageOf = async (path: string, body: { body: object }) => {
  const r = await t.request('POST', path, body);
  expect(r.status).toBe(422);
  return r.json.message as string;
};

describe('custom resources', () => {
  it('check their rules after a bound or a duplicate fails, not after a wrong type, a missing field or an enum', async () => {
    expect(await messageOf(base, widget('w', { size: 11 }))).toBe(
      'Widget.answers.example.com "w" is invalid: [spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10, spec: Invalid value: "object": no such key: color evaluating rule: big widgets are red]',
    );
    expect(await messageOf(base, widget('w', { size: 1, tags: ['a', 'a'] }))).toBe('Widget.answers.example.com "w" is invalid: spec.tags[1]: Duplicate value: "a"');
    expect(await messageOf(base, widget('w', { size: 9, color: 'green' }))).toBe(
      'Widget.answers.example.com "w" is invalid: [spec.color: Unsupported value: "green": supported values: "red", "blue", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });

  it('are listed as kube lists them: `continue` always there, keys sorted', async () => {
    const r = await t.request('GET', base);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^\{"apiVersion":"answers\.example\.com\/v1","items":\[.*\],"kind":"WidgetList","metadata":\{"continue":"","resourceVersion":"\d+"\}\}\n$/s);
    expect((await t.request('GET', `${base}?fieldSelector=spec.size%3D3`)).json.message).toBe('field label not supported: spec.size');
  });

  it('name unknown fields sorted, metadata first', async () => {
    const strict = await t.request('POST', `${base}?fieldValidation=Strict`, widget('u', { size: 2, extra: 1 }, { other: 'x', metadata: { name: 'u', bogus: 1 } }));
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe('Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "metadata.bogus", unknown field "other", unknown field "spec.extra"');
  });

  it('record a manager that scales through /scale without a time, as kube\'s scale handler does', async () => {
    expect((await t.request('POST', base, widget('s', { size: 2, replicas: 1 }))).status).toBe(201);
    const r = await t.request('PATCH', `${base}/s/scale`, { body: { spec: { replicas: 3 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(200);
    const entries = (await t.request('GET', `${base}/s`)).json.metadata.managedFields as { subresource?: string; time?: string }[];
    const scale = entries.find((e) => e.subresource === 'scale');
    expect(scale).toBeDefined();
    expect(scale).not.toHaveProperty('time');
    expect(entries.find((e) => e.subresource === undefined)).toHaveProperty('time');
  });
});

describe('custom resource writes and answers', () => {
  it('refuse an update that names no resourceVersion, and keep the stored metadata on a status write', async () => {
    const created = await t.request('POST', base, widget('rv', { size: 2 }, { metadata: { name: 'rv', labels: { a: 'b' } } }));
    expect(created.status).toBe(201);
    const put = await t.request('PUT', `${base}/rv`, widget('rv', { size: 3 }));
    expect(put.status).toBe(422);
    expect(put.json.message).toBe('widgets.answers.example.com "rv" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    const status = await t.request('PUT', `${base}/rv/status`, widget('rv', { size: 3 }, { metadata: { name: 'rv', resourceVersion: created.json.metadata.resourceVersion }, status: { replicas: 1 } }));
    expect(status.status).toBe(200);
    expect(status.json.metadata.labels).toEqual({ a: 'b' });
    expect(status.json.status).toEqual({ replicas: 1 });
    expect(status.json.spec).toEqual({ size: 2 });
  });

  it('move the generation on when deletion starts, and answer a collection delete with an unstructured list', async () => {
    const held = await t.request('POST', base, widget('held', { size: 2 }, { metadata: { name: 'held', finalizers: ['example.com/hold'], labels: { batch: 'x' } } }));
    expect(held.json.metadata.generation).toBe(1);
    const del = await t.request('DELETE', `${base}/held`);
    expect(del.json.metadata.generation).toBe(2);
    expect((await t.request('POST', base, widget('other', { size: 2 }, { metadata: { name: 'other', labels: { batch: 'x' } } }))).status).toBe(201);
    const all = await t.request('DELETE', `${base}?labelSelector=batch%3Dx`);
    expect(all.status).toBe(200);
    expect(Object.keys(all.json)).toEqual(['apiVersion', 'items', 'kind', 'metadata']);
    expect(all.json.metadata).toEqual({ continue: '', resourceVersion: expect.any(String) });
    expect(all.json.items.map((i: { kind: string; metadata: { name: string } }) => `${i.kind}/${i.metadata.name}`).sort()).toEqual(['Widget/held', 'Widget/other']);
  });

  it('are discovered with the verbs in the apiextensions order, and refuse protobuf naming it', async () => {
    const d = (await t.request('GET', `/apis/${group}/v1`)).json;
    expect(d.resources.find((r: { name: string }) => r.name === 'widgets').verbs).toEqual(['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
    const r = await t.request('GET', `${base}/s`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(r.status).toBe(406);
    // The Status comes in protobuf, as the client asked.
    expect(r.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    expect(r.text).toContain('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });
});

describe('custom resource reads', () => {
  it('give metadata lists in protobuf to the metadata client, and never the objects', async () => {
    const accept = 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
    const meta = await t.request('GET', base, { headers: { accept } });
    expect(meta.status).toBe(200);
    expect(meta.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    expect(meta.text).toContain('PartialObjectMetadataList');
    const plain = await t.request('GET', base, { headers: { accept: 'application/vnd.kubernetes.protobuf,application/json' } });
    expect(plain.headers['content-type']).toBe('application/json');
    expect(plain.json.kind).toBe('WidgetList');
  });

  it('end a streaming list with the unstructured list blueprint', async () => {
    const r = await t.request('GET', `${base}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`);
    const events = r.text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: Record<string, unknown> } });
    const end = events.find((e) => e.type === 'BOOKMARK' && (e.object.metadata.annotations as Record<string, string> | undefined)?.['k8s.io/initial-events-end'] === 'true');
    expect(end).toBeDefined();
    expect(end!.object.metadata).not.toHaveProperty('creationTimestamp');
    const blueprint = Buffer.from((end!.object.metadata.annotations as Record<string, string>)['kubernetes.io/initial-events-list-blueprint']!, 'base64').toString();
    expect(blueprint).toBe(`{"apiVersion":"${group}/v1","items":[],"kind":"WidgetList"}\n`);
  });
});

describe('CustomResourceDefinition schemas', () => {
  const gadget = (openAPIV3Schema: object) => ({ body: crdManifest(group, { plural: 'gadgets', kind: 'Gadget' }, [crdVersion('v1', openAPIV3Schema)]) });
  const dryRun = `${CRDS}?dryRun=All`;
  const at = 'spec.validation.openAPIV3Schema';

  it('compile no rule while the schema is not structural', async () => {
    const m = await messageOf(dryRun, gadget({ type: 'object', properties: { spec: { properties: { a: { type: 'string' } } }, other: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.nope +' }] } } }));
    expect(m).toBe(`CustomResourceDefinition.apiextensions.k8s.io "gadgets.${group}" is invalid: ${at}.properties[spec].type: Required value: must not be empty for specified object fields`);
  });

  it('compile a rule beside a schema error, after it, but none above one', async () => {
    const beside = await messageOf(dryRun, gadget({ type: 'object', properties: { spec: { type: 'array', uniqueItems: true, items: { type: 'string' } }, other: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self + 1 == 2' }] } } }));
    expect(beside).toMatch(new RegExp(`^CustomResourceDefinition\\.apiextensions\\.k8s\\.io "gadgets\\.${group.replace(/\./g, '\\.')}" is invalid: \\[${at.replace(/\./g, '\\.')}\\.properties\\[spec\\]\\.uniqueItems: Forbidden: .*, ${at.replace(/\./g, '\\.')}\\.properties\\[other\\]\\.x-kubernetes-validations\\[0\\]\\.rule: Invalid value: .*compilation failed: `));
    const above = await messageOf(dryRun, gadget({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.nope +' }], properties: { list: { type: 'array', uniqueItems: true, items: { type: 'string' } } } } } }));
    expect(above).toBe(`CustomResourceDefinition.apiextensions.k8s.io "gadgets.${group}" is invalid: ${at}.properties[spec].properties[list].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`);
  });
});

describe('a custom resource in two versions (conversion None)', () => {
  const g = 'gears.example.com';
  const path = (v: string, name = '') => `/apis/${g}/${v}/namespaces/default/gears${name ? `/${name}` : ''}`;
  beforeAll(async () => {
    const spec = (color: string) => ({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            color: { type: 'string', default: color },
            teeth: { type: 'integer', maximum: 100 },
            // kube lets the int-or-string anyOf pattern through its junctor checks.
            size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          },
        },
      },
    });
    await createCrd(t, crdManifest(g, { plural: 'gears', kind: 'Gear' }, [crdVersion('v1', spec('grey')), { ...crdVersion('v2', spec('black')), storage: false }]));
  });

  it('defaults a write with the schema of the version it is written in, before conversion', async () => {
    const created = await t.request('POST', path('v2'), { body: { apiVersion: `${g}/v2`, kind: 'Gear', metadata: { name: 'g2' }, spec: { size: '10%' } } });
    expect(created.status).toBe(201);
    expect(created.json.spec).toEqual({ color: 'black', size: '10%' });
    expect((await t.request('GET', path('v1', 'g2'))).json.spec).toEqual({ color: 'black', size: '10%' });
  });

  it('keeps the managers recorded in the other version', async () => {
    const r = await t.request('PATCH', path('v1', 'g2'), { body: { spec: { teeth: 3 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(200);
    const entries = (r.json.metadata.managedFields as { apiVersion: string }[]).map((e) => e.apiVersion).sort();
    expect(entries).toEqual([`${g}/v1`, `${g}/v2`]);
  });
});

describe('a rule at the root of the schema', () => {
  const rootGroup = 'root.example.com';
  beforeAll(async () => {
    // Neither metadata nor apiVersion is in the schema: kube declares them for rules at the root.
    const schema = { type: 'object', 'x-kubernetes-validations': [{ rule: "self.metadata.name != 'bad' && self.kind == 'Gadget'", message: 'no bad names' }], properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
    await createCrd(t, crdManifest(rootGroup, { plural: 'gadgets', kind: 'Gadget' }, [crdVersion('v1', schema)]));
  });

  it('reads metadata.name and kind, and its failure names <nil> as kube does', async () => {
    const path = `/apis/${rootGroup}/v1/namespaces/default/gadgets`;
    expect(await messageOf(path, { body: { apiVersion: `${rootGroup}/v1`, kind: 'Gadget', metadata: { name: 'bad' }, spec: {} } })).toBe('Gadget.root.example.com "bad" is invalid: <nil>: Invalid value: "object": no bad names');
    const ok = await t.request('POST', path, { body: { apiVersion: `${rootGroup}/v1`, kind: 'Gadget', metadata: { name: 'good' }, spec: {} } });
    expect(ok.status).toBe(201);
  });
});

describe('CEL costs (kube e2e: CustomResourceValidationRules)', () => {
  const costGroup = 'cost.example.com';
  beforeAll(async () => {
    const spec = {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.x + self.y > 0' },
        { rule: 'self.firstArray.isSorted() && self.secondArray.isSorted() && ((self.firstArray.sum() + self.secondArray.sum()) % 2 == 0)' },
        { rule: 'self.largeArray.all(x, self.largeArray.all(y, y == x))' },
      ],
      properties: {
        x: { type: 'integer' },
        y: { type: 'integer' },
        firstArray: { type: 'array', maxItems: 1000, items: { type: 'integer' } },
        secondArray: { type: 'array', maxItems: 1000, items: { type: 'integer' } },
        largeArray: { type: 'array', maxItems: 725, items: { type: 'integer' } },
      },
    };
    // Accepted: sum() of a list of integers is an integer, so adding two is cheap (it was estimated unbounded).
    await createCrd(t, crdManifest(costGroup, { plural: 'costs', kind: 'Cost' }, [crdVersion('v1', { type: 'object', properties: { spec } })]));
  });

  it('a rule under an unbounded list counts once per item that fits in a request (kube\'s cardinality)', async () => {
    const spec = { type: 'object', properties: { x: { type: 'array', items: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "self.all(s, s == 'string constant')" }] } } } };
    const r = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crdManifest('card.example.com', { plural: 'cards', kind: 'Card' }, [crdVersion('v1', { type: 'object', properties: { spec } })]) });
    expect(r.status).toBe(422);
    const hint = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
    const at = 'spec.validation.openAPIV3Schema.properties[spec].properties[x].items.x-kubernetes-validations[0].rule';
    expect(r.json.message).toBe(
      `CustomResourceDefinition.apiextensions.k8s.io "cards.card.example.com" is invalid: [${at}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${hint}, ${at}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema, spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${hint}]`,
    );
  });

  it('a rule over its call limit stops validation with kube\'s message', async () => {
    const body = { apiVersion: `${costGroup}/v1`, kind: 'Cost', metadata: { name: 'big' }, spec: { largeArray: Array.from({ length: 725 }, () => 20) } };
    expect(await messageOf(`/apis/${costGroup}/v1/namespaces/default/costs`, { body })).toBe(
      'Cost.cost.example.com "big" is invalid: [spec: Invalid value: "object": no such key: x evaluating rule: self.x + self.y > 0, spec: Invalid value: "object": no such key: firstArray evaluating rule: self.firstArray.isSorted() && self.secondArray.isSorted() && ((self.firstArray.sum() + self.secondArray.sum()) % 2 == 0), spec: Invalid value: "object": \'operation cancelled: actual cost limit exceeded\': no further validation rules will be run due to call cost exceeds limit for rule: self.largeArray.all(x, self.largeArray.all(y, y == x))]',
    );
  });
});
