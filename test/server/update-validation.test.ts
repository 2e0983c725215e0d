/**
 * Update validation reports causes as kube-apiserver v1.32 does: the generic ObjectMeta checks, then
 * the kind's ValidateUpdate, which for most kinds repeats the kind's whole create validation
 * (ObjectMeta included) and for RBAC kinds repeats it twice. Counts measured on the reference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
const ns = 'upd-val';
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

const badAnnotation = { annotations: { 'a~': 'x' } };
const merge = { 'content-type': 'application/merge-patch+json' };

async function causes(path: string, patch: object): Promise<string[]> {
  const r = await t.request('PATCH', path, { body: patch, headers: merge });
  expect(r.status).toBe(422);
  return (r.json.details.causes as Array<{ field: string }>).map((c) => c.field);
}

describe('update validation causes', () => {
  it('core kinds repeat their ObjectMeta checks as kube does', async () => {
    const cases: Array<[string, string, object, number]> = [
      ['/api/v1/namespaces/upd-val/configmaps', 'c', {}, 4],
      ['/api/v1/namespaces/upd-val/secrets', 's', {}, 4],
      ['/api/v1/namespaces/upd-val/serviceaccounts', 'sa', {}, 4],
      ['/apis/coordination.k8s.io/v1/namespaces/upd-val/leases', 'l', {}, 3],
    ];
    for (const [coll, name, extra, n] of cases) {
      expect((await t.request('POST', coll, { body: { metadata: { name }, ...extra } })).status).toBe(201);
      expect([coll, await causes(`${coll}/${name}`, { metadata: badAnnotation })]).toEqual([coll, Array(n).fill('metadata.annotations')]);
    }
    expect(await causes(`/api/v1/namespaces/${ns}`, { metadata: badAnnotation })).toEqual(Array(4).fill('metadata.annotations'));
  });

  it('RBAC kinds report the object\'s own errors twice', async () => {
    const roles = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
    expect((await t.request('POST', roles, { body: { metadata: { name: 'r' }, rules: [] } })).status).toBe(201);
    const a = 'metadata.annotations';
    const role = [a, 'rules[0].apiGroups', 'rules[0].resources'];
    expect(await causes(`${roles}/r`, { metadata: badAnnotation, rules: [{ verbs: ['get'] }] })).toEqual([a, a, ...role, ...role, a]);

    const bindings = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`;
    const rb = { metadata: { name: 'rb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' }, subjects: [{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' }] };
    expect((await t.request('POST', bindings, { body: rb })).status).toBe(201);
    const binding = [a, 'subjects[0].kind'];
    expect(await causes(`${bindings}/rb`, { metadata: badAnnotation, subjects: [{ kind: 'Bogus', name: 'u' }] })).toEqual([a, a, ...binding, ...binding, a]);
  });

  it('keeps the warnings of a write that fails, as kube\'s recorder does', async () => {
    const roles = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
    expect((await t.request('POST', roles, { body: { metadata: { name: 'w' }, rules: [{ apiGroups: [''], resources: ['a'], verbs: ['get'] }] } })).status).toBe(201);
    // rules has no patch strategy: the list is replaced as written and `$patch` is an unknown field.
    const smp = await t.request('PATCH', `${roles}/w`, { body: { rules: [{ $patch: 'delete', apiGroups: [''] }] }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    expect(smp.status).toBe(422);
    expect(smp.headers.warning).toBe('299 - "unknown field \\"rules[0].$patch\\""');
    const dup = await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' }, bogus: 1 } });
    expect(dup.status).toBe(409);
    expect(dup.headers.warning).toBe('299 - "unknown field \\"bogus\\""');
    const put = await t.request('PUT', `${roles}/w`, { body: { metadata: { name: 'w', resourceVersion: '1' }, bogus: 1, rules: [] } });
    expect(put.status).toBe(409);
    expect(put.headers.warning).toBe('299 - "unknown field \\"bogus\\""');
  });
});
