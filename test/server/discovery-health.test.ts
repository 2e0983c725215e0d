import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('discovery', () => {
  it('serves /api, /apis and group-version resource lists', async () => {
    expect((await t.request('GET', '/api')).json).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const apis = (await t.request('GET', '/apis')).json;
    expect(apis.kind).toBe('APIGroupList');
    const names = apis.groups.map((g: any) => g.name);
    expect(names).toEqual(expect.arrayContaining(['coordination.k8s.io', 'rbac.authorization.k8s.io', 'events.k8s.io']));
    const v1 = (await t.request('GET', '/api/v1')).json;
    const cmRes = v1.resources.find((r: any) => r.name === 'configmaps');
    expect(cmRes).toMatchObject({ singularName: 'configmap', namespaced: true, kind: 'ConfigMap', shortNames: ['cm'] });
    expect(cmRes.verbs).toEqual(expect.arrayContaining(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']));
    expect(v1.resources.find((r: any) => r.name === 'namespaces/status')).toBeTruthy();
    const rbac = (await t.request('GET', '/apis/rbac.authorization.k8s.io/v1')).json;
    expect(rbac.resources.map((r: any) => r.name)).toEqual(expect.arrayContaining(['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings']));
  });

  it('lists every served path at the root, sorted, as kube\'s index', async () => {
    const { paths } = (await t.request('GET', '/')).json as { paths: string[] };
    expect(paths).toEqual([...paths].sort());
    expect(paths.slice(0, 5)).toEqual(['/.well-known/openid-configuration', '/api', '/api/v1', '/apis', '/apis/']);
    expect(paths).toEqual(
      expect.arrayContaining(['/apis/rbac.authorization.k8s.io', '/apis/rbac.authorization.k8s.io/v1', '/healthz/ping', '/livez/etcd', '/readyz/shutdown', '/metrics', '/metrics/slis', '/openapi/v3', '/openapi/v3/', '/openid/v1/jwks', '/version']),
    );
    // kube lists `/openapi/v3/` (its handler's prefix registration), which answers 404 itself.
    for (const p of paths) expect([p, (await t.request('GET', p)).status]).toEqual([p, p === '/openapi/v3/' ? 404 : 200]);
  });

  it('serves aggregated discovery by Accept', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const r = await t.request('GET', '/apis', { headers: { accept } });
    expect(r.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(r.json.kind).toBe('APIGroupDiscoveryList');
    const lease = r.json.items.find((i: any) => i.metadata.name === 'coordination.k8s.io');
    expect(lease.versions[0].resources[0]).toMatchObject({ resource: 'leases', scope: 'Namespaced', responseKind: { kind: 'Lease' } });
    const core = await t.request('GET', '/api', { headers: { accept } });
    const ns = core.json.items[0].versions[0].resources.find((x: any) => x.resource === 'namespaces');
    expect(ns.subresources.map((x: any) => x.subresource)).toEqual(['finalize', 'status']);
  });

  it('serves /version and the OpenAPI documents', async () => {
    expect((await t.request('GET', '/version')).json).toMatchObject({ major: '1', minor: '32' });
    const v2 = await t.request('GET', '/openapi/v2');
    expect(v2.json.swagger).toBe('2.0');
    expect(v2.json.definitions['io.k8s.api.core.v1.ConfigMap']).toBeTruthy();
    const idx = (await t.request('GET', '/openapi/v3')).json;
    const url = idx.paths['api/v1'].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
    const doc = await t.request('GET', url);
    expect(doc.json.components.schemas['io.k8s.api.core.v1.ConfigMap']).toBeTruthy();
  });
});

describe('health', () => {
  it('answers ok, verbose lists, excludes and single checks', async () => {
    for (const p of ['/livez', '/readyz', '/healthz']) {
      const r = await t.request('GET', p);
      expect(r.status).toBe(200);
      expect(r.text).toBe('ok');
    }
    const v = await t.request('GET', '/readyz?verbose');
    expect(v.text).toContain('[+]ping ok');
    expect(v.text).toContain('[+]etcd ok');
    expect(v.text.trim().endsWith('readyz check passed')).toBe(true);
    const ex = await t.request('GET', '/livez?verbose&exclude=etcd&exclude=log');
    expect(ex.text).toContain('[+]etcd excluded: ok');
    expect(ex.text).toContain('[+]log excluded: ok');
    const one = await t.request('GET', '/livez/etcd');
    expect(one.status).toBe(200);
    expect(one.text).toBe('ok');
    // kube writes a passing single check's `ok` bare; the root endpoints set nosniff.
    expect(one.headers['x-content-type-options']).toBeUndefined();
    expect((await t.request('GET', '/livez')).headers['x-content-type-options']).toBe('nosniff');
    expect(one.headers['cache-control']).toBe('no-cache, private');
    expect((await t.request('GET', '/readyz/nonexistent')).status).toBe(404);
  });

  it('lists the checks Kubernetes\' e2e suite requires, in kube-apiserver v1.32\'s order', async () => {
    // From test/e2e/apimachinery/health_handlers.go at v1.32.4 (required in /healthz and /livez).
    const required = [
      'ping', 'log', 'etcd', 'poststarthook/start-apiserver-admission-initializer', 'poststarthook/generic-apiserver-start-informers',
      'poststarthook/start-apiextensions-informers', 'poststarthook/start-apiextensions-controllers', 'poststarthook/crd-informer-synced',
      'poststarthook/bootstrap-controller', 'poststarthook/start-system-namespaces-controller', 'poststarthook/start-service-ip-repair-controllers',
      'poststarthook/scheduling/bootstrap-system-priority-classes', 'poststarthook/start-cluster-authentication-info-controller',
      'poststarthook/start-kube-aggregator-informers', 'poststarthook/apiservice-registration-controller',
      'poststarthook/apiservice-status-local-available-controller', 'poststarthook/apiservice-status-remote-available-controller',
      'poststarthook/kube-apiserver-autoregistration', 'autoregister-completion', 'poststarthook/apiservice-openapi-controller',
    ];
    for (const p of ['/healthz', '/livez', '/readyz']) {
      const lines = (await t.request('GET', `${p}?verbose=1`)).text.split('\n');
      for (const name of required) expect(lines).toContain(`[+]${name} ok`);
    }
    const readyz = (await t.request('GET', '/readyz?verbose')).text.split('\n');
    // As kube-apiserver: the store's readiness right after the store, shutdown last.
    expect(readyz.slice(0, 5)).toEqual(['[+]ping ok', '[+]log ok', '[+]etcd ok', '[+]etcd-readiness ok', '[+]informer-sync ok']);
    expect(readyz.at(-3)).toBe('[+]shutdown ok');
    expect((await t.request('GET', '/livez?verbose')).text).not.toContain('shutdown');
  });
});
