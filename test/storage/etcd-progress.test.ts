/**
 * RequestWatchProgress: on etcd v3.5.17 (as Kubernetes 1.32 ships it) a consistent read is served
 * from the watch cache of an idle prefix, which learns the current revision from a requested
 * progress notification; on Debian's etcd 3.4 (before 3.4.31) the store declines and the cache
 * would wait (the registry then reads from etcd), as kube-apiserver decides by version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdStore, supportsProgressRequests } from '../../src/storage/etcd-store.ts';
import { WatchCache } from '../../src/storage/watch-cache.ts';
import { ETCD_35_BINARY, startEtcd, type EtcdServer } from './etcd-server.ts';

describe('supportsProgressRequests', () => {
  it('follows the etcd versions kube-apiserver trusts for consistent reads from cache', () => {
    expect(supportsProgressRequests('3.5.17')).toBe(true);
    expect(supportsProgressRequests('3.5.13')).toBe(true);
    expect(supportsProgressRequests('3.5.12')).toBe(false);
    expect(supportsProgressRequests('3.4.23')).toBe(false);
    expect(supportsProgressRequests('3.4.31')).toBe(true);
    expect(supportsProgressRequests('3.6.0')).toBe(true);
    expect(supportsProgressRequests('garbage')).toBe(false);
  });
});

// No periodic progress notifications in either server: only requested ones can make the idle cache fresh.
const quiet = { progressNotifyMs: 600_000 };

describe.each([
  { name: 'etcd 3.5.17', binary: ETCD_35_BINARY, fresh: true },
  { name: "Debian's etcd 3.4", binary: '/usr/bin/etcd', fresh: false },
])('consistent reads of an idle prefix on $name', ({ binary, fresh }) => {
  let etcd: EtcdServer;
  let store: EtcdStore;
  beforeAll(async () => {
    etcd = await startEtcd({ ...quiet, binary });
    store = await EtcdStore.connect([etcd.endpoint], { historyMs: false });
  }, 30_000);
  afterAll(async () => {
    await store?.close();
    await etcd?.stop();
  });

  it(fresh ? 'are proven fresh from the cache by a progress request' : 'cannot be proven from the cache', async () => {
    const cache = new WatchCache({ store, prefix: '/registry/idle/', decode: (kv) => kv.key });
    await cache.start();
    try {
      // Writes elsewhere move the store's revision past everything the idle prefix's watch saw.
      for (let i = 0; i < 5; i++) await store.create(`/registry/busy/k${i}`, Buffer.from('{}'));
      const current = await store.currentRevision();
      expect(cache.revision).toBeLessThan(current);
      expect(store.requestWatchProgress()).toBe(fresh);
      if (fresh) {
        expect(await cache.waitUntilFresh(2000)).toBe(current);
        expect(cache.revision).toBeGreaterThanOrEqual(current);
      } else {
        await expect(cache.waitUntilFresh(300)).rejects.toMatchObject({ code: 'TooLarge' });
      }
    } finally {
      cache.stop();
    }
  }, 30_000);
});
