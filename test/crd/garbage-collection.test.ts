/** The garbage collector follows custom resources: as owners and as dependents. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { createCrd, schemalessCrd } from './crd-setup.ts';

const crd = schemalessCrd('crdh.example.com', 'gizmos', 'Gizmo');
const base = '/apis/crdh.example.com/v1/namespaces/default/gizmos';
const cms = '/api/v1/namespaces/default/configmaps';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function gone(path: string): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if ((await t.request('GET', path)).status === 404) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe('garbage collection with custom resources', () => {
  it('collects dependents of a deleted custom resource, and custom resources whose owner went', async () => {
    await createCrd(t, crd);
    const owner = await t.request('POST', base, { body: { apiVersion: 'crdh.example.com/v1', kind: 'Gizmo', metadata: { name: 'owner' } } });
    expect(owner.status).toBe(201);
    const ref = (o: { apiVersion: string; kind: string; metadata: { name: string; uid: string } }) => [{ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid }];
    expect((await t.request('POST', cms, { body: { metadata: { name: 'dep', ownerReferences: ref(owner.json) } } })).status).toBe(201);
    await t.request('DELETE', `${base}/owner`);
    expect(await gone(`${cms}/dep`)).toBe(true);

    const cm = await t.request('POST', cms, { body: { metadata: { name: 'cm-owner' } } });
    expect((await t.request('POST', base, { body: { apiVersion: 'crdh.example.com/v1', kind: 'Gizmo', metadata: { name: 'child', ownerReferences: ref({ ...cm.json, apiVersion: 'v1', kind: 'ConfigMap' }) } } })).status).toBe(201);
    await t.request('DELETE', `${cms}/cm-owner`);
    expect(await gone(`${base}/child`)).toBe(true);
  });
});
