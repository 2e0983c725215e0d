/**
 * SelfSubjectRulesReview and `kubectl auth can-i --list`, compared with what kube-apiserver
 * v1.32.4 answers for the same policy (the default policy plus one Role bound to the caller).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, writeTemp, type TestServer } from '../server/harness.ts';
import { renderKubeconfig } from '../../src/server/kubeconfig.ts';

let t: TestServer;
let dir: string;
const asU = { anonymous: true, headers: { authorization: 'Bearer token-u' } };
const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-ssrr-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, 'token-u,u1,uid-u\n');
  t = await startTestServer({ config: { tokenAuthFile: tokenFile } });
  const admin = async (method: string, path: string, body: unknown) => {
    const r = await t.request(method, path, { body });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.json)}`);
  };
  await admin('POST', '/api/v1/namespaces', { metadata: { name: 'rr' } });
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/rr/roles', {
    metadata: { name: 'lim' },
    rules: [{ verbs: ['create', 'get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'] }],
  });
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/rr/rolebindings', {
    metadata: { name: 'u1-lim' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'lim' },
    subjects: [{ kind: 'User', name: 'u1' }],
  });
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

async function review(namespace: string) {
  for (let i = 0; ; i++) {
    const r = await t.request('POST', SSRR, { ...asU, body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: { name: 'x' }, spec: { namespace } } });
    // The RBAC index follows the watch cache: wait for the namespace's binding to be seen.
    if (namespace !== 'rr' || JSON.stringify(r.json).includes('rolebindings') || i > 100) return r;
    await new Promise((res) => setTimeout(res, 20));
  }
}

describe('SelfSubjectRulesReview', () => {
  it('answers a fresh object with the caller\'s rules in the namespace, as kube does', async () => {
    const r = await review('rr');
    expect(r.status).toBe(201);
    expect(r.json).toEqual({
      kind: 'SelfSubjectRulesReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        resourceRules: expect.arrayContaining([
          { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
          { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
          { verbs: ['create', 'get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'] },
        ]),
        nonResourceRules: expect.arrayContaining([
          { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
          { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] },
        ]),
        incomplete: false,
      },
    });
    expect(r.json.status.resourceRules).toHaveLength(3);
    expect(r.json.status.nonResourceRules).toHaveLength(2);
  });

  it('leaves out another namespace\'s rules', async () => {
    const r = await review('elsewhere');
    expect(JSON.stringify(r.json.status.resourceRules)).not.toContain('rolebindings');
  });

  it('refuses a review without a namespace', async () => {
    const r = await t.request('POST', SSRR, { ...asU, body: { spec: {} } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ message: 'no namespace on request', reason: 'BadRequest', code: 400 });
  });

  it('reports a missing role as the evaluation error, still complete', async () => {
    const rb = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/rr/rolebindings', {
      body: { metadata: { name: 'ghost' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ghost' }, subjects: [{ kind: 'User', name: 'u1' }] },
    });
    expect(rb.status).toBe(201);
    let status;
    for (let i = 0; i < 100 && !status?.evaluationError; i++) {
      status = (await review('rr')).json.status;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(status).toMatchObject({ incomplete: false, evaluationError: 'role.rbac.authorization.k8s.io "ghost" not found' });
    expect((await t.request('DELETE', '/apis/rbac.authorization.k8s.io/v1/namespaces/rr/rolebindings/ghost')).status).toBe(200);
  });
});

describe('kubectl auth can-i --list', () => {
  it('prints what kube-apiserver prints for the same policy', async () => {
    await review('rr');
    const cfg = await writeTemp(t.dataDir, 'u.kubeconfig', renderKubeconfig({ server: t.server.url, caPem: t.server.caCert, token: 'token-u' }));
    let out = '';
    for (let i = 0; i < 100; i++) {
      const r = await t.kubectl(['--kubeconfig', cfg, 'auth', 'can-i', '--list', '-n', 'rr']);
      expect(r.code, r.stderr).toBe(0);
      out = r.stdout;
      if (!out.includes('ghost') && !r.stderr) break;
    }
    // Captured from kube-apiserver v1.32.4 with the same Role and binding.
    expect(out).toBe(
      [
        'Resources                                       Non-Resource URLs   Resource Names   Verbs',
        'rolebindings.rbac.authorization.k8s.io          []                  []               [create get]',
        'roles.rbac.authorization.k8s.io                 []                  []               [create get]',
        'selfsubjectreviews.authentication.k8s.io        []                  []               [create]',
        'selfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]',
        'selfsubjectrulesreviews.authorization.k8s.io    []                  []               [create]',
        '                                                [/api/*]            []               [get]',
        '                                                [/api]              []               [get]',
        '                                                [/apis/*]           []               [get]',
        '                                                [/apis]             []               [get]',
        '                                                [/healthz]          []               [get]',
        '                                                [/healthz]          []               [get]',
        '                                                [/livez]            []               [get]',
        '                                                [/livez]            []               [get]',
        '                                                [/openapi/*]        []               [get]',
        '                                                [/openapi]          []               [get]',
        '                                                [/readyz]           []               [get]',
        '                                                [/readyz]           []               [get]',
        '                                                [/version/]         []               [get]',
        '                                                [/version/]         []               [get]',
        '                                                [/version]          []               [get]',
        '                                                [/version]          []               [get]',
        '',
      ].join('\n'),
    );
  });

  it('answers can-i questions through SelfSubjectAccessReview', async () => {
    const cfg = await writeTemp(t.dataDir, 'u2.kubeconfig', renderKubeconfig({ server: t.server.url, caPem: t.server.caCert, token: 'token-u' }));
    const yes = await t.kubectl(['--kubeconfig', cfg, 'auth', 'can-i', 'create', 'roles.rbac.authorization.k8s.io', '-n', 'rr']);
    expect(yes.stdout.trim()).toBe('yes');
    const no = await t.kubectl(['--kubeconfig', cfg, 'auth', 'can-i', 'delete', 'roles.rbac.authorization.k8s.io', '-n', 'rr']);
    expect(no.stdout.trim()).toBe('no');
    expect(no.code).toBe(1);
  });
});
