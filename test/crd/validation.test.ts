/**
 * CRD validation, table-driven: every case was sent to kube-apiserver v1.32.4 (dry run) and its
 * answer recorded in validation-cases.json; the gateway must answer the same code and message.
 * Go pointer addresses in printed structs are masked. CEL compile errors are the CEL engine's
 * own wording: for those the message is compared up to the compiler's text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../server/harness.ts';

interface Case {
  readonly name: string;
  readonly crd: Record<string, unknown>;
  readonly code: number;
  readonly message?: string;
}

const cases = JSON.parse(readFileSync(new URL('./validation-cases.json', import.meta.url), 'utf8')) as Case[];
const mask = (m: string) => m.replace(/0x[0-9a-f]+/g, '0xPTR');
/** The part of a message before the CEL compiler's own text. */
const beforeCompiler = (m: string) => m.replace(/compilation failed: [\s\S]*/, 'compilation failed: ...');

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('CustomResourceDefinition update validation (kube-apiserver answers)', () => {
  const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rats.crdh.example.com';
  const cases: [string, string, unknown, string][] = [
    ['scope', 'application/merge-patch+json', { spec: { scope: 'Namespaced' } }, 'spec.scope: Invalid value: "Namespaced": field is immutable'],
    ['group', 'application/merge-patch+json', { spec: { group: 'other.example.com' } }, 'spec.group: Invalid value: "other.example.com": field is immutable'],
    ['stored version removed', 'application/json-patch+json', [{ op: 'replace', path: '/spec/versions/0/name', value: 'v2' }], 'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions'],
  ];
  for (const [name, type, body, message] of cases) {
    it(name, async () => {
      if ((await t.request('GET', crdPath)).status === 404) {
        const rats = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'rats.crdh.example.com' }, spec: { group: 'crdh.example.com', scope: 'Cluster', names: { plural: 'rats', kind: 'Rat' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] } };
        expect((await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: rats })).status).toBe(201);
      }
      const res = await t.request('PATCH', `${crdPath}?dryRun=All`, { body, headers: { 'content-type': type } });
      expect(res.status).toBe(422);
      expect(res.json.message).toBe(`CustomResourceDefinition.apiextensions.k8s.io "rats.crdh.example.com" is invalid: ${message}`);
    });
  }
});

describe('CustomResourceDefinition validation (kube-apiserver answers)', () => {
  it('has at least 60 recorded cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });
  for (const c of cases) {
    it(c.name, async () => {
      const res = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', { body: c.crd });
      expect(res.status).toBe(c.code);
      if (c.message === undefined) return;
      const want = mask(c.message);
      const got = mask(String(res.json?.message));
      if (want.includes('compilation failed')) expect(beforeCompiler(got)).toBe(beforeCompiler(want));
      else expect(got).toBe(want);
    });
  }
});
