/**
 * Every namespace gets a `default` ServiceAccount and a `kube-root-ca.crt` ConfigMap, as
 * kube-controller-manager makes them (shapes compared with the reference); both come back when
 * deleted, the ConfigMap's content is restored, and a namespace being deleted still goes away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { createCertificateAuthority } from '../../src/server/certs.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: { identityControllers: true } });
});
afterAll(async () => t?.close());

async function until(path: string, ok: (r: Awaited<ReturnType<TestServer['request']>>) => boolean) {
  let r = await t.request('GET', path);
  for (let i = 0; i < 200 && !ok(r); i++) {
    await new Promise((res) => setTimeout(res, 25));
    r = await t.request('GET', path);
  }
  return r;
}

describe('namespace publishers', () => {
  it('a new namespace gets default and kube-root-ca.crt', async () => {
    expect((await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pub-a' } } })).status).toBe(201);
    const sa = await until('/api/v1/namespaces/pub-a/serviceaccounts/default', (r) => r.status === 200);
    expect(sa.json).toMatchObject({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'pub-a' } });
    const cm = await until('/api/v1/namespaces/pub-a/configmaps/kube-root-ca.crt', (r) => r.status === 200);
    expect(cm.json.data).toEqual({ 'ca.crt': t.server.caCert });
    expect(cm.json.metadata.annotations['kubernetes.io/description']).toMatch(/^Contains a CA bundle that can be used to verify the kube-apiserver/);
    expect(cm.json.metadata.managedFields[0]).toMatchObject({ manager: 'kube-controller-manager', operation: 'Update' });
  });

  it('built-in namespaces have them too', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      expect((await until(`/api/v1/namespaces/${ns}/serviceaccounts/default`, (r) => r.status === 200)).status).toBe(200);
      expect((await until(`/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`, (r) => r.status === 200)).status).toBe(200);
    }
  });

  it('restores a changed ConfigMap and recreates deleted objects', async () => {
    const path = '/api/v1/namespaces/pub-a/configmaps/kube-root-ca.crt';
    const cm = (await until(path, (r) => r.status === 200)).json;
    cm.data = { 'ca.crt': 'tampered' };
    expect((await t.request('PUT', path, { body: cm })).status).toBe(200);
    expect((await until(path, (r) => r.json?.data?.['ca.crt'] === t.server.caCert)).json.data['ca.crt']).toBe(t.server.caCert);
    expect((await t.request('DELETE', '/api/v1/namespaces/pub-a/serviceaccounts/default')).status).toBe(200);
    expect((await until('/api/v1/namespaces/pub-a/serviceaccounts/default', (r) => r.status === 200)).status).toBe(200);
  });

  it('keeps another replica\'s CA beside its own (replicas with different CAs converge)', async () => {
    const other = (await createCertificateAuthority('other-replica-ca')).cert;
    const path = '/api/v1/namespaces/pub-a/configmaps/kube-root-ca.crt';
    const cm = (await until(path, (r) => r.status === 200)).json;
    cm.data = { 'ca.crt': other };
    expect((await t.request('PUT', path, { body: cm })).status).toBe(200);
    const merged = await until(path, (r) => r.json?.data?.['ca.crt'] !== other);
    expect(merged.json.data['ca.crt']).toBe(`${other.trim()}\n${t.server.caCert}`);
    const rv = merged.json.metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 600));
    expect((await t.request('GET', path)).json.metadata.resourceVersion).toBe(rv);
  });

  it('a deleted namespace goes away (nothing is recreated in it)', async () => {
    await until('/api/v1/namespaces/pub-a/configmaps/kube-root-ca.crt', (r) => r.status === 200);
    expect((await t.request('DELETE', '/api/v1/namespaces/pub-a')).status).toBe(200);
    const gone = await until('/api/v1/namespaces/pub-a', (r) => r.status === 404);
    expect(gone.status).toBe(404);
  });
});
