/**
 * The write side of the sqlite store: group commits of compare-and-swap writes, and compaction.
 * It runs in the writer thread (sqlite-writer-worker.ts), so the event loop never waits for a
 * commit's fsync; everything it returns crosses threads, so outcomes are plain data that
 * sqlite-store.ts turns back into key-values and StorageErrors.
 */
import type Database from 'better-sqlite3';
import { checkRow } from './sqlite-rows.ts';
import type { LogRow, RawRow } from './sqlite-rows.ts';
import { isStorageError } from './types.ts';

export type WriteOp =
  | { readonly kind: 'create'; readonly key: string; readonly value: Uint8Array }
  | { readonly kind: 'update'; readonly key: string; readonly value: Uint8Array; readonly expected: number }
  | { readonly kind: 'delete'; readonly key: string; readonly expected: number | undefined };

/** A stored version, as data. */
export interface VersionData {
  readonly value: Uint8Array;
  readonly createRevision: number;
  readonly modRevision: number;
}

/**
 * The outcome of one write of a batch. A success names the new revision (and, for updates and
 * deletes, the version it replaced: the value a delete leaves is that version's); a failure is a
 * StorageError's code with what rebuilding it needs.
 */
export type WriteOutcome =
  | { readonly ok: true; readonly createRevision: number; readonly modRevision: number; readonly prev?: VersionData }
  | { readonly ok: false; readonly code: 'KeyExists' | 'NotFound' }
  | { readonly ok: false; readonly code: 'Conflict'; readonly current: VersionData }
  | { readonly ok: false; readonly code: 'Corrupt'; readonly message: string };

export class SqliteCommitter {
  private readonly stmt;

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      latest: db.prepare('SELECT * FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1'),
      insert: db.prepare('INSERT INTO kv (name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      compact: db.prepare(
        `DELETE FROM kv WHERE id < @rev AND (deleted = 1 OR EXISTS
           (SELECT 1 FROM kv AS later WHERE later.name = kv.name AND later.id > kv.id AND later.id <= @rev))`,
      ),
      setMeta: db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value'),
    };
  }

  /** Commits a batch in one transaction (one fsync); each write is its own compare-and-swap. Throws when the commit fails. */
  commit(batch: readonly WriteOp[]): WriteOutcome[] {
    return this.db.transaction(() => batch.map((op) => this.applyOne(op)))();
  }

  /** Deletes rows not visible at `revision` or later (superseded versions and tombstones). */
  compact(revision: number): void {
    this.db.transaction(() => {
      this.stmt.compact.run({ rev: revision });
      this.stmt.setMeta.run('compact_rev', revision);
    })();
  }

  private applyOne(op: WriteOp): WriteOutcome {
    let cur: LogRow | undefined;
    try {
      const raw = this.stmt.latest.get(op.key) as RawRow | undefined;
      cur = raw ? checkRow(raw) : undefined;
    } catch (err) {
      if (isStorageError(err)) return { ok: false, code: 'Corrupt', message: err.message };
      throw err;
    }
    const live = cur && !cur.deleted ? cur : undefined;
    if (op.kind === 'create') {
      if (live) return { ok: false, code: 'KeyExists' };
      const id = this.insert(op.key, true, false, 0, cur?.id ?? 0, op.value, null);
      return { ok: true, createRevision: id, modRevision: id };
    }
    if (!live) return { ok: false, code: 'NotFound' };
    const prev: VersionData = { value: live.value, createRevision: live.createRevision, modRevision: live.id };
    if (op.expected !== undefined && live.id !== op.expected) return { ok: false, code: 'Conflict', current: prev };
    const value = op.kind === 'update' ? op.value : live.value;
    const id = this.insert(op.key, false, op.kind === 'delete', live.createRevision, live.id, value, live.value);
    return { ok: true, createRevision: live.createRevision, modRevision: id, prev };
  }

  private insert(key: string, created: boolean, deleted: boolean, createRev: number, prevRev: number, value: Uint8Array, old: Uint8Array | null): number {
    // Values arrive from the other thread as plain Uint8Arrays; the driver binds Buffers as BLOBs.
    const info = this.stmt.insert.run(key, created ? 1 : 0, deleted ? 1 : 0, createRev, prevRev, asBuffer(value), old === null ? null : asBuffer(old));
    return Number(info.lastInsertRowid);
  }
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}
