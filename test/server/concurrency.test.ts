/** Optimistic concurrency as kube-apiserver enforces it: uid preconditions, immutable identity, unconditional updates per kind. */
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
const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

describe('uid on update', () => {
  it('a PUT whose body carries another uid is 409 with the storage precondition text', async () => {
    const c = await t.request('POST', base, { body: { metadata: { name: 'uid-put' }, data: { a: '1' } } });
    const uid = c.json.metadata.uid;
    const r = await t.request('PUT', `${base}/uid-put`, { body: { metadata: { name: 'uid-put', uid: 'stale-uid' }, data: { a: '2' } } });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: `Operation cannot be fulfilled on configmaps "uid-put": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/uid-put, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: stale-uid, UID in object meta: ${uid}`,
      details: { name: 'uid-put', kind: 'configmaps' },
    });
    expect((await t.request('GET', `${base}/uid-put`)).json.data).toEqual({ a: '1' });
  });

  it('a PUT with a uid of a missing object fails its precondition against the empty uid (409 before 404)', async () => {
    const r = await t.request('PUT', `${base}/uid-missing`, { body: { metadata: { name: 'uid-missing', uid: 'u1' }, data: {} } });
    expect(r.status).toBe(409);
    expect(r.json.message).toBe(
      'Operation cannot be fulfilled on configmaps "uid-missing": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/uid-missing, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: u1, UID in object meta: ',
    );
    expect((await t.request('PUT', `${base}/uid-missing`, { body: { metadata: { name: 'uid-missing' }, data: {} } })).status).toBe(404);
  });

  it('a PUT with the right uid, or none, updates', async () => {
    const c = await t.request('POST', base, { body: { metadata: { name: 'uid-ok' }, data: { a: '1' } } });
    const same = await t.request('PUT', `${base}/uid-ok`, { body: { metadata: { name: 'uid-ok', uid: c.json.metadata.uid }, data: { a: '2' } } });
    expect(same.status).toBe(200);
    const none = await t.request('PUT', `${base}/uid-ok`, { body: { metadata: { name: 'uid-ok' }, data: { a: '3' } } });
    expect(none.status).toBe(200);
    expect(none.json.metadata.uid).toBe(c.json.metadata.uid);
  });

  it('a merge patch that changes metadata.uid is 422 field is immutable', async () => {
    const c = await t.request('POST', base, { body: { metadata: { name: 'uid-patch' }, data: { a: '1' } } });
    const r = await t.request('PATCH', `${base}/uid-patch`, { body: { metadata: { uid: 'other-uid' } }, headers: mergePatch });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      reason: 'Invalid',
      message: 'ConfigMap "uid-patch" is invalid: metadata.uid: Invalid value: "other-uid": field is immutable',
      // Twice, as kube: the generic update checks, then ConfigMap's own ValidateObjectMetaUpdate (the message de-duplicates).
      details: {
        name: 'uid-patch',
        kind: 'ConfigMap',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "other-uid": field is immutable', field: 'metadata.uid' },
          { reason: 'FieldValueInvalid', message: 'Invalid value: "other-uid": field is immutable', field: 'metadata.uid' },
        ],
      },
    });
    expect((await t.request('GET', `${base}/uid-patch`)).json.metadata.uid).toBe(c.json.metadata.uid);
  });

  it('a PUT that sets deletionGracePeriodSeconds on a live object is 422 immutable', async () => {
    await t.request('POST', base, { body: { metadata: { name: 'grace-put' }, data: { a: '1' } } });
    const r = await t.request('PUT', `${base}/grace-put`, { body: { metadata: { name: 'grace-put', deletionGracePeriodSeconds: 30 }, data: { a: '1' } } });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('ConfigMap "grace-put" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable');
  });
});

describe('delete preconditions', () => {
  it('words a failed uid or resourceVersion precondition as rest.BeforeDelete (the kind, not the resource)', async () => {
    const c = await t.request('POST', base, { body: { metadata: { name: 'pre-del' }, data: {} } });
    const { uid, resourceVersion } = c.json.metadata;
    const byUid = await t.request('DELETE', `${base}/pre-del`, { body: { preconditions: { uid: 'nope' } } });
    expect(byUid.status).toBe(409);
    expect(byUid.json).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on ConfigMap "pre-del": the UID in the precondition (nope) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
      details: { name: 'pre-del', kind: 'ConfigMap' },
    });
    const byRv = await t.request('DELETE', `${base}/pre-del`, { body: { preconditions: { resourceVersion: '1' } } });
    expect(byRv.status).toBe(409);
    expect(byRv.json.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "pre-del": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`,
    );
    const ok = await t.request('DELETE', `${base}/pre-del`, { body: { preconditions: { uid, resourceVersion } } });
    expect(ok.status).toBe(200);
  });

  it('namespaces word them as the namespace registry does', async () => {
    const c = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'pre-ns' } } });
    const r = await t.request('DELETE', '/api/v1/namespaces/pre-ns', { body: { preconditions: { uid: 'nope' } } });
    expect(r.status).toBe(409);
    expect(r.json.message).toBe(`Operation cannot be fulfilled on namespaces "pre-ns": Precondition failed: UID in precondition: nope, UID in object meta: ${c.json.metadata.uid}`);
  });
});

describe('unconditional updates', () => {
  const lease = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, ...extra },
    spec: { holderIdentity: 'a' },
  });

  it('a Lease PUT without resourceVersion is 422: kube requires it for leases', async () => {
    await t.request('POST', leases, { body: lease('l-uncond') });
    const r = await t.request('PUT', `${leases}/l-uncond`, { body: { ...lease('l-uncond'), spec: { holderIdentity: 'b' } } });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      code: 422,
      message: 'leases.coordination.k8s.io "l-uncond" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      details: {
        name: 'l-uncond',
        group: 'coordination.k8s.io',
        kind: 'leases',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }],
      },
    });
    expect((await t.request('GET', `${leases}/l-uncond`)).json.spec.holderIdentity).toBe('a');
  });

  it('a Lease PUT with the current resourceVersion, and a Lease patch, update', async () => {
    const c = await t.request('POST', leases, { body: lease('l-cond') });
    const put = await t.request('PUT', `${leases}/l-cond`, { body: { ...lease('l-cond', { resourceVersion: c.json.metadata.resourceVersion }), spec: { holderIdentity: 'b' } } });
    expect(put.status).toBe(200);
    const patch = await t.request('PATCH', `${leases}/l-cond`, { body: { spec: { holderIdentity: 'c' } }, headers: mergePatch });
    expect(patch.status).toBe(200);
    expect(patch.json.spec.holderIdentity).toBe('c');
  });

  it('a ConfigMap PUT without resourceVersion still overwrites', async () => {
    await t.request('POST', base, { body: { metadata: { name: 'cm-uncond' }, data: { a: '1' } } });
    const r = await t.request('PUT', `${base}/cm-uncond`, { body: { metadata: { name: 'cm-uncond' }, data: { a: '2' } } });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: '2' });
  });
});

describe('removing the last finalizer', () => {
  it('answers with the object of the request, at the version it was computed from (deleteWithoutFinalizers)', async () => {
    const c = await t.request('POST', base, { body: { metadata: { name: 'last-fin', finalizers: ['example.com/x'] }, data: {} } });
    const del = await t.request('DELETE', `${base}/last-fin`);
    const r = await t.request('PATCH', `${base}/last-fin`, { body: { metadata: { finalizers: null } }, headers: mergePatch });
    expect(r.status).toBe(200);
    expect(r.json.metadata.resourceVersion).toBe(del.json.metadata.resourceVersion);
    expect(r.json.metadata.resourceVersion).not.toBe(c.json.metadata.resourceVersion);
    expect((await t.request('GET', `${base}/last-fin`)).status).toBe(404);
  });
});
