/**
 * The embedded default store: a kine-style revision log in sqlite (WAL, synchronous=FULL).
 * Writes are group-committed, each checked as its own compare-and-swap (sqlite-commit.ts); one
 * batch is committed at a time, so revisions follow acceptance order, and a write is
 * acknowledged, and its watchers fed, only after its commit.
 *
 * Where a commit runs depends on load. Alone, a batch commits here, on the event loop. When
 * writes come concurrently (a batch of two or more), a writer thread (sqlite-writer-worker.ts)
 * takes over the commits so that the event loop no longer waits for each fsync (about 5 ms on
 * this project's machines) and the writes that arrive meanwhile form the next batch; after
 * WRITER_IDLE_MS without writes the thread ends, since it costs about 10 MB of resident memory.
 * Reads always run here (WAL readers never wait for a writer).
 */
import Database from 'better-sqlite3';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { Compactor } from './compactor.ts';
import { conflict, keyExists, keyNotFound, tooLarge, tooOld, unavailable } from './errors.ts';
import { SqliteCommitter, type VersionData, type WriteOp, type WriteOutcome } from './sqlite-commit.ts';
import type { WriterReply, WriterRequest } from './sqlite-writer-worker.ts';
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
  /** How long the writer thread stays without work before it ends (default 10 s). */
  readonly writerIdleMs?: number;
}

interface PendingWrite {
  readonly op: WriteOp;
  readonly resolve: (kv: KeyValue) => void;
  readonly reject: (err: unknown) => void;
}

/** A writer thread with nothing to commit for this long ends (it is started again by the next concurrent writes). */
const WRITER_IDLE_MS = 10_000;

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
  /** Commits on the event loop (when no writer thread runs). */
  private readonly committer: SqliteCommitter;
  private readonly path: string;
  private readonly writerIdleMs: number;
  /** The writer thread while writes come concurrently, and the one request it is working on. */
  private writer: Worker | undefined;
  private writerIdle: NodeJS.Timeout | undefined;
  private inFlight: { readonly id: number; readonly settle: (reply: WriterReply) => void } | undefined;
  private nextRequestId = 1;
  /** Set while the server starts (see Store.preferEventLoopCommits). */
  private eventLoopCommits = false;
  private readonly compactions: Array<{ readonly revision: number; readonly resolve: () => void; readonly reject: (err: unknown) => void }> = [];
  private readonly waiter = new RevisionWaiter();
  private readonly hub = new WatchHub();
  private readonly tooLargeWaitMs: number;
  private readonly compactor: Compactor | undefined;
  private readonly stmt;

  private constructor(db: Database.Database, path: string, opts: SqliteStoreOptions) {
    this.db = db;
    this.path = path;
    this.writerIdleMs = opts.writerIdleMs ?? WRITER_IDLE_MS;
    this.committer = new SqliteCommitter(db);
    this.tooLargeWaitMs = opts.tooLargeWaitMs ?? 3000;
    this.stmt = {
      latest: db.prepare('SELECT * FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1'),
      at: db.prepare('SELECT * FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1'),
      // Each key's latest row at or below the revision, by SQLite's bare columns: with one max() in a
      // group, the other columns (and HAVING) are those of the row holding the max. Walking the
      // (name, id) index in order, the LIMIT stops the scan; the former join grouped the whole rest of
      // the range first, for every page of a paged list (3.3 ms against 1.2 ms a page of 500).
      list: db.prepare(
        `SELECT id, name, created, deleted, create_revision, prev_revision, value, old_value, MAX(id) AS latest
         FROM kv WHERE name >= ? AND name < ? AND id <= ? GROUP BY name HAVING deleted = 0 ORDER BY name LIMIT ?`,
      ),
      countRange: db.prepare(
        `SELECT COUNT(*) AS n FROM (SELECT deleted, MAX(id) FROM kv WHERE name > ? AND name < ? AND id <= ? GROUP BY name HAVING deleted = 0)`,
      ),
      countPrefix: db.prepare(
        `SELECT COUNT(*) AS n FROM kv JOIN (SELECT MAX(id) AS mid FROM kv WHERE name >= ? AND name < ? GROUP BY name) m
         ON kv.id = m.mid WHERE kv.deleted = 0`,
      ),
      since: db.prepare('SELECT * FROM kv WHERE id > ? AND id <= ? AND name >= ? AND name < ? ORDER BY id'),
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
    return new SqliteStore(db, path, opts);
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

  /** Deletes rows not visible at `revision` or later (superseded versions and tombstones), in turn with the commits. */
  async compact(revision: number): Promise<void> {
    this.assertOpen();
    if (revision > this.rev) throw tooLarge(revision, this.rev);
    if (revision <= this.compacted) return;
    await new Promise<void>((resolve, reject) => {
      this.compactions.push({ revision, resolve, reject });
      this.pump();
    });
    this.compacted = Math.max(this.compacted, revision);
  }

  async healthCheck(): Promise<void> {
    this.assertOpen();
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Writes already accepted are committed first.
    while (this.pending.length > 0 || this.inFlight) {
      this.pump();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.closed = true;
    this.compactor?.stop();
    this.waiter.clear();
    this.hub.failAll(new StorageError('Unavailable', 'store is closed'));
    for (const c of this.compactions.splice(0)) c.reject(new StorageError('Unavailable', 'store is closed'));
    await this.stopWriter();
    this.db.close();
  }

  private enqueue(op: WriteOp): Promise<KeyValue> {
    if (this.closed) return Promise.reject(new StorageError('Unavailable', 'store is closed'));
    return new Promise<KeyValue>((resolve, reject) => {
      this.pending.push({ op, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Writes accepted in this tick join the batch; a batch waits while another is committing.
        setImmediate(() => {
          this.flushScheduled = false;
          this.pump();
        });
      }
    });
  }

  /** Commits the next batch (or compaction) when none is in flight: here, or in the writer thread under concurrency. */
  private pump(): void {
    if (this.inFlight) return;
    if (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      if (batch.length > 1 && !this.eventLoopCommits) this.writer ??= this.startWriter();
      const ops = batch.map((w) => w.op);
      if (this.writer) {
        this.send({ id: this.nextRequestId++, kind: 'batch', ops }, (reply) => this.settleBatch(batch, reply));
        return;
      }
      let reply: WriterReply;
      try {
        reply = { id: 0, outcomes: this.committer.commit(ops) };
      } catch (err) {
        reply = { id: 0, error: err instanceof Error ? err.message : String(err) };
      }
      this.settleBatch(batch, reply);
      if (this.pending.length > 0 && !this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          this.pump();
        });
      }
      return;
    }
    const compaction = this.compactions.shift();
    if (!compaction) return;
    const done = (reply: WriterReply) => (reply.error === undefined ? compaction.resolve() : compaction.reject(unavailable('compaction', new Error(reply.error))));
    if (this.writer) {
      this.send({ id: this.nextRequestId++, kind: 'compact', revision: compaction.revision }, done);
      return;
    }
    try {
      this.committer.compact(compaction.revision);
      done({ id: 0 });
    } catch (err) {
      done({ id: 0, error: err instanceof Error ? err.message : String(err) });
    }
  }

  /**
   * The start's writes (default policy, namespaces, ...) commit without an fsync each: nobody can
   * see them before the server listens, and a start cut short writes them again. Turning this off
   * makes them durable at once (one fsync of the log and one of the database file, where the
   * start's commits made about 30) and every later commit fsyncs again.
   */
  preferEventLoopCommits(on: boolean): void {
    if (on === this.eventLoopCommits || this.closed) return;
    this.eventLoopCommits = on;
    if (on) {
      this.db.pragma('synchronous = NORMAL');
      return;
    }
    this.db.pragma('synchronous = FULL');
    for (const file of [`${this.path}-wal`, this.path]) syncFile(file);
  }

  /** Whether each commit on the event loop waits for its fsync (off only while the server starts; for tests). */
  get fsyncEachCommit(): boolean {
    return this.db.pragma('synchronous', { simple: true }) === 2;
  }

  /** Whether commits currently run in the writer thread (for tests and metrics). */
  get writerThreadRunning(): boolean {
    return this.writer !== undefined;
  }

  private startWriter(): Worker {
    const compiled = !import.meta.url.endsWith('.ts');
    const w = new Worker(new URL(compiled ? './sqlite-writer-worker.js' : './sqlite-writer-worker.mjs', import.meta.url), { workerData: { path: this.path } });
    w.on('message', (reply: WriterReply) => this.onWriterReply(reply));
    w.on('error', (err) => this.writerDied(w, unavailable('writer thread', err)));
    w.on('exit', (code) => this.writerDied(w, new StorageError('Unavailable', `storage unavailable: writer thread exited with code ${code}`)));
    w.unref();
    return w;
  }

  private send(req: WriterRequest, settle: (reply: WriterReply) => void): void {
    const writer = this.writer!;
    this.inFlight = { id: req.id, settle };
    clearTimeout(this.writerIdle);
    // Referenced while it works: the process must not exit with a commit under way.
    writer.ref();
    writer.postMessage(req);
  }

  private onWriterReply(reply: WriterReply): void {
    const current = this.inFlight;
    if (!current || current.id !== reply.id) return;
    this.inFlight = undefined;
    this.writer?.unref();
    current.settle(reply);
    this.pump();
    if (!this.inFlight && this.writer) {
      this.writerIdle = setTimeout(() => {
        if (!this.inFlight && this.pending.length === 0) void this.stopWriter();
      }, this.writerIdleMs).unref();
    }
  }

  private async stopWriter(): Promise<void> {
    clearTimeout(this.writerIdle);
    const w = this.writer;
    if (!w || this.inFlight) return;
    this.writer = undefined;
    w.removeAllListeners('exit');
    w.removeAllListeners('error');
    await w.terminate();
  }

  /** Settles each write of a committed (or failed) batch in order, after feeding the watchers. */
  private settleBatch(batch: readonly PendingWrite[], reply: WriterReply): void {
    if (reply.error !== undefined || !reply.outcomes) {
      const failure = unavailable('commit', new Error(reply.error ?? 'no outcome'));
      for (const w of batch) w.reject(failure);
      return;
    }
    const outcomes = reply.outcomes as WriteOutcome[];
    const events: WatchEvent[] = [];
    const settle: Array<() => void> = [];
    outcomes.forEach((o, i) => {
      const w = batch[i]!;
      if (!o.ok) {
        const err = writeError(w.op, o);
        settle.push(() => w.reject(err));
        return;
      }
      const event = writeEvent(w.op, o);
      events.push(event);
      settle.push(() => w.resolve(event.kv));
    });
    if (events.length > 0) {
      this.rev = events[events.length - 1]!.kv.modRevision;
      this.waiter.advance(this.rev);
      this.hub.publish(events, this.rev);
    }
    for (const s of settle) s();
  }

  /**
   * The writer thread died (it should not): the request it had fails as unavailable (it may or
   * may not have committed, as with a lost etcd response), and commits continue on the event loop.
   */
  private writerDied(w: Worker, err: StorageError): void {
    if (this.writer !== w) return;
    this.writer = undefined;
    const current = this.inFlight;
    this.inFlight = undefined;
    current?.settle({ id: current.id, error: err.message });
    this.pump();
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

function kvOf(key: string, v: VersionData): KeyValue {
  return { key, value: Buffer.from(v.value.buffer, v.value.byteOffset, v.value.byteLength), createRevision: v.createRevision, modRevision: v.modRevision };
}

/** The watch event of a committed write. */
function writeEvent(op: WriteOp, o: Extract<WriteOutcome, { ok: true }>): WatchEvent {
  if (op.kind === 'create') return { type: 'create', kv: { key: op.key, value: op.value, createRevision: o.createRevision, modRevision: o.modRevision } };
  const prevKv = kvOf(op.key, o.prev!);
  // A delete's tombstone carries the deleted value, as its row does.
  const value = op.kind === 'update' ? op.value : prevKv.value;
  return { type: op.kind, kv: { key: op.key, value, createRevision: o.createRevision, modRevision: o.modRevision }, prevKv };
}

/** The StorageError of a write the writer refused. */
function writeError(op: WriteOp, o: Extract<WriteOutcome, { ok: false }>): StorageError {
  switch (o.code) {
    case 'KeyExists':
      return keyExists(op.key);
    case 'NotFound':
      return keyNotFound(op.key);
    case 'Conflict':
      return conflict(op.key, op.kind === 'create' ? 0 : (op.expected ?? 0), kvOf(op.key, o.current));
    case 'Corrupt':
      return new StorageError('Corrupt', o.message, op.key);
  }
}

/** fsync of a file that may not exist (no log yet: nothing to make durable). */
function syncFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
