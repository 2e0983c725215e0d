/**
 * Custom resources over HTTP: a CRD becomes Established and served without a restart (routes,
 * discovery, OpenAPI), the write pipeline (prune, default, schema validation with kube's paths,
 * CEL rules with oldSelf), status subresource, printer columns in Tables, JSON/YAML only, and
 * deleting the CRD removes its resources and routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { waitFor } from './crd-setup.ts';

const crd = parse(readFileSync(new URL('../fixtures/crd-databases.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
const base = '/apis/ops.example.com/v1/namespaces/default/databases';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const db = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'ops.example.com/v1', kind: 'Database', metadata: { name }, spec });

describe('custom resources', () => {
  it('a created CRD becomes Established with accepted names and stored versions', async () => {
    const res = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    expect(res.status).toBe(201);
    const established = await waitFor(async () => {
      const r = await t.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.ops.example.com');
      const conds = (r.json?.status?.conditions ?? []) as { type: string; status: string; reason: string }[];
      return conds.find((c) => c.type === 'Established' && c.status === 'True') ? r.json : undefined;
    });
    expect(established.status.acceptedNames).toMatchObject({ plural: 'databases', kind: 'Database', listKind: 'DatabaseList', singular: 'database', shortNames: ['db'] });
    expect(established.status.storedVersions).toEqual(['v1']);
    expect(established.spec.conversion).toEqual({ strategy: 'None' });
    const names = established.status.conditions.map((c: { type: string; reason: string }) => `${c.type}/${c.reason}`);
    expect(names).toEqual(['NamesAccepted/NoConflicts', 'Established/InitialNamesAccepted']);
  });

  it('is in discovery and OpenAPI', async () => {
    const list = await t.request('GET', '/apis/ops.example.com/v1');
    expect(list.status).toBe(200);
    const names = list.json.resources.map((r: { name: string }) => r.name).sort();
    expect(names).toEqual(['databases', 'databases/scale', 'databases/status']);
    const groups = await t.request('GET', '/apis');
    expect(groups.json.groups.map((g: { name: string }) => g.name)).toContain('ops.example.com');
    const v3 = await t.request('GET', '/openapi/v3/apis/ops.example.com/v1');
    expect(v3.status).toBe(200);
    expect(JSON.stringify(v3.json)).toContain('A managed database cluster.');
  });

  it('creates with pruning and defaults, and lists items with their kind', async () => {
    const res = await t.request('POST', base, { body: { ...db('one', { engine: 'postgres', version: '16.2', extra: 'x' }), status: { phase: 'Ready' } } });
    expect(res.status).toBe(201);
    expect(res.json.spec).toEqual({ engine: 'postgres', version: '16.2', replicas: 1, storage: { size: '1Gi' } });
    expect(res.json.status).toBeUndefined();
    expect(res.json.metadata.generation).toBe(1);
    expect(res.headers['warning']).toContain('unknown field \\"spec.extra\\"');
    const list = await t.request('GET', base);
    expect(list.json.kind).toBe('DatabaseList');
    expect(list.json.items[0].kind).toBe('Database');
    expect(list.json.items[0].apiVersion).toBe('ops.example.com/v1');
  });

  it('rejects schema violations with kube paths and messages', async () => {
    const res = await t.request('POST', base, { body: db('bad', { engine: 'oracle', version: 'x', replicas: -1 }) });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      'Database.ops.example.com "bad" is invalid: [spec.engine: Unsupported value: "oracle": supported values: "postgres", "mysql", spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0, spec.version: Invalid value: "x": spec.version in body should match \'^[0-9]+(\\.[0-9]+)*$\', .spec.replicas: Invalid value: -1: should be a non-negative integer, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
    const missing = await t.request('POST', base, { body: db('bad', { engine: 'mysql' }) });
    expect(missing.json.message).toBe(
      'Database.ops.example.com "bad" is invalid: [spec.version: Required value, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });

  it('runs CEL rules, messageExpression, fieldPath and transition rules', async () => {
    const many = await t.request('POST', base, { body: db('many', { engine: 'postgres', version: '1', replicas: 12 }) });
    expect(many.status).toBe(422);
    expect(many.json.message).toBe('Database.ops.example.com "many" is invalid: spec: Invalid value: "object": at most 9 replicas');
    const backup = await t.request('POST', base, { body: db('bk', { engine: 'postgres', version: '1', backup: { schedule: 'daily', retentionDays: 0 } }) });
    expect(backup.json.message).toBe('Database.ops.example.com "bk" is invalid: spec.backup.retentionDays: Invalid value: "object": retentionDays of backup daily must be positive');
    const root = await t.request('POST', base, { body: db('rt', { engine: 'postgres', version: '1', users: [{ name: 'root' }] }) });
    expect(root.json.message).toBe('Database.ops.example.com "rt" is invalid: spec.users[0]: Invalid value: "object": root is reserved');
    const change = await t.request('PATCH', `${base}/one`, { body: { spec: { engine: 'mysql' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(change.status).toBe(422);
    expect(change.json.message).toBe('Database.ops.example.com "one" is invalid: spec: Invalid value: "object": engine is immutable');
  });

  it('keeps status apart: main writes ignore it, the status subresource writes only it', async () => {
    const st = await t.request('PATCH', `${base}/one/status`, { body: { status: { phase: 'Ready', replicas: 1 }, spec: { replicas: 5 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(st.status).toBe(200);
    expect(st.json.status).toEqual({ phase: 'Ready', replicas: 1 });
    expect(st.json.spec.replicas).toBe(1);
    const main = await t.request('PATCH', `${base}/one`, { body: { spec: { replicas: 3 }, status: { phase: 'Lost' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(main.json.spec.replicas).toBe(3);
    expect(main.json.status.phase).toBe('Ready');
    expect(main.json.metadata.generation).toBe(2);
  });

  it('serves printer columns in Tables and refuses protobuf and strategic merge patch', async () => {
    const table = await t.request('GET', base, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Engine', 'Replicas', 'Phase', 'Storage', 'Age']);
    expect(table.json.rows[0].cells.slice(0, 4)).toEqual(['one', 'postgres', 3, 'Ready']);
    const pb = await t.request('GET', `${base}/one`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(pb.status).toBe(406);
    const smp = await t.request('PATCH', `${base}/one`, { body: { spec: {} }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    expect(smp.status).toBe(415);
    const pbBody = await t.request('POST', base, { body: Buffer.from([0x6b, 0x38, 0x73, 0]), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } });
    expect(pbBody.status).toBe(415);
  });

  it('goes through admission like built-in kinds (namespace lifecycle)', async () => {
    const res = await t.request('POST', '/apis/ops.example.com/v1/namespaces/nope/databases', { body: db('x', { engine: 'mysql', version: '8' }) });
    expect(res.status).toBe(404);
    expect(res.json.message).toBe('namespaces "nope" not found');
  });

  it('serves the scale subresource', async () => {
    const get = await t.request('GET', `${base}/one/scale`);
    expect(get.json).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 }, status: { replicas: 1 } });
    const patched = await t.request('PATCH', `${base}/one/scale`, { body: { spec: { replicas: 4 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.status).toBe(200);
    expect(patched.json.spec.replicas).toBe(4);
    expect((await t.request('GET', `${base}/one`)).json.spec.replicas).toBe(4);
  });

  it('applies server-side with the list-map markers', async () => {
    const apply = (manager: string, users: unknown[]) =>
      t.request('PATCH', `${base}/one?fieldManager=${manager}`, {
        body: JSON.stringify({ apiVersion: 'ops.example.com/v1', kind: 'Database', metadata: { name: 'one' }, spec: { engine: 'postgres', version: '16.2', users } }),
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
    expect((await apply('a', [{ name: 'alice' }])).status).toBe(200);
    const both = await apply('b', [{ name: 'bob' }]);
    expect(both.status).toBe(200);
    expect(both.json.spec.users.map((u: { name: string }) => u.name).sort()).toEqual(['alice', 'bob']);
  });

  it('deleting the CRD deletes its resources and stops serving', async () => {
    const del = await t.request('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.ops.example.com');
    expect(del.status).toBe(200);
    await waitFor(async () => ((await t.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.ops.example.com')).status === 404 ? true : undefined));
    expect((await t.request('GET', base)).status).toBe(404);
    const groups = await t.request('GET', '/apis');
    expect(groups.json.groups.map((g: { name: string }) => g.name)).not.toContain('ops.example.com');
    // Created again, it starts empty.
    expect((await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const list = await waitFor(async () => {
      const r = await t.request('GET', base);
      return r.status === 200 ? r.json : undefined;
    });
    expect(list.items).toEqual([]);
  });
});
