/**
 * An object the store cannot decode: reads fail with a 500 naming the key, the process keeps
 * serving, and ignoreStoreReadErrorWithClusterBreakingPotential deletes it (SPEC.md, Object deletion).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { parseFeatureGates } from '../../src/features/index.ts';

let t: TestServer;
let store: MemoryStore;
beforeAll(async () => {
  store = new MemoryStore({ historyMs: false });
  // The unsafe delete is behind an alpha gate, off by default (tested at the end).
  t = await startTestServer({ store, config: { featureGates: parseFeatureGates(['AllowUnsafeMalformedObjectDeletion=true']) } });
  await store.create('/registry/configmaps/default/broken', Buffer.from('{"kind":"ConfigMap", not json'));
});
afterAll(async () => {
  await t?.close();
});

describe('corrupt objects', () => {
  it('fails reads with a 500 naming the key, and keeps serving', async () => {
    const get = await t.request('GET', '/api/v1/namespaces/default/configmaps/broken');
    expect(get.status).toBe(500);
    expect(get.json.message).toContain('StorageError: corrupt object, Code: 7, Key: /registry/configmaps/default/broken');
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(500);
    expect((await t.request('GET', '/api/v1/namespaces/default')).status).toBe(200);
  });

  it('refuses a normal delete and removes it with ignoreStoreReadErrorWithClusterBreakingPotential', async () => {
    const normal = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/broken');
    expect(normal.status).toBe(500);
    const bad = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/broken', { body: { ignoreStoreReadErrorWithClusterBreakingPotential: true, propagationPolicy: 'Background' } });
    expect(bad.status).toBe(422);
    const unsafe = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/broken', { body: { ignoreStoreReadErrorWithClusterBreakingPotential: true } });
    expect(unsafe.status).toBe(200);
    expect(unsafe.json).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps/broken')).status).toBe(404);
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
  });

  it('ignores the unsafe option without the AllowUnsafeMalformedObjectDeletion gate, as kube drops it', async () => {
    const plainStore = new MemoryStore({ historyMs: false });
    const plain = await startTestServer({ store: plainStore });
    try {
      await plainStore.create('/registry/configmaps/default/broken', Buffer.from('{"kind":"ConfigMap", not json'));
      // Not validated either: the conflicting propagationPolicy is no 422.
      const conflicting = await plain.request('DELETE', '/api/v1/namespaces/default/configmaps/broken', { body: { ignoreStoreReadErrorWithClusterBreakingPotential: true, propagationPolicy: 'Background' } });
      expect(conflicting.status).toBe(500);
      const unsafe = await plain.request('DELETE', '/api/v1/namespaces/default/configmaps/broken?ignoreStoreReadErrorWithClusterBreakingPotential=true');
      expect(unsafe.status).toBe(500);
      expect((await plain.request('GET', '/api/v1/namespaces/default/configmaps/broken')).status).toBe(500);
    } finally {
      await plain.close();
    }
  });
});
