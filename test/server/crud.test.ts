import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  // The namespace controller acts at once: kube's 5s grace period is tested in namespace-lifecycle.test.ts.
  t = await startTestServer({ namespaceControllerTiming: { graceMs: 0, remainingMs: 200, errorMs: 100 } });
});
afterAll(async () => {
  await t?.close();
});

const cm = (name: string, data: Record<string, string> = { a: '1' }, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});

describe('create and get', () => {
  it('creates with server-set metadata and returns 201', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('c1') });
    expect(r.status).toBe(201);
    expect(r.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.metadata.resourceVersion).toMatch(/^[0-9]+$/);
    expect(r.json.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(r.json.metadata.namespace).toBe('default');
    const g = await t.request('GET', '/api/v1/namespaces/default/configmaps/c1');
    expect(g.status).toBe(200);
    expect(g.json.data).toEqual({ a: '1' });
    expect(g.json.metadata.resourceVersion).toBe(r.json.metadata.resourceVersion);
  });

  // As kube-apiserver v1.32.4 answers: its etcd3 store refuses the write with a plain error (500,
  // no reason), while the dry-run storage copies the object back with the client's version.
  it('refuses a create that sets a non-zero resourceVersion with a reason-less 500, except in a dry run', async () => {
    const base = '/api/v1/namespaces/default/configmaps';
    const r = await t.request('POST', base, { body: cm('rv-set', {}, { resourceVersion: '5' }) });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'resourceVersion should not be set on objects to be created', code: 500 });
    expect((await t.request('GET', `${base}/rv-set`)).status).toBe(404);
    const dry = await t.request('POST', `${base}?dryRun=All`, { body: cm('rv-set', {}, { resourceVersion: '5' }) });
    expect(dry.status).toBe(201);
    expect(dry.json.metadata.resourceVersion).toBe('5');
    // Versions that do not parse as a non-zero uint64 are ignored.
    for (const [name, rv] of [['rv-zero', '0'], ['rv-text', 'abc']]) {
      const ok = await t.request('POST', base, { body: cm(name!, {}, { resourceVersion: rv }) });
      expect(ok.status).toBe(201);
      expect(ok.json.metadata.resourceVersion).toMatch(/^[1-9][0-9]*$/);
    }
  });

  // Built-in kinds are checked by their Go validation only: the OpenAPI's required lists add no causes.
  it('an owner reference without uid is one cause, in apimachinery\'s words', async () => {
    const body = cm('owned', {}, { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'p' }] });
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "": uid must not be empty', field: 'metadata.ownerReferences.uid' }]);
  });

  it('generates names from generateName', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { generateName: 'gen-' }, data: {} } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('answers 409 AlreadyExists with a kube Status', async () => {
    await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('dup') });
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('dup') });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'AlreadyExists',
      message: 'configmaps "dup" already exists',
      details: { name: 'dup', kind: 'configmaps' },
      code: 409,
    });
  });

  it('answers 404 NotFound for a missing object', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/default/configmaps/nope');
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ reason: 'NotFound', message: 'configmaps "nope" not found', details: { name: 'nope', kind: 'configmaps' } });
  });

  it('rejects invalid names with 422 Invalid and field causes', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('Bad_Name') });
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.message).toMatch(/^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"/);
    expect(r.json.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });
  });

  it('refuses to create in a missing namespace', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/missing/configmaps', { body: cm('x') });
    expect(r.status).toBe(404);
    expect(r.json.message).toBe('namespaces "missing" not found');
  });

  it('rejects a body namespace that differs from the path', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('x', {}, { namespace: 'kube-system' }) });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });

  it('folds Secret stringData into base64 data', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/secrets', {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { user: 'admin' } },
    });
    expect(r.status).toBe(201);
    expect(r.json.data).toEqual({ user: Buffer.from('admin').toString('base64') });
    expect(r.json.stringData).toBeUndefined();
    expect(r.json.type).toBe('Opaque');
  });
});

describe('update', () => {
  it('PUT with a stale resourceVersion is 409 Conflict; without one it is unconditional', async () => {
    const c = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('u1') });
    const rv = c.json.metadata.resourceVersion;
    const ok = await t.request('PUT', '/api/v1/namespaces/default/configmaps/u1', { body: { ...cm('u1', { a: '2' }), metadata: { name: 'u1', resourceVersion: rv } } });
    expect(ok.status).toBe(200);
    expect(ok.json.metadata.resourceVersion).not.toBe(rv);
    const stale = await t.request('PUT', '/api/v1/namespaces/default/configmaps/u1', { body: { ...cm('u1', { a: '3' }), metadata: { name: 'u1', resourceVersion: rv } } });
    expect(stale.status).toBe(409);
    expect(stale.json.reason).toBe('Conflict');
    expect(stale.json.message).toBe(
      'Operation cannot be fulfilled on configmaps "u1": the object has been modified; please apply your changes to the latest version and try again',
    );
    const blind = await t.request('PUT', '/api/v1/namespaces/default/configmaps/u1', { body: cm('u1', { a: '4' }) });
    expect(blind.status).toBe(200);
    expect(blind.json.data).toEqual({ a: '4' });
    expect(blind.json.metadata.uid).toBe(c.json.metadata.uid);
  });

  it('PUT of a missing ConfigMap is 404', async () => {
    const r = await t.request('PUT', '/api/v1/namespaces/default/configmaps/ghost', { body: cm('ghost') });
    expect(r.status).toBe(404);
  });

  it('status writes change only status; main writes keep status', async () => {
    const ns = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'st1' } } });
    expect(ns.status).toBe(201);
    expect(ns.json.status).toEqual({ phase: 'Active' });
    const main = await t.request('PUT', '/api/v1/namespaces/st1', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'st1', labels: { x: 'y' } }, status: { phase: 'Terminating' } },
    });
    expect(main.status).toBe(200);
    expect(main.json.status.phase).toBe('Active');
    expect(main.json.metadata.labels.x).toBe('y');
  });
});

describe('patch', () => {
  it('applies merge, JSON and strategic merge patches', async () => {
    await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('p1', { a: '1', b: '2' }) });
    const merge = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/p1', {
      body: { data: { b: null, c: '3' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(merge.status).toBe(200);
    expect(merge.json.data).toEqual({ a: '1', c: '3' });
    const json = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/p1', {
      body: [
        { op: 'test', path: '/data/a', value: '1' },
        { op: 'replace', path: '/data/a', value: 'one' },
      ],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(json.status).toBe(200);
    expect(json.json.data.a).toBe('one');
    const smp = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/p1', {
      body: { metadata: { labels: { l: 'v' } } },
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    expect(smp.status).toBe(200);
    expect(smp.json.metadata.labels).toEqual({ l: 'v' });
  });

  it('fails a JSON patch whose test does not hold', async () => {
    const r = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/p1', {
      body: [{ op: 'test', path: '/data/a', value: 'nope' }],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.json.kind).toBe('Status');
  });

  it('answers 415 for an unknown patch type', async () => {
    const r = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/p1', { body: '{}', headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
    expect(r.json.reason).toBe('UnsupportedMediaType');
  });

  it('a patch pinning a stale resourceVersion is 409', async () => {
    const r = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/p1', {
      body: { metadata: { resourceVersion: '1' }, data: { z: 'z' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(409);
  });
});

describe('delete', () => {
  it('deletes and answers a Success Status', async () => {
    const c = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('d1') });
    const r = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/d1');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'd1', kind: 'configmaps', uid: c.json.metadata.uid } });
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps/d1')).status).toBe(404);
  });

  it('honours uid and resourceVersion preconditions', async () => {
    await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('d2') });
    const r = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/d2', { body: { preconditions: { uid: 'not-the-uid' } } });
    expect(r.status).toBe(409);
    expect(r.json.message).toContain('the UID in the precondition (not-the-uid) does not match the UID in record');
    const r2 = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/d2', { body: { preconditions: { resourceVersion: '1' } } });
    expect(r2.status).toBe(409);
  });

  it('keeps an object with finalizers terminating until the last one is removed', async () => {
    await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('f1', {}, { finalizers: ['example.com/a', 'example.com/b'] }) });
    const del = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/f1');
    expect(del.status).toBe(200);
    expect(del.json.metadata.deletionTimestamp).toBeTruthy();
    const again = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/f1');
    expect(again.status).toBe(200);
    const one = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/f1', {
      body: { metadata: { finalizers: ['example.com/b'] } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(one.status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps/f1')).status).toBe(200);
    const last = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/f1', {
      body: { metadata: { finalizers: null } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(last.status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps/f1')).status).toBe(404);
  });

  it('dry-run delete keeps the object', async () => {
    await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('d3') });
    const r = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/d3?dryRun=All');
    expect(r.status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps/d3')).status).toBe(200);
  });

  it('deletecollection removes what the selector selects', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'dc' } } });
    for (const [n, team] of [['a', 'x'], ['b', 'x'], ['c', 'y']]) {
      await t.request('POST', '/api/v1/namespaces/dc/configmaps', { body: cm(n!, {}, { labels: { team } }) });
    }
    const r = await t.request('DELETE', '/api/v1/namespaces/dc/configmaps?labelSelector=team%3Dx');
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('ConfigMapList');
    const left = await t.request('GET', '/api/v1/namespaces/dc/configmaps');
    expect(left.json.items.map((i: any) => i.metadata.name)).toEqual(['c']);
  });
});

describe('dry run and field validation', () => {
  it('dry-run create returns the object and persists nothing', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: cm('dry') });
    expect(r.status).toBe(201);
    expect(r.json.metadata.name).toBe('dry');
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps/dry')).status).toBe(404);
  });

  it('rejects an unknown dryRun value', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=Some', { body: cm('dry2') });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it('warns about unknown and duplicate fields by default, one Warning each', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fv1"},"data":{"a":"1"},"bogus":1,"spec":{"x":1}}';
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body });
    expect(r.status).toBe(201);
    const warnings = ([] as string[]).concat(r.headers.warning as string[] | string);
    expect(warnings.some((w) => w.includes('unknown field') && w.includes('bogus'))).toBe(true);
    expect(warnings.some((w) => w.includes('spec'))).toBe(true);
    expect(r.json.bogus).toBeUndefined();
  });

  it('Strict rejects unknown and duplicate fields with 400 naming them all', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fv2","name":"fv2"},"bogus":1}';
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { body });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('bogus');
    expect(r.json.message).toContain('duplicate field');
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps/fv2')).status).toBe(404);
  });

  it('Ignore drops unknown fields silently', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Ignore', { body: { ...cm('fv3'), bogus: 1 } });
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBeUndefined();
  });
});

describe('namespaces', () => {
  it('has the built-in namespaces', async () => {
    const r = await t.request('GET', '/api/v1/namespaces');
    const names = r.json.items.map((i: any) => i.metadata.name);
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) expect(names).toContain(n);
  });

  it('deleting a namespace removes its content, then the namespace', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'doomed' } } });
    await t.request('POST', '/api/v1/namespaces/doomed/configmaps', { body: cm('c') });
    await t.request('POST', '/api/v1/namespaces/doomed/secrets', { body: { metadata: { name: 's' } } });
    const del = await t.request('DELETE', '/api/v1/namespaces/doomed');
    expect(del.status).toBe(200);
    expect(del.json.status.phase).toBe('Terminating');
    const refused = await t.request('POST', '/api/v1/namespaces/doomed/configmaps', { body: cm('late') });
    if (refused.status !== 404) {
      expect(refused.status).toBe(403);
      expect(refused.json.message).toContain('because it is being terminated');
    }
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      gone = (await t.request('GET', '/api/v1/namespaces/doomed')).status === 404;
      if (!gone) await new Promise((r) => setTimeout(r, 100));
    }
    expect(gone).toBe(true);
    expect((await t.request('GET', '/api/v1/namespaces/doomed/configmaps')).json.items).toEqual([]);
  });
});

describe('namespace finalize', () => {
  it('releases a namespace held by a custom finalizer through PUT /finalize', async () => {
    const c = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'held' }, spec: { finalizers: ['example.com/hold'] } } });
    expect(c.status).toBe(201);
    expect(c.json.spec.finalizers).toEqual(['example.com/hold', 'kubernetes']);
    expect((await t.request('DELETE', '/api/v1/namespaces/held')).status).toBe(200);
    let ns: any;
    for (let i = 0; i < 50; i++) {
      ns = (await t.request('GET', '/api/v1/namespaces/held')).json;
      if (!ns.spec.finalizers.includes('kubernetes')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(ns.spec.finalizers).toEqual(['example.com/hold']);
    expect(ns.status.phase).toBe('Terminating');
    expect((await t.request('PATCH', '/api/v1/namespaces/held/finalize', { body: {}, headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(405);
    const fin = await t.request('PUT', '/api/v1/namespaces/held/finalize', { body: { ...ns, spec: { finalizers: [] } } });
    expect(fin.status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/held')).status).toBe(404);
  });
});

describe('routing', () => {
  it('unknown paths below a served group are 404 with a Status body, as go-restful answers', async () => {
    for (const p of ['/api/v1/widgets', '/api/v2', '/apis/rbac.authorization.k8s.io/v9']) {
      const r = await t.request('GET', p);
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });
    }
  });

  it('unknown groups and root paths are Go\'s plain-text 404', async () => {
    for (const p of ['/apis/nope.example.com/v1/things', '/apis/nope.example.com', '/nonsense', '/livez/nope']) {
      const r = await t.request('GET', p);
      expect(r.status).toBe(404);
      expect(r.text).toBe('404 page not found\n');
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.headers['cache-control']).toBe('no-cache, private');
    }
  });

  it('wrong verbs are 405', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps/c1', { body: cm('c1') });
    expect(r.status).toBe(405);
    expect(r.json.reason).toBe('MethodNotAllowed');
  });

  it('cluster-scoped kinds work under /apis', async () => {
    const r = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
    });
    expect(r.status).toBe(201);
    const g = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/reader');
    expect(g.json.rules[0].verbs).toEqual(['get']);
  });

  it('RBAC roleRef is immutable', async () => {
    const base = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb' }, subjects: [{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' }] };
    const c = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      body: { ...base, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'a' } },
    });
    expect(c.status).toBe(201);
    const u = await t.request('PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/rb', {
      body: { ...base, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'b' } },
    });
    expect(u.status).toBe(422);
    expect(u.json.message).toContain('roleRef');
  });
});
