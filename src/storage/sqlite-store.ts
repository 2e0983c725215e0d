/**
 * The embedded default store: a kine-style revision log in sqlite (WAL, synchronous=FULL).
 * Writes arriving in the same tick are group-committed in one transaction (one fsync), each
 * checked as its own compare-and-swap; watchers are fed in-process from committed batches.
 */
import Database from 'better-sqlite3';
import { Compactor } from './compactor.ts';
import { conflict, keyExists, keyNotFound, tooLarge, tooOld, unavailable } from './errors.ts';
import { listStart, prefixEnd } from './keys.ts';
import { RevisionWaiter } from './revision-waiter.ts';
import { SCHEMA, checkRow, rowEvent, rowKv } from './sqlite-rows.ts';
import type { RawRow } from './sqlite-rows.ts';
import { StorageError } from './types.ts';
import type {
  GetOptions,
  KeyValue,
  ListOptions,
  ListResult,
  Store,
  WatchEvent,
  WatchHandle,
  WatchListener,
} from './types.ts';
import { WatchHub } from './watch-hub.ts';

export interface SqliteStoreOptions {
  /** How long a read at a future revision waits before failing with TooLarge (default 3000 ms). */
  readonly tooLargeWaitMs?: number;
  /** History kept before background compaction (default 5 minutes); `false` disables the compactor. */
  readonly historyMs?: number | false;
  /** Compactor period (default historyMs / 5). */
  readonly compactIntervalMs?: number;
}

type WriteOp =
  | { readonly kind: 'create'; readonly key: string; readonly value: Buffer }
  | { readonly kind: 'update'; readonly key: string; readonly value: Buffer; readonly expected: number }
  | { readonly kind: 'delete'; readonly key: string; readonly expected: number | undefined };

interface PendingWrite {
  readonly op: WriteOp;
  readonly resolve: (kv: KeyValue) => void;
  readonly reject: (err: unknown) => void;
}

type WriteOutcome = { readonly ok: true; readonly event: WatchEvent } | { readonly ok: false; readonly error: unknown };

// Keys are ASCII paths; the upper bound for an empty prefix only has to sort after all of them.
const NO_UPPER_BOUND = '\u{10FFFF}';

export class SqliteStore implements Store {
  readonly backend = 'sqlite' as const;
  private readonly db: Database.Database;
  private rev: number;
  private compacted: number;
  private closed = false;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private readonly waiter = new RevisionWaiter();
  private readonly hub = new WatchHub();
  private readonly tooLargeWaitMs: number;
  private readonly compactor: Compactor | undefined;
  private readonly stmt;

  private constructor(db: Database.Database, opts: SqliteStoreOptions) {
    this.db = db;
    this.tooLargeWaitMs = opts.tooLargeWaitMs ?? 3000;
    this.stmt = {
      latest: db.prepare('SELECT * FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1'),
      at: db.prepare('SELECT * FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1'),
      insert: db.prepare(
        'INSERT INTO kv (name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      list: db.prepare(
        `SELECT kv.* FROM kv JOIN (SELECT MAX(id) AS mid FROM kv WHERE name >= ? AND name < ? AND id <= ? GROUP BY name) m
         ON kv.id = m.mid WHERE kv.deleted = 0 ORDER BY kv.name LIMIT ?`,
      ),
      countRange: db.prepare(
        `SELECT COUNT(*) AS n FROM kv JOIN (SELECT MAX(id) AS mid FROM kv WHERE name > ? AND name < ? AND id <= ? GROUP BY name) m
         ON kv.id = m.mid WHERE kv.deleted = 0`,
      ),
      countPrefix: db.prepare(
        `SELECT COUNT(*) AS n FROM kv JOIN (SELECT MAX(id) AS mid FROM kv WHERE name >= ? AND name < ? GROUP BY name) m
         ON kv.id = m.mid WHERE kv.deleted = 0`,
      ),
      since: db.prepare('SELECT * FROM kv WHERE id > ? AND id <= ? AND name >= ? AND name < ? ORDER BY id'),
      compact: db.prepare(
        `DELETE FROM kv WHERE id < @rev AND (deleted = 1 OR EXISTS
           (SELECT 1 FROM kv AS later WHERE later.name = kv.name AND later.id > kv.id AND later.id <= @rev))`,
      ),
      setMeta: db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value'),
    };
    const seq = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'kv'").get() as { seq: number } | undefined;
    this.rev = seq?.seq ?? 0;
    const meta = db.prepare("SELECT value FROM meta WHERE name = 'compact_rev'").get() as { value: number } | undefined;
    this.compacted = meta?.value ?? 0;
    this.waiter.advance(this.rev);
    if (opts.historyMs !== false) {
      this.compactor = new Compactor({ store: this, historyMs: opts.historyMs, intervalMs: opts.compactIntervalMs });
      this.compactor.start();
    }
  }

  /** Opens (creating if needed) the store file at `path`. */
  static open(path: string, opts: SqliteStoreOptions = {}): SqliteStore {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
    return new SqliteStore(db, opts);
  }

  async get(key: string, opts: GetOptions = {}): Promise<KeyValue | null> {
    const at = await this.readRevision(opts.revision);
    const raw = (at === this.rev ? this.stmt.latest.get(key) : this.stmt.at.get(key, at)) as RawRow | undefined;
    if (!raw) return null;
    const row = checkRow(raw);
    return row.deleted ? null : rowKv(row);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const at = await this.readRevision(opts.revision);
    const end = prefixEnd(prefix) || NO_UPPER_BOUND;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
    const rows = this.stmt.list.all(listStart(prefix, opts.startKey), end, at, limit) as RawRow[];
    const kvs = rows.map((r) => rowKv(checkRow(r)));
    let remaining = 0;
    if (limit > 0 && kvs.length === limit) {
      remaining = (this.stmt.countRange.get(kvs[kvs.length - 1]!.key, end, at) as { n: number }).n;
    }
    return { kvs, revision: at, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    return (this.stmt.countPrefix.get(prefix, prefixEnd(prefix) || NO_UPPER_BOUND) as { n: number }).n;
  }

  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return this.enqueue({ kind: 'create', key, value: Buffer.from(value) });
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    return this.enqueue({ kind: 'update', key, value: Buffer.from(value), expected: expectedModRevision });
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.enqueue({ kind: 'delete', key, expected: expectedModRevision });
  }

  /** Watches changes under `prefix` with revision > fromRevision; fromRevision 0 means "from now". */
  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle {
    if (this.closed) return this.hub.fail(listener, new StorageError('Unavailable', 'store is closed'));
    const from = fromRevision > 0 ? fromRevision : this.rev;
    if (from < this.compacted - 1) return this.hub.fail(listener, tooOld(from, this.compacted));
    let backlog: WatchEvent[] = [];
    if (from < this.rev) {
      try {
        const raws = this.stmt.since.all(from, this.rev, prefix, prefixEnd(prefix) || NO_UPPER_BOUND) as RawRow[];
        backlog = raws.map((r) => rowEvent(checkRow(r)));
      } catch (err) {
        return this.hub.fail(listener, asStorageError(err, 'watch catch-up'));
      }
    }
    // Backlog read and registration happen in one synchronous step, so no commit falls between them.
    return this.hub.add(prefix, listener, backlog, this.rev);
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    return this.rev;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** Deletes rows not visible at `revision` or later (superseded versions and tombstones). */
  async compact(revision: number): Promise<void> {
    this.assertOpen();
    if (revision > this.rev) throw tooLarge(revision, this.rev);
    if (revision <= this.compacted) return;
    this.db.transaction(() => {
      this.stmt.compact.run({ rev: revision });
      this.stmt.setMeta.run('compact_rev', revision);
    })();
    this.compacted = revision;
  }

  async healthCheck(): Promise<void> {
    this.assertOpen();
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.compactor?.stop();
    this.waiter.clear();
    this.hub.failAll(new StorageError('Unavailable', 'store is closed'));
    this.db.close();
  }

  private enqueue(op: WriteOp): Promise<KeyValue> {
    if (this.closed) return Promise.reject(new StorageError('Unavailable', 'store is closed'));
    return new Promise<KeyValue>((resolve, reject) => {
      this.pending.push({ op, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits every queued write in one transaction, then settles each write and feeds the watchers. */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let outcomes: WriteOutcome[];
    try {
      outcomes = this.db.transaction(() => batch.map((w) => this.applyOne(w.op)))();
    } catch (err) {
      const failure = asStorageError(err, 'commit');
      for (const w of batch) w.reject(failure);
      return;
    }
    const events: WatchEvent[] = [];
    for (const o of outcomes) if (o.ok) events.push(o.event);
    if (events.length > 0) {
      this.rev = events[events.length - 1]!.kv.modRevision;
      this.waiter.advance(this.rev);
      this.hub.publish(events, this.rev);
    }
    outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.event.kv) : batch[i]!.reject(o.error)));
  }

  /** One compare-and-swap inside the batch transaction; a failed check fails only this write. */
  private applyOne(op: WriteOp): WriteOutcome {
    try {
      const raw = this.stmt.latest.get(op.key) as RawRow | undefined;
      const cur = raw ? checkRow(raw) : undefined;
      const live = cur && !cur.deleted ? cur : undefined;
      if (op.kind === 'create') {
        if (live) return { ok: false, error: keyExists(op.key) };
        const id = this.insert(op.key, true, false, 0, cur?.id ?? 0, op.value, null);
        return { ok: true, event: { type: 'create', kv: { key: op.key, value: op.value, createRevision: id, modRevision: id } } };
      }
      if (!live) return { ok: false, error: keyNotFound(op.key) };
      if (op.expected !== undefined && live.id !== op.expected) {
        return { ok: false, error: conflict(op.key, op.expected, rowKv(live)) };
      }
      const prevKv = rowKv(live);
      const value = op.kind === 'update' ? op.value : live.value;
      const id = this.insert(op.key, false, op.kind === 'delete', live.createRevision, live.id, value, live.value);
      const kv = { key: op.key, value, createRevision: live.createRevision, modRevision: id };
      return { ok: true, event: { type: op.kind, kv, prevKv } };
    } catch (err) {
      if (err instanceof StorageError) return { ok: false, error: err };
      throw err;
    }
  }

  private insert(key: string, created: boolean, deleted: boolean, createRev: number, prevRev: number, value: Buffer, old: Buffer | null): number {
    const info = this.stmt.insert.run(key, created ? 1 : 0, deleted ? 1 : 0, createRev, prevRev, value, old);
    return Number(info.lastInsertRowid);
  }

  /** The revision a read runs at: latest for 0/absent; TooOld below compaction; waits, then TooLarge, above. */
  private async readRevision(revision: number | undefined): Promise<number> {
    this.assertOpen();
    if (!revision || revision <= 0) return this.rev;
    if (revision < this.compacted) throw tooOld(revision, this.compacted);
    if (revision > this.rev) await this.waiter.wait(revision, this.tooLargeWaitMs);
    this.assertOpen();
    return revision;
  }

  private assertOpen(): void {
    if (this.closed) throw new StorageError('Unavailable', 'store is closed');
  }
}

function asStorageError(err: unknown, what: string): StorageError {
  return err instanceof StorageError ? err : unavailable(what, err);
}

