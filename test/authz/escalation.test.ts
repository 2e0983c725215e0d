/**
 * RBAC privilege escalation prevention over HTTP, with the messages kube-apiserver v1.32.4 gives
 * (taken from the reference): roles need the permissions they grant or `escalate`, bindings the
 * permissions of their role or `bind`, aggregationRule needs everything; owner-only changes pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { missingRules } from '../../src/authz/rbac/escalation.ts';

let t: TestServer;
let dir: string;
const as = (token: string) => ({ anonymous: true, headers: { authorization: `Bearer ${token}` } });
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const NS = `${RBAC}/namespaces/esc`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-esc-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, 'token-u1,u1,uid-1,"g1"\ntoken-u2,u2,uid-2\ntoken-u3,u3,uid-3\n');
  t = await startTestServer({ config: { tokenAuthFile: tokenFile } });
  const admin = async (method: string, path: string, body: unknown) => {
    const r = await t.request(method, path, { body });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.json)}`);
  };
  await admin('POST', '/api/v1/namespaces', { metadata: { name: 'esc' } });
  const rule = (verbs: string[], apiGroups: string[], resources: string[], extra: object = {}) => ({ verbs, apiGroups, resources, ...extra });
  // u1: may write roles and bindings in esc, and read pods there.
  await admin('POST', `${NS}/roles`, {
    metadata: { name: 'lim' },
    rules: [rule(['create', 'get', 'update'], ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']), rule(['get', 'list'], [''], ['pods'])],
  });
  await admin('POST', `${NS}/rolebindings`, { metadata: { name: 'u1-lim' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'lim' }, subjects: [{ kind: 'User', name: 'u1' }] });
  // u2: may write cluster roles and bindings.
  await admin('POST', `${RBAC}/clusterroles`, { metadata: { name: 'lim2' }, rules: [rule(['create', 'update', 'get'], ['rbac.authorization.k8s.io'], ['clusterroles', 'clusterrolebindings'])] });
  await admin('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'u2-lim2' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'lim2' }, subjects: [{ kind: 'User', name: 'u2' }] });
  // u3: like u1, plus bind on the secret-reader ClusterRole and escalate on roles in esc.
  await admin('POST', `${RBAC}/clusterroles`, { metadata: { name: 'secret-reader' }, rules: [rule(['get'], [''], ['secrets'])] });
  await admin('POST', `${NS}/roles`, {
    metadata: { name: 'delegate' },
    rules: [
      rule(['create', 'get', 'update'], ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']),
      rule(['bind'], ['rbac.authorization.k8s.io'], ['clusterroles'], { resourceNames: ['secret-reader'] }),
      rule(['escalate'], ['rbac.authorization.k8s.io'], ['roles']),
    ],
  });
  await admin('POST', `${NS}/rolebindings`, { metadata: { name: 'u3-delegate' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'delegate' }, subjects: [{ kind: 'User', name: 'u3' }] });
  // The index follows the watch cache: wait until u3's binding is visible.
  for (let i = 0; i < 100; i++) {
    const r = await t.request('GET', `${NS}/roles/lim`, as('token-u3'));
    if (r.status === 200) break;
    await new Promise((res) => setTimeout(res, 20));
  }
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const role = (name: string, rules: object[]) => ({ metadata: { name }, rules });
const binding = (name: string, kind: string, roleName: string) => ({
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
  subjects: [{ kind: 'User', name: 'someone' }],
});

describe('roles', () => {
  it('refuses a role granting what the caller lacks, listing the missing rules compactly and sorted', async () => {
    const r = await t.request('POST', `${NS}/roles`, { ...as('token-u1'), body: role('r1', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'configmaps'], resourceNames: ['a'] }]) });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'roles.rbac.authorization.k8s.io "r1" is forbidden: user "u1" (groups=["g1" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get" "list"]}',
      reason: 'Forbidden',
      details: { name: 'r1', group: 'rbac.authorization.k8s.io', kind: 'roles' },
      code: 403,
    });
  });

  it('allows a role within what the caller holds (named pods are covered by unnamed pods)', async () => {
    const r = await t.request('POST', `${NS}/roles`, { ...as('token-u1'), body: role('ok', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }]) });
    expect(r.status).toBe(201);
  });

  it('checks updates too', async () => {
    const cur = await t.request('GET', `${NS}/roles/ok`, as('token-u1'));
    const body = { ...cur.json, rules: [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }] };
    const r = await t.request('PUT', `${NS}/roles/ok`, { ...as('token-u1'), body });
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}');
  });

  it('lets an update that only changes owner references and finalizers through', async () => {
    const cur = await t.request('GET', `${NS}/roles/lim`, as('token-u3'));
    // u3 holds nothing of lim's pods rule, but a finalizer is not a grant.
    const body = { ...cur.json, metadata: { ...cur.json.metadata, finalizers: ['example.com/keep'] } };
    const r = await t.request('PUT', `${NS}/roles/lim`, { ...as('token-u1'), body });
    expect(r.status).toBe(200);
  });

  it('allows any role to a caller with escalate', async () => {
    const r = await t.request('POST', `${NS}/roles`, { ...as('token-u3'), body: role('big', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]) });
    expect(r.status).toBe(201);
  });

  it('words cluster roles, several resources and verbs, and non-resource URLs as kube does', async () => {
    const c3 = await t.request('POST', `${RBAC}/clusterroles`, {
      ...as('token-u2'),
      body: role('c3', [{ verbs: ['get', 'create'], apiGroups: [''], resources: ['secrets', 'pods/log'] }, { verbs: ['get', 'create'], apiGroups: ['apps'], resources: ['deployments'] }]),
    });
    expect(c3.status).toBe(403);
    expect(c3.json.message).toBe(
      'clusterroles.rbac.authorization.k8s.io "c3" is forbidden: user "u2" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods/log"], Verbs:["get" "create"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "create"]}\n{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "create"]}',
    );
    const c4 = await t.request('POST', `${RBAC}/clusterroles`, { ...as('token-u2'), body: role('c4', [{ verbs: ['get'], nonResourceURLs: ['/x', '/y/*'] }]) });
    expect(c4.json.message).toBe(
      'clusterroles.rbac.authorization.k8s.io "c4" is forbidden: user "u2" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{NonResourceURLs:["/x"], Verbs:["get"]}\n{NonResourceURLs:["/y/*"], Verbs:["get"]}',
    );
  });

  it('requires every permission for an aggregationRule', async () => {
    const r = await t.request('POST', `${RBAC}/clusterroles`, { ...as('token-u2'), body: { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } } });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    // Removing one from an existing aggregated role is checked too (the old object has it).
    const made = await t.request('POST', `${RBAC}/clusterroles`, { body: { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } } });
    expect(made.status).toBe(201);
    const { aggregationRule: _a, ...plain } = made.json;
    const put = await t.request('PUT', `${RBAC}/clusterroles/agg`, { ...as('token-u2'), body: plain });
    expect(put.status).toBe(403);
    expect(put.json.message).toContain('must have cluster-admin privileges to use the aggregationRule');
  });

  it('reports bindings whose role is missing as resolution errors', async () => {
    const admin = await t.request('POST', `${NS}/rolebindings`, { body: { ...binding('ghost', 'Role', 'ghost'), subjects: [{ kind: 'User', name: 'u1' }] } });
    expect(admin.status).toBe(201);
    let r;
    for (let i = 0; i < 100; i++) {
      r = await t.request('POST', `${NS}/roles`, { ...as('token-u1'), body: role('r9', [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]) });
      if (r.json.message?.includes('resolution errors')) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(r!.json.message).toBe(
      'roles.rbac.authorization.k8s.io "r9" is forbidden: user "u1" (groups=["g1" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}; resolution errors: [roles.rbac.authorization.k8s.io "ghost" not found]',
    );
    expect((await t.request('DELETE', `${NS}/rolebindings/ghost`)).status).toBe(200);
  });
});

describe('bindings', () => {
  it('refuses binding a role whose permissions the caller lacks', async () => {
    let r;
    for (let i = 0; i < 100; i++) {
      r = await t.request('POST', `${NS}/rolebindings`, { ...as('token-u1'), body: binding('b1', 'ClusterRole', 'secret-reader') });
      if (!r.json.message?.includes('resolution errors')) break; // the index has seen the ghost binding go
      await new Promise((res) => setTimeout(res, 20));
    }
    r = r!;
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      'rolebindings.rbac.authorization.k8s.io "b1" is forbidden: user "u1" (groups=["g1" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}',
    );
  });

  it('allows binding a role the caller holds all of', async () => {
    const r = await t.request('POST', `${NS}/rolebindings`, { ...as('token-u1'), body: binding('b2', 'Role', 'ok') });
    expect(r.status).toBe(201);
  });

  it('allows binding with the bind verb, for the named role only', async () => {
    expect((await t.request('POST', `${NS}/rolebindings`, { ...as('token-u3'), body: binding('b3', 'ClusterRole', 'secret-reader') })).status).toBe(201);
    const other = await t.request('POST', `${NS}/rolebindings`, { ...as('token-u3'), body: binding('b4', 'ClusterRole', 'lim2') });
    expect(other.status).toBe(403);
    expect(other.json.message).toContain('is attempting to grant RBAC permissions not currently held');
  });

  it('answers a missing role as a NotFound of the binding resource under the role name', async () => {
    const rb = await t.request('POST', `${NS}/rolebindings`, { ...as('token-u1'), body: binding('b5', 'ClusterRole', 'nope') });
    expect(rb.status).toBe(404);
    expect(rb.json).toMatchObject({ message: 'rolebindings.rbac.authorization.k8s.io "nope" not found', reason: 'NotFound', details: { name: 'nope', group: 'rbac.authorization.k8s.io', kind: 'rolebindings' } });
    const crb = await t.request('POST', `${RBAC}/clusterrolebindings`, { ...as('token-u2'), body: binding('x', 'ClusterRole', 'nope') });
    expect(crb.status).toBe(404);
    expect(crb.json.message).toBe('clusterrolebindings.rbac.authorization.k8s.io "nope" not found');
  });

  it('answers a role reference without a name as kube\'s role lookup does, before validation', async () => {
    const r = await t.request('POST', `${NS}/rolebindings`, { ...as('token-u1'), body: binding('b6', 'Role', '') });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ message: 'Name parameter required.', reason: 'BadRequest' });
  });

  it('exempts system:masters', async () => {
    const r = await t.request('POST', `${RBAC}/clusterrolebindings`, { body: binding('admin-made', 'ClusterRole', 'nope') });
    expect(r.status).toBe(201);
  });
});

describe('coverage (kube Covers)', () => {
  it('breaks rules down and honours wildcards, */subresource and URL prefixes', () => {
    const owner = [
      { verbs: ['*'], apiGroups: ['apps'], resources: ['*'] },
      { verbs: ['get'], apiGroups: [''], resources: ['*/status', 'pods'] },
      { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
    ];
    expect(missingRules(owner, [{ verbs: ['delete', 'create'], apiGroups: ['apps'], resources: ['deployments', 'x/y'] }])).toEqual([]);
    expect(missingRules(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['nodes/status', 'pods'] }])).toEqual([]);
    expect(missingRules(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }])).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }]);
    expect(missingRules(owner, [{ verbs: ['get'], nonResourceURLs: ['/logs/a', '/logs'] }])).toEqual([{ verbs: ['get'], nonResourceURLs: ['/logs'] }]);
    // A named owner rule does not cover an unnamed one.
    expect(missingRules([{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])).toHaveLength(1);
  });
});
