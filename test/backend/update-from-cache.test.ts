/**
 * An update's first attempt works from the watch cache's copy of the object (kube's
 * cachedExistingObject) on the embedded stores. What it computes must be what a read of the store
 * would give: a write the cache has not yet heard of is waited for, and the cache's shared copy is
 * never changed by the update path. Both embedded stores, each with its watch cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinResourceTypes, findResourceType } from '../../src/api/builtin.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { ResourceStore, type WriteContext } from '../../src/registry/resource-store.ts';
import { decodeStored, encodeForStorage } from '../../src/registry/stored-object.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { SqliteStore } from '../../src/storage/sqlite-store.ts';
import type { Store } from '../../src/storage/types.ts';
import { WatchCache } from '../../src/storage/watch-cache.ts';

const rt = findResourceType(builtinResourceTypes, '', 'v1', 'configmaps')!;
const dir = mkdtempSync(join(tmpdir(), 'kgw-update-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ctx = (): WriteContext => ({ dryRun: false, warnings: [], now: new Date(), manager: 'test', operation: 'update' });
const UPDATE = { allowCreate: false, subresource: '' };

async function setup(store: Store, hooks: ConstructorParameters<typeof ResourceStore>[3] = {}) {
  const cache = new WatchCache<KubeObject>({ store, prefix: rt.storagePrefix, decode: decodeStored, historyMs: 60_000 });
  await cache.start();
  const rs = new ResourceStore(rt, store, cache, hooks, () => []);
  const created = await rs.create('ns', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { x: '1' } }, { ...ctx(), operation: 'create' });
  await cache.waitUntilFresh();
  return { cache, rs, created, key: `${rt.storagePrefix}ns/cm` };
}

const stores: Array<[string, () => Store]> = [
  ['memory', () => new MemoryStore()],
  ['sqlite', () => SqliteStore.open(join(dir, `${Math.random().toString(36).slice(2)}.db`))],
];

describe.each(stores)('an update from the watch cache (%s store)', (_name, open) => {
  it('sees a write the cache has not heard of yet: a change back to the cached state is written, not taken for a no-op', async () => {
    const store = open();
    const { cache, rs, created, key } = await setup(store);
    const before = Number(created.metadata!.resourceVersion);
    // A write straight to the store; the cache hears of it only at the end of the event loop's turn.
    const direct = await store.update(key, encodeForStorage({ ...created, data: { x: '2' } }), before);
    expect(cache.get(key)!.modRevision).toBe(before);
    // Back to what the cache still shows: against the store's state, that is a change.
    const { object } = await rs.update('ns', 'cm', (cur) => ({ ...cur!, data: { x: '1' } }), ctx(), UPDATE);
    expect(Number(object.metadata!.resourceVersion)).toBeGreaterThan(direct.modRevision);
    expect(decodeStored((await store.get(key))!).data).toEqual({ x: '1' });
    cache.stop();
    await store.close();
  });

  it('leaves the cached object as it was when the update path changes its old object', async () => {
    const store = open();
    // An admission hook that (wrongly) writes to the old object it is shown.
    const hooks = {
      mutate: (_op: string, _obj: unknown, old: KubeObject | null) => {
        if (old) old.metadata = { ...old.metadata, labels: { touched: 'yes' } };
      },
    };
    const { cache, rs, key } = await setup(store, hooks);
    const cachedBefore = structuredClone(cache.get(key)!.value);
    await rs.update('ns', 'cm', (cur) => ({ ...cur!, data: { x: '3' } }), ctx(), UPDATE);
    await expect(rs.update('ns', 'cm', (cur) => ({ ...cur!, data: { 'not a key': 'v' } }), ctx(), UPDATE)).rejects.toMatchObject({ code: 422 });
    await cache.waitUntilFresh();
    // The cache now holds the written object; neither update changed what it held.
    expect(cache.get(key)!.value.metadata?.labels).toBeUndefined();
    expect(cachedBefore.metadata?.labels).toBeUndefined();
    expect(cache.get(key)!.value.data).toEqual({ x: '3' });
    cache.stop();
    await store.close();
  });
});
