import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectWatch, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
const ns = 'lw';
const base = `/api/v1/namespaces/${ns}/configmaps`;

beforeAll(async () => {
  t = await startTestServer();
  await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
  for (let i = 0; i < 10; i++) {
    const r = await t.request('POST', base, {
      body: { metadata: { name: `cm-${i}`, labels: { idx: String(i), parity: i % 2 ? 'odd' : 'even' } }, data: { i: String(i) } },
    });
    expect(r.status).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
});

describe('list', () => {
  it('lists in name order with a list resourceVersion', async () => {
    const r = await t.request('GET', base);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('ConfigMapList');
    expect(r.json.apiVersion).toBe('v1');
    expect(r.json.items.map((i: any) => i.metadata.name)).toEqual([...Array(10).keys()].map((i) => `cm-${i}`));
    expect(r.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.json.metadata.continue).toBeUndefined();
    expect(r.json.metadata.remainingItemCount).toBeUndefined();
    expect(r.json.items[0].kind).toBeUndefined();
    expect(r.json.items[0].apiVersion).toBeUndefined();
    expect(r.json.items[0].metadata.name).toBe('cm-0');
  });

  it('pages with limit and continue over one snapshot, with remainingItemCount', async () => {
    const first = await t.request('GET', `${base}?limit=4`);
    expect(first.json.items).toHaveLength(4);
    expect(first.json.metadata.remainingItemCount).toBe(6);
    const rv = first.json.metadata.resourceVersion;
    // A change after the snapshot must not show in later pages.
    await t.request('DELETE', `${base}/cm-9`);
    const names: string[] = first.json.items.map((i: any) => i.metadata.name);
    let token = first.json.metadata.continue;
    while (token) {
      const page = await t.request('GET', `${base}?limit=4&continue=${encodeURIComponent(token)}`);
      expect(page.status).toBe(200);
      expect(page.json.metadata.resourceVersion).toBe(rv);
      names.push(...page.json.items.map((i: any) => i.metadata.name));
      token = page.json.metadata.continue;
    }
    expect(names).toEqual([...Array(10).keys()].map((i) => `cm-${i}`));
    await t.request('POST', base, { body: { metadata: { name: 'cm-9', labels: { idx: '9', parity: 'odd' } }, data: { i: '9' } } });
  });

  it('pages an unchanged snapshot (served from the cache) with the same results', async () => {
    const names: string[] = [];
    let token = '';
    let rv = '';
    let pages = 0;
    do {
      const page = await t.request('GET', `${base}?limit=3&labelSelector=parity%3Dodd${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      expect(page.status).toBe(200);
      if (rv) expect(page.json.metadata.resourceVersion).toBe(rv);
      rv = page.json.metadata.resourceVersion;
      names.push(...page.json.items.map((i: any) => i.metadata.name));
      token = page.json.metadata.continue ?? '';
      pages++;
    } while (token);
    expect(names).toEqual(['cm-1', 'cm-3', 'cm-5', 'cm-7', 'cm-9']);
    expect(pages).toBe(2);
  });

  it('omits remainingItemCount under selectors', async () => {
    const r = await t.request('GET', `${base}?limit=2&labelSelector=parity%3Deven`);
    expect(r.json.items.map((i: any) => i.metadata.labels.parity)).toEqual(['even', 'even']);
    expect(r.json.metadata.continue).toBeTruthy();
    expect(r.json.metadata.remainingItemCount).toBeUndefined();
  });

  it('filters by label selectors of every operator', async () => {
    const names = async (sel: string) =>
      (await t.request('GET', `${base}?labelSelector=${encodeURIComponent(sel)}`)).json.items.map((i: any) => i.metadata.name);
    expect(await names('idx=1')).toEqual(['cm-1']);
    expect(await names('idx==1')).toEqual(['cm-1']);
    expect((await names('idx!=1')).length).toBe(9);
    expect(await names('idx in (2,3)')).toEqual(['cm-2', 'cm-3']);
    expect((await names('idx notin (2,3)')).length).toBe(8);
    expect((await names('parity')).length).toBe(10);
    expect(await names('!parity')).toEqual([]);
  });

  it('filters by field selectors and rejects unknown fields with 400', async () => {
    const r = await t.request('GET', `${base}?fieldSelector=metadata.name%3Dcm-3`);
    expect(r.json.items.map((i: any) => i.metadata.name)).toEqual(['cm-3']);
    const all = await t.request('GET', `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${ns}`);
    expect(all.json.items).toHaveLength(10);
    const bad = await t.request('GET', `${base}?fieldSelector=spec.nope%3Dx`);
    expect(bad.status).toBe(400);
    expect(bad.json.kind).toBe('Status');
  });

  it('supports the Secret type field selector', async () => {
    await t.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 'tls1' }, type: 'example.com/custom', data: {} } });
    const r = await t.request('GET', `/api/v1/namespaces/${ns}/secrets?fieldSelector=type%3Dexample.com%2Fcustom`);
    expect(r.json.items.map((i: any) => i.metadata.name)).toEqual(['tls1']);
  });

  it('resolves resourceVersion and resourceVersionMatch as SPEC.md tables', async () => {
    const latest = await t.request('GET', base);
    const rv = latest.json.metadata.resourceVersion;
    const any = await t.request('GET', `${base}?resourceVersion=0`);
    expect(any.status).toBe(200);
    const exact = await t.request('GET', `${base}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(200);
    expect(exact.json.metadata.resourceVersion).toBe(rv);
    const not = await t.request('GET', `${base}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    expect(Number(not.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv));
    // Invalid combinations.
    expect((await t.request('GET', `${base}?resourceVersionMatch=Exact`)).status).toBe(422);
    expect((await t.request('GET', `${base}?resourceVersion=0&resourceVersionMatch=Exact`)).status).toBe(422);
    expect((await t.request('GET', `${base}?resourceVersion=1&resourceVersionMatch=Bogus`)).status).toBe(422);
    const first = await t.request('GET', `${base}?limit=2`);
    const cont = encodeURIComponent(first.json.metadata.continue);
    const withRv = await t.request('GET', `${base}?limit=2&continue=${cont}&resourceVersion=5`);
    expect(withRv.status).toBe(400);
    const withZero = await t.request('GET', `${base}?limit=2&continue=${cont}&resourceVersion=0`);
    expect(withZero.status).toBe(200);
    expect(withZero.json.items).toHaveLength(2);
    // kube's watch cache serves resourceVersion=0 and does not page: limit is ignored.
    const zeroLimited = await t.request('GET', `${base}?limit=2&resourceVersion=0`);
    expect(zeroLimited.json.items.length).toBe(latest.json.items.length);
    expect(latest.json.items.length).toBeGreaterThan(2);
    expect(zeroLimited.json.metadata.continue).toBeUndefined();
  });

  it('a resourceVersion ahead of the store is 504 Too large resource version with Retry-After', async () => {
    const r = await t.request('GET', `${base}?resourceVersion=99999999&resourceVersionMatch=NotOlderThan`);
    expect(r.status).toBe(504);
    // kube's NewTimeoutError prefixes the storage error (kube-apiserver v1.32.4).
    expect(r.json.message).toMatch(/^Timeout: Too large resource version: 99999999, current: \d+$/);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.json.details.causes[0].reason).toBe('ResourceVersionTooLarge');
  });

  it('a garbage continue token is 400', async () => {
    const r = await t.request('GET', `${base}?limit=2&continue=garbage`);
    expect(r.status).toBe(400);
  });
});

describe('watch', () => {
  it('streams ADDED, MODIFIED and DELETED from a resourceVersion', async () => {
    const start = (await t.request('GET', base)).json.metadata.resourceVersion;
    const w = collectWatch(t.server, `${base}?watch=1&resourceVersion=${start}`, (ev) => ev.length >= 3, {
      onOpen: () => {
        void (async () => {
          await t.request('POST', base, { body: { metadata: { name: 'w1' }, data: { v: '1' } } });
          await t.request('PATCH', `${base}/w1`, { body: { data: { v: '2' } }, headers: { 'content-type': 'application/merge-patch+json' } });
          await t.request('DELETE', `${base}/w1`);
        })();
      },
    });
    const { status, events } = await w;
    expect(status).toBe(200);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[1]!.object.data.v).toBe('2');
    expect(events.every((e) => e.object.metadata.name === 'w1')).toBe(true);
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!).toBe(true);
    expect(events[0]!.object.kind).toBe('ConfigMap');
  });

  it('without a resourceVersion starts with synthetic ADDED events for existing objects', async () => {
    const { events } = await collectWatch(t.server, `${base}?watch=1&labelSelector=parity%3Dodd`, (ev) => ev.length >= 5);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED', 'ADDED', 'ADDED']);
  });

  it('sendInitialEvents ends the initial events with an annotated BOOKMARK', async () => {
    const { events } = await collectWatch(
      t.server,
      `${base}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=idx%3D1`,
      (ev) => ev.some((e) => e.type === 'BOOKMARK'),
    );
    expect(events[0]!.type).toBe('ADDED');
    const bm = events.find((e) => e.type === 'BOOKMARK')!;
    expect(bm.object.metadata.annotations['k8s.io/initial-events-end']).toBe('true');
    expect(bm.object.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('sendInitialEvents without resourceVersionMatch is rejected', async () => {
    const r = await t.request('GET', `${base}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true`);
    expect(r.status).toBe(422);
  });

  it('a label-selected watch sees an object leave the selection as DELETED', async () => {
    const start = (await t.request('GET', base)).json.metadata.resourceVersion;
    await t.request('POST', base, { body: { metadata: { name: 'sel', labels: { keep: 'yes' } } } });
    const { events } = await collectWatch(t.server, `${base}?watch=1&resourceVersion=${start}&labelSelector=keep%3Dyes`, (ev) => ev.length >= 2, {
      onOpen: () => {
        void t.request('PATCH', `${base}/sel`, { body: { metadata: { labels: { keep: 'no' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
      },
    });
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
  });

  it('ends the stream after timeoutSeconds', async () => {
    const { events, status } = await collectWatch(t.server, `${base}?watch=1&resourceVersion=0&timeoutSeconds=1&labelSelector=idx%3D2`, () => false, { timeoutMs: 5000 });
    expect(status).toBe(200);
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
  });

  it('answers ?watch=true on a single object with a plain GET, as kube\'s get handler ignores it', async () => {
    const r = await t.request('GET', `${base}/cm-4?watch=true`);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('ConfigMap');
    expect(r.json.metadata.name).toBe('cm-4');
  });

  it('watches a single object by name', async () => {
    const start = (await t.request('GET', base)).json.metadata.resourceVersion;
    const { events } = await collectWatch(t.server, `/api/v1/watch/namespaces/${ns}/configmaps/cm-4?resourceVersion=${start}`, (ev) => ev.length >= 1, {
      onOpen: () => {
        void (async () => {
          await t.request('PATCH', `${base}/cm-5`, { body: { data: { x: '1' } }, headers: { 'content-type': 'application/merge-patch+json' } });
          await t.request('PATCH', `${base}/cm-4`, { body: { data: { x: '1' } }, headers: { 'content-type': 'application/merge-patch+json' } });
        })();
      },
    });
    expect(events[0]!.object.metadata.name).toBe('cm-4');
  });
});
