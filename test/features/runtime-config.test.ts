/**
 * --runtime-config: kube-apiserver v1.32.4's messages for bad keys and values (read off the
 * reference binary), the alpha/beta defaults, and disabled versions and resources gone from
 * routing and discovery.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiEnablement, parseRuntimeConfig, RuntimeConfigError, type RegisteredResource } from '../../src/features/runtime-config.ts';
import { FlagError, parseFlags } from '../../src/server/config.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

const registered: RegisteredResource[] = [
  { group: '', version: 'v1', resource: 'configmaps' },
  { group: '', version: 'v1', resource: 'secrets' },
  { group: 'apps', version: 'v1', resource: 'deployments' },
  { group: 'apps', version: 'v1beta1', resource: 'deployments' },
  { group: 'apps', version: 'v1beta1', resource: 'statefulsets' },
  { group: 'batch', version: 'v1beta1', resource: 'cronjobs', enabledByDefault: true },
  { group: 'storage.k8s.io', version: 'v1alpha1', resource: 'volumeattributesclasses' },
];
const resolve = (...flags: string[]) => ApiEnablement.resolve(parseRuntimeConfig(flags), registered);
const refusal = (...flags: string[]) => {
  try {
    resolve(...flags);
  } catch (err) {
    expect(err).toBeInstanceOf(RuntimeConfigError);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('--runtime-config resolution', () => {
  it('serves stable versions, and alpha and beta only when on by default', () => {
    const e = resolve();
    expect(e.resourceEnabled('', 'v1', 'secrets')).toBe(true);
    expect(e.resourceEnabled('apps', 'v1beta1', 'deployments')).toBe(false);
    expect(e.resourceEnabled('batch', 'v1beta1', 'cronjobs')).toBe(true);
    expect(e.resourceEnabled('storage.k8s.io', 'v1alpha1', 'volumeattributesclasses')).toBe(false);
    // Custom resources are not subject to it.
    expect(e.resourceEnabled('example.com', 'v1alpha1', 'widgets')).toBe(true);
  });

  it('switches versions, single resources, and matchers in kube order', () => {
    let e = resolve('apps/v1beta1=true,api/v1/secrets=false');
    expect(e.resourceEnabled('apps', 'v1beta1', 'statefulsets')).toBe(true);
    expect(e.resourceEnabled('', 'v1', 'secrets')).toBe(false);
    expect(e.resourceEnabled('', 'v1', 'configmaps')).toBe(true);
    // A bare key is true; one resource of an off version serves that resource only.
    e = resolve('apps/v1beta1/statefulsets');
    expect(e.resourceEnabled('apps', 'v1beta1', 'statefulsets')).toBe(true);
    expect(e.resourceEnabled('apps', 'v1beta1', 'deployments')).toBe(false);
    expect(e.versionEnabled('apps', 'v1beta1')).toBe(true);
    e = resolve('api/all=false', 'v1=true');
    expect(e.resourceEnabled('apps', 'v1', 'deployments')).toBe(false);
    expect(e.resourceEnabled('', 'v1', 'configmaps')).toBe(true);
    e = resolve('api/alpha=true,api/beta=true,apps/v1beta1/deployments=false');
    expect(e.resourceEnabled('storage.k8s.io', 'v1alpha1', 'volumeattributesclasses')).toBe(true);
    expect(e.resourceEnabled('apps', 'v1beta1', 'statefulsets')).toBe(true);
    expect(e.resourceEnabled('apps', 'v1beta1', 'deployments')).toBe(false);
    // Kube groups this server does not register are accepted and change nothing.
    expect(resolve('networking.k8s.io/v1=false').resourceEnabled('', 'v1', 'configmaps')).toBe(true);
  });

  it("refuses with kube-apiserver's messages", () => {
    expect(refusal('apps/v9=false')).toBe('group version apps/v9 that has not been registered');
    expect(refusal('apps/v1/Deployments=false')).toBe('invalid key apps/v1/Deployments: group/version/resource and resource is always lowercase plural, not "Deployments"');
    expect(refusal('api/all=maybe')).toBe('invalid value api/all=maybe');
    expect(refusal('api/all')).toBe('invalid value api/all=');
    expect(refusal('apps/v1=maybe')).toBe('invalid value of apps/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
    expect(refusal('foo.example.com/v1=false')).toBe('unknown api groups foo.example.com');
    expect(refusal('apps=false')).toBe('runtime-config invalid key apps');
    expect(refusal('a/b/c/d=false')).toBe('runtime-config invalid key a/b/c/d');
    expect(() => parseFlags(['--runtime-config=foo.example.com/v1=false'])).toThrow(FlagError);
  });
});

describe('a server with APIs turned off', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: { runtimeConfig: parseRuntimeConfig(['rbac.authorization.k8s.io/v1=false,api/v1/secrets=false', 'authentication.k8s.io/v1/tokenreviews=false']) } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('neither routes nor lists them', async () => {
    expect((await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles')).status).toBe(404);
    expect((await t.request('GET', '/apis/rbac.authorization.k8s.io/v1')).status).toBe(404);
    expect((await t.request('GET', '/api/v1/namespaces/default/secrets')).status).toBe(404);
    expect((await t.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'x' } } })).status).toBe(404);
    // What stays on is served.
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    expect((await t.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } })).status).toBe(201);

    const groups = (await t.request('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
    expect(groups).not.toContain('rbac.authorization.k8s.io');
    expect(groups).toContain('coordination.k8s.io');
    const core = (await t.request('GET', '/api/v1')).json.resources.map((r: { name: string }) => r.name);
    expect(core).not.toContain('secrets');
    expect(core).toContain('configmaps');
    const authn = (await t.request('GET', '/apis/authentication.k8s.io/v1')).json.resources.map((r: { name: string }) => r.name);
    expect(authn).toEqual(['selfsubjectreviews']);
    const kubectl = await t.kubectl(['api-resources', '-o', 'name']);
    expect(kubectl.code).toBe(0);
    expect(kubectl.stdout.split('\n')).not.toContain('secrets');
    expect(kubectl.stdout.split('\n')).not.toContain('clusterroles.rbac.authorization.k8s.io');
    expect(kubectl.stdout.split('\n')).toContain('configmaps');
  });
});
