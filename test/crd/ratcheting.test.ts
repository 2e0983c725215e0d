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
