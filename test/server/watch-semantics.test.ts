/** Watch semantics of kube's cacher: objects leaving a selector, and bookmark timing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectWatch, startTestServer, type TestServer } from './harness.ts';
import { nextBookmarkAt } from '../../src/server/handlers/watch.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const base = '/api/v1/namespaces/default/configmaps';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

describe('an update that moves an object out of the selector', () => {
  it('is a DELETED event carrying the previous, still matching state at the update revision', async () => {
    const c = await t.request('POST', base, { body: { metadata: { name: 'leaver', labels: { keep: 'yes' } }, data: { v: '1' } } });
    let patchedRv = '';
    const { events } = await collectWatch(
      t.server,
      `${base}?watch=1&resourceVersion=${c.json.metadata.resourceVersion}&labelSelector=keep%3Dyes`,
      (ev) => ev.length >= 1,
      {
        onOpen: () => {
          void t
            .request('PATCH', `${base}/leaver`, { body: { metadata: { labels: { keep: 'no' } }, data: { v: '2' } }, headers: mergePatch })
            .then((r) => (patchedRv = r.json.metadata.resourceVersion));
        },
      },
    );
    expect(events.map((e) => e.type)).toEqual(['DELETED']);
    const obj = events[0]!.object;
    expect(obj.metadata.labels).toEqual({ keep: 'yes' });
    expect(obj.data).toEqual({ v: '1' });
    for (let i = 0; i < 50 && !patchedRv; i++) await new Promise((r) => setTimeout(r, 20));
    expect(obj.metadata.resourceVersion).toBe(patchedRv);
  });

  it('a field-selected watch sees the same', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'fs-leave' } } });
    const listed = await t.request('GET', '/api/v1/namespaces');
    const { events } = await collectWatch(
      t.server,
      `/api/v1/namespaces?watch=1&resourceVersion=${listed.json.metadata.resourceVersion}&fieldSelector=status.phase%3DActive`,
      (ev) => ev.some((e) => e.type === 'DELETED' && e.object.metadata.name === 'fs-leave'),
      { onOpen: () => void t.request('DELETE', '/api/v1/namespaces/fs-leave') },
    );
    const del = events.find((e) => e.type === 'DELETED' && e.object.metadata.name === 'fs-leave')!;
    expect(del.object.status.phase).toBe('Active');
    expect(del.object.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('bookmarks', () => {
  it('come a minute apart, and 2s before the deadline at the latest', () => {
    const now = 1_000_000;
    expect(nextBookmarkAt(now, now + 1800_000)).toBe(now + 60_000);
    expect(nextBookmarkAt(now, now + 30_000)).toBe(now + 28_000);
    // kube's deadline is fixed before the watcher asks, so with timeoutSeconds=2 the pre-deadline
    // moment is already (nanoseconds) past: no bookmark at all (kube-apiserver v1.32.4 sends none).
    expect(nextBookmarkAt(now, now + 2_000)).toBeUndefined();
    expect(nextBookmarkAt(now, now + 2_001)).toBe(now + 1);
    expect(nextBookmarkAt(now, now + 1_000)).toBeUndefined();
  });

  it('a watch with timeoutSeconds gets a bookmark before it ends', async () => {
    const start = (await t.request('GET', base)).json.metadata.resourceVersion;
    const made = await t.request('POST', base, { body: { metadata: { name: 'bm-1' }, data: {} } });
    const { events } = await collectWatch(t.server, `${base}?watch=1&resourceVersion=${start}&allowWatchBookmarks=true&timeoutSeconds=3`, () => false, {
      timeoutMs: 8_000,
    });
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    const bm = events[1]!.object;
    expect(bm.kind).toBe('ConfigMap');
    expect(Number(bm.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(made.json.metadata.resourceVersion));
  });

  it('none when only other kinds changed since the watch began, as kube\'s cacher (its last processed revision is per resource)', async () => {
    const start = (await t.request('GET', base)).json.metadata.resourceVersion;
    const leases = base.replace('/api/v1/', '/apis/coordination.k8s.io/v1/').replace('/configmaps', '/leases');
    expect((await t.request('POST', leases, { body: { metadata: { name: 'bm-other' }, spec: {} } })).status).toBe(201);
    const { events } = await collectWatch(t.server, `${base}?watch=1&resourceVersion=${start}&allowWatchBookmarks=true&timeoutSeconds=3`, () => false, {
      timeoutMs: 8_000,
    });
    expect(events).toEqual([]);
    // A change of the watched resource (here in another namespace) moves it: then the bookmark comes, with that revision.
    const other = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'bm-other-ns' } } });
    expect(other.status).toBe(201);
    const made = await t.request('POST', '/api/v1/namespaces/bm-other-ns/configmaps', { body: { metadata: { name: 'elsewhere' } } });
    const again = await collectWatch(t.server, `${base}?watch=1&resourceVersion=${start}&allowWatchBookmarks=true&timeoutSeconds=3`, () => false, { timeoutMs: 8_000 });
    expect(again.events.map((e) => e.type)).toEqual(['BOOKMARK']);
    expect(again.events[0]!.object.metadata.resourceVersion).toBe(made.json.metadata.resourceVersion);
  });

  it('none when the deadline is closer than 2s', async () => {
    const start = (await t.request('GET', base)).json.metadata.resourceVersion;
    await t.request('POST', base, { body: { metadata: { name: 'bm-2' }, data: {} } });
    const { events } = await collectWatch(t.server, `${base}?watch=1&resourceVersion=${start}&allowWatchBookmarks=true&timeoutSeconds=1`, () => false, {
      timeoutMs: 5_000,
    });
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
  });
});

describe('watch-list', () => {
  it('the initial-events-end bookmark carries the empty list blueprint, base64 of its JSON', async () => {
    const { events } = await collectWatch(
      t.server,
      `${base}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=2`,
      (ev) => ev.some((e) => e.type === 'BOOKMARK'),
    );
    const bm = events.find((e) => e.type === 'BOOKMARK')!;
    expect(Object.keys(bm.object.metadata.annotations)).toEqual(['k8s.io/initial-events-end', 'kubernetes.io/initial-events-list-blueprint']);
    const blueprint = Buffer.from(bm.object.metadata.annotations['kubernetes.io/initial-events-list-blueprint'], 'base64').toString('utf8');
    expect(blueprint).toBe('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":null}\n');
  });
});
