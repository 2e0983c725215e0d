/**
 * Authorization at the front door with RBAC (the default): token users denied with
 * kube-apiserver's exact 403s, then allowed once bound; discovery and health open to everyone as
 * kube's default policy says; the default policy present; and real kubectl against it all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, writeTemp, type TestServer } from '../server/harness.ts';
import { renderKubeconfig } from '../../src/server/kubeconfig.ts';
import { parseFlags } from '../../src/server/config.ts';

let t: TestServer;
let dir: string;
const asU = { anonymous: true, headers: { authorization: 'Bearer token-u' } };
const asSa = { anonymous: true, headers: { authorization: 'Bearer token-sa' } };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-authz-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, 'token-u,u,uid-u,"devs"\ntoken-sa,system:serviceaccount:team:builder,uid-sa,"system:serviceaccounts,system:serviceaccounts:team"\n');
  t = await startTestServer({ config: { tokenAuthFile: tokenFile } });
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Retries until the RBAC index has seen a change (it follows the watch cache asynchronously). */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe('403 as kube-apiserver gives it', () => {
  it('a named namespaced resource', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/n/configmaps/x', asU);
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in API group "" in the namespace "n"',
      reason: 'Forbidden',
      details: { name: 'x', kind: 'configmaps' },
      code: 403,
    });
  });

  it('a subresource at the cluster scope, in a named group', async () => {
    const r = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/x/status', asU);
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      'clusterroles.rbac.authorization.k8s.io "x" is forbidden: User "u" cannot get resource "clusterroles/status" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
    expect(r.json.details).toEqual({ name: 'x', group: 'rbac.authorization.k8s.io', kind: 'clusterroles' });
  });

  it('a watch of a collection', async () => {
    const r = await t.request('GET', '/api/v1/namespaces?watch=true', asU);
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('namespaces is forbidden: User "u" cannot watch resource "namespaces" in API group "" at the cluster scope');
    expect(r.json.details).toEqual({ kind: 'namespaces' });
  });

  it('deletecollection, create and non-resource paths', async () => {
    const dc = await t.request('DELETE', '/api/v1/namespaces/n/secrets', asU);
    expect(dc.json.message).toBe('secrets is forbidden: User "u" cannot deletecollection resource "secrets" in API group "" in the namespace "n"');
    const c = await t.request('POST', '/api/v1/namespaces/n/configmaps', { ...asU, body: { metadata: { name: 'a' } } });
    expect(c.json.message).toBe('configmaps is forbidden: User "u" cannot create resource "configmaps" in API group "" in the namespace "n"');
    const p = await t.request('GET', '/foo/bar', asU);
    expect(p.status).toBe(403);
    expect(p.json).toMatchObject({ message: 'forbidden: User "u" cannot get path "/foo/bar"', details: {} });
    const anon = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1', { anonymous: true });
    expect(anon.json.message).toBe('forbidden: User "system:anonymous" cannot get path "/apis/rbac.authorization.k8s.io/v1"');
    const post = await t.request('POST', '/healthz', { ...asU, body: {} });
    expect(post.json.message).toBe('forbidden: User "u" cannot post path "/healthz"');
  });
});

describe('the default policy', () => {
  it('lets everyone read health and version, and authenticated users discovery', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) {
      expect((await t.request('GET', path, { anonymous: true })).status).toBe(200);
    }
    for (const path of ['/api', '/apis', '/api/v1', '/apis/rbac.authorization.k8s.io/v1', '/openapi/v2']) {
      expect((await t.request('GET', path, asU)).status, path).toBe(200);
    }
    // Counted as kube counts them: by the flag-configured authorizer, named as kube names it.
    const metrics = (await t.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/^apiserver_authorization_decisions_total\{decision="allowed",name="rbac",type="RBAC"\} [1-9]/m);
  });

  it('is stored with kube labels, and binds cluster-admin to system:masters', async () => {
    const cr = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin');
    expect(cr.json.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    expect(cr.json.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    expect(cr.json.rules).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]);
    const crb = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin');
    expect(crb.json.subjects).toEqual([{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' }]);
    const view = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/view');
    expect(view.json.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
    const reader = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/extension-apiserver-authentication-reader');
    expect(reader.status).toBe(200);
  });
});

describe('grants follow roles and bindings as they change', () => {
  it('a token user is allowed once bound, and denied again when unbound', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    expect((await t.request('POST', `${rbac}/namespaces/default/roles`, { body: { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } })).status).toBe(201);
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps', asU)).status).toBe(403);
    const rb = { metadata: { name: 'u-cm' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'Group', name: 'devs' }] };
    expect((await t.request('POST', `${rbac}/namespaces/default/rolebindings`, { body: rb })).status).toBe(201);
    expect(await eventually(async () => (await t.request('GET', '/api/v1/namespaces/default/configmaps', asU)).status === 200)).toBe(true);
    // Only in that namespace, and only those verbs.
    expect((await t.request('GET', '/api/v1/namespaces/kube-system/configmaps', asU)).status).toBe(403);
    expect((await t.request('DELETE', '/api/v1/namespaces/default/configmaps/x', asU)).status).toBe(403);
    expect((await t.request('DELETE', `${rbac}/namespaces/default/rolebindings/u-cm`)).status).toBe(200);
    expect(await eventually(async () => (await t.request('GET', '/api/v1/namespaces/default/configmaps', asU)).status === 403)).toBe(true);
  });

  it('a service account bound without a subject namespace, in the binding namespace', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    expect((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'team' } } })).status).toBe(201);
    const rb = { metadata: { name: 'builder-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'ServiceAccount', name: 'builder' }] };
    expect((await t.request('POST', `${rbac}/namespaces/team/rolebindings`, { body: rb })).status).toBe(201);
    expect(await eventually(async () => (await t.request('GET', '/api/v1/namespaces/team/secrets', asSa)).status === 200)).toBe(true);
    expect((await t.request('GET', '/api/v1/namespaces/default/secrets', asSa)).status).toBe(403);
  });

  it('a binding to a missing role adds RBAC\'s reason to the message', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const crb = { metadata: { name: 'u-ghost' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ghost' }, subjects: [{ kind: 'User', name: 'u' }] };
    expect((await t.request('POST', `${rbac}/clusterrolebindings`, { body: crb })).status).toBe(201);
    const want = 'namespaces is forbidden: User "u" cannot list resource "namespaces" in API group "" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found';
    expect(await eventually(async () => (await t.request('GET', '/api/v1/namespaces', asU)).json.message === want)).toBe(true);
    expect((await t.request('DELETE', `${rbac}/clusterrolebindings/u-ghost`)).status).toBe(200);
  });
});

describe('kubectl as a restricted user', () => {
  it('is refused with kube\'s message, then allowed after a RoleBinding', async () => {
    const cfg = await writeTemp(t.dataDir, 'u.kubeconfig', renderKubeconfig({ server: t.server.url, caPem: t.server.caCert, token: 'token-u' }));
    const denied = await t.kubectl(['--kubeconfig', cfg, 'get', 'secrets', '-n', 'default']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr.trim()).toBe('Error from server (Forbidden): secrets is forbidden: User "u" cannot list resource "secrets" in API group "" in the namespace "default"');
    const ok = await t.kubectl(['create', 'rolebinding', 'u-edit-secrets', '--clusterrole=cluster-admin', '--user=u', '-n', 'default']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(
      await eventually(async () => {
        const r = await t.kubectl(['--kubeconfig', cfg, 'get', 'secrets', '-n', 'default', '-o', 'name']);
        return r.code === 0;
      }),
    ).toBe(true);
  });
});

describe('modes', () => {
  it('rejects unknown and unimplemented modes with kube\'s words', () => {
    expect(() => parseFlags(['--authorization-mode=Foo'])).toThrow('authorization-mode "Foo" is not a valid mode');
    expect(() => parseFlags(['--authorization-mode=RBAC,RBAC'])).toThrow('authorization-mode ["RBAC" "RBAC"] has mode specified more than once');
    expect(() => parseFlags(['--authorization-mode=ABAC'])).toThrow("authorization-mode ABAC's authorization policy file not passed");
    expect(() => parseFlags(['--authorization-mode='])).toThrow('at least one authorization-mode must be passed');
    expect(parseFlags(['--authorization-mode=AlwaysDeny,RBAC'])).toMatchObject({ authorizationModes: ['AlwaysDeny', 'RBAC'] });
  });

  it('AlwaysDeny denies everyone but system:masters, with its reason', async () => {
    const d = await startTestServer({ config: { authorizationModes: ['AlwaysDeny'] } });
    try {
      expect((await d.request('GET', '/api/v1/namespaces')).status).toBe(200);
      const r = await d.request('GET', '/version', { anonymous: true });
      expect(r.status).toBe(403);
      expect(r.json.message).toBe('forbidden: User "system:anonymous" cannot get path "/version": Everything is forbidden.');
    } finally {
      await d.close();
    }
  });
});

describe('attributes as kube derives them', () => {
  it('a list selecting one name by field selector is about that name', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/n/configmaps?fieldSelector=metadata.name%3Dx', asU);
    expect(r.json.message).toBe('configmaps "x" is forbidden: User "u" cannot list resource "configmaps" in API group "" in the namespace "n"');
    const w = await t.request('GET', '/api/v1/namespaces/n/configmaps?watch=1&fieldSelector=metadata.name%3D%3Dx,data.k%3Dv', asU);
    expect(w.json.message).toBe('configmaps "x" is forbidden: User "u" cannot watch resource "configmaps" in API group "" in the namespace "n"');
    const notExact = await t.request('GET', '/api/v1/namespaces/n/configmaps?fieldSelector=metadata.name!%3Dx', asU);
    expect(notExact.json.message).toBe('configmaps is forbidden: User "u" cannot list resource "configmaps" in API group "" in the namespace "n"');
  });

  it('?watch=true on a named object is authorized as get; the /watch/ path as watch', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/n/configmaps/x?watch=true', asU);
    expect(r.json.message).toBe('configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in API group "" in the namespace "n"');
    const w = await t.request('GET', '/api/v1/watch/namespaces/n/configmaps/x', asU);
    expect(w.json.message).toBe('configmaps "x" is forbidden: User "u" cannot watch resource "configmaps" in API group "" in the namespace "n"');
  });

  it('a name with an escaped slash is a subresource, and HEAD of a public path is not a get', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/n/configmaps/x%2Fy', asU);
    expect(r.json.message).toBe('configmaps "x" is forbidden: User "u" cannot get resource "configmaps/y" in API group "" in the namespace "n"');
    expect((await t.request('HEAD', '/version', asU)).status).toBe(403);
  });
});
