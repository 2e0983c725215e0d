/**
 * Every verb x scope of every served resource, against what kube-apiserver v1.32 serves there
 * (installer.go's routes, checked against the reference server): a method a path does not serve
 * is 405 before anything runs; paths no route has are 404. The expectations are written out from
 * kube's rules here, not read from the route table under test.
 */
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

/** A request whose path is sent byte for byte (a URL string would have its dot segments resolved by the client). */
function rawRequest(method: string, path: string): Promise<{ status: number; json: unknown }> {
  const url = new URL(t.server.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: url.hostname, port: url.port, path, method, ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = text;
          try {
            json = JSON.parse(text);
          } catch {
            // plain text
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'route-test' } } });
});
afterAll(async () => {
  await t?.close();
});

const methodNotAllowed = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server does not allow this method on the requested resource',
  reason: 'MethodNotAllowed',
  details: {},
  code: 405,
};
const notFound = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
};

interface Served {
  prefix: string;
  name: string;
  namespaced: boolean;
}

async function servedResources(): Promise<Served[]> {
  const out: Served[] = [];
  const core = await t.request('GET', '/api/v1');
  for (const r of core.json.resources) if (!r.name.includes('/')) out.push({ prefix: '/api/v1', name: r.name, namespaced: r.namespaced });
  const groups = await t.request('GET', '/apis');
  for (const g of groups.json.groups) {
    const list = await t.request('GET', `/apis/${g.preferredVersion.groupVersion}`);
    // Create-only resources (the access reviews) have their own routes: test/authz/access-review.test.ts.
    for (const r of list.json.resources) if (!r.name.includes('/') && r.verbs.includes('list')) out.push({ prefix: `/apis/${g.preferredVersion.groupVersion}`, name: r.name, namespaced: r.namespaced });
  }
  return out;
}

// Nothing carries this label: collection deletes that are served delete nothing.
const none = '?labelSelector=route-test%3Dnone';

describe('verb x scope as kube serves them', () => {
  it('serves exactly kube\'s methods on every path of every resource', async () => {
    const resources = await servedResources();
    expect(resources.map((r) => r.name)).toEqual(expect.arrayContaining(['configmaps', 'namespaces', 'leases', 'roles', 'clusterroles']));
    const failures: string[] = [];
    const check = async (method: string, path: string, expected: 'served' | 405 | 404) => {
      const r = await t.request(method, path, method === 'POST' || method === 'PUT' || method === 'PATCH' ? { body: {}, headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' } } : {});
      // Served: a handler ran (a 404 then names the object, never the route-level Status).
      const routeLevel = [methodNotAllowed, notFound].some((s) => JSON.stringify(r.json) === JSON.stringify(s));
      const ok =
        expected === 'served'
          ? r.status !== 405 && !routeLevel && r.status < 500
          : r.status === expected && (method === 'HEAD' || JSON.stringify(r.json) === JSON.stringify(expected === 405 ? methodNotAllowed : notFound));
      if (!ok) failures.push(`${method} ${path}: ${r.status} (want ${expected}) ${r.text.slice(0, 120)}`);
    };
    for (const r of resources) {
      const clusterWide = `${r.prefix}/${r.name}`;
      const inNamespace = `${r.prefix}/namespaces/route-test/${r.name}`;
      const item = r.namespaced ? `${inNamespace}/nope` : `${clusterWide}/nope`;
      const collection = r.namespaced ? inNamespace : clusterWide;
      // The collection of the resource's own scope.
      await check('GET', collection, 'served');
      await check('POST', collection, 'served');
      await check('DELETE', collection + none, r.name === 'namespaces' && r.prefix === '/api/v1' ? 405 : 'served');
      await check('PUT', collection, 405);
      await check('PATCH', collection, 405);
      // A namespaced resource across all namespaces: list and watch only.
      if (r.namespaced) {
        await check('GET', clusterWide, 'served');
        for (const m of ['POST', 'DELETE', 'PUT', 'PATCH']) await check(m, clusterWide + none, 405);
      } else if (r.name !== 'namespaces') {
        // A cluster-scoped resource has no namespaced paths.
        await check('GET', `${r.prefix}/namespaces/route-test/${r.name}`, 404);
      }
      // One object.
      for (const m of ['GET', 'PUT', 'PATCH', 'DELETE']) await check(m, item, 'served');
      await check('POST', item, 405);
      for (const m of ['HEAD', 'OPTIONS']) {
        await check(m, collection, 405);
        await check(m, item, 405);
      }
      // Deeper than any route.
      await check('GET', `${item}/status/extra`, 404);
    }
    expect(failures).toEqual([]);
  });

  it('never deletes namespaces or a cluster-wide collection, however the path is spelled', async () => {
    await t.request('POST', '/api/v1/namespaces/route-test/configmaps', { body: { metadata: { name: 'keep' } } });
    for (const path of ['/api/v1/namespaces', '/api/v1/namespaces/', '/api/v1/namespaces//', '/api/v1/configmaps', '/api/v1/configmaps/']) {
      const r = await t.request('DELETE', path);
      expect(r.status, path).toBe(405);
      expect(r.json).toEqual(methodNotAllowed);
    }
    // Dot segments are not resolved (Go's URL.Path keeps them): no route has them.
    for (const path of ['/api/v1/namespaces/x/%2e%2e', '/api/v1/namespaces/route-test/configmaps/%2e%2e/%2e%2e', '/api/v1//namespaces']) {
      const r = await rawRequest('DELETE', path);
      expect(r.status, path).toBe(404);
      expect(r.json).toEqual(notFound);
    }
    // An empty namespace segment addresses no namespace: kube's store refuses it.
    const empty = await t.request('DELETE', '/api/v1/namespaces//configmaps');
    expect(empty.status).toBe(400);
    expect(empty.json.message).toBe('Namespace parameter required.');
    expect((await t.request('GET', '/api/v1/namespaces/route-test')).status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/route-test/configmaps/keep')).status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/default')).status).toBe(200);
  });

  it('serves subresources with their own verbs only', async () => {
    expect((await t.request('GET', '/api/v1/namespaces/route-test/finalize')).json).toEqual(methodNotAllowed);
    expect((await t.request('POST', '/api/v1/namespaces/route-test/status', { body: {} })).json).toEqual(methodNotAllowed);
    expect((await t.request('GET', '/api/v1/namespaces/route-test/status')).status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/route-test/namespaces')).json).toEqual(notFound);
    expect((await t.request('GET', '/api/v1/namespaces/route-test/serviceaccounts/x/token')).json).toEqual(methodNotAllowed);
    expect((await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/route-test/clusterroles')).json).toEqual(notFound);
  });

  it('answers methods no route knows as kube: 405 on API paths, Go\'s plain 404 elsewhere', async () => {
    // (Node's HTTP/1.1 parser knows only the registered method names; HTTP/2 clients may send any.)
    expect(await rawRequest('PROPFIND', '/api/v1/namespaces')).toEqual({ status: 405, json: methodNotAllowed });
    expect(await rawRequest('MKCOL', '/apis/rbac.authorization.k8s.io/v1/clusterroles')).toEqual({ status: 405, json: methodNotAllowed });
    expect(await rawRequest('PROPFIND', '/nonexistent')).toEqual({ status: 404, json: '404 page not found\n' });
  });

  it('answers non-standard methods with 405', async () => {
    expect((await t.request('OPTIONS', '/api')).json).toEqual(methodNotAllowed);
    expect((await t.request('POST', '/version', { body: {} })).json).toEqual(methodNotAllowed);
    expect((await t.request('POST', '/api/v1', { body: {} })).json).toEqual(methodNotAllowed);
    // The aggregator's /apis and group documents and the health checks take any method.
    expect((await t.request('POST', '/apis', { body: {} })).json.kind).toBe('APIGroupList');
    expect((await t.request('PUT', '/readyz', { body: {} })).text).toBe('ok');
  });
});
