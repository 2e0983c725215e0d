/**
 * The gateway's own service resolver end to end (no static map): the real sample-apiserver
 * registered by an APIService whose Service and Endpoints the gateway stores, with
 * --enable-aggregator-routing. Availability follows kube's checks as the Endpoints appear, and
 * requests are routed to the ready endpoint.
 */
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SAMPLE_NAMESPACE, SAMPLE_SERVICE, startAggregatedSetup, waitForAvailable, type AggregatedSetup } from './sample-fixture.ts';

let s: AggregatedSetup;
/** kube refuses loopback addresses in Endpoints: the sample listens on this host's first external IPv4 address. */
const hostIP = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

beforeAll(async () => {
  if (!hostIP) throw new Error('this test needs a non-loopback IPv4 address on the host (kube refuses loopback Endpoints)');
  s = await startAggregatedSetup({ routing: 'endpoint', bindAddress: '0.0.0.0' });
  await s.startSample();
}, 180_000);

afterAll(async () => {
  await s?.close();
});

test('an APIService reaches its backend through the stored Service and Endpoints (endpoint routing)', async () => {
  const gw = s.gw;
  expect((await gw.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SAMPLE_NAMESPACE } } })).status).toBe(201);
  await s.register({ waitAvailable: false });
  const missing = await waitForAvailable(gw, 'v1alpha1.wardle.example.com', 'False', 30_000);
  expect(missing).toMatchObject({ reason: 'ServiceNotFound', message: `service/${SAMPLE_SERVICE} in "${SAMPLE_NAMESPACE}" is not present` });

  const svcPath = `/api/v1/namespaces/${SAMPLE_NAMESPACE}/services`;
  const svc = await gw.request('POST', svcPath, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: SAMPLE_SERVICE }, spec: { ports: [{ name: 'https', port: 443, targetPort: s.samplePort }] } } });
  expect(svc.status).toBe(201);
  const noEndpoints = await waitFor(async () => {
    const c = await waitForAvailable(gw, 'v1alpha1.wardle.example.com', 'False', 30_000);
    return c.reason === 'EndpointsNotFound' ? c : undefined;
  });
  expect(noEndpoints.message).toBe(`cannot find endpoints for service/${SAMPLE_SERVICE} in "${SAMPLE_NAMESPACE}"`);

  // The endpoint the Service's port name maps to is the sample on the host's address; the cluster IP (unroutable here) is not used.
  const ep = await gw.request('POST', `/api/v1/namespaces/${SAMPLE_NAMESPACE}/endpoints`, {
    body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: SAMPLE_SERVICE }, subsets: [{ addresses: [{ ip: hostIP! }], ports: [{ name: 'https', port: s.samplePort }] }] },
  });
  expect(ep.status).toBe(201);
  const ok = await waitForAvailable(gw, 'v1alpha1.wardle.example.com', 'True', 30_000);
  expect(ok).toMatchObject({ reason: 'Passed' });
  const list = await gw.request('GET', '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders');
  expect(list.status).toBe(200);
  expect(list.json.kind).toBe('FlunderList');
}, 120_000);

async function waitFor<T>(f: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}
