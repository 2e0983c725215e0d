import { describe, expect, it } from 'vitest';
import { Compactor } from '../../src/storage/compactor.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('Compactor', () => {
  it('compacts only revisions older than the history window', async () => {
    const store = new MemoryStore({ historyMs: false });
    let clock = 0;
    const compactor = new Compactor({ store, historyMs: 1000, now: () => clock });
    const a = await store.create('/registry/k/a', bytes('1'));
    expect(await compactor.tick()).toBeUndefined();
    const a2 = await store.update('/registry/k/a', bytes('2'), a.modRevision);
    clock = 600;
    expect(await compactor.tick()).toBeUndefined();
    const a3 = await store.update('/registry/k/a', bytes('3'), a2.modRevision);
    expect(store.compactedRevision()).toBe(0);
    clock = 1000;
    expect(await compactor.tick()).toBe(a.modRevision);
    expect(store.compactedRevision()).toBe(a.modRevision);
    expect(await store.get('/registry/k/a', { revision: a.modRevision })).not.toBeNull();
    clock = 1700;
    expect(await compactor.tick()).toBe(a2.modRevision);
    await expect(store.get('/registry/k/a', { revision: a.modRevision })).rejects.toMatchObject({ code: 'TooOld' });
    expect((await store.get('/registry/k/a', { revision: a2.modRevision }))?.modRevision).toBe(a2.modRevision);
    expect((await store.get('/registry/k/a'))?.modRevision).toBe(a3.modRevision);
    await store.close();
  });
});
