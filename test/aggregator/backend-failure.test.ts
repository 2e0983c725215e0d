/**
 * A backend killed and restarted while clients read discovery, list and watch (issue 16 item 6):
 * discovery answers 200 throughout from the last good copy (the group marked Stale), the
 * APIService turns Available=False within 10 s and True again after the restart, proxied requests
 * get kube's 503 meanwhile, and kubectl keeps working on every other group.
 */
import https from 'node:https';
import { expect, test } from 'vitest';
import { waitForAvailable, type AggregatedSetup } from './sample-fixture.ts';
import { withRegisteredSample } from './registered-sample.ts';

let s: AggregatedSetup;
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

withRegisteredSample((setup) => (s = setup), { probeIntervalMs: 1000, namespaceControllerTiming: { graceMs: 100, remainingMs: 500, errorMs: 300 } });

/** Reads discovery every 100 ms until stopped; returns every status seen and the slowest answer. */
function discoveryReader(): { stop(): Promise<{ statuses: number[]; slowestMs: number }> } {
  const statuses: number[] = [];
  let slowestMs = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const [path, accept] of [['/apis', AGGREGATED], ['/apis', 'application/json'], ['/apis/wardle.example.com', 'application/json']] as const) {
        const t0 = Date.now();
        const r = await s.gw.request('GET', path, { headers: { accept } });
        slowestMs = Math.max(slowestMs, Date.now() - t0);
        statuses.push(r.status);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { statuses, slowestMs };
    },
  };
}

function wardleOf(json: { items: { metadata: { name: string }; versions: { freshness: string; resources?: { resource: string }[] }[] }[] }) {
  return json.items.find((i) => i.metadata.name === 'wardle.example.com');
}

test('kill and restart the backend: discovery stays 200 and whole, Available follows, proxied requests get 503 meanwhile', async () => {
  const created = await s.gw.kubectl(['create', '-f', '-'], { input: 'apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata: {name: steady, namespace: default}\n' });
  expect(created.code).toBe(0);
  // A watch through the proxy is open when the backend dies: it ends (the client re-lists), it does not hang.
  const watchEnded = new Promise<number>((resolve, reject) => {
    const req = https.request(`${s.gw.server.url}/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true`, { ca: s.gw.server.caCert, cert: s.gw.server.adminCert, key: s.gw.server.adminKey, agent: false }, (res) => {
      res.resume();
      res.on('close', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err) => reject(err));
    req.end();
  });
  await new Promise((r) => setTimeout(r, 500));
  const reader = discoveryReader();
  const killedAt = Date.now();
  await s.killSample();
  expect(await watchEnded).toBe(200);
  const down = await waitForAvailable(s.gw, 'v1alpha1.wardle.example.com', 'False', 10_000);
  expect(Date.now() - killedAt).toBeLessThan(10_000);
  expect(down.reason).toBe('FailedDiscoveryCheck');
  // A probe in flight when the backend died reads a reset; the ones after it, a refused connection.
  expect(down.message).toMatch(/^failing or missing response from https:\/\/127\.0\.0\.1:\d+\/apis\/wardle\.example\.com\/v1alpha1: .*(connection refused|read: connection reset by peer)$/);
  // The last good copy, marked stale.
  const stale = await s.gw.request('GET', '/apis', { headers: { accept: AGGREGATED } });
  expect(stale.status).toBe(200);
  const wardle = wardleOf(stale.json)!;
  expect(wardle.versions[0]!.freshness).toBe('Stale');
  expect(wardle.versions[0]!.resources!.map((r) => r.resource).sort()).toEqual(['fischers', 'flunders']);
  // kube-aggregator's answer for an unavailable APIService; kubectl prints client-go's wording.
  const proxied = await s.gw.request('GET', '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders');
  expect(proxied.status).toBe(503);
  expect(proxied.text).toBe('service unavailable\n');
  const kget = await s.gw.kubectl(['get', 'flunders', '-n', 'default']);
  expect(kget.stderr).toContain('the server is currently unable to handle the request');
  // Every other group keeps working: api-resources lists them, without an error line.
  const resources = await s.gw.kubectl(['api-resources']);
  expect(resources.code).toBe(0);
  expect(resources.stdout).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
  expect(resources.stdout).toMatch(/^apiservices\s+apiregistration\.k8s\.io\/v1\s+false\s+APIService$/m);
  expect(resources.stderr).toBe('');
  const ns = await s.gw.kubectl(['get', 'namespaces']);
  expect(ns.code).toBe(0);

  await s.startSample();
  await waitForAvailable(s.gw, 'v1alpha1.wardle.example.com', 'True', 15_000);
  const { statuses } = await reader.stop();
  expect(statuses.length).toBeGreaterThan(5);
  expect(new Set(statuses)).toEqual(new Set([200]));
  // Fresh again, and the data is still there (the backend's own etcd).
  let fresh = wardleOf((await s.gw.request('GET', '/apis', { headers: { accept: AGGREGATED } })).json)!;
  for (let i = 0; i < 20 && fresh.versions[0]!.freshness !== 'Current'; i++) {
    await new Promise((r) => setTimeout(r, 250));
    fresh = wardleOf((await s.gw.request('GET', '/apis', { headers: { accept: AGGREGATED } })).json)!;
  }
  expect(fresh.versions[0]!.freshness).toBe('Current');
  const back = await s.gw.kubectl(['get', 'flunder', 'steady', '-n', 'default', '-o', 'name']);
  expect(back.stdout.trim()).toBe('flunder.wardle.example.com/steady');
}, 120_000);

test('an APIService whose service does not resolve is ServiceNotFound, listed in discovery as Stale without resources', async () => {
  const res = await s.gw.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    body: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.nowhere.example.com' },
      spec: { group: 'nowhere.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, insecureSkipTLSVerify: true, service: { namespace: 'default', name: 'nosuch' } },
    },
  });
  expect(res.status).toBe(201);
  expect(res.json.spec.service.port).toBe(443);
  const cond = await waitForAvailable(s.gw, 'v1.nowhere.example.com', 'False', 10_000);
  expect(cond).toMatchObject({ reason: 'ServiceNotFound', message: 'service/nosuch in "default" is not present' });
  const k = await s.gw.kubectl(['get', 'apiservice', 'v1.nowhere.example.com']);
  expect(k.stdout).toMatch(/^v1\.nowhere\.example\.com\s+default\/nosuch\s+False \(ServiceNotFound\)\s+\d+s$/m);
  const agg = await s.gw.request('GET', '/apis', { headers: { accept: AGGREGATED } });
  const item = agg.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'nowhere.example.com');
  expect(item).toEqual({ metadata: { name: 'nowhere.example.com', creationTimestamp: null }, versions: [{ version: 'v1', freshness: 'Stale' }] });
  // Lowest priority last in /apis.
  const legacy = await s.gw.request('GET', '/apis');
  expect(legacy.json.groups.at(-1).name).toBe('nowhere.example.com');
  expect((await s.gw.request('DELETE', '/apis/apiregistration.k8s.io/v1/apiservices/v1.nowhere.example.com')).status).toBe(200);
  const gone = await s.gw.request('GET', '/apis/nowhere.example.com');
  expect(gone.status).toBe(404);
}, 60_000);

test('namespace deletion with the backend down stays Terminating (NamespaceDeletionDiscoveryFailure) until it answers, then empties the namespace there too', async () => {
  expect((await s.gw.kubectl(['create', 'namespace', 'doomed'])).code).toBe(0);
  const made = await s.gw.kubectl(['create', '-f', '-'], { input: 'apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata: {name: inside, namespace: doomed}\n' });
  expect(made.code).toBe(0);
  await s.killSample();
  await waitForAvailable(s.gw, 'v1alpha1.wardle.example.com', 'False', 10_000);
  expect((await s.gw.kubectl(['delete', 'namespace', 'doomed', '--wait=false'])).code).toBe(0);
  const failure = async () => {
    const ns = (await s.gw.request('GET', '/api/v1/namespaces/doomed')).json;
    return { phase: ns.status?.phase, cond: (ns.status?.conditions ?? []).find((c: { type: string }) => c.type === 'NamespaceDeletionDiscoveryFailure') };
  };
  let state = await failure();
  for (let i = 0; i < 50 && state.cond?.status !== 'True'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    state = await failure();
  }
  expect(state.phase).toBe('Terminating');
  expect(state.cond).toMatchObject({
    status: 'True',
    reason: 'DiscoveryFailed',
    message: 'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: wardle.example.com/v1alpha1: stale GroupVersion discovery: wardle.example.com/v1alpha1',
  });
  // It stays so while the backend is down.
  await new Promise((r) => setTimeout(r, 1500));
  expect((await failure()).phase).toBe('Terminating');
  await s.startSample();
  let gone = await s.gw.request('GET', '/api/v1/namespaces/doomed');
  for (let i = 0; i < 150 && gone.status !== 404; i++) {
    await new Promise((r) => setTimeout(r, 100));
    gone = await s.gw.request('GET', '/api/v1/namespaces/doomed');
  }
  expect(gone.status).toBe(404);
  // The flunder was deleted in the backend before the namespace went.
  const left = await s.gw.request('GET', '/apis/wardle.example.com/v1alpha1/namespaces/doomed/flunders');
  expect(left.status).toBe(200);
  expect(left.json.items).toEqual([]);
}, 90_000);
