/**
 * Deletion propagation: Background (dependents go after their owner), Orphan (dependents stay,
 * their references removed), Foreground (the owner goes after its dependents), and references
 * to kinds this server does not serve are left alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
const base = '/api/v1/namespaces/default/configmaps';
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

async function owner(name: string): Promise<{ apiVersion: string; kind: string; name: string; uid: string }> {
  const r = await t.request('POST', base, { body: { metadata: { name } } });
  expect(r.status).toBe(201);
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: r.json.metadata.uid };
}
async function dependent(name: string, owners: object[]): Promise<void> {
  const r = await t.request('POST', base, { body: { metadata: { name, ownerReferences: owners } } });
  expect(r.status).toBe(201);
}
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
const gone = (name: string) => async () => (await t.request('GET', `${base}/${name}`)).status === 404;

describe('garbage collection', () => {
  it('Background: deletes dependents after their owner', async () => {
    const o = await owner('bg-owner');
    await dependent('bg-dep', [o]);
    expect((await t.request('DELETE', `${base}/bg-owner`)).status).toBe(200);
    expect(await eventually(gone('bg-dep'))).toBe(true);
  });

  it('Orphan: keeps dependents and removes their references, then the owner', async () => {
    const o = await owner('or-owner');
    await dependent('or-dep', [o]);
    const del = await t.request('DELETE', `${base}/or-owner?propagationPolicy=Orphan`);
    expect(del.status).toBe(200);
    expect(del.json.metadata.finalizers).toEqual(['orphan']);
    expect(await eventually(gone('or-owner'))).toBe(true);
    const dep = await t.request('GET', `${base}/or-dep`);
    expect(dep.status).toBe(200);
    expect(dep.json.metadata.ownerReferences).toBeUndefined();
    // The reference was the creator's only field: with it removed, kube drops the creator's entry.
    expect(dep.json.metadata.managedFields).toBeUndefined();
  });

  it('Foreground: deletes dependents first, then the owner', async () => {
    const o = await owner('fg-owner');
    await dependent('fg-dep', [o]);
    const del = await t.request('DELETE', `${base}/fg-owner`, { body: { propagationPolicy: 'Foreground' } });
    expect(del.status).toBe(200);
    expect(del.json.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(await eventually(gone('fg-dep'))).toBe(true);
    expect(await eventually(gone('fg-owner'))).toBe(true);
  });

  it('keeps a dependent that still has an owner, dropping only the dangling reference', async () => {
    const a = await owner('two-a');
    const b = await owner('two-b');
    await dependent('two-dep', [a, b]);
    await t.request('DELETE', `${base}/two-a`);
    expect(
      await eventually(async () => {
        const r = await t.request('GET', `${base}/two-dep`);
        return r.status === 200 && r.json.metadata.ownerReferences?.length === 1;
      }),
    ).toBe(true);
    expect((await t.request('GET', `${base}/two-dep`)).json.metadata.ownerReferences[0].uid).toBe(b.uid);
  });

  it('leaves references to kinds it does not serve', async () => {
    await dependent('foreign-dep', [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '00000000-0000-0000-0000-000000000001' }]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await t.request('GET', `${base}/foreign-dep`)).status).toBe(200);
  });

  it('kubectl delete --cascade=orphan keeps the dependents', async () => {
    const o = await owner('k-owner');
    await dependent('k-dep', [o]);
    const r = await t.kubectl(['delete', 'cm', 'k-owner', '--cascade=orphan']);
    expect(r.code, r.stderr).toBe(0);
    expect(await eventually(gone('k-owner'))).toBe(true);
    expect((await t.request('GET', `${base}/k-dep`)).status).toBe(200);
  });
});
