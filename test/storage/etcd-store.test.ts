import { afterAll, beforeAll } from 'vitest';
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
