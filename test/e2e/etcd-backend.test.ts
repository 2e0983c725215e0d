/**
 * The gateway on a real etcd (started on loopback by the test): kubectl works, and two gateway
 * replicas on the same etcd serve each other's writes, in lists and in watches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd, type EtcdServer } from '../storage/etcd-server.ts';
import { EtcdStore } from '../../src/storage/etcd-store.ts';
import { collectWatch, startTestServer, writeTemp, type TestServer } from '../server/harness.ts';

let etcd: EtcdServer;
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  etcd = await startEtcd();
  a = await startTestServer({ store: await EtcdStore.connect([etcd.endpoint]) });
  b = await startTestServer({ store: await EtcdStore.connect([etcd.endpoint]) });
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await etcd?.stop();
});

describe('etcd backend', () => {
  it('serves kubectl', async () => {
    expect((await a.kubectl(['create', 'namespace', 'on-etcd'])).code).toBe(0);
    const file = await writeTemp(a.dataDir, 'cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: on-etcd\ndata:\n  k: v\n');
    const applied = await a.kubectl(['apply', '-f', file]);
    expect(applied.code, applied.stderr).toBe(0);
    const got = await a.kubectl(['get', 'cm', 'c', '-n', 'on-etcd', '-o', 'json']);
    expect(JSON.parse(got.stdout).data).toEqual({ k: 'v' });
  });

  it('lets two replicas see each other’s writes, consistently and in watches', async () => {
    const start = (await b.request('GET', '/api/v1/namespaces/on-etcd/configmaps')).json.metadata.resourceVersion;
    const watch = collectWatch(b.server, `/api/v1/namespaces/on-etcd/configmaps?watch=1&resourceVersion=${start}`, (ev) => ev.length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    const created = await a.request('POST', '/api/v1/namespaces/on-etcd/configmaps', { body: { metadata: { name: 'from-a' } } });
    expect(created.status).toBe(201);
    // A consistent read on the other replica sees the write at once.
    const list = await b.request('GET', '/api/v1/namespaces/on-etcd/configmaps');
    expect(list.json.items.map((i: any) => i.metadata.name)).toContain('from-a');
    expect(Number(list.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(created.json.metadata.resourceVersion));
    const { events } = await watch;
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'from-a', resourceVersion: created.json.metadata.resourceVersion } } });
  });
});

describe('etcd without progress notifications', () => {
  it('still answers consistent reads and watches promptly and correctly', async () => {
    const quiet = await startEtcd({ progressNotifyMs: 600_000 });
    const s = await startTestServer({ store: await EtcdStore.connect([quiet.endpoint]) });
    try {
      const c = await s.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'q1' } } });
      expect(c.status).toBe(201);
      // Leases have seen no writes: the cache cannot prove it is fresh, so etcd answers.
      const leases = await s.request('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases');
      expect(leases.status).toBe(200);
      expect(Number(leases.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(c.json.metadata.resourceVersion));
      const got = await s.request('GET', '/api/v1/namespaces/default/configmaps/q1');
      expect(got.json.metadata.uid).toBe(c.json.metadata.uid);
      const { events } = await collectWatch(s.server, '/api/v1/namespaces/default/configmaps?watch=1', (ev) => ev.length >= 1);
      expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'q1' } } });
    } finally {
      await s.close();
      await quiet.stop();
    }
  });
});
