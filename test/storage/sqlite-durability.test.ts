import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/storage/sqlite-store.ts';
import { isStorageError } from '../../src/storage/types.ts';
import type { StorageError, WatchEvent } from '../../src/storage/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const dbPath = (): string => join(dir, `db-${n++}.sqlite`);
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('SqliteStore durability and corruption', () => {
  it('group-commits concurrent writes; a failing compare-and-swap fails only its own write', async () => {
    const store = SqliteStore.open(dbPath(), { historyMs: false });
    const base = await store.create('/registry/g/base', bytes('0'));
    const writes = Array.from({ length: 64 }, (_, i) => store.create(`/registry/g/k${i}`, bytes(String(i))));
    const stale = store.update('/registry/g/base', bytes('stale'), base.modRevision + 999);
    const dup = store.create('/registry/g/k0', bytes('dup'));
    const results = await Promise.allSettled([...writes, stale, dup]);
    const ok = results.slice(0, 64).map((r) => (r.status === 'fulfilled' ? r.value.modRevision : -1));
    expect(ok.every((r) => r > base.modRevision)).toBe(true);
    expect(new Set(ok).size).toBe(64);
    expect(results[64]!.status).toBe('rejected');
    expect(isStorageError((results[64] as PromiseRejectedResult).reason, 'Conflict')).toBe(true);
    expect(isStorageError((results[65] as PromiseRejectedResult).reason, 'KeyExists')).toBe(true);
    expect(await store.count('/registry/g/')).toBe(65);
    await store.close();
    const reopened = SqliteStore.open(join(dir, `db-${n - 1}.sqlite`), { historyMs: false });
    expect(await reopened.currentRevision()).toBe(Math.max(...ok));
    expect(await reopened.count('/registry/g/')).toBe(65);
    await reopened.close();
  });

  it('reports a broken row as Corrupt naming the key, and keeps serving other keys', async () => {
    const path = dbPath();
    const store = SqliteStore.open(path, { historyMs: false });
    const good = await store.create('/registry/c/good', bytes('fine'));
    await store.create('/registry/c/bad', bytes('soon broken'));
    await store.close();
    const raw = new Database(path);
    raw.prepare("UPDATE kv SET value = NULL WHERE name = '/registry/c/bad'").run();
    raw.prepare(
      "INSERT INTO kv (name, created, deleted, create_revision, prev_revision, value, old_value) VALUES ('/registry/c/text', 1, 0, 0, 0, 'garbage text', NULL)",
    ).run();
    raw.close();
    const s = SqliteStore.open(path, { historyMs: false });
    const err = (await s.get('/registry/c/bad').catch((e: unknown) => e)) as StorageError;
    expect(isStorageError(err, 'Corrupt')).toBe(true);
    expect(err.key).toBe('/registry/c/bad');
    const textErr = (await s.get('/registry/c/text').catch((e: unknown) => e)) as StorageError;
    expect(textErr.code).toBe('Corrupt');
    expect(textErr.key).toBe('/registry/c/text');
    const listErr = (await s.list('/registry/c/').catch((e: unknown) => e)) as StorageError;
    expect(listErr.code).toBe('Corrupt');
    const upd = (await s.update('/registry/c/bad', bytes('x'), 2).catch((e: unknown) => e)) as StorageError;
    expect(upd.code).toBe('Corrupt');
    expect(new TextDecoder().decode((await s.get('/registry/c/good'))!.value)).toBe('fine');
    const next = await s.update('/registry/c/good', bytes('still fine'), good.modRevision);
    expect(next.modRevision).toBeGreaterThan(good.modRevision);
    const errors: StorageError[] = [];
    const events: WatchEvent[] = [];
    s.watch('/registry/c/', good.modRevision, { onEvents: (e) => events.push(...e), onError: (e) => errors.push(e) });
    await new Promise((r) => setTimeout(r, 50));
    expect(errors[0]?.code).toBe('Corrupt');
    expect(events).toEqual([]);
    await s.close();
  });

  it('keeps every acknowledged write and no torn one when the writer is killed with SIGKILL', async () => {
    const path = dbPath();
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'crash-writer.ts'), path, '64'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let errText = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (errText += d.toString()));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const deadline = Date.now() + 30_000;
    while (out.split('\n').length < 3000) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`writer did not get going: ${errText}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    await exited;
    const acked = out.split('\n').slice(0, -1).map((line) => line.split(' '));
    expect(acked.length).toBeGreaterThanOrEqual(2999);
    const store = SqliteStore.open(path, { historyMs: false });
    const listed = await store.list('/registry/crash/');
    const byKey = new Map(listed.kvs.map((kv) => [kv.key, kv]));
    for (const [key, rev] of acked) {
      const kv = byKey.get(key!);
      expect(kv, `acknowledged ${key} missing`).toBeDefined();
      expect(kv!.modRevision).toBe(Number(rev));
    }
    for (const kv of listed.kvs) {
      const parsed = JSON.parse(new TextDecoder().decode(kv.value)) as { key: string; filler: string };
      expect(parsed.key).toBe(kv.key);
      expect(parsed.filler.length).toBe(3000);
    }
    expect(listed.kvs.length).toBeGreaterThanOrEqual(acked.length);
    const w = await store.create('/registry/crash/after', bytes('ok'));
    expect(w.modRevision).toBeGreaterThan(listed.revision);
    await store.close();
  }, 60_000);
});

describe('SqliteStore writer thread', () => {
  it('takes over commits when writes come concurrently, keeps compare-and-swap exact, and ends when idle', async () => {
    const store = SqliteStore.open(join(mkdtempSync(join(tmpdir(), 'kgw-writer-')), 'db.sqlite'), { historyMs: false, writerIdleMs: 300 });
    try {
      // Alone, a write commits on the event loop.
      const first = await store.create('/k/solo', Buffer.from('1'));
      expect(store.writerThreadRunning).toBe(false);
      // Concurrently: one batch of many, committed by the writer thread.
      const created = await Promise.all(Array.from({ length: 40 }, (_, i) => store.create(`/k/${i}`, Buffer.from(String(i)))));
      expect(store.writerThreadRunning).toBe(true);
      expect(new Set(created.map((kv) => kv.modRevision)).size).toBe(40);
      expect(Math.min(...created.map((kv) => kv.modRevision))).toBeGreaterThan(first.modRevision);
      // Two updates of one key from the same version: exactly one wins, the other is a Conflict naming the winner.
      const results = await Promise.allSettled([store.update('/k/1', Buffer.from('a'), created[1]!.modRevision), store.update('/k/1', Buffer.from('b'), created[1]!.modRevision)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason.code).toBe('Conflict');
      const winner = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ modRevision: number }>).value;
      expect(rejected.reason.current.modRevision).toBe(winner.modRevision);
      // Deletes carry the deleted value; a create of an existing key is KeyExists.
      const [deleted, exists] = await Promise.allSettled([store.delete('/k/2'), store.create('/k/3', Buffer.from('x'))]);
      expect(deleted.status === 'fulfilled' && Buffer.from(deleted.value.value).toString()).toBe('2');
      expect(exists.status === 'rejected' && exists.reason.code).toBe('KeyExists');
      // Idle: the thread ends; later writes commit here again, in revision order.
      await new Promise((r) => setTimeout(r, 800));
      expect(store.writerThreadRunning).toBe(false);
      const after = await store.create('/k/after', Buffer.from('z'));
      expect(after.modRevision).toBe((await store.currentRevision()));
      expect((await store.list('/k/')).kvs).toHaveLength(41);
    } finally {
      await store.close();
    }
  });

  it('stays off while the server starts: concurrent writes are batched on the event loop', async () => {
    const store = SqliteStore.open(join(mkdtempSync(join(tmpdir(), 'kgw-writer-')), 'db.sqlite'), { historyMs: false, writerIdleMs: 300 });
    try {
      expect(store.fsyncEachCommit).toBe(true);
      store.preferEventLoopCommits(true);
      const created = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create(`/s/${i}`, Buffer.from(String(i)))));
      expect(store.writerThreadRunning).toBe(false);
      // Acceptance order is revision order within the batch.
      expect(created.map((kv) => kv.modRevision)).toEqual(created.map((_, i) => created[0]!.modRevision + i));
      store.preferEventLoopCommits(false);
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.create(`/t/${i}`, Buffer.from(String(i)))));
      expect(store.writerThreadRunning).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('commits the start without an fsync each, and makes it durable when the start ends', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kgw-start-sync-')), 'db.sqlite');
    const store = SqliteStore.open(path, { historyMs: false });
    store.preferEventLoopCommits(true);
    expect(store.fsyncEachCommit).toBe(false);
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.create(`/start/${i}`, Buffer.from(String(i)))));
    store.preferEventLoopCommits(false);
    expect(store.fsyncEachCommit).toBe(true);
    const later = await store.create('/after/0', Buffer.from('x'));
    await store.close();
    const reopened = SqliteStore.open(path, { historyMs: false });
    try {
      expect(await reopened.count('/start/')).toBe(10);
      expect(await reopened.currentRevision()).toBe(later.modRevision);
      expect(reopened.fsyncEachCommit).toBe(true);
    } finally {
      await reopened.close();
    }
  });
});
