/**
 * The /metrics families beyond request counts, after known traffic, read with a Prometheus text
 * parser: response sizes, long-running requests, watch events, storage request latency (every
 * backend), authentication and authorization attempts, declarative validation counters, Node.js
 * runtime; names, labels, buckets and HELP stability as kube-apiserver v1.32.4 writes them.
 */
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { parsePromText, sampleValue, type PromFamily } from './prom-text.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

async function scrape(): Promise<Map<string, PromFamily>> {
  const res = await t.request('GET', '/metrics');
  expect(res.status).toBe(200);
  return parsePromText(res.text);
}

const les = (f: PromFamily | undefined) => [...new Set(f!.samples.filter((s) => s.name.endsWith('_bucket')).map((s) => s.labels.le))];

describe('/metrics families', () => {
  it('records sizes, watches, storage and the gates after known traffic', async () => {
    const ns = 'metrics-b';
    expect((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
    expect((await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'a' }, data: { x: 'y'.repeat(2000) } } })).status).toBe(201);
    expect((await t.request('GET', `/api/v1/namespaces/${ns}/configmaps/a`)).status).toBe(200);
    expect((await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces', { headers: { authorization: 'Bearer nobody-knows-this' }, anonymous: true })).status).toBe(401);
    expect((await t.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { anonymous: true })).status).toBe(403);

    // A watch open while we scrape: one long-running request; its initial event counted.
    const s = t.server;
    let watchBody = '';
    const watch = https.get(`${s.url}/api/v1/namespaces/${ns}/configmaps?watch=1`, { ca: s.caCert, cert: s.adminCert, key: s.adminKey });
    const response = await new Promise<import('node:http').IncomingMessage>((resolve) => watch.on('response', resolve));
    await new Promise<void>((resolve) => response.once('data', (c: Buffer) => resolve(void (watchBody += c.toString()))));
    expect(watchBody).toContain('"type":"ADDED"');
    let m = await scrape();
    const watchLabels = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };
    expect(sampleValue(m, 'apiserver_longrunning_requests', watchLabels)).toBe(1);
    expect(m.get('apiserver_longrunning_requests')!.help).toMatch(/^\[STABLE\] Gauge of all active long-running apiserver requests/);
    expect(sampleValue(m, 'apiserver_watch_events_total', { group: '', version: 'v1', kind: 'ConfigMap' })).toBe(1);
    expect(sampleValue(m, 'apiserver_watch_events_sizes_bucket', { group: '', version: 'v1', kind: 'ConfigMap', le: '1024' })).toBe(0);
    expect(sampleValue(m, 'apiserver_watch_events_sizes_bucket', { group: '', version: 'v1', kind: 'ConfigMap', le: '4096' })).toBe(1);
    expect(les(m.get('apiserver_watch_events_sizes'))).toEqual(['1024', '2048', '4096', '8192', '16384', '32768', '65536', '131072', '+Inf']);
    response.destroy();
    watch.destroy();
    for (let i = 0; i < 100 && sampleValue(m, 'apiserver_longrunning_requests', watchLabels) !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      m = await scrape();
    }
    expect(sampleValue(m, 'apiserver_longrunning_requests', watchLabels)).toBe(0);

    // Read responses by size, in kube's buckets; writes are not recorded.
    const get = { verb: 'GET', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'resource', component: 'apiserver' };
    expect(sampleValue(m, 'apiserver_response_sizes_count', get)).toBe(1);
    expect(sampleValue(m, 'apiserver_response_sizes_bucket', { ...get, le: '1000' })).toBe(0);
    expect(sampleValue(m, 'apiserver_response_sizes_bucket', { ...get, le: '10000' })).toBe(1);
    expect(les(m.get('apiserver_response_sizes'))).toEqual(['1000', '10000', '100000', '1e+06', '1e+07', '1e+08', '1e+09', '1e+10', '+Inf']);
    expect(sampleValue(m, 'apiserver_response_sizes_count', { ...get, verb: 'POST' })).toBeUndefined();

    // Storage requests (the store decorator, whatever the backend), by kube's operation and type names.
    expect(sampleValue(m, 'etcd_requests_total', { operation: 'create', type: 'configmaps' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(m, 'etcd_request_duration_seconds_count', { operation: 'create', type: 'namespaces' })).toBeGreaterThanOrEqual(1);
    expect(m.get('etcd_request_duration_seconds')!.help).toBe('[ALPHA] Etcd request latency in seconds for each operation and object type.');
    expect(les(m.get('etcd_request_duration_seconds'))).toEqual(['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf']);
    for (const s of m.get('etcd_requests_total')!.samples) expect(['get', 'list', 'create', 'update', 'delete']).toContain(s.labels.operation);

    // Authentication and authorization outcomes.
    expect(sampleValue(m, 'authentication_attempts', { result: 'success' })).toBeGreaterThanOrEqual(6);
    expect(sampleValue(m, 'authentication_attempts', { result: 'failure' })).toBe(1);
    expect(les(m.get('authentication_duration_seconds'))).toEqual(['0.001', '0.002', '0.004', '0.008', '0.016', '0.032', '0.064', '0.128', '0.256', '0.512', '1.024', '2.048', '4.096', '8.192', '16.384', '+Inf']);
    expect(sampleValue(m, 'authorization_attempts_total', { result: 'allowed' })).toBeGreaterThanOrEqual(5);
    expect(sampleValue(m, 'authorization_attempts_total', { result: 'no-opinion' })).toBe(1);

    // Declarative validation counters exist at 0; the Node.js runtime is described.
    expect(sampleValue(m, 'apiserver_validation_declarative_validation_mismatch_total')).toBe(0);
    expect(m.get('apiserver_validation_declarative_validation_mismatch_total')!.help).toMatch(/^\[BETA\] /);
    expect(sampleValue(m, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(1e6);
    expect(m.get('nodejs_version_info')!.samples[0]!.labels.version).toBe(process.version);
    expect(m.get('process_resident_memory_bytes')!.help).toBe('Resident memory size in bytes.');
  });

  it('keeps label cardinality bounded: unknown paths are not recorded', async () => {
    for (let i = 0; i < 5; i++) expect((await t.request('GET', `/no/such/path/${i}`)).status).toBe(404);
    expect((await t.request('GET', '/apis/nosuch.example.com/v1/things')).status).toBe(404);
    const m = await scrape();
    const requests = m.get('apiserver_request_total')!.samples;
    expect(requests.some((s) => s.labels.subresource.includes('/no/such') || s.labels.group === 'nosuch.example.com')).toBe(false);
  });
});
