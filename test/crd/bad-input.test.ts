/**
 * Garbage CRDs and custom resources: every answer is a client error (4xx) with a message, never
 * a 500, and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { createCrd } from './crd-setup.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const crdWith = (versionPatch: Record<string, unknown>, specPatch: Record<string, unknown> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'junks.crdh.example.com' },
  spec: { group: 'crdh.example.com', scope: 'Namespaced', names: { plural: 'junks', kind: 'Junk' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } }, ...versionPatch }], ...specPatch },
});

const garbageSchemas: unknown[] = [
  5,
  'object',
  [],
  null,
  { type: 'object', properties: 'x' },
  { type: 'object', properties: { a: 5 } },
  { type: 'object', properties: { a: { type: 'array', items: [] } } },
  { type: 'object', properties: { a: { type: ['string', 'null'] } } },
  { type: 'object', 'x-kubernetes-validations': 'self.x' },
  { type: 'object', 'x-kubernetes-validations': [5, null, { rule: 5 }] },
  { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a.b.c.d' }] },
  { type: 'object', 'x-kubernetes-validations': [{ rule: '[1,2,3].map(x, x * ' }] },
  { type: 'object', properties: { a: { type: 'string', pattern: 5, enum: 'x', maxLength: 'y' } } },
  { type: 'object', properties: { a: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': 'name' } } },
  { type: 'object', properties: { a: { type: 'object', default: 'x', properties: { b: { type: 'integer', default: {} } } } } },
  { type: 'object', allOf: [{ properties: { x: { type: 'string' } } }], anyOf: 7 },
];

describe('bad input', () => {
  it('answers garbage CRD definitions with 4xx', async () => {
    const bodies = [
      ...garbageSchemas.map((s) => crdWith({ schema: { openAPIV3Schema: s } })),
      crdWith({ additionalPrinterColumns: {} }),
      crdWith({ additionalPrinterColumns: [5, { name: 1, type: [], jsonPath: {} }] }),
      crdWith({ subresources: { scale: 5 } }),
      crdWith({ subresources: { scale: { specReplicasPath: 1, statusReplicasPath: [] } } }),
      crdWith({ selectableFields: [{ jsonPath: 5 }, 'x'] }),
      crdWith({}, { names: 'x' }),
      crdWith({}, { names: { plural: 5, kind: [] } }),
      crdWith({}, { versions: 'v1' }),
      crdWith({}, { versions: [5, null] }),
      crdWith({}, { conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'not a url' }, conversionReviewVersions: 'v1' } } }),
      crdWith({}, { conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: {} }, conversionReviewVersions: ['v9'] } } }),
      'not json',
      [],
    ];
    for (const body of bodies) {
      const res = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', { body: typeof body === 'string' ? body : JSON.stringify(body) });
      expect(res.status, JSON.stringify(body).slice(100, 400)).toBeGreaterThanOrEqual(400);
      expect(res.status, `${JSON.stringify(body).slice(0, 200)}: ${res.text}`).toBeLessThan(500);
      expect(typeof res.json?.message).toBe('string');
    }
  });

  it('answers custom resources that break every constraint with 422 or 400', async () => {
    const crd = crdWith({
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              required: ['a'],
              'x-kubernetes-validations': [{ rule: 'self.a.size() > 2', messageExpression: "'a is ' + self.a" }, { rule: 'self.l.all(x, self.l.all(y, x != y || true))' }],
              properties: {
                a: { type: 'string', maxLength: 5, pattern: '^a' },
                n: { type: 'integer', minimum: 1, maximum: 3, multipleOf: 2 },
                l: { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 3 }, 'x-kubernetes-list-type': 'set' },
                m: { type: 'object', maxProperties: 1, additionalProperties: { type: 'boolean' } },
                e: { type: 'string', enum: ['x'], format: 'date-time' },
                io: { 'x-kubernetes-int-or-string': true },
                emb: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      },
    });
    await createCrd(t, crd);
    const specs: unknown[] = [
      {},
      { a: 5 },
      { a: 'bbbbbbbbb', n: 4, l: ['x', 'x', 'yyyy'], m: { a: 'x', b: true }, e: 'y', io: [], emb: { kind: 5 } },
      { a: 'abc', n: 2.5 },
      { a: 'abc', io: { x: 1 } },
      { a: 'a', l: 'str' },
      'spec',
      null,
      [1, 2],
    ];
    for (const spec of specs) {
      const res = await t.request('POST', '/apis/crdh.example.com/v1/namespaces/default/junks', { body: { apiVersion: 'crdh.example.com/v1', kind: 'Junk', metadata: { generateName: 'j-' }, spec } });
      expect([201, 400, 422], `${JSON.stringify(spec)}: ${res.status} ${res.text}`).toContain(res.status);
    }
    const bodies = ['{', '[]', '"x"', '{"apiVersion":"crdh.example.com/v2","kind":"Junk"}', '{"kind":"Other"}'];
    for (const body of bodies) {
      const res = await t.request('POST', '/apis/crdh.example.com/v1/namespaces/default/junks', { body });
      expect(res.status, `${body}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${body}: ${res.text}`).toBeLessThan(500);
    }
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});
