/**
 * A CRD whose resources carry finalizers stays Terminating (kube's condition) until they are gone;
 * meanwhile new resources are refused with kube's 405.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { createCrd, schemalessCrd, waitFor } from './crd-setup.ts';

const crd = schemalessCrd('crdh.example.com', 'gizmos', 'Gizmo');
const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.crdh.example.com';
const base = '/apis/crdh.example.com/v1/namespaces/default/gizmos';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('a terminating CRD', () => {
  it('waits for its resources, refusing new ones', async () => {
    await createCrd(t, crd);
    const held = await t.request('POST', base, { body: { apiVersion: 'crdh.example.com/v1', kind: 'Gizmo', metadata: { name: 'fin', finalizers: ['crdh.example.com/hold'] } } });
    expect(held.status).toBe(201);
    const del = await t.request('DELETE', crdPath);
    expect(del.status).toBe(200);
    expect(del.json.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    // kube's CRD delete: pending, with no grace period; the finalizer controller then takes it on.
    expect(del.json.metadata).not.toHaveProperty('deletionGracePeriodSeconds');
    const terminating = del.json.status.conditions.find((c: { type: string }) => c.type === 'Terminating');
    expect(terminating).toMatchObject({ status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' });
    const inProgress = await waitFor(async () => {
      const r = await t.request('GET', crdPath);
      const c = r.json.status.conditions.find((x: { type: string }) => x.type === 'Terminating');
      return c?.reason === 'InstanceDeletionInProgress' ? c : undefined;
    });
    expect(inProgress).toMatchObject({ status: 'True', message: 'CustomResource deletion is in progress' });
    const refused = await waitFor(async () => {
      const r = await t.request('POST', base, { body: { apiVersion: 'crdh.example.com/v1', kind: 'Gizmo', metadata: { name: 'new' } } });
      return r.status === 405 ? r : undefined;
    });
    expect(refused.json).toMatchObject({ reason: 'MethodNotAllowed', message: 'create not allowed while custom resource definition is terminating', code: 405 });
    const item = await waitFor(async () => {
      const r = await t.request('GET', `${base}/fin`);
      return r.json?.metadata?.deletionTimestamp ? r.json : undefined;
    });
    expect(item.metadata.finalizers).toEqual(['crdh.example.com/hold']);
    expect((await t.request('GET', crdPath)).status).toBe(200);
    await t.request('PATCH', `${base}/fin`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    await waitFor(async () => ((await t.request('GET', crdPath)).status === 404 ? true : undefined));
    expect((await t.request('GET', base)).status).toBe(404);
  });
});
