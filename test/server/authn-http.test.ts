/**
 * Authentication at the front door: --token-auth-file users, client certificates, anonymous,
 * and 401 for a bad token, checked over HTTPS and with kubectl.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, writeTemp, type TestServer } from './harness.ts';
import { renderKubeconfig } from '../../src/server/kubeconfig.ts';

let t: TestServer;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-tok-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, 'secret-token-1,alice,uid-1,"devs,ops"\n');
  t = await startTestServer({ config: { tokenAuthFile: tokenFile } });
  // Authorization is RBAC: alice may do anything, so these tests see authentication alone.
  const crb = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: { metadata: { name: 'alice-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'User', name: 'alice' }] },
  });
  expect(crb.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('authentication', () => {
  it('accepts a token from the token file and rejects an unknown one with 401', async () => {
    const ok = await t.request('GET', '/api/v1/namespaces/default', { anonymous: true, headers: { authorization: 'Bearer secret-token-1' } });
    expect(ok.status).toBe(200);
    const bad = await t.request('GET', '/api/v1/namespaces/default', { anonymous: true, headers: { authorization: 'Bearer wrong' } });
    expect(bad.status).toBe(401);
    expect(bad.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', message: 'Unauthorized', code: 401 });
  });

  it('kubectl with a bad token prints the Unauthorized error', async () => {
    const cfg = await writeTemp(t.dataDir, 'bad.kubeconfig', renderKubeconfig({ server: t.server.url, caPem: t.server.caCert, token: 'wrong' }));
    const r = await t.kubectl(['--kubeconfig', cfg, 'get', 'namespaces']);
    expect(r.code).not.toBe(0);
    // As against kube-apiserver: discovery fails first, with client-go's wording for a 401.
    expect(r.stderr).toContain('error: You must be logged in to the server (the server has asked for the client to provide credentials)');
    const good = await writeTemp(t.dataDir, 'good.kubeconfig', renderKubeconfig({ server: t.server.url, caPem: t.server.caCert, token: 'secret-token-1' }));
    const g = await t.kubectl(['--kubeconfig', good, 'get', 'namespace', 'default', '-o', 'name']);
    expect(g.stdout.trim()).toBe('namespace/default');
  });

  it('answers HEAD on API paths with 405 as kube (go-restful has no HEAD routes), and HEAD on health checks', async () => {
    const r = await t.request('HEAD', '/api/v1/namespaces/default');
    expect(r.status).toBe(405);
    expect(r.text).toBe('');
    const h = await t.request('HEAD', '/healthz');
    expect(h.status).toBe(200);
    expect(h.text).toBe('');
  });
});

describe('dry run on every write', () => {
  it('PUT and PATCH with dryRun=All change nothing', async () => {
    await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'dr' }, data: { a: '1' } } });
    const put = await t.request('PUT', '/api/v1/namespaces/default/configmaps/dr?dryRun=All', { body: { metadata: { name: 'dr' }, data: { a: '2' } } });
    expect(put.status).toBe(200);
    expect(put.json.data.a).toBe('2');
    const patch = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/dr?dryRun=All', {
      body: { data: { a: '3' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patch.json.data.a).toBe('3');
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps/dr')).json.data.a).toBe('1');
  });
});

describe('kubectl --validate=strict', () => {
  it('rejects an unknown field through server-side field validation', async () => {
    const file = await writeTemp(t.dataDir, 'strict.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strict\n  namespace: default\ndata:\n  a: b\nbogus: 1\n');
    const r = await t.kubectl(['apply', '--validate=strict', '-f', file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "bogus"');
    const warn = await t.kubectl(['apply', '--validate=warn', '-f', file]);
    expect(warn.code).toBe(0);
    expect(warn.stderr).toContain('unknown field "bogus"');
  });
});
