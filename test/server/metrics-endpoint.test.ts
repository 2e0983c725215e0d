/**
 * /metrics: kube's request metrics and process metrics in the Prometheus text format, authorized as
 * the non-resource path /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import https from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-metrics-'));
  // A scraper in kube's system:monitoring group (bound to the system:monitoring role by default) and a plain user.
  await writeFile(join(dir, 'tokens.csv'), 'scrape-token,prometheus,uid-1,"system:monitoring"\nplain-token,alice,uid-2\n');
  t = await startTestServer({ config: { tokenAuthFile: join(dir, 'tokens.csv') } });
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const line = (text: string, prefix: string): string | undefined => text.split('\n').find((l) => l.startsWith(prefix));

describe('/metrics', () => {
  it('counts requests by kube verb, scope, dry run and code', async () => {
    const ns = 'metrics-a';
    expect((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
    const coll = `/api/v1/namespaces/${ns}/configmaps`;
    expect((await t.request('POST', coll, { body: { metadata: { name: 'a' } } })).status).toBe(201);
    expect((await t.request('POST', `${coll}?dryRun=All`, { body: { metadata: { name: 'b' } } })).status).toBe(201);
    expect((await t.request('GET', coll)).status).toBe(200);
    expect((await t.request('GET', `${coll}/a`)).status).toBe(200);
    expect((await t.request('GET', `${coll}/missing`)).status).toBe(404);
    const apply = await t.request('PATCH', `${coll}/a?fieldManager=m`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: '1' } },
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(apply.status).toBe(200);
    expect((await t.request('GET', `${coll}?watch=1&timeoutSeconds=1`)).status).toBe(200);
    expect((await t.request('GET', '/api/v1/configmaps')).status).toBe(200);

    const res = await t.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8; escaping=values');
    expect(res.headers['x-content-type-options']).toBeUndefined();
    expect(Number(res.headers['process-start-time-unix'])).toBeGreaterThan(1_600_000_000);
    const m = res.text;
    const total = (labels: string) => Number(line(m, `apiserver_request_total{${labels}} `)?.split(' ')[1]);
    const base = 'component="apiserver",dry_run="",group="",resource="configmaps"';
    expect(total(`code="201",${base},scope="resource",subresource="",verb="POST",version="v1"`)).toBe(1);
    expect(total(`code="201",component="apiserver",dry_run="All",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"`)).toBe(1);
    expect(total(`code="200",${base},scope="namespace",subresource="",verb="LIST",version="v1"`)).toBe(1);
    expect(total(`code="200",${base},scope="resource",subresource="",verb="GET",version="v1"`)).toBe(1);
    expect(total(`code="404",${base},scope="resource",subresource="",verb="GET",version="v1"`)).toBe(1);
    expect(total(`code="200",${base},scope="resource",subresource="",verb="APPLY",version="v1"`)).toBe(1);
    expect(total(`code="200",${base},scope="namespace",subresource="",verb="WATCH",version="v1"`)).toBe(1);
    expect(total(`code="200",${base},scope="cluster",subresource="",verb="LIST",version="v1"`)).toBe(1);
    expect(m).toContain('# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.\n# TYPE apiserver_request_total counter\n');
    // kube's latency buckets, cumulative, ending in +Inf; the count matches the requests.
    const buckets = m.split('\n').filter((l) => l.startsWith(`apiserver_request_duration_seconds_bucket{${base},scope="namespace",subresource="",verb="LIST",version="v1",le=`));
    expect(buckets.map((l) => /le="([^"]+)"/.exec(l)![1])).toEqual(
      ['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf'],
    );
    expect(buckets.at(-1)!.endsWith(' 1')).toBe(true);
    expect(line(m, `apiserver_request_duration_seconds_count{${base},scope="namespace",subresource="",verb="LIST",version="v1"} `)).toMatch(/ 1$/);
    expect(m).toMatch(/\napiserver_current_inflight_requests\{request_kind="mutating"\} \d+\napiserver_current_inflight_requests\{request_kind="readOnly"\} \d+\n/);
    expect(Number(line(m, 'apiserver_storage_objects{resource="configmaps"} ')?.split(' ')[1])).toBeGreaterThanOrEqual(1);
    expect(line(m, 'apiserver_storage_objects{resource="leases.coordination.k8s.io"} ')).toBeDefined();
    expect(line(m, 'apiserver_storage_objects{resource="events.events.k8s.io"}')).toBeUndefined();
    expect(Number(line(m, 'process_resident_memory_bytes ')?.split(' ')[1])).toBeGreaterThan(1e6);
    expect(Number(line(m, 'process_start_time_seconds ')?.split(' ')[1])).toBeGreaterThan(1_600_000_000);
    expect(m).not.toMatch(/^go_/m);
  });

  it('counts the health and discovery roots as kube labels them', async () => {
    await t.request('GET', '/healthz');
    await t.request('GET', '/apis');
    const m = (await t.request('GET', '/metrics')).text;
    expect(line(m, 'apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/healthz",verb="GET",version=""} ')).toBeDefined();
    expect(line(m, 'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="apis",verb="GET",version=""} ')).toBeDefined();
  });

  it('serves the health check SLIs at /metrics/slis', async () => {
    expect((await t.request('GET', '/readyz')).status).toBe(200);
    expect((await t.request('GET', '/readyz')).status).toBe(200);
    const res = await t.request('GET', '/metrics/slis');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8; escaping=values');
    expect(res.text).toContain('# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.\n# TYPE kubernetes_healthcheck gauge\n');
    expect(line(res.text, 'kubernetes_healthcheck{name="etcd",type="readyz"} ')).toBe('kubernetes_healthcheck{name="etcd",type="readyz"} 1');
    expect(Number(line(res.text, 'kubernetes_healthchecks_total{name="etcd",status="success",type="readyz"} ')?.split(' ')[1])).toBeGreaterThanOrEqual(2);
    expect(res.text).toContain('# HELP process_start_time_seconds [ALPHA] Start time of the process since unix epoch in seconds.');
    expect(res.text).not.toContain('apiserver_request_total');
  });

  it('answers HEAD without a body, gzips when asked, and is forbidden to anonymous', async () => {
    const head = await t.request('HEAD', '/metrics');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const gz = await new Promise<{ enc?: string; body: Buffer }>((resolve, reject) => {
      const s = t.server;
      const req = https.request(`${s.url}/metrics`, { ca: s.caCert, cert: s.adminCert, key: s.adminKey, headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ enc: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(gz.enc).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toContain('# TYPE apiserver_request_total counter');
    const anon = await t.request('GET', '/metrics', { anonymous: true });
    expect(anon.status).toBe(403);
    expect(anon.json.message).toBe('forbidden: User "system:anonymous" cannot get path "/metrics"');
    const plain = await t.request('GET', '/metrics', { anonymous: true, headers: { authorization: 'Bearer plain-token' } });
    expect(plain.status).toBe(403);
    const scraper = await t.request('GET', '/metrics', { anonymous: true, headers: { authorization: 'Bearer scrape-token' } });
    expect(scraper.status).toBe(200);
    expect(scraper.text).toContain('# TYPE process_start_time_seconds gauge');
  });
});
