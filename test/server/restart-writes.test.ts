/**
 * Issue 19: a start on a data dir where nothing changed since the last start only reads the
 * defaults it reconciles (RBAC policy, system namespaces, APF bootstrap objects, automanaged
 * APIServices, the kubernetes Service): it writes nothing to the store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startApiServer } from '../../src/server/api-server.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import type { Store } from '../../src/storage/types.ts';
import { testServerConfig } from './harness.ts';

/** The store of both starts: every write is recorded by key; closing it is left to the test. */
function recordingStore(inner: MemoryStore): { store: Store; written: string[] } {
  const written: string[] = [];
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'close') return () => Promise.resolve();
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'create' || prop === 'update' || prop === 'delete') {
        return (key: string, ...rest: unknown[]) => {
          written.push(`${String(prop)} ${key}`);
          return (value as (...a: unknown[]) => unknown).call(target, key, ...rest);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { store, written };
}

/**
 * Waits until the controllers that follow the bootstrap (APF status, clusterrole aggregation) are
 * quiet: no write for QUIET_MS. A write they still make after the second start fails the test.
 */
const QUIET_MS = 500;
async function quiet(written: readonly string[]): Promise<void> {
  for (let seen = -1; seen !== written.length; ) {
    seen = written.length;
    await new Promise((r) => setTimeout(r, QUIET_MS));
  }
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

test('a second start on the same data dir writes nothing', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'kgw-restart-'));
  dirs.push(dataDir);
  const inner = new MemoryStore({ historyMs: false });
  const { store, written } = recordingStore(inner);
  // The identity controllers too: their defaults (ServiceAccounts, kube-root-ca.crt) are reconciled at every start.
  const config = testServerConfig(dataDir, { identityControllers: true });
  const first = await startApiServer({ config, store });
  await first.waitForPostStartHooks();
  await quiet(written);
  await first.shutdown();
  // The first start created the defaults.
  expect(written.length).toBeGreaterThan(100);
  written.length = 0;
  const revision = await inner.currentRevision();

  const second = await startApiServer({ config, store });
  try {
    await second.waitForPostStartHooks();
    await quiet(written);
    expect(written).toEqual([]);
    expect(await inner.currentRevision()).toBe(revision);
  } finally {
    await second.shutdown();
    await inner.close();
  }
});
