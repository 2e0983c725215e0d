/**
 * The scale-out store over etcd v3 (via the `etcd3` package). Revisions are etcd's own;
 * writes are transactions comparing createRevision / modRevision; watches carry prevKv and
 * report etcd's progress notifications so watchers learn the revision when their prefix is idle.
 */
import { Etcd3 } from 'etcd3';
import type { IKeyValue, IOptions, IWatchResponse, Watcher } from 'etcd3';
import { Compactor } from './compactor.ts';
import { conflict, keyExists, keyNotFound, tooLarge, tooOld, unavailable } from './errors.ts';
import { listStart, prefixEnd } from './keys.ts';
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

export interface EtcdStoreOptions {
  /** How long a read at a future revision waits before failing with TooLarge (default 3000 ms). */
  readonly tooLargeWaitMs?: number;
  /** History kept before background compaction (default 5 minutes); `false` disables the compactor. */
  readonly historyMs?: number | false;
  /** Compactor period (default historyMs / 5). */
  readonly compactIntervalMs?: number;
  /** Extra options for the etcd3 client (hosts come from `endpoints`). */
  readonly client?: Omit<IOptions, 'hosts'>;
}

const COMPACTED = 'required revision has been compacted';
const FUTURE = 'required revision is a future revision';
// Empty prefixes are never used for resources; this bound only has to sort after every key.
const NO_UPPER_BOUND = Buffer.from([0]);

export class EtcdStore implements Store {
  readonly backend = 'etcd' as const;
  private compacted = 0;
  private closed = false;
  private readonly watchers = new Set<Watcher>();
  private compactor: Compactor | undefined;
  /** Whether etcd answers RequestWatchProgress correctly (see supportsProgressRequests). */
  private progressRequests = false;
  private lastProgressRequest = 0;

  private constructor(
    private readonly client: Etcd3,
    private readonly opts: EtcdStoreOptions,
  ) {}

  /** Connects to etcd and checks that it serves; starts the background compactor unless disabled. */
  static async connect(endpoints: string[], opts: EtcdStoreOptions = {}): Promise<EtcdStore> {
    // No cap on a response's size, as etcd's Go client (MaxCallRecvMsgSize defaults to MaxInt32) that
    // kube-apiserver uses: a full list of one resource (a watch cache's first list) can pass gRPC's
    // default 4 MiB, which would stop the server from starting over such a store.
    const client = new Etcd3({ ...opts.client, hosts: endpoints, grpcOptions: { 'grpc.max_receive_message_length': -1, ...opts.client?.grpcOptions } });
    const store = new EtcdStore(client, opts);
    try {
      await store.healthCheck();
      store.progressRequests = supportsProgressRequests((await client.maintenance.status()).version);
    } catch (err) {
      client.close();
      throw err;
    }
    if (store.progressRequests) broadcastProgressResponses(client);
    if (opts.historyMs !== false) {
      store.compactor = new Compactor({ store, historyMs: opts.historyMs, intervalMs: opts.compactIntervalMs });
      store.compactor.start();
    }
    return store;
  }

  async get(key: string, opts: GetOptions = {}): Promise<KeyValue | null> {
    const res = await this.read(opts.revision, (revision) => this.client.kv.range({ key: Buffer.from(key), revision }));
    const kv = res.kvs[0];
    return kv ? toKv(kv) : null;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const res = await this.read(opts.revision, (revision) =>
      this.client.kv.range({
        key: Buffer.from(listStart(prefix, opts.startKey)),
        range_end: rangeEnd(prefix),
        revision,
        limit,
      }),
    );
    const kvs = res.kvs.map(toKv);
    const revision = opts.revision && opts.revision > 0 ? opts.revision : Number(res.header.revision);
    return { kvs, revision, remaining: Math.max(0, Number(res.count) - kvs.length) };
  }

  async count(prefix: string): Promise<number> {
    const res = await this.call('count', () =>
      this.client.kv.range({ key: Buffer.from(prefix), range_end: rangeEnd(prefix), count_only: true }),
    );
    return Number(res.count);
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    const k = Buffer.from(key);
    const res = await this.call('create', () =>
      this.client.kv.txn({
        compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: k, value: Buffer.from(value) } }],
        failure: [],
      }),
    );
    if (!res.succeeded) throw keyExists(key);
    const rev = Number(res.header.revision);
    return { key, value, createRevision: rev, modRevision: rev };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    const k = Buffer.from(key);
    const res = await this.call('update', () =>
      this.client.kv.txn({
        compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
        success: [{ request_put: { key: k, value: Buffer.from(value), prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!res.succeeded) throw this.failedCompare(key, expectedModRevision, res.responses[0]?.response_range.kvs[0]);
    const prev = res.responses[0]?.response_put.prev_kv;
    const rev = Number(res.header.revision);
    return { key, value, createRevision: prev ? Number(prev.create_revision) : rev, modRevision: rev };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const k = Buffer.from(key);
    const guard =
      expectedModRevision === undefined
        ? { key: k, target: 'Create' as const, result: 'Greater' as const, create_revision: 0 }
        : { key: k, target: 'Mod' as const, result: 'Equal' as const, mod_revision: expectedModRevision };
    const res = await this.call('delete', () =>
      this.client.kv.txn({
        compare: [guard],
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    const rev = Number(res.header.revision);
    const prev = res.succeeded ? res.responses[0]?.response_delete_range.prev_kvs[0] : undefined;
    if (!prev) throw this.failedCompare(key, expectedModRevision ?? 0, res.responses[0]?.response_range?.kvs[0]);
    return { key, value: prev.value, createRevision: Number(prev.create_revision), modRevision: rev };
  }

  /** Watches changes under `prefix` with revision > fromRevision (0: from now); progress comes from etcd's notifications. */
  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle {
    let closed = false;
    let watcher: Watcher | undefined;
    let last = fromRevision;
    const fail = (err: StorageError): void => {
      if (closed) return;
      closed = true;
      if (watcher) void this.detach(watcher);
      listener.onError(err);
    };
    const builder = this.client.watch().inRange({ start: Buffer.from(prefix), end: rangeEnd(prefix) }).withPreviousKV();
    if (fromRevision > 0) builder.startRevision(String(fromRevision + 1));
    const w = builder.watcher();
    watcher = w;
    this.watchers.add(w);
    w.on('data', (res: IWatchResponse) => {
      if (closed) return;
      if (Number(res.compact_revision) > 0) {
        this.noteCompacted(Number(res.compact_revision));
        return fail(tooOld(last, Number(res.compact_revision)));
      }
      if (res.created) return;
      if (res.events.length === 0) {
        listener.onProgress?.(Number(res.header.revision));
        return;
      }
      const events = res.events.map(toEvent);
      last = events[events.length - 1]!.kv.modRevision;
      listener.onEvents(events);
    });
    // The etcd3 client resumes a dropped stream from the last response header, which can skip
    // events of a watcher still catching up; failing lets the caller resume from its own revision.
    w.on('disconnected', (err: Error) => fail(unavailable('watch stream disconnected', err)));
    w.on('error', (err: Error) => {
      // etcd cancels a watch whose start was compacted without a reason; probe to tell which it was.
      void this.classifyWatchFailure(last, err).then(fail);
    });
    return {
      close: () => {
        closed = true;
        void this.detach(w);
      },
    };
  }

  /**
   * Asks etcd for a progress notification on every watch of this client (RequestWatchProgress,
   * as kube-apiserver's cacher does for consistent reads from its cache): each watch then learns
   * the current revision once it delivered everything up to it. False when etcd is too old to
   * answer it correctly (the caller reads from etcd instead). True also when no watch is open.
   */
  requestWatchProgress(): boolean {
    if (!this.progressRequests || this.closed) return false;
    const manager = watchManagerOf(this.client);
    // No stream: no watch to tell (a watch being set up starts from its own revision).
    if (!manager || manager.state !== 2 || !manager.stream) return true;
    // Many consistent reads at once need one request: each response serves every watch of the stream.
    const now = Date.now();
    if (now - this.lastProgressRequest >= 10) {
      this.lastProgressRequest = now;
      manager.stream.write({ progress_request: {} });
    }
    return true;
  }

  async currentRevision(): Promise<number> {
    const res = await this.call('current revision', () =>
      this.client.kv.range({ key: Buffer.from('/'), count_only: true }),
    );
    return Number(res.header.revision);
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** Compacts etcd's history before `revision`; already-compacted revisions are not an error. */
  async compact(revision: number): Promise<void> {
    if (revision <= this.compacted) return;
    try {
      await this.client.kv.compact({ revision, physical: false });
      this.noteCompacted(revision);
    } catch (err) {
      const msg = String((err as Error)?.message);
      if (msg.includes(COMPACTED)) return;
      if (msg.includes(FUTURE)) throw tooLarge(revision, await this.currentRevision());
      throw unavailable('compact', err);
    }
  }

  async healthCheck(): Promise<void> {
    await this.currentRevision();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.compactor?.stop();
    await Promise.all([...this.watchers].map((w) => this.detach(w)));
    this.client.close();
  }

  private async detach(w: Watcher): Promise<void> {
    if (!this.watchers.delete(w)) return;
    await w.cancel().catch(() => undefined);
  }

  private async classifyWatchFailure(from: number, err: Error): Promise<StorageError> {
    if (String(err.message).includes(COMPACTED)) return tooOld(from, this.compacted);
    try {
      await this.client.kv.range({ key: Buffer.from('/'), revision: from + 1, count_only: true });
    } catch (probe) {
      if (String((probe as Error)?.message).includes(COMPACTED)) {
        this.noteCompacted(from + 2);
        return tooOld(from, this.compacted);
      }
    }
    return unavailable('watch', err);
  }

  private failedCompare(key: string, expected: number, current: IKeyValue | undefined): StorageError {
    return current ? conflict(key, expected, toKv(current)) : keyNotFound(key);
  }

  private noteCompacted(revision: number): void {
    this.compacted = Math.max(this.compacted, revision);
  }

  /** Runs a read at `revision` (0: latest); maps compaction to TooOld; waits out future revisions, then TooLarge. */
  private async read<T>(revision: number | undefined, run: (revision: number) => Promise<T>): Promise<T> {
    const rev = revision && revision > 0 ? revision : 0;
    const deadline = Date.now() + (this.opts.tooLargeWaitMs ?? 3000);
    for (;;) {
      try {
        return await run(rev);
      } catch (err) {
        const msg = String((err as Error)?.message);
        if (msg.includes(COMPACTED)) {
          this.noteCompacted(rev + 1);
          throw tooOld(rev, this.compacted);
        }
        if (!msg.includes(FUTURE)) throw unavailable('read', err);
        if (Date.now() >= deadline) throw tooLarge(rev, await this.currentRevision());
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StorageError('Unavailable', 'store is closed');
    try {
      return await run();
    } catch (err) {
      throw err instanceof StorageError ? err : unavailable(what, err);
    }
  }
}

function rangeEnd(prefix: string): Buffer {
  const end = prefixEnd(prefix);
  return end ? Buffer.from(end) : NO_UPPER_BOUND;
}

function toKv(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString(),
    value: kv.value,
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

function toEvent(ev: IWatchResponse['events'][number]): WatchEvent {
  const prevKv = ev.prev_kv ? toKv(ev.prev_kv) : undefined;
  if (ev.type === 'Delete') {
    const kv: KeyValue = {
      key: ev.kv.key.toString(),
      value: prevKv?.value ?? Buffer.alloc(0),
      createRevision: prevKv?.createRevision ?? 0,
      modRevision: Number(ev.kv.mod_revision),
    };
    return prevKv ? { type: 'delete', kv, prevKv } : { type: 'delete', kv };
  }
  const kv = toKv(ev.kv);
  const type = kv.createRevision === kv.modRevision ? 'create' : 'update';
  return prevKv && type === 'update' ? { type, kv, prevKv } : { type, kv };
}

/**
 * etcd answers RequestWatchProgress with a response for watch ID -1 meant for every watch of the
 * stream. Before v3.4.31 and v3.5.13 it could send it while a watch still had events to deliver
 * (etcd issues 15220, 17529), so a reader would believe itself at a revision it had not seen:
 * kube-apiserver enables consistent reads from its cache only from those versions on, and so do we.
 */
export function supportsProgressRequests(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

/** The parts of the etcd3 client's (internal) watch manager that progress requests use. */
interface WatchManagerInternals {
  state: number;
  stream?: { write(req: unknown): void };
  watchers: Array<{ id: string | null; emit(event: string, res: unknown): void }>;
  handleResponse(res: IWatchResponse): void;
}

function watchManagerOf(client: Etcd3): WatchManagerInternals | undefined {
  const m = (client as unknown as { watchManager?: WatchManagerInternals }).watchManager;
  return m && typeof m.handleResponse === 'function' ? m : undefined;
}

/**
 * The etcd3 client looks a response's watch ID up among its watches and throws for -1; the
 * progress response is handed to every attached watch instead (as etcd's Go client does).
 */
function broadcastProgressResponses(client: Etcd3): void {
  const manager = watchManagerOf(client);
  if (!manager) return;
  const handle = manager.handleResponse.bind(manager);
  manager.handleResponse = (res: IWatchResponse) => {
    if (String(res.watch_id) !== '-1') return handle(res);
    for (const w of manager.watchers) if (w.id !== null) w.emit('data', res);
  };
}
