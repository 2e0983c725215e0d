/**
 * Validation ratcheting, as kube-apiserver v1.32 answered the same sequence: after the schema
 * tightens, an update that leaves an invalid value unchanged is accepted; changing that value
 * (or a map a rule covers) is validated again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { crdManifest, crdVersion } from './crd-setup.ts';

const crd = (maxLength: number, rule: string) =>
  crdManifest(
    'crdh.example.com',
    { plural: 'rats', kind: 'Rat' },
    [
      crdVersion('v1', {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              name: { type: 'string', maxLength },
              other: { type: 'string' },
              tags: { type: 'object', 'x-kubernetes-validations': [{ rule }], additionalProperties: { type: 'string' } },
            },
          },
        },
      }),
    ],
    'Cluster',
  );

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const patch = (body: unknown) => t.request('PATCH', '/apis/crdh.example.com/v1/rats/r1', { body, headers: { 'content-type': 'application/merge-patch+json' } });

/** Waits until the served OpenAPI carries `text` (the controller serves a changed schema within a moment). */
async function servedSchemaHas(text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const doc = await t.request('GET', '/openapi/v3/apis/crdh.example.com/v1');
    if (doc.status === 200 && doc.text.includes(text)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the served schema never had ${text}`);
}

describe('validation ratcheting', () => {
  it('keeps unchanged invalid values, validates changed ones', async () => {
    expect((await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd(10, 'self.size() < 9') })).status).toBe(201);
    await servedSchemaHas('"maxLength":10');
    const created = await t.request('POST', '/apis/crdh.example.com/v1/rats', { body: { apiVersion: 'crdh.example.com/v1', kind: 'Rat', metadata: { name: 'r1' }, spec: { name: 'abcdefgh', other: 'x', tags: { a: '1', b: '2' } } } });
    expect(created.status).toBe(201);
    const tightened = await t.request('PATCH', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rats.crdh.example.com', {
      body: [
        { op: 'replace', path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/name/maxLength', value: 5 },
        { op: 'replace', path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/tags/x-kubernetes-validations/0/rule', value: 'self.size() < 1' },
      ],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(tightened.status).toBe(200);
    await servedSchemaHas('"maxLength":5');
    const other = await patch({ spec: { other: 'y' } });
    expect(other.status).toBe(200);
    expect(other.json.spec).toEqual({ name: 'abcdefgh', other: 'y', tags: { a: '1', b: '2' } });
    const longer = await patch({ spec: { name: 'abcdefghi', tags: { c: '3' } } });
    expect(longer.json.message).toBe(
      'Rat.crdh.example.com "r1" is invalid: [spec.name: Too long: may not be more than 5 bytes, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
    const tags = await patch({ spec: { name: 'abc', tags: { c: '3' } } });
    expect(tags.json.message).toBe('Rat.crdh.example.com "r1" is invalid: spec.tags: Invalid value: "object": failed rule: self.size() < 1');
    expect((await patch({ spec: { name: 'abc' } })).status).toBe(200);
  });
});

describe('ratcheting by correlation (kube e2e: CRDValidationRatcheting)', () => {
  const group = 'ratchet2.example.com';
  const path = `/apis/${group}/v1/items/i1`;
  const item = (field: object) => ({ type: 'object', required: ['key'], properties: { key: { type: 'string' }, field } });
  const schemaWith = (field: object) => ({
    type: 'object',
    properties: {
      list: { type: 'array', maxItems: 5, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'], items: item(field) },
      atomic: { type: 'array', maxItems: 5, items: item(field) },
      map: { type: 'object', maxProperties: 5, additionalProperties: { type: 'object', properties: { field } } },
    },
  });
  const setSchema = async (field: object) => {
    const current = await t.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/items.${group}`);
    const crd = current.json;
    crd.spec.versions[0].schema.openAPIV3Schema = schemaWith(field);
    const updated = await t.request('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/items.${group}`, { body: crd });
    expect(updated.status).toBe(200);
    await servedSchemaHas2(JSON.stringify(field).slice(1, -1));
  };
  const servedSchemaHas2 = async (text: string) => {
    for (let i = 0; i < 200; i++) {
      const doc = await t.request('GET', `/openapi/v3/apis/${group}/v1`);
      if (doc.status === 200 && doc.text.includes(text)) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`the served schema never had ${text}`);
  };
  const relabel = (value: string) => t.request('PATCH', path, { body: { metadata: { labels: { touched: value } } }, headers: { 'content-type': 'application/merge-patch+json' } });

  beforeAll(async () => {
    const created = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crdManifest(group, { plural: 'items', kind: 'Item' }, [crdVersion('v1', schemaWith({ type: 'string' }))], 'Cluster') });
    expect(created.status).toBe(201);
    await servedSchemaHas2('"maxProperties":5');
    const obj = { apiVersion: `${group}/v1`, kind: 'Item', metadata: { name: 'i1' }, list: [{ key: 'first', field: 'foo' }], atomic: [{ key: 'first', field: 'foo' }], map: { foo: { field: 'foo' } } };
    expect((await t.request('POST', `/apis/${group}/v1/items`, { body: obj })).status).toBe(201);
  });

  it('schema errors: unchanged map-list items and map values ratchet, items of other lists do not', async () => {
    await setSchema({ type: 'string', enum: ['notfoo'] });
    const r = await relabel('1');
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('atomic[0].field: Unsupported value: "foo"');
    expect(r.json.message).not.toContain('list[0].field');
    expect(r.json.message).not.toContain('map.foo.field');
  });

  it('transition rules are never ratcheted, and name map values by key', async () => {
    await setSchema({ type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: 'self != oldSelf' }] });
    const r = await relabel('2');
    expect(r.status).toBe(422);
    for (const at of ['list[0].field', 'map[foo].field']) expect(r.json.message).toContain(`${at}: Invalid value: "string": failed rule: self != oldSelf`);
    // The atomic list's item has no old value to compare with: its transition rule does not run.
    expect(r.json.message).not.toContain('atomic[0].field');
  });

  it('an optional oldSelf is none for values without an old one', async () => {
    await setSchema({ type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: '!oldSelf.hasValue() || self != oldSelf.value()', optionalOldSelf: true }] });
    // The atomic item runs with oldSelf none and passes; the correlated ones compare with their old values.
    const r = await relabel('3');
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('list[0].field: Invalid value: "string": failed rule: !oldSelf.hasValue() || self != oldSelf.value()');
    expect(r.json.message).not.toContain('atomic[0].field');
    const changed = await t.request('PATCH', path, { body: { list: [{ key: 'first', field: 'bar' }], map: { foo: { field: 'bar' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(changed.status).toBe(200);
  });

  it('a duplicate map-list item is refused even when it equals an old item (list types never ratchet)', async () => {
    const r = await t.request('PATCH', path, { body: { list: [{ key: 'first', field: 'bar' }, { key: 'first', field: 'bar' }] }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('list[1]: Duplicate value: map[string]interface {}{"key":"first"}');
  });
});
