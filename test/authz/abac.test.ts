/**
 * ABAC (`--authorization-policy-file`) as kube's abac authorizer: every field, `*` and path
 * prefixes, readonly, the v0 migration, rules reviews, bad lines; then a server in ABAC mode,
 * and the flag checks of the modes that need files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbacAuthorizer, parseAbacPolicies } from '../../src/authz/abac.ts';
import type { Attributes } from '../../src/authz/authorizer.ts';
import { parseFlags } from '../../src/server/config.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

const policy = (spec: object) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });
const FILE = [
  '# comments and blank lines are skipped',
  '',
  policy({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
  policy({ user: 'bob', namespace: 'projectCaribou', resource: 'pods', apiGroup: '', readonly: true }),
  policy({ group: 'system:authenticated', readonly: true, nonResourcePath: '*' }),
  policy({ group: 'system:unauthenticated', readonly: true, nonResourcePath: '/version' }),
  policy({ user: 'kubelet', namespace: '*', resource: 'events', apiGroup: '' }),
  policy({ user: 'ops', nonResourcePath: '/logs/*' }),
  policy({ user: '*', namespace: 'shared', resource: 'configmaps', apiGroup: '', readonly: true }),
  policy({ group: 'apps-team', namespace: '*', resource: 'deployments', apiGroup: 'apps' }),
  // v0: no apiVersion; user only means everything, everywhere (resources and paths).
  JSON.stringify({ user: 'legacy' }),
  JSON.stringify({ user: 'legacy-reader', readonly: true, resource: 'secrets', namespace: 'vault' }),
].join('\n');

const abac = new AbacAuthorizer(parseAbacPolicies(FILE, 'policy.jsonl'));

type Who = [string, string[]?];
function res(who: Who, verb: string, group: string, resource: string, namespace: string): Attributes {
  return { user: { username: who[0], groups: who[1] ?? ['system:authenticated'], extra: {} }, verb, isResourceRequest: true, path: '', apiGroup: group, apiVersion: 'v1', resource, subresource: '', namespace, name: '' };
}
function path(who: Who, verb: string, p: string): Attributes {
  return { user: { username: who[0], groups: who[1] ?? ['system:authenticated'], extra: {} }, verb, isResourceRequest: false, path: p, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}
const anon: Who = ['system:anonymous', ['system:unauthenticated']];

const cases: Array<[Attributes, boolean]> = [
  [res(['alice'], 'delete', 'apps', 'deployments', 'x'), true],
  [res(['alice'], 'create', '', 'namespaces', ''), true],
  [res(['bob'], 'get', '', 'pods', 'projectCaribou'), true],
  [res(['bob'], 'watch', '', 'pods', 'projectCaribou'), true],
  [res(['bob'], 'create', '', 'pods', 'projectCaribou'), false],
  [res(['bob'], 'get', '', 'pods', 'other'), false],
  [res(['bob'], 'get', 'apps', 'pods', 'projectCaribou'), false],
  [res(['bob'], 'get', '', 'services', 'projectCaribou'), false],
  [path(['bob'], 'get', '/api'), true],
  [path(['bob'], 'post', '/api'), false],
  [path(anon, 'get', '/version'), true],
  [path(anon, 'get', '/api'), false],
  [res(anon, 'get', '', 'pods', 'projectCaribou'), false],
  [res(['kubelet'], 'create', '', 'events', 'a'), true],
  [res(['kubelet'], 'create', 'events.k8s.io', 'events', 'a'), false],
  [path(['ops'], 'delete', '/logs/x/y'), true],
  [path(['ops'], 'get', '/logs'), true], // every authenticated user may read any path
  [path(['ops', ['g']], 'get', '/logs'), false],
  [path(['ops', ['g']], 'get', '/logs/'), true],
  [res(['zed'], 'list', '', 'configmaps', 'shared'), true],
  [res(['zed'], 'update', '', 'configmaps', 'shared'), false],
  [res(['zed', ['apps-team']], 'patch', 'apps', 'deployments', 'q'), true],
  [res(['zed', ['other']], 'patch', 'apps', 'deployments', 'q'), false],
  [res(['legacy', []], 'delete', 'batch', 'jobs', 'a'), true],
  [path(['legacy', []], 'delete', '/anything'), true],
  [res(['legacy-reader', []], 'get', 'x.io', 'secrets', 'vault'), true],
  [res(['legacy-reader', []], 'update', '', 'secrets', 'vault'), false],
  [res(['legacy-reader', []], 'get', '', 'secrets', 'other'), false],
];

describe('ABAC decisions', () => {
  it.each(cases.map((c, i) => [i, ...c] as const))('case %i', (_i, a, allowed) => {
    const d = abac.authorize(a);
    expect(d.decision).toBe(allowed ? 'allow' : 'noOpinion');
    if (!allowed) expect(d.reason).toBe('No policy matched.');
  });

  it('lists the rules of matching policies for a namespace', () => {
    expect(abac.rulesFor({ username: 'zed', groups: ['system:authenticated'], extra: {} }, 'shared').resourceRules).toEqual([{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] }]);
    const r = abac.rulesFor({ username: 'bob', groups: ['system:authenticated'], extra: {} }, 'projectCaribou');
    expect(r).toEqual({
      // The namespace must match: the `shared` configmaps and the namespace-less path policies do not.
      resourceRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }],
      nonResourceRules: [],
      incomplete: false,
    });
  });
});

describe('the example under config/', () => {
  it('parses, and grants what its comments say', async () => {
    const { readFile } = await import('node:fs/promises');
    const example = new AbacAuthorizer(parseAbacPolicies(await readFile(new URL('../../config/abac-policy.example.jsonl', import.meta.url), 'utf8'), 'example'));
    expect(example.authorize(res(['bob'], 'list', '', 'configmaps', 'demo')).decision).toBe('allow');
    expect(example.authorize(res(['bob'], 'create', '', 'configmaps', 'demo')).decision).toBe('noOpinion');
    expect(example.authorize(res(['alice'], 'delete', 'apps', 'deployments', 'x')).decision).toBe('allow');
    expect(example.authorize(path(['carol'], 'get', '/version')).decision).toBe('allow');
  });
});

describe('bad policy files', () => {
  it('names the file, line and problem', () => {
    expect(() => parseAbacPolicies('\n{"user": "a"\n', 'p.jsonl')).toThrow(/^error reading policy file p\.jsonl, line 2: \{"user": "a": couldn't decode the policy: /);
    expect(() => parseAbacPolicies(policy({ user: 7 }), 'p.jsonl')).toThrow('line 1: ' + policy({ user: 7 }) + ': user must be a string');
    expect(() => parseAbacPolicies('{"apiVersion":"abac.authorization.kubernetes.io/v2","kind":"Policy"}', 'p')).toThrow('no kind "Policy" is registered for version "abac.authorization.kubernetes.io/v2"');
    expect(() => parseAbacPolicies('[1]', 'p')).toThrow('a policy must be a JSON object');
  });
});

describe('flags', () => {
  it('ties the files to their modes with kube\'s words', () => {
    expect(() => parseFlags(['--authorization-mode=Webhook'])).toThrow("authorization-mode Webhook's authorization config file not passed");
    expect(() => parseFlags(['--authorization-policy-file=/x'])).toThrow('cannot specify --authorization-policy-file without mode ABAC');
    expect(() => parseFlags(['--authorization-webhook-config-file=/x'])).toThrow('cannot specify --authorization-webhook-config-file without mode Webhook');
    expect(() => parseFlags(['--authorization-config=/x', '--authorization-mode=RBAC'])).toThrow('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    expect(() => parseFlags(['--authorization-mode=Webhook', '--authorization-webhook-config-file=/x', '--authorization-webhook-version=v2'])).toThrow('unsupported webhook authorizer version "v2"');
    expect(parseFlags(['--authorization-mode=ABAC,RBAC', '--authorization-policy-file=/p'])).toMatchObject({ authorizationModes: ['ABAC', 'RBAC'], authorizationPolicyFile: '/p' });
    expect(parseFlags(['--authorization-config=/c'])).toMatchObject({ authorizationConfigFile: '/c' });
  });
});

describe('a server in ABAC mode', () => {
  let t: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kgw-abac-'));
    await writeFile(join(dir, 'policy.jsonl'), FILE);
    await writeFile(join(dir, 'tokens.csv'), 'tok-bob,bob,1\n');
    t = await startTestServer({ config: { tokenAuthFile: join(dir, 'tokens.csv'), authorizationModes: ['ABAC'], authorizationPolicyFile: join(dir, 'policy.jsonl') } });
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('allows what a policy allows and refuses the rest with the reason', async () => {
    const bob = { anonymous: true, headers: { authorization: 'Bearer tok-bob' } };
    expect((await t.request('GET', '/api/v1/namespaces/projectCaribou/pods', bob)).status).not.toBe(403);
    const r = await t.request('DELETE', '/api/v1/namespaces/projectCaribou/pods/p', bob);
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('pods "p" is forbidden: User "bob" cannot delete resource "pods" in API group "" in the namespace "projectCaribou": No policy matched.');
  });

  it('refuses to start with a bad policy file', async () => {
    await writeFile(join(dir, 'bad.jsonl'), '{"user":\n');
    await expect(startTestServer({ config: { authorizationModes: ['ABAC'], authorizationPolicyFile: join(dir, 'bad.jsonl') } })).rejects.toThrow(/error reading policy file .*bad\.jsonl, line 1/);
  });
});
