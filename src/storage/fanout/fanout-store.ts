/**
 * Redis Streams watch fanout (DESIGN.md "Deployment shapes", scale-out): a Store that is the
 * given store (etcd) for every read and write, but serves watch() from Redis streams that one
 * elected pump per prefix fills from the store's change feed (pump.ts). So N replicas cost etcd
 * one watch per prefix, not N.
 *
 * A watch is at one revision (the last it delivered) and in one of two modes:
 * - redis: read from the prefix's stream after that revision (one blocking XREAD per replica
 *   covers every stream); after each read the stream's start is checked again, so a trim or a
 *   rewrite that overtook the reader is noticed before anything is delivered;
 * - direct: a watch on the store itself from that revision: while Redis is unreachable, or when
 *   the stream does not (yet) reach back to the watch's revision; it then records the revision
 *   it needs, and the pump rewinds the stream to it.
 * A watch moves between the modes only at its last delivered revision, so the events it delivers
 * stay in revision order with no gap and no duplicate across a switch.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { GetOptions, KeyValue, ListOptions, ListResult, Store, StorageError, WatchEvent, WatchHandle, WatchListener } from '../types.ts';
import { afterRevision, decodeEntry, streamKeys, type StreamKeys } from './stream-codec.ts';
import { asNumber, openRedis, redact, subscribeRedis, type RedisLink, type Reply } from './redis-link.ts';
import { Pump } from './pump.ts';
import { FanoutStats } from './fanout-stats.ts';

export interface FanoutOptions {
  /** redis://host:port[/db] */
  readonly url: string;
  /** Key namespace in Redis (default `kube-gateway`); replicas of one cluster share it. */
  readonly namespace?: string;
  /** This replica's name in pump leases (default hostname_uuid, as kube's leader election); also its Lease holder identity. */
  readonly identity?: string;
  /** Stream retention (the store's history duration). */
  readonly historyMs: number;
  /** Byte budget of each stream (default 64 MiB). */
  readonly maxBytes?: number;
  /** Pump lease duration (default 3000 ms); the holder renews it every third of it. */
  readonly leaseMs?: number;
  readonly log?: (level: 'info' | 'warn', msg: string) => void;
}

const SET_WANT = `
local w = redis.call('GET', KEYS[1])
if not w or tonumber(w) > tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1`;
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

class FanoutWatch {
  // Direct until it joins its stream (at first without a store watch, while its start revision is looked up).
  mode: 'redis' | 'direct' = 'direct';
  direct: WatchHandle | undefined;
  closed = false;
  constructor(
    readonly prefix: string,
    readonly keys: StreamKeys,
    /** The last revision delivered (events or progress). */
    public delivered: number,
    readonly listener: WatchListener,
  ) {}
}

export class FanoutStore implements Store {
  readonly backend: Store['backend'];
  readonly identity: string;
  private readonly ns: string;
  private readonly leaseMs: number;
  private readonly watches = new Set<FanoutWatch>();
  /** Prefixes this replica competes for, with the pump when it holds the lease. */
  private readonly prefixes = new Map<string, { keys: StreamKeys; pump?: Pump; busy: boolean }>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private redisUp = true;
  private downReason = '';
  private reading: Promise<void> | undefined;
  private blocked = false;
  private readonly log: (level: 'info' | 'warn', msg: string) => void;
  private readonly progressChannel: string;
  private lastProgressPublish = 0;
  private readonly subscriber: { close(): void };
  /** Hop-by-hop counts and latencies, when the environment asks for them (fanout-stats.ts). */
  private readonly stats = FanoutStats.fromEnv();
  private readonly statsTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly inner: Store,
    private readonly cmd: RedisLink,
    private readonly reader: RedisLink,
    private readonly o: FanoutOptions,
  ) {
    this.backend = inner.backend;
    this.ns = o.namespace ?? 'kube-gateway';
    this.identity = o.identity ?? `${hostname()}_${randomUUID()}`;
    this.leaseMs = o.leaseMs ?? 3000;
    this.log = o.log ?? ((level, msg) => process.stderr.write(`${JSON.stringify({ level, msg })}\n`));
    this.timer = setInterval(() => this.tick(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
    if (this.stats) {
      this.statsTimer = setInterval(() => this.log('info', `watch fanout stats ${JSON.stringify(this.stats!.take())}`), FanoutStats.periodMs());
      this.statsTimer.unref();
    }
    // Progress requests of any replica reach the pumps, whose store watches then append progress entries.
    this.progressChannel = `${this.ns}:progress-requests`;
    this.subscriber = subscribeRedis(
      o.url,
      this.progressChannel,
      () => {
        if (this.pumpCount > 0) this.inner.requestWatchProgress?.();
      },
      () => {},
    );
  }

  /**
   * Opens the two Redis connections (commands, and the blocking stream reads). Waits at most
   * `waitMs` for Redis: a Redis that is down at start leaves the watches on the store until it is up.
   */
  static async connect(inner: Store, o: FanoutOptions, waitMs = 2000): Promise<FanoutStore> {
    let store: FanoutStore | undefined;
    let early: Error | undefined;
    const onError = (err: Error) => (store ? store.redisFailed(err) : (early ??= err));
    const cmd = openRedis(o.url, onError);
    const reader = openRedis(o.url, onError);
    const both = Promise.all([cmd.connected, reader.connected]);
    await Promise.race([both, new Promise((r) => setTimeout(r, waitMs).unref())]);
    store = new FanoutStore(inner, cmd.link, reader.link, o);
    store.log('info', `watch fanout: Redis at ${redact(o.url)}; this replica's identity is ${store.identity}`);
    if (!cmd.link.ready || !reader.link.ready) store.redisFailed(early ?? new Error('not connected'));
    return store;
  }

  get(key: string, opts?: GetOptions): Promise<KeyValue | null> {
    return this.inner.get(key, opts);
  }
  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, opts);
  }
  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }
  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return this.inner.create(key, value);
  }
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    return this.inner.update(key, value, expectedModRevision);
  }
  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.inner.delete(key, expectedModRevision);
  }
  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  compactedRevision(): number {
    return this.inner.compactedRevision();
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  healthCheck(): Promise<void> {
    return this.inner.healthCheck();
  }

  /**
   * Progress for a consistent read: the pumps are asked (over Redis pub/sub) to request it from
   * the store, and their progress reaches every replica's watches through the streams; watches
   * that read the store directly get it from the store.
   */
  requestWatchProgress(): boolean {
    if (!this.inner.requestWatchProgress?.()) return false;
    const now = Date.now();
    if (this.redisUp && now - this.lastProgressPublish >= 10) {
      this.lastProgressPublish = now;
      void this.cmd.send(['PUBLISH', this.progressChannel, '1']).catch(() => undefined);
    }
    return true;
  }

  /** Changes under `prefix` after `fromRevision` (0: from the store's current revision). */
  watch(prefix: string, fromRevision: number, listener: WatchListener): WatchHandle {
    const w = new FanoutWatch(prefix, streamKeys(this.ns, prefix), fromRevision, listener);
    this.watches.add(w);
    if (!this.prefixes.has(prefix)) this.prefixes.set(prefix, { keys: w.keys, busy: false });
    const begin = async () => {
      if (w.delivered === 0) w.delivered = await this.inner.currentRevision();
      if (w.closed) return;
      // Start directly; the first tick moves the watch onto the stream once the stream reaches back to it.
      this.goDirect(w);
      await this.tryJoin(w).catch((err) => this.redisFailed(err as Error));
    };
    begin().catch((err) => this.failWatch(w, err as StorageError));
    return { close: () => this.closeWatch(w) };
  }

  /** Watches that met a gap in their stream and went on from the store (they rejoin the stream later). */
  gapFallbacks = 0;

  /** How watches are served now, for readyz and logs. */
  status(): { readonly mode: 'redis' | 'direct'; readonly detail: string } {
    const direct = [...this.watches].filter((w) => w.mode === 'direct').length;
    if (!this.redisUp) return { mode: 'direct', detail: `Redis at ${redact(this.o.url)} unreachable (${this.downReason}): ${direct} watches read etcd directly` };
    return { mode: 'redis', detail: `${this.watches.size - direct} watches read Redis streams, ${direct} etcd directly; ${this.pumpCount} pumps here` };
  }

  get pumpCount(): number {
    let n = 0;
    for (const p of this.prefixes.values()) if (p.pump) n++;
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.statsTimer);
    for (const w of [...this.watches]) this.closeWatch(w);
    // Hand the pumps over at once rather than after the lease expires.
    await Promise.all(
      [...this.prefixes.values()].map(async (p) => {
        if (!p.pump) return;
        p.pump.stop();
        await this.cmd.eval(RELEASE, [p.keys.lease], [this.identity]).catch(() => undefined);
      }),
    );
    this.subscriber.close();
    this.reader.close();
    this.cmd.close();
    await this.inner.close();
  }

  private closeWatch(w: FanoutWatch): void {
    w.closed = true;
    w.direct?.close();
    w.direct = undefined;
    this.watches.delete(w);
  }

  private failWatch(w: FanoutWatch, err: StorageError): void {
    if (w.closed) return;
    this.closeWatch(w);
    w.listener.onError(err);
  }

  private goDirect(w: FanoutWatch): void {
    if (w.closed || w.direct) return;
    w.mode = 'direct';
    w.direct = this.inner.watch(w.prefix, w.delivered, {
      onEvents: (evs) => this.deliver(w, evs),
      onProgress: (rev) => this.progress(w, rev),
      onError: (err) => this.failWatch(w, err),
    });
  }

  /** Moves a direct watch onto its stream when the stream holds every event after the watch's revision. */
  private async tryJoin(w: FanoutWatch): Promise<void> {
    if (w.closed || w.mode !== 'direct' || !this.redisUp) return;
    const start = asNumber(await this.cmd.send(['GET', w.keys.start]));
    if (w.closed || w.mode !== 'direct') return;
    if (start === null || start > w.delivered) {
      // Ask the pump to begin the stream at (or rewind it to) our revision; kept while we keep asking.
      await this.cmd.eval(SET_WANT, [w.keys.want], [String(w.delivered), String(this.leaseMs * 10)]);
      return;
    }
    w.direct?.close();
    w.direct = undefined;
    w.mode = 'redis';
    this.wakeReader();
  }

  private deliver(w: FanoutWatch, evs: readonly WatchEvent[]): void {
    if (w.closed || evs.length === 0) return;
    w.delivered = evs[evs.length - 1]!.kv.modRevision;
    this.safely(() => w.listener.onEvents(evs));
  }

  private progress(w: FanoutWatch, rev: number): void {
    if (w.closed || rev <= w.delivered) return;
    w.delivered = rev;
    this.safely(() => w.listener.onProgress?.(rev));
  }

  // A listener that throws is its own problem: it must not pass for a Redis failure (or stop the reader).
  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log('warn', `watch fanout: a watch listener threw: ${(err as Error).message}`);
    }
  }

  /** Every third of the lease: leases held are renewed, others tried; direct watches try to rejoin. */
  private tick(): void {
    if (this.closed) return;
    if (!this.redisUp && this.cmd.ready && this.reader.ready) this.redisBack();
    if (!this.redisUp) return;
    for (const [prefix, p] of this.prefixes) {
      if (p.busy) continue;
      p.busy = true;
      this.elect(prefix, p)
        .catch((err) => this.redisFailed(err as Error))
        .finally(() => (p.busy = false));
    }
    for (const w of this.watches) if (w.mode === 'direct') this.tryJoin(w).catch((err) => this.redisFailed(err as Error));
    this.ensureReading();
  }

  private async elect(prefix: string, p: { keys: StreamKeys; pump?: Pump }): Promise<void> {
    const hasWatches = [...this.watches].some((w) => w.prefix === prefix);
    if (p.pump) {
      const renewed = asNumber(await this.cmd.eval(RENEW, [p.keys.lease], [this.identity, String(this.leaseMs)]));
      if (renewed !== 1) {
        p.pump.stop();
        p.pump = undefined;
        this.log('info', `watch fanout: lost the pump lease of ${prefix}`);
        return;
      }
      await p.pump.tick();
      return;
    }
    if (!hasWatches) return;
    const got = await this.cmd.send(['SET', p.keys.lease, this.identity, 'NX', 'PX', String(this.leaseMs)]);
    if (got === null) return;
    const pump = new Pump({
      redis: this.cmd,
      store: this.inner,
      prefix,
      keys: p.keys,
      identity: this.identity,
      historyMs: this.o.historyMs,
      maxBytes: this.o.maxBytes ?? 64 * 1024 * 1024,
      stats: this.stats,
      onStop: (reason) => {
        if (p.pump !== pump) return;
        p.pump = undefined;
        this.log('warn', `watch fanout: the pump of ${prefix} stopped (${reason})`);
        void this.cmd.eval(RELEASE, [p.keys.lease], [this.identity]).catch(() => undefined);
      },
    });
    p.pump = pump;
    try {
      await pump.begin();
    } catch (err) {
      pump.stop();
      if (p.pump === pump) p.pump = undefined;
      throw err;
    }
  }

  private ensureReading(): void {
    if (this.reading || this.closed || !this.redisUp) return;
    this.reading = this.readLoop()
      .catch((err) => this.redisFailed(err as Error))
      .finally(() => (this.reading = undefined));
  }

  /** Interrupts the reader's blocking XREAD so it reads the new set of streams and positions. */
  private wakeReader(): void {
    this.ensureReading();
    if (!this.blocked) return;
    void this.reader
      .id()
      .then((id) => this.cmd.send(['CLIENT', 'UNBLOCK', String(id)]))
      .catch(() => undefined);
  }

  /** One blocking XREAD over every stream a watch reads, from the lowest position among its watches. */
  private async readLoop(): Promise<void> {
    while (!this.closed && this.redisUp) {
      const from = new Map<string, { keys: StreamKeys; rev: number }>();
      for (const w of this.watches) {
        if (w.mode !== 'redis') continue;
        const f = from.get(w.keys.stream);
        if (!f || w.delivered < f.rev) from.set(w.keys.stream, { keys: w.keys, rev: w.delivered });
      }
      if (from.size === 0) return;
      const streams = [...from.keys()];
      this.blocked = true;
      let res: Reply;
      try {
        res = await this.reader.send(['XREAD', 'COUNT', '1000', 'BLOCK', '1000', 'STREAMS', ...streams, ...streams.map((s) => afterRevision(from.get(s)!.rev))]);
      } finally {
        this.blocked = false;
      }
      if (this.stats) this.stats.reads++;
      if (res === null || !Array.isArray(res)) {
        if (this.stats) this.stats.emptyReads++;
        continue;
      }
      const readAt = Date.now();
      for (const item of res as Array<[Buffer, Array<[Buffer, Buffer[]]>]>) {
        const stream = item[0].toString();
        if (!from.has(stream)) continue;
        const decoded = item[1].map(([id, fields]) => decodeEntry(id.toString(), fields));
        if (this.stats) {
          this.stats.readEntries += decoded.length;
          for (const d of decoded) this.stats.streamHop.add(readAt - d.at);
        }
        for (const w of this.watches) {
          if (w.mode !== 'redis' || w.keys.stream !== stream) continue;
          const evs: WatchEvent[] = [];
          let progressed = 0;
          let gap = false;
          for (const d of decoded) {
            if (d.revision <= w.delivered) continue;
            // The first entry after the watch's revision must follow an entry at or below it: else a trim,
            // a rewrite or a Redis that lost its data overtook this reader, and it continues from the store.
            if (evs.length === 0 && progressed === 0 && !(d.prev <= w.delivered)) {
              gap = true;
              break;
            }
            if (d.event) evs.push(d.event);
            else progressed = d.revision;
          }
          if (gap) {
            this.gapFallbacks++;
            this.goDirect(w);
            continue;
          }
          if (evs.length > 0) this.deliver(w, evs);
          if (progressed > 0) this.progress(w, progressed);
        }
      }
    }
  }

  private redisFailed(err: Error): void {
    if (this.closed) return;
    if (this.redisUp) {
      this.redisUp = false;
      this.downReason = err.message;
      this.log('warn', `watch fanout: Redis at ${redact(this.o.url)} unreachable (${err.message}); watching etcd directly until it is back`);
    }
    for (const p of this.prefixes.values()) {
      p.pump?.stop();
      p.pump = undefined;
    }
    for (const w of this.watches) if (w.mode === 'redis') this.goDirect(w);
  }

  private redisBack(): void {
    this.redisUp = true;
    this.downReason = '';
    this.log('info', `watch fanout: Redis at ${redact(this.o.url)} reachable again; watches return to its streams`);
  }
}
