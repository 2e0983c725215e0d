/**
 * A custom resource's OpenAPI definitions as apiextensions publishes them, compared with
 * kube-apiserver v1.32.4's own (openapi-kube-definitions.json, read from the reference for the same
 * CRDs): kube's type meta descriptions (kubectl explain shows them), no externalDocs or examples,
 * embedded resources with their type meta, and in v2 the Swagger 2.0 form (no junctors or defaults,
 * nullable and unknown-field-keeping values untyped, a root that keeps unknown fields an object only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { APIEXTENSIONS_FLOWCONTROL_REFERENCE } from '../codec/protobuf/apiextensions-flowcontrol-reference.ts';

const kube = JSON.parse(readFileSync(new URL('./openapi-kube-definitions.json', import.meta.url), 'utf8')) as Record<'v2' | 'v3', Record<string, unknown>>;
const canonical = (x: unknown): unknown =>
  Array.isArray(x) ? x.map(canonical) : x !== null && typeof x === 'object' ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, canonical((x as Record<string, unknown>)[k])])) : x;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  const widget = JSON.parse(APIEXTENSIONS_FLOWCONTROL_REFERENCE[0]!.json) as { spec: unknown };
  const empty = { group: 'e.example.com', names: { plural: 'empties', kind: 'Empty' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] };
  for (const [name, spec] of [['widgets.pb.example.com', widget.spec], ['empties.e.example.com', empty]] as const) {
    const r = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name }, spec } });
    expect(r.status).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
});

async function published(doc: 'v2' | 'v3'): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const defs: Record<string, unknown> =
      doc === 'v2'
        ? ((await t.request('GET', '/openapi/v2')).json.definitions ?? {})
        : { ...(await t.request('GET', '/openapi/v3/apis/pb.example.com/v1')).json?.components?.schemas, ...(await t.request('GET', '/openapi/v3/apis/e.example.com/v1')).json?.components?.schemas };
    if (Object.keys(kube[doc]).every((k) => defs[k] !== undefined)) return defs;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the ${doc} definitions never appeared`);
}

describe('custom resource definitions in OpenAPI', () => {
  for (const doc of ['v2', 'v3'] as const) {
    it(`${doc}: as kube-apiserver publishes them`, async () => {
      const defs = await published(doc);
      for (const [name, def] of Object.entries(kube[doc])) expect(canonical(defs[name]), `${doc} ${name}`).toEqual(canonical(def));
    });
  }
});
