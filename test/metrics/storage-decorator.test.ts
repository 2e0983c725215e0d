/**
 * The storage metrics decorator (src/metrics/storage.ts): each store call is timed when its
 * promise settles, fulfilled or rejected, by kube's operation name and the key's object type; the
 * caller gets the store's own answer and error untouched.
 */
import { expect, test } from 'vitest';
import { instrumentStore, storageTypeIndex } from '../../src/metrics/storage.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

test('times every store call when it settles, and hands back what the store answered', async () => {
  const recorded: string[] = [];
  const store = new MemoryStore();
  const types = storageTypeIndex(() => new Map([['/registry/configmaps/', 'configmaps']]));
  const timed = instrumentStore(store, types, (op, type, seconds) => {
    expect(seconds).toBeGreaterThanOrEqual(0);
    recorded.push(`${op} ${type}`);
  });
  const key = '/registry/configmaps/default/a';
  const created = await timed.create(key, Buffer.from('{"a":1}'));
  expect(created.key).toBe(key);
  expect(recorded).toEqual(['create configmaps']);
  // A call the store refuses: the caller gets the store's error, and the call is timed all the same.
  const again = await timed.create(key, Buffer.from('{"a":2}')).then(() => undefined, (err: unknown) => err);
  const direct = await store.create(key, Buffer.from('{"a":2}')).then(() => undefined, (err: unknown) => err);
  expect(again).toBeInstanceOf(Error);
  expect((again as Error).constructor).toBe((direct as Error).constructor);
  expect((again as Error).message).toBe((direct as Error).message);
  expect(recorded).toEqual(['create configmaps', 'create configmaps']);
  expect((await timed.get(key))?.value.toString()).toBe('{"a":1}');
  expect(await timed.get('/registry/secrets/default/x')).toBeNull();
  expect(recorded.slice(2)).toEqual(['get configmaps', 'get unknown']);
});
