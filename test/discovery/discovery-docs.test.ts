/**
 * Discovery and /version as kube-apiserver v1.32.4 serves them (values taken from the reference
 * server): verbs, subresources, storage version hashes, group order, aggregated shapes and the
 * version document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { storageVersionHash } from '../../src/discovery/discovery.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const aggregated = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;q=0.9';

describe('legacy discovery', () => {
  it('lists core resources as kube: sorted, namespaces without deletecollection, serviceaccounts/token, no apiVersion', async () => {
    const r = await t.request('GET', '/api/v1');
    expect(r.json.kind).toBe('APIResourceList');
    expect(r.json.apiVersion).toBeUndefined();
    const byName = new Map<string, any>(r.json.resources.map((x: any) => [x.name, x]));
    const names = r.json.resources.map((x: any) => x.name);
    expect(names).toEqual([...names].sort());
    expect(byName.get('namespaces')).toEqual({
      name: 'namespaces',
      singularName: 'namespace',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ns'],
      storageVersionHash: 'Q3oi5N2YM8M=',
    });
    expect(byName.get('serviceaccounts/token')).toEqual({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
    expect(byName.get('configmaps').storageVersionHash).toBe('qFsyl6wFWjQ=');
    expect(byName.get('events').storageVersionHash).toBe('r2yiGXH7wu8=');
  });

  it('hashes the stored version of kinds served in two groups', async () => {
    const ev = await t.request('GET', '/apis/events.k8s.io/v1');
    expect(ev.json.apiVersion).toBe('v1');
    expect(ev.json.resources[0].storageVersionHash).toBe('r2yiGXH7wu8=');
    const lease = await t.request('GET', '/apis/coordination.k8s.io/v1');
    expect(lease.json.resources[0].storageVersionHash).toBe('gqkMMb/YqFM=');
    expect(storageVersionHash('rbac.authorization.k8s.io', 'v1', 'ClusterRole')).toBe('bYE5ZWDrJ44=');
  });

  it('orders groups by kube-aggregator priority', async () => {
    const r = await t.request('GET', '/apis');
    const groups = r.json.groups.map((g: any) => g.name);
    // kube-apiserver v1.32's order: apiregistration.k8s.io, events.k8s.io, authentication.k8s.io, authorization.k8s.io, ..., rbac, ..., coordination, flowcontrol.
    expect(groups).toEqual(['apiregistration.k8s.io', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'rbac.authorization.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'coordination.k8s.io', 'flowcontrol.apiserver.k8s.io']);
  });
});

describe('aggregated discovery', () => {
  it('serves kube\'s shape: creationTimestamp null, same-group response kinds empty, sorted subresources', async () => {
    const r = await t.request('GET', '/api', { headers: { accept: aggregated } });
    expect(r.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(r.headers['vary']).toBe('Accept');
    expect(r.headers['etag']).toMatch(/^"[0-9A-F]{128}"$/);
    expect(r.json.items[0].metadata).toEqual({ creationTimestamp: null });
    const ns = r.json.items[0].versions[0].resources.find((x: any) => x.resource === 'namespaces');
    expect(ns).toEqual({
      resource: 'namespaces',
      responseKind: { group: '', version: '', kind: 'Namespace' },
      scope: 'Cluster',
      singularResource: 'namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ns'],
      subresources: [
        { subresource: 'finalize', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['update'] },
        { subresource: 'status', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['get', 'patch', 'update'] },
      ],
    });
    const sa = r.json.items[0].versions[0].resources.find((x: any) => x.resource === 'serviceaccounts');
    expect(sa.subresources).toEqual([{ subresource: 'token', responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] }]);
    const apis = await t.request('GET', '/apis', { headers: { accept: aggregated } });
    expect(apis.json.items.map((g: any) => g.metadata)).toEqual([
      { name: 'apiregistration.k8s.io', creationTimestamp: null },
      { name: 'events.k8s.io', creationTimestamp: null },
      { name: 'authentication.k8s.io', creationTimestamp: null },
      { name: 'authorization.k8s.io', creationTimestamp: null },
      { name: 'rbac.authorization.k8s.io', creationTimestamp: null },
      { name: 'admissionregistration.k8s.io', creationTimestamp: null },
      { name: 'apiextensions.k8s.io', creationTimestamp: null },
      { name: 'coordination.k8s.io', creationTimestamp: null },
      { name: 'flowcontrol.apiserver.k8s.io', creationTimestamp: null },
    ]);
    // The same document again: 304 for the ETag.
    const again = await t.request('GET', '/api', { headers: { accept: aggregated, 'if-none-match': String(r.headers['etag']) } });
    expect(again.status).toBe(304);
  });

  it('answers an aggregated version kube does not serve with 406, or the next acceptable type', async () => {
    const v3 = 'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList';
    const r = await t.request('GET', '/apis', { headers: { accept: v3 } });
    expect(r.status).toBe(406);
    expect(r.json.message).toBe('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    const fallback = await t.request('GET', '/apis', { headers: { accept: `${v3},application/json` } });
    expect(fallback.json.kind).toBe('APIGroupList');
    const group = await t.request('GET', '/apis/coordination.k8s.io', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } });
    expect(group.status).toBe(406);
    const beta = await t.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } });
    expect(beta.json.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    // go-restful's own 406 on /api for a type it does not produce.
    const star = await t.request('GET', '/api', { headers: { accept: 'application/*' } });
    expect(star.json.message).toBe('406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });
});

describe('/version', () => {
  it('reports kube-apiserver v1.32.4 in kube\'s shape', async () => {
    const r = await t.request('GET', '/version');
    expect(Object.keys(r.json)).toEqual(['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
    expect(r.json).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.4', gitCommit: '59526cd4867447956156ae3a602fcbac10a2c335', gitTreeState: 'clean', compiler: 'gc' });
    expect(r.json.platform).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/);
  });
});

describe('OpenAPI and odd paths', () => {
  it('redirects a stale OpenAPI v3 hash to the current one and answers an unservable v2 Accept with a bare 406', async () => {
    const index = await t.request('GET', '/openapi/v3');
    const url = String(index.json.paths['api/v1'].serverRelativeURL);
    const hash = url.split('hash=')[1];
    const stale = await t.request('GET', '/openapi/v3/api/v1?hash=stale');
    expect(stale.status).toBe(301);
    expect(stale.headers['location']).toBe(url);
    expect(stale.headers['etag']).toBe(`"${hash}"`);
    const current = await t.request('GET', url);
    expect(current.status).toBe(200);
    expect(current.headers['cache-control']).toBe('public, immutable');
    const v2 = await t.request('GET', '/openapi/v2', { headers: { accept: 'application/foo' } });
    expect(v2.status).toBe(406);
    expect(v2.text).toBe('');
  });

  it('answers a bare special-verb prefix with kube\'s plain-text 500', async () => {
    const r = await t.request('GET', '/api/v1/watch');
    expect(r.status).toBe(500);
    expect(r.text).toBe('Internal Server Error: "/api/v1/watch": failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch\n');
  });
});
