import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectWatch, startTestServer, type TestServer } from './harness.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

let t: TestServer;
let store: MemoryStore;
const base = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  store = new MemoryStore({ historyMs: false });
  // A short history so that the watch cache's window moves past old revisions quickly.
  t = await startTestServer({ store, config: { historyMs: 100 } });
});
afterAll(async () => {
  await t?.close();
});

describe('compacted history', () => {
  it('answers 410 for Exact lists, continue tokens and watches older than the history', async () => {
    for (let i = 0; i < 5; i++) await t.request('POST', base, { body: { metadata: { name: `h${i}` } } });
    const first = await t.request('GET', `${base}?limit=2`);
    const oldRv = first.json.metadata.resourceVersion;
    const token = first.json.metadata.continue;
    await new Promise((r) => setTimeout(r, 300));
    await t.request('POST', base, { body: { metadata: { name: 'h-late' } } });
    await store.compact(await store.currentRevision());

    const exact = await t.request('GET', `${base}?resourceVersion=${oldRv}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
    expect(exact.json.reason).toBe('Expired');

    const cont = await t.request('GET', `${base}?limit=2&continue=${encodeURIComponent(token)}`);
    expect(cont.status).toBe(410);
    expect(cont.json.reason).toBe('Expired');

    const { events, status } = await collectWatch(t.server, `${base}?watch=1&resourceVersion=1`, (ev) => ev.length >= 1);
    expect(status).toBe(200);
    expect(events[0]!.type).toBe('ERROR');
    expect(events[0]!.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(events[0]!.object.message).toContain('too old resource version');
  });

  it('answers 410 for a continue token older than the compacted revision even when nothing under its prefix changed', async () => {
    const ns = '/api/v1/namespaces/kube-public/configmaps';
    for (let i = 0; i < 3; i++) expect((await t.request('POST', ns, { body: { metadata: { name: `u${i}` } } })).status).toBe(201);
    const first = await t.request('GET', `${ns}?limit=1`);
    const token = first.json.metadata.continue;
    // Served while its revision is readable: the next page, in the store's token form (last key + NUL).
    const second = await t.request('GET', `${ns}?limit=1&continue=${encodeURIComponent(token)}`);
    expect(second.status).toBe(200);
    expect(second.json.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(['u1']);
    expect(second.json.metadata.remainingItemCount).toBe(1);
    expect(JSON.parse(Buffer.from(second.json.metadata.continue, 'base64').toString())).toMatchObject({ start: 'u1\u0000' });
    // A write elsewhere moves the revision on; compacting at it leaves the token's revision unreadable.
    await t.request('POST', base, { body: { metadata: { name: 'elsewhere' } } });
    await store.compact(await store.currentRevision());
    const cont = await t.request('GET', `${ns}?limit=1&continue=${encodeURIComponent(token)}`);
    expect(cont.status).toBe(410);
    expect(cont.json.reason).toBe('Expired');
  });
});

