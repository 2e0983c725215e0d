/** Dry run as kube-apiserver honours it: in the query and in the DeleteOptions body, checked like a real write. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const base = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1' } });

describe('dryRun in the DeleteOptions body', () => {
  it('DELETE with {"dryRun":["All"]} keeps the object', async () => {
    const c = await t.request('POST', base, { body: cm('body-dry') });
    const r = await t.request('DELETE', `${base}/body-dry`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'body-dry', kind: 'configmaps', uid: c.json.metadata.uid } });
    const g = await t.request('GET', `${base}/body-dry`);
    expect(g.status).toBe(200);
    expect(g.json.metadata.resourceVersion).toBe(c.json.metadata.resourceVersion);
  });

  it('kubectl delete --dry-run=server deletes nothing', async () => {
    await t.request('POST', base, { body: cm('kubectl-dry') });
    const out = await t.kubectl(['delete', 'configmap', 'kubectl-dry', '-n', 'default', '--dry-run=server']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('configmap "kubectl-dry" deleted (server dry run)');
    expect((await t.request('GET', `${base}/kubectl-dry`)).status).toBe(200);
  });

  it('deletecollection with a dry-run body keeps every object', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'dry-dc' } } });
    for (const n of ['a', 'b']) await t.request('POST', '/api/v1/namespaces/dry-dc/configmaps', { body: cm(n, { set: 'x' }) });
    const r = await t.request('DELETE', '/api/v1/namespaces/dry-dc/configmaps?labelSelector=set%3Dx', { body: { dryRun: ['All'] } });
    expect(r.status).toBe(200);
    expect(r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['a', 'b']);
    expect((await t.request('GET', '/api/v1/namespaces/dry-dc/configmaps')).json.items).toHaveLength(2);
  });

  it('a body takes the place of the query: its options are the only ones read', async () => {
    await t.request('POST', base, { body: cm('body-wins') });
    // The query asks for a dry run, the body does not: kube reads only the body and deletes.
    const r = await t.request('DELETE', `${base}/body-wins?dryRun=All`, { body: { propagationPolicy: 'Background' } });
    expect(r.status).toBe(200);
    expect((await t.request('GET', `${base}/body-wins`)).status).toBe(404);
  });

  it('an unsupported dryRun value in the body is 422 DeleteOptions', async () => {
    await t.request('POST', base, { body: cm('body-bad') });
    const r = await t.request('DELETE', `${base}/body-bad`, { body: { dryRun: ['Some'] } });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
      details: {
        group: 'meta.k8s.io',
        kind: 'DeleteOptions',
        causes: [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: []string{"Some"}: supported values: "All"', field: 'dryRun' }],
      },
    });
    expect((await t.request('GET', `${base}/body-bad`)).status).toBe(200);
  });
});

describe('dryRun in the query', () => {
  it('POST ?dryRun= (empty) is 422 CreateOptions and creates nothing', async () => {
    const r = await t.request('POST', `${base}?dryRun=`, { body: cm('empty-dry') });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      reason: 'Invalid',
      message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{""}: supported values: "All"',
      details: { group: 'meta.k8s.io', kind: 'CreateOptions', causes: [{ reason: 'FieldValueNotSupported', field: 'dryRun' }] },
    });
    expect((await t.request('GET', `${base}/empty-dry`)).status).toBe(404);
  });

  it('PUT and PATCH name UpdateOptions and PatchOptions', async () => {
    await t.request('POST', base, { body: cm('opt-kinds') });
    const put = await t.request('PUT', `${base}/opt-kinds?dryRun=Bogus`, { body: cm('opt-kinds') });
    expect(put.status).toBe(422);
    expect(put.json.details.kind).toBe('UpdateOptions');
    const patch = await t.request('PATCH', `${base}/opt-kinds?dryRun=All&dryRun=x`, {
      body: { data: { b: '2' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patch.status).toBe(422);
    expect(patch.json.message).toBe('PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "x"}: supported values: "All"');
  });

  it('a dry-run create of an existing name is 409 AlreadyExists, as a real one', async () => {
    await t.request('POST', base, { body: cm('exists') });
    const r = await t.request('POST', `${base}?dryRun=All`, { body: cm('exists') });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      reason: 'AlreadyExists',
      message: 'configmaps "exists" already exists',
      details: { name: 'exists', kind: 'configmaps' },
      code: 409,
    });
  });

  it('a dry-run update with a stale resourceVersion is 409 Conflict', async () => {
    const c = await t.request('POST', base, { body: cm('dry-stale') });
    await t.request('PUT', `${base}/dry-stale`, { body: { ...cm('dry-stale'), data: { a: '2' } } });
    const r = await t.request('PUT', `${base}/dry-stale?dryRun=All`, {
      body: { ...cm('dry-stale'), metadata: { name: 'dry-stale', resourceVersion: c.json.metadata.resourceVersion } },
    });
    expect(r.status).toBe(409);
    expect(r.json.reason).toBe('Conflict');
  });
});
