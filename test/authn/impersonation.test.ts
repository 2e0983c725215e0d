/**
 * Impersonation at the front door, under RBAC, answered as kube-apiserver v1.32.4 answers (the
 * texts below were taken from the reference server): each target authorized with `impersonate`,
 * kube's 403 on the first denial, 500 for targets without a user, groups filled as kube fills
 * them; and kubectl --as / --as-group end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { startTestServer, type TestServer } from '../server/harness.ts';

let t: TestServer;
let dir: string;
let agent: https.Agent;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-imp-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, 'token-imp,imp,uid-imp\ntoken-plain,plain,uid-plain\n');
  t = await startTestServer({ config: { tokenAuthFile: tokenFile } });
  agent = new https.Agent({ ca: t.server.caCert, keepAlive: true });
  // `imp` may impersonate users, groups, service accounts, uids and the extra key `scopes` only.
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'impersonator' },
    rules: [
      { apiGroups: [''], resources: ['users', 'groups', 'serviceaccounts'], verbs: ['impersonate'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['uids', 'userextras/scopes'], verbs: ['impersonate'] },
    ],
  };
  expect((await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: role })).status).toBe(201);
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'impersonator' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonator' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'imp' }],
  };
  expect((await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: binding })).status).toBe(201);
  // `bob` may review himself even without system:authenticated (as on the reference where the texts were taken).
  const basic = { ...binding, metadata: { name: 'bob-basic' }, roleRef: { ...binding.roleRef, name: 'system:basic-user' }, subjects: [{ ...binding.subjects[0], name: 'bob' }] };
  expect((await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: basic })).status).toBe(201);
  // The RBAC index follows the watch cache: wait until the binding is seen.
  for (let i = 0; i < 200; i++) {
    if ((await whoami('token-imp', { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:unauthenticated' })).status === 201) break;
    await new Promise((r) => setTimeout(r, 20));
  }
});
afterAll(async () => {
  agent?.destroy();
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Sends repeated headers as separate lines (an array value), as kubectl does for --as-group. */
function send(method: string, path: string, token: string, headers: Record<string, string | string[]>, body?: unknown) {
  return new Promise<{ status: number; text: string; json: any; contentType: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = https.request(
      `${t.server.url}${path}`,
      { method, agent, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json, contentType: String(res.headers['content-type']) });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const whoami = (token: string, headers: Record<string, string | string[]>) =>
  send('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', token, headers, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });

describe('impersonation allowed', () => {
  it('replaces the user with user, uid, groups and extra (keys percent-decoded)', async () => {
    const r = await whoami('token-imp', { 'Impersonate-User': 'bob', 'Impersonate-Uid': 'u1', 'Impersonate-Group': ['g1', 'g2'], 'Impersonate-Extra-Sc%6Fpes': ['a', 'b'] });
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo).toEqual({ username: 'bob', uid: 'u1', groups: ['g1', 'g2', 'system:authenticated'], extra: { scopes: ['a', 'b'] } });
  });

  it('a service-account username gets its groups unless groups are given', async () => {
    const r = await whoami('token-imp', { 'Impersonate-User': 'system:serviceaccount:ns1:builder' });
    expect(r.json.status.userInfo).toEqual({ username: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] });
    const g = await whoami('token-imp', { 'Impersonate-User': 'system:serviceaccount:ns1:builder', 'Impersonate-Group': 'g' });
    expect(g.json.status.userInfo.groups).toEqual(['g', 'system:authenticated']);
  });

  it('system:unauthenticated given keeps system:authenticated out', async () => {
    const r = await whoami('token-imp', { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:unauthenticated' });
    expect(r.json.status.userInfo).toEqual({ username: 'bob', groups: ['system:unauthenticated'] });
  });

  it('the request is then authorized as the target (kube 403 naming the target)', async () => {
    const r = await send('GET', '/api/v1/namespaces/default/configmaps', 'token-imp', { 'Impersonate-User': 'bob' });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"');
    // Anonymous is not authenticated, so system:basic-user does not cover it.
    const a = await whoami('token-imp', { 'Impersonate-User': 'system:anonymous' });
    expect(a.status).toBe(403);
    expect(a.json.message).toBe('selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope');
  });
});

describe('impersonation denied', () => {
  it('users: 403 with the target named', async () => {
    const r = await whoami('token-plain', { 'Impersonate-User': 'bob' });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'users "bob" is forbidden: User "plain" cannot impersonate resource "users" in API group "" at the cluster scope',
      reason: 'Forbidden',
      details: { name: 'bob', kind: 'users' },
      code: 403,
    });
  });

  it('serviceaccounts: in the namespace of the username', async () => {
    const r = await whoami('token-plain', { 'Impersonate-User': 'system:serviceaccount:ns1:x' });
    expect(r.json.message).toBe('serviceaccounts "x" is forbidden: User "plain" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"');
    expect(r.json.details).toEqual({ name: 'x', kind: 'serviceaccounts' });
  });

  it('userextras/<key> not granted', async () => {
    const r = await whoami('token-imp', { 'Impersonate-User': 'bob', 'Impersonate-Extra-Other': 'a' });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('userextras.authentication.k8s.io "a" is forbidden: User "imp" cannot impersonate resource "userextras/other" in API group "authentication.k8s.io" at the cluster scope');
    expect(r.json.details).toEqual({ name: 'a', group: 'authentication.k8s.io', kind: 'userextras' });
  });
});

describe('targets without a user: 500 plain text, as kube-apiserver v1.32', () => {
  const path = '/api/v1/namespaces/default/pods?limit=1';
  it.each([
    [{ 'Impersonate-Group': ['g1', 'g2'] }, 'requested [{Group  g1    } {Group  g2    }] without impersonating a user'],
    [{ 'Impersonate-Uid': 'u1' }, 'requested [{UID  u1  authentication.k8s.io/v1  }] without impersonating a user'],
    [{ 'Impersonate-Extra-Scopes': ['a', 'b'] }, 'requested [{UserExtra  a  authentication.k8s.io/v1  scopes} {UserExtra  b  authentication.k8s.io/v1  scopes}] without impersonating a user'],
  ])('%j', async (headers, message) => {
    const r = await send('GET', path, 'token-imp', headers);
    expect(r.status).toBe(500);
    expect(r.contentType).toBe('text/plain; charset=utf-8');
    expect(r.text).toBe(`Internal Server Error: "${path}": ${message}\n`);
  });
});

describe('kubectl', () => {
  it('--as and --as-group as the admin', async () => {
    const r = await t.kubectl(['auth', 'whoami', '-o', 'json', '--as', 'alice', '--as-group', 'team-a', '--as-group', 'team-b', '--as-uid', 'u-9']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status.userInfo).toEqual({ username: 'alice', uid: 'u-9', groups: ['team-a', 'team-b', 'system:authenticated'] });
  });

  it('--as a user who may not list prints kube\'s Forbidden', async () => {
    const r = await t.kubectl(['get', 'configmaps', '-n', 'default', '--as', 'alice']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"');
  });
});
