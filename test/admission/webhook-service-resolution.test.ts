/**
 * Admission webhooks given by service reference resolve through the gateway's one service
 * resolver, as kube-apiserver's webhook clients do (the resolver it gives the aggregator), at each
 * call: the stored Services with cluster-IP routing (kube's default) or endpoint routing
 * (--enable-aggregator-routing), the --aggregator-service-address map first. What does not resolve
 * fails the call under the webhook's failurePolicy with kube's text (recorded from
 * kube-apiserver v1.32.4: `Post "https://hook.webhooks.svc:443/deny?timeout=10s": service "hook" not found`).
 * Only loopback addresses are dialled: an ExternalName Service names 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { startWebhookServer, until, type WebhookServer } from './webhook-server.ts';
import { DEFAULT_TRAFFIC } from '../../src/aggregator/traffic.ts';

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

let wh: WebhookServer;
/** kube's default routing: a Service's cluster IP (an ExternalName's host). */
let clusterIP: TestServer;
/** --enable-aggregator-routing, with `webhooks/static` in the flag map. */
let endpoint: TestServer;
let dir: string;

beforeAll(async () => {
  // The webhook offers HTTP/2; kube calls a service-referenced webhook over HTTP/1.1 all the same.
  wh = await startWebhookServer(['hook.webhooks.svc', 'static.webhooks.svc'], undefined, { http2: true });
  // The calls that fail here by design must not open the webhooks' circuit breakers (5 failures by default).
  dir = await mkdtemp(join(tmpdir(), 'kgw-svcres-'));
  const admissionControlConfigFile = join(dir, 'admission.json');
  const webhookConfig = { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', circuitBreaker: { failureThreshold: 1000 } };
  await writeFile(admissionControlConfigFile, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: webhookConfig }] }));
  [clusterIP, endpoint] = await Promise.all([
    startTestServer({ config: { admissionControlConfigFile } }),
    startTestServer({ config: { admissionControlConfigFile, aggregator: { serviceRouting: 'endpoint', serviceAddresses: [`webhooks/static=127.0.0.1:${wh.port}`], traffic: DEFAULT_TRAFFIC } } }),
  ]);
  for (const t of [clusterIP, endpoint]) {
    expect((await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'webhooks' } } })).status).toBe(201);
  }
});

afterAll(async () => {
  await Promise.all([clusterIP?.close(), endpoint?.close()]);
  await wh?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A configuration whose one webhook calls `service` at /deny for labelled ConfigMaps. */
async function configure(t: TestServer, name: string, service: Record<string, unknown>, failurePolicy = 'Fail'): Promise<void> {
  const webhooks = [
    {
      name: `${name}.example.com`,
      clientConfig: { service: { namespace: 'webhooks', name: 'hook', path: '/deny', ...service }, caBundle: wh.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      objectSelector: { matchLabels: { test: name } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      failurePolicy,
    },
  ];
  const res = await t.request('POST', VWC, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks } });
  expect(res.status, res.text).toBe(201);
}

let n = 0;
const create = (t: TestServer, label: string) =>
  t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${++n}`, labels: { test: label } } } });

const callFailure = (hook: string, url: string, reason: string) => `failed calling webhook "${hook}.example.com": failed to call webhook: Post "${url}": ${reason}`;

describe('cluster-IP routing (kube\'s default)', () => {
  it('a Service that does not exist fails the call with kube\'s Status; Ignore lets the write through', async () => {
    await configure(clusterIP, 'missing', {});
    const res = await until(() => create(clusterIP, 'missing'), (r) => r.status === 500);
    const message = callFailure('missing', 'https://hook.webhooks.svc:443/deny?timeout=10s', 'service "hook" not found');
    expect(res.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 });
    await configure(clusterIP, 'ignored', {}, 'Ignore');
    expect((await until(() => create(clusterIP, 'ignored'), (r) => r.status === 201)).status).toBe(201);
  });

  it('resolves at each call: the Service created after the configuration is used at once, its port checked', async () => {
    await configure(clusterIP, 'later', { port: wh.port });
    const before = await until(() => create(clusterIP, 'later'), (r) => r.status === 500);
    expect(before.json.message).toContain(`Post "https://hook.webhooks.svc:${wh.port}/deny?timeout=10s": service "hook" not found`);
    // An ExternalName Service resolves to its host at the referenced port; the certificate is checked for hook.webhooks.svc.
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } };
    expect((await clusterIP.request('POST', '/api/v1/namespaces/webhooks/services', { body: svc })).status).toBe(201);
    const denied = await until(() => create(clusterIP, 'later'), (r) => r.status === 403);
    expect(denied.json.message).toBe('admission webhook "later.example.com" denied the request: configmaps named deny-me are not welcome');
    expect(wh.received.at(-1)?.path).toBe('/deny');
    expect(wh.received.at(-1)?.httpVersion).toBe('1.1');
    expect((await clusterIP.request('DELETE', '/api/v1/namespaces/webhooks/services/hook')).status).toBe(200);
    const gone = await until(() => create(clusterIP, 'later'), (r) => r.status === 500);
    expect(gone.json.message).toContain('service "hook" not found');
  });

  it('a Service without the referenced port: kube\'s text; a headless one cannot be routed to', async () => {
    const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
    expect((await clusterIP.request('POST', '/api/v1/namespaces/webhooks/services', { body: svc('noport', { ports: [{ port: 8443 }] }) })).status).toBe(201);
    expect((await clusterIP.request('POST', '/api/v1/namespaces/webhooks/services', { body: svc('headless', { clusterIP: 'None', ports: [{ port: 443 }] }) })).status).toBe(201);
    await configure(clusterIP, 'noport', { name: 'noport' });
    const res = await until(() => create(clusterIP, 'noport'), (r) => r.status === 500 && !r.json.message.includes('not found'));
    expect(res.json.message).toBe(`Internal error occurred: ${callFailure('noport', 'https://noport.webhooks.svc:443/deny?timeout=10s', 'no service port 443 found for service "noport"')}`);
    await configure(clusterIP, 'headless', { name: 'headless' });
    const headless = await until(() => create(clusterIP, 'headless'), (r) => r.status === 500 && !r.json.message.includes('not found'));
    expect(headless.json.message).toContain('cannot route to service with ClusterIP "None"');
  });
});

describe('endpoint routing (--enable-aggregator-routing)', () => {
  it('a Service without Endpoints, or without ready addresses, fails with kube\'s texts', async () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } };
    expect((await endpoint.request('POST', '/api/v1/namespaces/webhooks/services', { body: svc })).status).toBe(201);
    await configure(endpoint, 'eps', {});
    const none = await until(() => create(endpoint, 'eps'), (r) => r.status === 500 && r.json.message.includes('endpoints'));
    expect(none.json.message).toBe(`Internal error occurred: ${callFailure('eps', 'https://hook.webhooks.svc:443/deny?timeout=10s', 'endpoints "hook" not found')}`);
    // Only a not-ready address (a documentation address, never dialled).
    const eps = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hook' }, subsets: [{ notReadyAddresses: [{ ip: '192.0.2.10' }], ports: [{ name: 'https', port: 8443 }] }] };
    expect((await endpoint.request('POST', '/api/v1/namespaces/webhooks/endpoints', { body: eps })).status).toBe(201);
    const notReady = await until(() => create(endpoint, 'eps'), (r) => r.status === 500 && r.json.message.includes('no endpoints'));
    expect(notReady.json.message).toBe(`Internal error occurred: ${callFailure('eps', 'https://hook.webhooks.svc:443/deny?timeout=10s', 'no endpoints available for service "hook"')}`);
  });

  it('the --aggregator-service-address map comes first, for webhooks as for APIServices', async () => {
    await configure(endpoint, 'static', { name: 'static' });
    const res = await until(() => create(endpoint, 'static'), (r) => r.status === 403);
    expect(res.json.message).toBe('admission webhook "static.example.com" denied the request: configmaps named deny-me are not welcome');
  });
});

describe('configuration', () => {
  it('the former serviceResolution map is refused at start with the way to say it now', async () => {
    const cfgDir = await mkdtemp(join(tmpdir(), 'kgw-svcres-'));
    try {
      const cfg = join(cfgDir, 'admission.json');
      const webhookConfig = { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', serviceResolution: { 'hook.webhooks.svc:443': '127.0.0.1:9443' } };
      await writeFile(cfg, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: webhookConfig }] }));
      await expect(startTestServer({ config: { admissionControlConfigFile: cfg } })).rejects.toThrow(/serviceResolution is no longer read: .*--aggregator-service-address NAMESPACE\/NAME=HOST\[:PORT\]/);
    } finally {
      await rm(cfgDir, { recursive: true, force: true });
    }
  });
});
