/**
 * Access reviews (authorization.k8s.io/v1) answered by the chain, and `kubectl auth can-i`, checked
 * against answers kube-apiserver v1.32.4 gives for the same requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, writeTemp, type TestServer } from '../server/harness.ts';
import { renderKubeconfig } from '../../src/server/kubeconfig.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/codec/protobuf/index.ts';
import { rawRequest } from '../codec/protobuf/raw-request.ts';

const az = '/apis/authorization.k8s.io/v1';
let t: TestServer;
let dir: string;
const asU = { anonymous: true, headers: { authorization: 'Bearer token-u' } };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-sar-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, 'token-u,u,uid-u,"devs"\n');
  t = await startTestServer({ config: { tokenAuthFile: tokenFile } });
  const rb = { metadata: { name: 'u-cm', namespace: 'default' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'u' }] };
  expect((await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { body: rb })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('SelfSubjectAccessReview', () => {
  it('answers for the caller, with the reason RBAC gives', async () => {
    const r = await t.request('POST', `${az}/selfsubjectaccessreviews`, { ...asU, body: { spec: { nonResourceAttributes: { verb: 'get', path: '/api' } } } });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { nonResourceAttributes: { verb: 'get', path: '/api' } },
      status: { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"' },
    });
    const no = await t.request('POST', `${az}/selfsubjectaccessreviews`, { ...asU, body: { spec: { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'n' } } } });
    expect(no.json.status).toEqual({ allowed: false });
  });

  it('refuses a spec with neither or both attribute kinds as kube does', async () => {
    const r = await t.request('POST', `${az}/selfsubjectaccessreviews`, { ...asU, body: { spec: {} } });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified');
    const both = await t.request('POST', `${az}/selfsubjectaccessreviews`, { ...asU, body: { spec: { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get' } } } });
    expect(both.status).toBe(422);
    // Authorization comes first: only an allowed caller learns that GET is not served.
    expect((await t.request('GET', `${az}/selfsubjectaccessreviews`, asU)).status).toBe(403);
    const get = await t.request('GET', `${az}/selfsubjectaccessreviews`);
    expect(get.json).toMatchObject({ code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource', details: {} });
    expect((await t.request('POST', `${az}/selfsubjectaccessreviews`, { ...asU, body: 'not json' })).status).toBe(400);
  });
});

describe('answers in the negotiated format', () => {
  const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { path: '/', verb: 'get' } } };
  it('a Table is not acceptable (kube e2e: a backend which does not implement metadata)', async () => {
    const r = await t.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { body: review, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(r.status).toBe(406);
    expect(r.json.message).toBe('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });

  it('protobuf and YAML when asked', async () => {
    const pb = await rawRequest(t, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', encodeProtobufObject(review), 'application/vnd.kubernetes.protobuf');
    expect(pb.status).toBe(201);
    expect(pb.type).toBe('application/vnd.kubernetes.protobuf');
    const answer = decodeProtobufObject(pb.body).object as { kind: string; status: { allowed: boolean } };
    expect(answer.kind).toBe('SelfSubjectAccessReview');
    expect(answer.status.allowed).toBe(true);
    const yaml = await t.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { body: review, headers: { accept: 'application/yaml' } });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.text).toMatch(/^apiVersion: authorization.k8s.io\/v1\n/);
  });
});

describe('SubjectAccessReview and LocalSubjectAccessReview', () => {
  it('answers for the user in the spec; needs a user or a group', async () => {
    const r = await t.request('POST', `${az}/subjectaccessreviews`, { body: { spec: { user: 'u', resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'default' } } } });
    expect(r.status).toBe(201);
    expect(r.json.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "u-cm/default" of ClusterRole "view" to User "u"' });
    const other = await t.request('POST', `${az}/subjectaccessreviews`, { body: { spec: { user: 'u', resourceAttributes: { verb: 'get', resource: 'configmaps' } } } });
    expect(other.json.status).toEqual({ allowed: false });
    const masters = await t.request('POST', `${az}/subjectaccessreviews`, { body: { spec: { user: 'x', groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes' } } } });
    expect(masters.json.status).toEqual({ allowed: true });
    const none = await t.request('POST', `${az}/subjectaccessreviews`, { body: { spec: { resourceAttributes: { verb: 'get', resource: 'configmaps' } } } });
    expect(none.status).toBe(422);
    expect(none.json.message).toBe('.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified');
  });

  it('is itself authorized: a user without the right is refused', async () => {
    const r = await t.request('POST', `${az}/subjectaccessreviews`, { ...asU, body: { spec: { user: 'x', resourceAttributes: { verb: 'get' } } } });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('subjectaccessreviews.authorization.k8s.io is forbidden: User "u" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope');
  });

  it('a local review is bound to the namespace of its path', async () => {
    const ok = await t.request('POST', `${az}/namespaces/default/localsubjectaccessreviews`, { body: { spec: { user: 'u', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } } } });
    expect(ok.status).toBe(201);
    expect(ok.json.status.allowed).toBe(true);
    const other = await t.request('POST', `${az}/namespaces/default/localsubjectaccessreviews`, { body: { spec: { user: 'u', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'x' } } } });
    expect(other.status).toBe(422);
    expect((await t.request('POST', `${az}/localsubjectaccessreviews`, { body: {} })).status).toBe(404);
  });
});

describe('kubectl auth can-i', () => {
  it('answers yes and no, with exit codes, as the caller and with --as', async () => {
    const cfg = await writeTemp(t.dataDir, 'u.kubeconfig', renderKubeconfig({ server: t.server.url, caPem: t.server.caCert, token: 'token-u' }));
    const yes = await t.kubectl(['--kubeconfig', cfg, 'auth', 'can-i', 'list', 'configmaps', '-n', 'default']);
    expect([yes.code, yes.stdout.trim(), yes.stderr]).toEqual([0, 'yes', '']);
    const no = await t.kubectl(['--kubeconfig', cfg, 'auth', 'can-i', 'delete', 'configmaps', '-n', 'default']);
    expect([no.code, no.stdout.trim()]).toEqual([1, 'no']);
    const path = await t.kubectl(['--kubeconfig', cfg, 'auth', 'can-i', 'get', '/version']);
    expect([path.code, path.stdout.trim()]).toEqual([0, 'yes']);
    const admin = await t.kubectl(['auth', 'can-i', 'delete', 'configmaps', '-A']);
    expect([admin.code, admin.stdout.trim()]).toEqual([0, 'yes']);
  });
});

describe('discovery', () => {
  it('lists the access reviews as kube-apiserver v1.32.4 does, create-only', async () => {
    const r = await t.request('GET', az);
    expect(r.json).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'authorization.k8s.io/v1',
      resources: [
        { name: 'localsubjectaccessreviews', singularName: 'localsubjectaccessreview', namespaced: true, kind: 'LocalSubjectAccessReview', verbs: ['create'] },
        { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
        { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
        { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
      ],
    });
    const groups = await t.request('GET', '/apis');
    expect(groups.json.groups.map((g: { name: string }) => g.name)).toContain('authorization.k8s.io');
    const res = await t.kubectl(['api-resources', '--api-group=authorization.k8s.io', '-o', 'name']);
    expect(res.stdout.trim().split('\n').sort()).toEqual([
      'localsubjectaccessreviews.authorization.k8s.io',
      'selfsubjectaccessreviews.authorization.k8s.io',
      'selfsubjectrulesreviews.authorization.k8s.io',
      'subjectaccessreviews.authorization.k8s.io',
    ]);
  });
});
