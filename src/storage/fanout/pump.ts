/**
 * The pump of one prefix: on the replica that holds the prefix's lease in Redis it reads the
 * store's change feed and appends every event, with its revision as the stream ID, to the
 * prefix's stream. Fencing: every append is a Lua script that first checks the lease still names
 * this replica and skips IDs at or below the stream's top, so a pump that lost its lease (paused,
 * partitioned) can neither publish next to its successor nor duplicate what it published. A
 * successor resumes from the stream's top, so nothing is skipped either. Any failure to append
 * stops the pump: the lease lapses and whoever takes it over resumes from the top again.
 */
import type { Store, StorageError, WatchEvent, WatchHandle } from '../types.ts';
import { encodeEvent, encodeProgress, entryBytes, revisionOf, type Fields, type StreamKeys } from './stream-codec.ts';
import { asNumber, type RedisLink, type Reply } from './redis-link.ts';
import type { FanoutStats } from './fanout-stats.ts';

/**
 * Lease check, then XADD of each entry whose ID is above the stream's top. Each entry also gets
 * `pr`, the revision of the entry before it (of the start for the first): a reader at revision D
 * whose next entry has pr > D knows entries were trimmed or lost in between, without another
 * round trip. ARGV: identity, then per entry: id, field count, fields.
 */
const APPEND = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local start = redis.call('GET', KEYS[3])
if not start then return -2 end
local function split(id) local d = string.find(id, '-') return tonumber(string.sub(id, 1, d - 1)), tonumber(string.sub(id, d + 1)) end
-- An empty stream's top is its start: events at or below it are not the stream's.
local topRev, topSeq = tonumber(start), math.huge
local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #top > 0 then topRev, topSeq = split(top[1][1]) end
local i, n = 2, 0
while i <= #ARGV do
  local id, nf = ARGV[i], tonumber(ARGV[i + 1])
  local r, s = split(id)
  if r > topRev or (r == topRev and s > topSeq) then
    redis.call('XADD', KEYS[2], id, 'pr', string.format('%d', topRev), unpack(ARGV, i + 2, i + 1 + nf))
    topRev, topSeq, n = r, s, n + 1
  end
  i = i + 2 + nf
end
return n`;

/**
 * On taking the lease: continue the stream (returns {start, resume-from}) or, when there is none
 * or a replica asked for an older start than it has, begin a new one there (a rewind: the same
 * events are appended again from the older revision; readers past it skip them by ID).
 * ARGV: identity, the store's current revision.
 */
const INIT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1, -1} end
local start = redis.call('GET', KEYS[3])
local want = redis.call('GET', KEYS[4])
redis.call('DEL', KEYS[4])
if start and (not want or tonumber(want) >= tonumber(start)) then
  local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
  local resume = tonumber(start)
  if #top > 0 then
    local id = top[1][1]
    local r = tonumber(string.sub(id, 1, string.find(id, '-') - 1))
    if r > resume then resume = r end
  end
  return {tonumber(start), resume}
end
local from = tonumber(ARGV[2])
if want and tonumber(want) < from then from = tonumber(want) end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[3], from)
return {from, from}`;

/** Drops entries below ARGV[2] (an ID) and raises the start to ARGV[3]. */
const TRIM = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if ARGV[2] ~= '0' then redis.call('XTRIM', KEYS[2], 'MINID', ARGV[2]) end
local s = tonumber(redis.call('GET', KEYS[3]) or '0')
if tonumber(ARGV[3]) > s then redis.call('SET', KEYS[3], ARGV[3]) end
return 1`;

export interface PumpOptions {
  readonly redis: RedisLink;
  readonly store: Store;
  readonly prefix: string;
  readonly keys: StreamKeys;
  readonly identity: string;
  /** Entries older than this are trimmed. */
  readonly historyMs: number;
  /** Byte budget of the stream. */
  readonly maxBytes: number;
  /** Called once when the pump stops by itself (lost lease, Redis or store failure). */
  readonly onStop: (reason: string) => void;
  readonly now?: () => number;
  readonly stats?: FanoutStats;
}

interface Queued {
  readonly id: string;
  readonly fields: Fields;
  /** When the pump received it from the store. */
  readonly at: number;
}

/** Entries per EVAL at most: a Lua script runs alone in Redis, so one must not hold it for long. */
const MAX_APPEND = 1000;

interface Retained {
  readonly id: string;
  readonly at: number;
  readonly bytes: number;
}

export class Pump {
  private handle: WatchHandle | undefined;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Revision of the last event or progress appended (or found at the top at takeover). */
  private last = 0;
  private start = 0;
  private retained: Retained[] = [];
  private retainedHead = 0;
  private bytes = 0;
  private lastRewindAt = 0;
  private readonly now: () => number;
  private readonly stats: FanoutStats | undefined;
  /** Received from the store, not yet appended; the revision and sequence number of the last one. */
  private queued: Queued[] = [];
  private queuedTop = 0;
  private queuedSeq = 0;
  private flushQueued = false;

  constructor(private readonly o: PumpOptions) {
    this.now = o.now ?? Date.now;
    this.stats = o.stats;
  }

  /** Takes over the stream (continuing or starting it) and begins pumping. */
  async begin(): Promise<void> {
    const current = await this.o.store.currentRevision();
    const k = this.o.keys;
    const r = (await this.o.redis.eval(INIT, [k.lease, k.stream, k.start, k.want], [this.o.identity, String(current)])) as Reply[];
    const start = asNumber(r[0]!)!;
    const from = asNumber(r[1]!)!;
    if (start < 0) return this.halt('lease lost before the pump started');
    this.start = start;
    this.last = from;
    await this.loadRetained();
    if (this.stopped) return;
    this.watchFrom(from);
  }

  /** Periodic work while leading: trimming, and a rewind when a replica needs an older start. */
  async tick(): Promise<void> {
    if (this.stopped) return;
    const want = asNumber(await this.o.redis.send(['GET', this.o.keys.want]));
    // At most one rewind per 5 s: each replays the events since the wanted revision.
    if (want !== null && want < this.start && this.now() - this.lastRewindAt > 5000) {
      this.lastRewindAt = this.now();
      this.handle?.close();
      this.handle = undefined;
      await this.chain;
      return this.begin();
    }
    await this.trim();
  }

  /** Stops pumping (the caller lost or gave up the lease). */
  stop(): void {
    this.stopped = true;
    this.handle?.close();
    this.handle = undefined;
  }

  get revision(): number {
    return this.last;
  }

  private watchFrom(from: number): void {
    // A new store watch (takeover, rewind, recovery) numbers the events of each revision afresh.
    this.queuedTop = 0;
    this.queuedSeq = 0;
    this.handle = this.o.store.watch(this.o.prefix, from, {
      onEvents: (evs) => this.queueEvents(evs),
      onProgress: (rev) => this.queueProgress(rev),
      onError: (err) => this.enqueue(() => this.recover(err)),
    });
  }

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(async () => {
      if (this.stopped) return;
      try {
        await step();
      } catch (err) {
        this.halt(`append failed: ${(err as Error).message}`);
      }
    });
  }

  /**
   * Entries wait in `queued` and go to Redis together: one EVAL carries everything the store
   * delivered while the previous EVAL was in flight. (One EVAL per store batch made the pump's
   * throughput one append per event-loop turn of its replica: under load that was below the
   * write rate, and the queue, hence the delivery latency, grew for as long as the load lasted.)
   */
  private queueEvents(evs: readonly WatchEvent[]): void {
    const at = this.now();
    for (const ev of evs) {
      const rev = ev.kv.modRevision;
      this.queuedSeq = rev === this.queuedTop ? this.queuedSeq + 1 : 0;
      this.queuedTop = rev;
      this.queued.push({ id: `${rev}-${this.queuedSeq}`, fields: encodeEvent(ev, at), at });
    }
    this.scheduleFlush();
  }

  private queueProgress(rev: number): void {
    // Progress at or below an event already queued (or appended) says nothing new.
    if (rev <= Math.max(this.last, this.queuedTop)) return;
    const at = this.now();
    this.queuedTop = rev;
    this.queuedSeq = 0;
    this.queued.push({ id: `${rev}-0`, fields: encodeProgress(at), at });
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.stats && this.queued.length > this.stats.maxQueued) this.stats.maxQueued = this.queued.length;
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.enqueue(() => this.flush());
  }

  /** Appends what is queued, in EVALs of at most MAX_APPEND entries (events of one revision are never split). */
  private async flush(): Promise<void> {
    this.flushQueued = false;
    while (this.queued.length > 0 && !this.stopped) {
      let n = Math.min(this.queued.length, MAX_APPEND);
      while (n < this.queued.length && revisionOf(this.queued[n]!.id) === revisionOf(this.queued[n - 1]!.id)) n++;
      const batch = this.queued.splice(0, n);
      await this.append(batch);
    }
  }

  private async append(batch: readonly Queued[]): Promise<void> {
    const args: Array<string | Buffer> = [this.o.identity];
    for (const e of batch) args.push(e.id, String(e.fields.length), ...e.fields);
    const k = this.o.keys;
    const n = asNumber(await this.o.redis.eval(APPEND, [k.lease, k.stream, k.start], args));
    if (n === -1) return this.halt('lease lost');
    if (n === -2) return this.halt('stream start missing (Redis lost its data)');
    const done = this.now();
    for (const e of batch) {
      const bytes = entryBytes(e.fields);
      this.retained.push({ id: e.id, at: e.at, bytes });
      this.bytes += bytes;
      this.stats?.pumpHop.add(done - e.at);
    }
    if (this.stats) {
      this.stats.appends++;
      this.stats.appendedEntries += batch.length;
    }
    this.last = Math.max(this.last, revisionOf(batch[batch.length - 1]!.id));
  }

  /** The store's watch failed: compacted past us (the stream restarts at the oldest revision left) or a transient error. */
  private async recover(err: StorageError): Promise<void> {
    this.handle = undefined;
    if (err.code === 'TooOld' && err.revision !== undefined) {
      // Readers below the new start learn it after their next read and fall back to the store, which tells them 410.
      const from = Math.max(this.last, err.revision - 1);
      await this.raiseStart('0', from);
      this.last = from;
      this.watchFrom(from);
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
    if (!this.stopped) this.watchFrom(this.last);
  }

  /** Trims to the history window and the byte budget. */
  private async trim(): Promise<void> {
    const cutoff = this.now() - this.o.historyMs;
    let head = this.retainedHead;
    let bytes = this.bytes;
    while (head < this.retained.length) {
      const e = this.retained[head]!;
      if (e.at >= cutoff && bytes <= this.o.maxBytes) break;
      bytes -= e.bytes;
      head++;
    }
    if (head === this.retainedHead) return;
    const dropped = this.retained[head - 1]!;
    const keep = this.retained[head];
    // Everything above the last dropped entry's revision stays (events of one revision are never split).
    const newStart = revisionOf(dropped.id);
    const minId = keep ? keep.id : `${newStart + 1}-0`;
    await this.raiseStart(minId, newStart);
    this.retainedHead = head;
    this.bytes = bytes;
    if (head > 1024 && head * 2 > this.retained.length) {
      this.retained = this.retained.slice(head);
      this.retainedHead = 0;
    }
  }

  private async raiseStart(minId: string, start: number): Promise<void> {
    const k = this.o.keys;
    const r = asNumber(await this.o.redis.eval(TRIM, [k.lease, k.stream, k.start], [this.o.identity, minId, String(start)]));
    if (r === -1) return this.halt('lease lost');
    this.start = Math.max(this.start, start);
  }

  /** At takeover: what the stream holds, for trimming (its entries' times and sizes). */
  private async loadRetained(): Promise<void> {
    this.retained = [];
    this.retainedHead = 0;
    this.bytes = 0;
    let from = '-';
    for (;;) {
      const page = (await this.o.redis.send(['XRANGE', this.o.keys.stream, from, '+', 'COUNT', '1000'])) as Array<[Buffer, Buffer[]]>;
      for (const [rawId, fields] of page) {
        const id = rawId.toString();
        let at = 0;
        let bytes = 32;
        for (let i = 0; i < fields.length; i++) {
          bytes += fields[i]!.byteLength;
          if (i % 2 === 0 && fields[i]!.toString() === 'a') at = Number(fields[i + 1]!.toString());
        }
        this.retained.push({ id, at, bytes });
        this.bytes += bytes;
      }
      if (page.length < 1000) return;
      from = `(${page[page.length - 1]![0].toString()}`;
    }
  }

  private halt(reason: string): void {
    if (this.stopped) return;
    this.stop();
    this.o.onStop(reason);
  }
}
