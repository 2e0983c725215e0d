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

describe('DeleteOptions body decoding', () => {
  it('a value of the wrong type is the 500 kube passes through from its decoder', async () => {
    await t.request('POST', base, { body: cm('bad-opts') });
    const r = await t.request('DELETE', `${base}/bad-opts`, { body: { gracePeriodSeconds: 'x' } });
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      message: 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
      code: 500,
    });
    expect((await t.request('GET', `${base}/bad-opts`)).status).toBe(200);
  });

  it('a body of another kind, or not JSON, is the decoder error kube passes through (500)', async () => {
    await t.request('POST', base, { body: cm('odd-opts') });
    const kind = await t.request('DELETE', `${base}/odd-opts`, { body: { apiVersion: 'v1', kind: 'ConfigMap' } });
    expect(kind.status).toBe(500);
    expect(kind.json.message).toBe('no kind "ConfigMap" is registered for version "v1" in scheme "pkg/runtime/scheme.go:100"');
    const notJson = await t.request('DELETE', `${base}/odd-opts`, { body: 'nope' });
    expect(notJson.status).toBe(500);
    expect(notJson.json.message).toBe("couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')");
    const anyVersion = await t.request('DELETE', `${base}/odd-opts`, { body: { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', dryRun: ['All'] } });
    expect(anyVersion.status).toBe(200);
    expect((await t.request('GET', `${base}/odd-opts`)).status).toBe(200);
  });

  it('a query gracePeriodSeconds that is not an int64 is 400 with strconv.ParseInt words', async () => {
    const r = await t.request('DELETE', `${base}/whatever?gracePeriodSeconds=abc`);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax' });
    const big = await t.request('DELETE', `${base}/whatever?gracePeriodSeconds=99999999999999999999`);
    expect(big.json.message).toBe('strconv.ParseInt: parsing "99999999999999999999": value out of range');
  });

  it('both orphanDependents and a bad propagationPolicy: both errors, in kube order', async () => {
    await t.request('POST', base, { body: cm('two-errs') });
    const r = await t.request('DELETE', `${base}/two-errs`, { body: { propagationPolicy: 'Bad', orphanDependents: true } });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Bad": orphanDependents and deletionPropagation cannot be both set, propagationPolicy: Unsupported value: "Bad": supported values: "Foreground", "Background", "Orphan", "nil"]',
    );
  });
});

describe('deletecollection options', () => {
  it('passes every DeleteOptions field to each delete (preconditions included) and lists items without TypeMeta', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'dc-opts' } } });
    const c = await t.request('POST', '/api/v1/namespaces/dc-opts/configmaps', { body: cm('one', { set: 'y' }) });
    const bad = await t.request('DELETE', '/api/v1/namespaces/dc-opts/configmaps?labelSelector=set%3Dy', { body: { preconditions: { uid: 'nope' } } });
    expect(bad.status).toBe(409);
    expect(bad.json.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "one": the UID in the precondition (nope) does not match the UID in record (${c.json.metadata.uid}). The object might have been deleted and then recreated`,
    );
    const ok = await t.request('DELETE', '/api/v1/namespaces/dc-opts/configmaps?labelSelector=set%3Dy', { body: { preconditions: { uid: c.json.metadata.uid } } });
    expect(ok.status).toBe(200);
    expect(ok.json.items).toHaveLength(1);
    expect(ok.json.items[0].kind).toBeUndefined();
    expect(ok.json.items[0].apiVersion).toBeUndefined();
    expect(ok.json.items[0].metadata.name).toBe('one');
  });

  it('answers with the objects as listed before deleting them', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'dc-listed' } } });
    const plain = await t.request('POST', '/api/v1/namespaces/dc-listed/configmaps', { body: cm('plain', { set: 'z' }) });
    const held = await t.request('POST', '/api/v1/namespaces/dc-listed/configmaps', {
      body: { ...cm('held', { set: 'z' }), metadata: { name: 'held', labels: { set: 'z' }, finalizers: ['example.com/x'] } },
    });
    const r = await t.request('DELETE', '/api/v1/namespaces/dc-listed/configmaps?labelSelector=set%3Dz');
    expect(r.status).toBe(200);
    const byName = Object.fromEntries(r.json.items.map((i: { metadata: { name: string } }) => [i.metadata.name, i]));
    expect(byName.plain.metadata.resourceVersion).toBe(plain.json.metadata.resourceVersion);
    expect(byName.held.metadata.resourceVersion).toBe(held.json.metadata.resourceVersion);
    expect(byName.held.metadata.deletionTimestamp).toBeUndefined();
    expect((await t.request('GET', '/api/v1/namespaces/dc-listed/configmaps/held')).json.metadata.deletionTimestamp).toBeTruthy();
    await t.request('PATCH', '/api/v1/namespaces/dc-listed/configmaps/held', { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
  });
});
