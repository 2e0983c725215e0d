import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdStore } from '../../src/storage/etcd-store.ts';
import { startEtcd } from './etcd-server.ts';
import type { EtcdServer } from './etcd-server.ts';
import { storeContract } from './store-contract.ts';

let etcd: EtcdServer;
beforeAll(async () => {
  etcd = await startEtcd();
}, 30_000);
afterAll(async () => {
  await etcd?.stop();
});

storeContract('etcd', () => EtcdStore.connect([etcd.endpoint], { tooLargeWaitMs: 200, historyMs: false }));

describe('etcd responses', () => {
  it('lists more than gRPC\'s default 4 MiB in one response, as kube-apiserver\'s etcd client does (a watch cache\'s first list)', async () => {
    const store = await EtcdStore.connect([etcd.endpoint], { historyMs: false });
    try {
      const value = Buffer.alloc(900 * 1024, 'x');
      for (let i = 0; i < 6; i++) await store.create(`/registry/big/k${i}`, value);
      const all = await store.list('/registry/big/');
      expect(all.kvs.map((kv) => kv.key)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `/registry/big/k${i}`));
      expect(all.kvs.reduce((n, kv) => n + kv.value.length, 0)).toBe(6 * 900 * 1024);
    } finally {
      await store.close();
    }
  }, 30_000);
});
