/**
 * APF request widths through the server: the seats each request is estimated to take, read from
 * apiserver_flowcontrol_work_estimated_seats (its sum grows by exactly the seats of one request)
 * and apiserver_flowcontrol_watch_count_samples. Lists widen with the stored object count (polled
 * every 200 ms here), storage reads cost more than cache reads, a level's own cap applies, a
 * watch with initial events costs its list, and a write costs one seat per 10 watchers of its
 * namespace. No timing is asserted.
 */
import http2 from 'node:http2';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { parsePromText, sampleValue } from '../metrics/prom-text.ts';

let ts: TestServer;
let dir: string;
const CONFIGMAPS = 250;
const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-apf-width-'));
  const tokens = join(dir, 'tokens.csv');
  await writeFile(tokens, 'token-a,tenant-a,1001,"tenants"\ntoken-n,tenant-n,1002,"tenants"\n');
  ts = await startTestServer({ config: { tokenAuthFile: tokens, authorizationModes: ['AlwaysAllow'], etcdCountMetricPollPeriodMs: 200 } });
  await ts.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'wide' } } });
  for (let i = 0; i < CONFIGMAPS; i += 25) {
    await Promise.all(
      Array.from({ length: 25 }, (_, j) => ts.request('POST', '/api/v1/namespaces/wide/configmaps', { body: { metadata: { name: `cm-${i + j}` }, data: { k: 'v' } } })),
    );
  }
  // A level whose own cap is 2 seats: 4 of 249 shares of 600 seats is 10 seats, hands of 4 (10 / 4 = 2).
  const pl = await ts.request('POST', `${FC}/prioritylevelconfigurations`, {
    body: { metadata: { name: 'narrow' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 4, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 4, queueLengthLimit: 50 } } } } },
  });
  expect(pl.status).toBe(201);
  const fs = await ts.request('POST', `${FC}/flowschemas`, {
    body: { metadata: { name: 'narrow' }, spec: { priorityLevelConfiguration: { name: 'narrow' }, matchingPrecedence: 500, rules: [{ subjects: [{ kind: 'User', user: { name: 'tenant-n' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }] } },
  });
  expect(fs.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await ts?.close();
  await rm(dir, { recursive: true, force: true });
});

const tenant = (token: string) => ({ anonymous: true, headers: { authorization: `Bearer ${token}` } });
const level = (name: string) => ({ flow_schema: name, priority_level: name });

async function samples(labels: Record<string, string>) {
  const f = parsePromText((await ts.request('GET', '/metrics')).text);
  return {
    seats: sampleValue(f, 'apiserver_flowcontrol_work_estimated_seats_sum', labels) ?? 0,
    requests: sampleValue(f, 'apiserver_flowcontrol_work_estimated_seats_count', labels) ?? 0,
    watchers: sampleValue(f, 'apiserver_flowcontrol_watch_count_samples_sum', labels) ?? 0,
    writes: sampleValue(f, 'apiserver_flowcontrol_watch_count_samples_count', labels) ?? 0,
  };
}

/** The seats (and, for a write, the watchers) of one request of a tenant, from the metrics around it. */
async function widthOf(token: string, method: string, path: string, body?: unknown, labels = level('global-default')) {
  const before = await samples(labels);
  const r = await ts.request(method, path, { ...tenant(token), ...(body ? { body } : {}) });
  const after = await samples(labels);
  expect(after.requests - before.requests).toBe(1);
  return { status: r.status, json: r.json, seats: after.seats - before.seats, watchers: after.watchers - before.watchers, writes: after.writes - before.writes };
}

/** Repeats `fn` until it gives `want` (the object counts are polled) or 15 s pass; returns the last. */
async function eventually<T>(fn: () => Promise<T>, want: T): Promise<T> {
  const deadline = Date.now() + 15_000;
  let last = await fn();
  while (last !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

describe('list widths', () => {
  it('a list from the cache takes one seat per 100 stored objects', async () => {
    // 250 ConfigMaps and each namespace's kube-root-ca.crt: between 201 and 300 objects.
    const seats = await eventually(async () => (await widthOf('token-a', 'GET', '/api/v1/configmaps')).seats, 3);
    expect(seats).toBe(3);
    expect((await widthOf('token-a', 'GET', '/api/v1/namespaces/wide/configmaps?limit=10')).seats).toBe(3);
  });

  it('storage reads: a continuation costs twice its page; an exact resourceVersion twice the whole', async () => {
    const first = await ts.request('GET', '/api/v1/namespaces/wide/configmaps?limit=60');
    const token = encodeURIComponent(first.json.metadata.continue);
    const page = await widthOf('token-a', 'GET', `/api/v1/namespaces/wide/configmaps?limit=60&continue=${token}`);
    expect([page.status, page.seats]).toEqual([200, 2]);
    const rv = first.json.metadata.resourceVersion;
    // All objects (250 ConfigMaps and the kube-root-ca.crt of each namespace) twice: the polled count must have
    // passed 250, which it may not have yet when the first test saw it pass 200.
    const exact = await eventually(async () => {
      const r = await widthOf('token-a', 'GET', `/api/v1/namespaces/wide/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      return r.status === 200 ? r.seats : -r.status;
    }, 6);
    expect(exact).toBe(6);
  });

  it('one seat for a get, a list by name, and an uncounted resource', async () => {
    expect((await widthOf('token-a', 'GET', '/api/v1/namespaces/wide/configmaps/cm-1')).seats).toBe(1);
    expect((await widthOf('token-a', 'GET', '/api/v1/namespaces/wide/configmaps?fieldSelector=metadata.name%3Dcm-1')).seats).toBe(1);
    expect((await widthOf('token-a', 'GET', '/apis/example.com/v1/widgets')).seats).toBe(1);
  });

  it('a level caps the seats of its requests (max(1, min(ceil(15% of 10), 10 / 4)) = 2)', async () => {
    const narrow = await widthOf('token-n', 'GET', '/api/v1/configmaps', undefined, level('narrow'));
    expect([narrow.status, narrow.seats]).toEqual([200, 2]);
  });

  it('a watch takes one seat, or its list\'s seats when it asks for initial events', async () => {
    const plain = http2.connect(ts.server.url, { ca: ts.server.caCert });
    try {
      for (const [query, want] of [
        ['watch=1', 1],
        ['watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', 3],
      ] as const) {
        const before = await samples(level('global-default'));
        const stream = plain.request({ ':path': `/api/v1/configmaps?${query}`, authorization: 'Bearer token-a' });
        const status = await new Promise<number>((resolve) => stream.on('response', (h) => resolve(Number(h[':status']))));
        expect(status).toBe(200);
        const after = await samples(level('global-default'));
        expect([after.requests - before.requests, after.seats - before.seats]).toEqual([1, want]);
        stream.close();
      }
    } finally {
      plain.destroy();
    }
  });
});

describe('write widths', () => {
  it('a write takes one seat per 10 watchers of its namespace, counted while the watches run', async () => {
    const session = http2.connect(ts.server.url, { ca: ts.server.caCert });
    const streams: http2.ClientHttp2Stream[] = [];
    // Watches of earlier tests are forgotten once the server sees their streams end.
    const quiet = await eventually(async () => (await widthOf('token-a', 'POST', '/api/v1/namespaces/wide/configmaps', { metadata: { generateName: 'before-' } })).watchers, 0);
    expect(quiet).toBe(0);
    try {
      for (let i = 0; i < 25; i++) {
        const stream = session.request({ ':path': '/api/v1/namespaces/wide/configmaps?watch=1&resourceVersion=0', authorization: 'Bearer token-a' });
        streams.push(stream);
        await new Promise<void>((resolve) => stream.on('response', () => resolve()));
      }
      // A watch elsewhere does not count.
      const other = session.request({ ':path': '/api/v1/namespaces/default/configmaps?watch=1', authorization: 'Bearer token-a' });
      streams.push(other);
      await new Promise<void>((resolve) => other.on('response', () => resolve()));
      const w = await widthOf('token-a', 'POST', '/api/v1/namespaces/wide/configmaps', { metadata: { name: 'written-with-watchers' } });
      expect([w.status, w.seats, w.watchers, w.writes]).toEqual([201, 3, 25, 1]);
    } finally {
      for (const s of streams) s.close();
      session.destroy();
    }
    // Ended watches are forgotten.
    const after = await eventually(async () => (await widthOf('token-a', 'DELETE', '/api/v1/namespaces/wide/configmaps/cm-2')).watchers, 0);
    expect(after).toBe(0);
  });
});
