/**
 * Watch: a chunked stream of `{type, object}` events, one per line. Served from the watch cache;
 * each event's bytes are built once per encoding and shared by every watcher.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Stream } from 'node:http2';
import { ApiError, errors, isApiError } from '../../api/status-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { isStorageError, type StorageError } from '../../storage/types.ts';
import type { CacheEvent } from '../../storage/watch-cache.ts';
import { isWatchListRequest, parseWatchQuery } from '../../registry/list-options.ts';
import { buildObjectFilter } from '../../registry/object-filter.ts';
import { tableWatchEventObject, toPartialObjectMetadata } from '../../codec/table.ts';
import { stringifyGo } from '../../codec/json-encode.ts';
import { encodeCbor } from '../../codec/cbor.ts';
import { negotiateWatch, type MetaVersion } from '../../codec/negotiate.ts';
import { encodeProtobufList, encodeProtobufObject, encodeProtobufStatus, encodeProtobufWatchEvent } from '../../codec/protobuf/index.ts';
import { apiVersionOf } from '../../api/types.ts';
import { offerFor, type VerbContext } from './resource.ts';
import type { Entry } from '../../registry/resource-store.ts';
import { WatchTimerQueue, type TimedWatch } from './watch-timers.ts';
import { detachHttp2Watch, runResponseHooksLater, type ResponseHooksLater } from './watch-http2.ts';

/** Live watches, so a graceful shutdown can end them cleanly; and their shared buffer budget. */
export class WatchRegistry {
  private readonly active = new Set<{ end(): void }>();
  constructor(readonly budget: WatchBufferBudget = defaultBudget) {}
  add(watch: { end(): void }): void {
    this.active.add(watch);
  }
  delete(watch: { end(): void }): void {
    this.active.delete(watch);
  }
  endAll(): void {
    for (const w of [...this.active]) w.end();
  }
  get size(): number {
    return this.active.size;
  }
}

/**
 * Unsent bytes a live watcher may hold. kube's cache watcher has a bounded buffer and closes a
 * watcher that stays full (the client re-watches from its last resourceVersion); so do we, at
 * this many bytes. Initial events wait for the client instead (backpressure), as kube's do.
 */
export const WATCHER_BUFFER_BYTES = 4 * 1024 * 1024;
/** Unsent bytes of all watchers together; beyond it the most backed-up watchers are closed. */
export const GLOBAL_WATCH_BUFFER_BYTES = 64 * 1024 * 1024;

interface BufferedWatcher {
  buffered: number;
  close(): void;
}

/**
 * The global budget of unsent watch bytes. Per-watcher limits alone let many slow watchers add
 * up; this closes the watcher with the largest backlog until the total fits again.
 */
export class WatchBufferBudget {
  private total = 0;
  private readonly watchers = new Set<BufferedWatcher>();

  constructor(readonly limit: number) {}

  get bufferedBytes(): number {
    return this.total;
  }

  add(w: BufferedWatcher): void {
    this.watchers.add(w);
  }

  remove(w: BufferedWatcher): void {
    if (!this.watchers.delete(w)) return;
    this.total -= w.buffered;
    w.buffered = 0;
  }

  /** Records a watcher's current unsent bytes; closes the most backed-up watchers while over the limit. */
  account(w: BufferedWatcher, buffered: number): void {
    if (!this.watchers.has(w)) return;
    this.total += buffered - w.buffered;
    w.buffered = buffered;
    while (this.total > this.limit) {
      let worst: BufferedWatcher | undefined;
      for (const x of this.watchers) if (!worst || x.buffered > worst.buffered) worst = x;
      if (!worst || worst.buffered === 0) break;
      this.remove(worst);
      worst.close();
    }
  }
}

const defaultBudget = new WatchBufferBudget(GLOBAL_WATCH_BUFFER_BYTES);
// kube's cacher sends each bookmark-enabled watcher a bookmark about every minute, and one 2s
// before its deadline, so that a client re-watching on timeout resumes from a recent version.
const bookmarkFrequencyMs = 60_000;
const preTimeoutBookmarkMs = 2_000;
// kube-apiserver's default watch lifetime is min-request-timeout (1800s), randomized up to 2x.
const defaultTimeoutSeconds = 1800;

type Frame = 'ADDED' | 'MODIFIED' | 'DELETED';
/** Every watch's next bookmark or deadline, on one timer. */
const watchTimers = new WatchTimerQueue();

export async function handleWatch(c: VerbContext, watches: WatchRegistry): Promise<void> {
  const { rt, store } = c.served;
  // Options are converted and validated before negotiation, as in kube's list handler.
  const q = parseWatchQuery(c.query, c.req.server.features.enabled('WatchList'));
  // A WatchList request (initial events, then a bookmark) cannot be served as a Table in kube.
  const offer = isWatchListRequest(c.query) ? { ...offerFor(c), table: false } : offerFor(c);
  const { output: fmt, contentType } = negotiateWatch({
    accept: String(c.req.headers.accept ?? ''),
    offer,
    prettyQuery: c.query.get('pretty'),
    userAgent: String(c.req.headers['user-agent'] ?? ''),
  });
  let fieldSelector = q.fieldSelector;
  if (c.info.name) fieldSelector = fieldSelector ? `${fieldSelector},metadata.name=${c.info.name}` : `metadata.name=${c.info.name}`;
  const filter = buildObjectFilter(rt, q.labelSelector, fieldSelector);
  const cache = store.cache;
  const keyPrefix = store.listPrefix(c.info.namespace);
  const rv = q.resourceVersion;
  const sendInitial = q.sendInitialEvents ?? (rv === '' || rv === '0');

  let startRevision: number;
  let initial: Entry[] = [];
  try {
    if (rv === '') await store.syncForWatch();
    else if (rv !== '0' && sendInitial) await cache.waitForRevision(Number(rv));
  } catch (err) {
    throw store.translate(err, '', { kind: 'watch', revision: Number(rv) || 0 });
  }
  // Listing and subscribing happen in the same tick, so no event falls between them.
  if (sendInitial) {
    // A kind converted by webhook converts the initial objects first (its events wait their turn below).
    const listed = rt.asyncConversion
      ? await store.listCacheConverted(keyPrefix, filter)
      : cache.list({ keyPrefix, filter: filter.always ? undefined : (e) => filter.matches(store.served(e.value)) });
    initial = listed.entries;
    startRevision = listed.revision;
  } else {
    startRevision = rv === '' || rv === '0' ? cache.revision : Number(rv);
  }

  c.reply.hijack();
  const res = c.reply.raw as ServerResponse | Http2ServerResponse;
  // The headers set so far (Audit-Id, the flow-control UIDs, warnings) go out with the watch's own.
  res.writeHead(200, { ...(c.reply.getHeaders() as OutgoingHttpHeaders), 'content-type': contentType, 'cache-control': 'no-cache, private' });
  if (typeof (res as ServerResponse).flushHeaders === 'function') (res as ServerResponse).flushHeaders();
  // Over HTTP/2 the watch goes on on its raw stream, and the request's objects can be collected
  // (watch-http2.ts); the response hooks' work is kept for the end. HTTP/1.1 watches stay on the
  // response, whose connection holds them anyway.
  const detached = detachHttp2Watch(c.req.raw as unknown as Http2ServerRequest, res as Http2ServerResponse);
  const hooksLater = detached ? c.req.server.responseHooksLater(c.req, c.reply) : undefined;

  // kube's apiserver_watch_events_total/_sizes and apiserver_longrunning_requests.
  const apiMetrics = c.req.server.apiMetrics;
  // timeoutSeconds=0 (or none) is the server's default; a negative one has already expired, as a Go deadline in the past.
  const timeout = q.timeoutSeconds === undefined || q.timeoutSeconds === 0 ? defaultTimeoutSeconds * (1 + Math.random()) : Math.max(q.timeoutSeconds, 0);
  const w = new WatchStream({
    res: detached?.stream ?? res,
    rt,
    store,
    filter,
    output: fmt,
    startRevision,
    allowBookmarks: q.allowWatchBookmarks === true,
    initialEndBookmark: q.sendInitialEvents === true && q.allowWatchBookmarks === true,
    deadline: Date.now() + timeout * 1000,
    watches,
    recordEvent: apiMetrics?.watchEventRecorder(rt.group, rt.version, rt.kind),
    longRunningDone: apiMetrics?.longRunningStarted(c.info),
    endWork: detached && hooksLater ? { callbacks: detached.onEnd, hooks: hooksLater } : undefined,
  });
  // The Fastify request, reply, query and request info are not referenced past this point: an idle
  // watch holds only its stream and this one object (issue 19, memory per idle watcher).
  if (!detached) {
    const raw = c.req.raw as NodeJS.EventEmitter & { [watchOf]?: WatchStream };
    raw[watchOf] = w;
    raw.on('close', endWatchOf);
  }
  w.handle = cache.watch({ fromRevision: startRevision, keyPrefix }, w);
  // API Priority and Fairness counts a watch's seat until its initial events are out (src/flowcontrol/filter.ts).
  const initialized = c.req.watchInitialized;
  w.writeInitialEvents(initial).then(
    () => initialized?.(),
    () => w.abort(),
  );
  w.armTimer();
}

type WatchOutput = ReturnType<typeof negotiateWatch>['output'];
/** Where a watch writes: the response (HTTP/1.1, or HTTP/2 when not detached) or the raw HTTP/2 stream. */
type Response = ServerResponse | Http2ServerResponse | ServerHttp2Stream;
/** A detached stream's errors end its watch through 'close'; without a listener they would throw. */
function ignoreStreamError(): void {}
/** The watch a response (or request) belongs to, for the listeners shared by every watch. */
const watchOf = Symbol('watch');
function endWatchOf(this: { [watchOf]?: WatchStream }): void {
  this[watchOf]?.end();
}
function accountWatchOf(this: { [watchOf]?: WatchStream }): void {
  this[watchOf]?.account();
}

interface WatchStreamOptions {
  res: Response;
  rt: VerbContext['served']['rt'];
  store: VerbContext['served']['store'];
  filter: ReturnType<typeof buildObjectFilter>;
  output: WatchOutput;
  startRevision: number;
  allowBookmarks: boolean;
  initialEndBookmark: boolean;
  deadline: number;
  watches: WatchRegistry;
  recordEvent: ((bytes: number) => void) | undefined;
  longRunningDone: (() => void) | undefined;
  /** A watch on its raw HTTP/2 stream: the response's end work, run when the watch ends (watch-http2.ts). */
  endWork: { readonly callbacks: readonly (() => void)[]; readonly hooks: ResponseHooksLater } | undefined;
}

/**
 * One live watch: its response stream and what it needs to encode and pace events. A class rather
 * than closures over the request: a thousand idle watchers then cost a thousand of these objects
 * (methods on the prototype), not a thousand sets of ~20 closures and their contexts.
 */
class WatchStream implements BufferedWatcher, TimedWatch {
  buffered = 0;
  ended = false;
  handle: { close(): void } | undefined;
  // Live events that arrive while the initial events are still being written wait here.
  private queued: Uint8Array[] | undefined = [];
  private queuedBytes = 0;
  // Table watches carry column definitions on their first event only, as kube's do.
  private tableHeadersSent = false;
  // A kind converted by webhook converts each event's objects before it is sent, in order.
  private converting: Promise<void> | undefined;
  // The shared timer queue's bookkeeping: when this watch is next due, its place in the queue,
  // and the last bookmark moment scheduled (each is due strictly after the previous one).
  dueAt = 0;
  timerIndex = -1;
  private lastBookmarkDue = -Infinity;
  private readonly res: Response;
  private readonly rt: WatchStreamOptions['rt'];
  private readonly store: WatchStreamOptions['store'];
  private readonly filter: WatchStreamOptions['filter'];
  private readonly isTable: boolean;
  private readonly isProtobuf: boolean;
  // CBOR: every event one self-described item of a CBOR sequence, the object embedded as its own item.
  private readonly isCbor: boolean;
  // A metadata-only watch (client-go's metadata informers) sends each object as PartialObjectMetadata.
  private readonly partialVersion: MetaVersion | undefined;
  private readonly formatKey: string;
  private readonly startRevision: number;
  private readonly allowBookmarks: boolean;
  private readonly initialEndBookmark: boolean;
  private readonly deadline: number;
  private readonly watches: WatchRegistry;
  private readonly recordEvent: WatchStreamOptions['recordEvent'];
  private readonly longRunningDone: WatchStreamOptions['longRunningDone'];
  private endWork: WatchStreamOptions['endWork'];

  constructor(o: WatchStreamOptions) {
    this.res = o.res;
    this.rt = o.rt;
    this.store = o.store;
    this.filter = o.filter;
    this.startRevision = o.startRevision;
    this.allowBookmarks = o.allowBookmarks;
    this.initialEndBookmark = o.initialEndBookmark;
    this.deadline = o.deadline;
    this.watches = o.watches;
    this.recordEvent = o.recordEvent;
    this.longRunningDone = o.longRunningDone;
    this.endWork = o.endWork;
    const fmt = o.output;
    this.isTable = fmt.kind === 'table';
    this.isProtobuf = fmt.serializer === 'protobuf' && !this.isTable;
    this.isCbor = fmt.serializer === 'cbor';
    this.partialVersion = fmt.kind === 'partial-metadata' || fmt.kind === 'partial-metadata-list' ? fmt.version : undefined;
    const rt = o.rt;
    const baseKey = this.isTable
      ? `table@${rt.group}/${rt.version}/${rt.resource}`
      : this.isProtobuf
        ? `pb@${apiVersionOf(rt)}`
        : this.isCbor
          ? `cbor@${apiVersionOf(rt)}`
          : o.store.formatKey;
    this.formatKey = this.partialVersion ? `partial-${this.partialVersion}:${baseKey}` : baseKey;
    this.watches.budget.add(this);
    this.watches.add(this);
    const res = this.res as Response & { [watchOf]?: WatchStream };
    res[watchOf] = this;
    res.on('drain', accountWatchOf);
    res.on('close', endWatchOf);
    if (this.endWork) res.on('error', ignoreStreamError);
  }

  private encodeOther(v: unknown): Uint8Array {
    return this.isProtobuf ? encodeProtobufObject(v as KubeObject) : this.isCbor ? encodeCbor(v) : Buffer.from(JSON.stringify(v));
  }

  private objectBytes(type: Frame, entry: Entry, withHeaders: boolean): Uint8Array {
    const { store, isProtobuf, isCbor, partialVersion } = this;
    if (partialVersion) {
      return entry.encode(this.formatKey, (v) => {
        const partial = toPartialObjectMetadata(store.served(v), partialVersion);
        return isProtobuf ? encodeProtobufObject(partial) : isCbor ? encodeCbor(partial) : Buffer.from(stringifyGo(partial));
      });
    }
    if (isProtobuf) return entry.encode(this.formatKey, (v) => encodeProtobufObject(store.served(v)));
    if (isCbor && !this.isTable) return entry.encode(this.formatKey, (v) => encodeCbor(store.served(v), this.rt.schema));
    if (!this.isTable) return store.encodeJson(entry);
    // Table cells hold ages, so rows are rendered now rather than memoized on the long-lived entry.
    const row = tableWatchEventObject(type, store.served(entry.value), this.rt, { includeObject: 'Metadata', now: new Date(), firstEvent: withHeaders });
    return isCbor ? encodeCbor(row) : Buffer.from(JSON.stringify(row));
  }

  /** One event on the wire: a JSON line, a length-prefixed protobuf WatchEvent, or a CBOR item. */
  private eventBytes(type: string, object: Uint8Array): Uint8Array {
    return this.isProtobuf
      ? encodeProtobufWatchEvent(type, object)
      : this.isCbor
        ? cborWatchEvent(type, object)
        : Buffer.concat([Buffer.from(`{"type":"${type}","object":`), object, Buffer.from('}\n')]);
  }

  private frame(type: Frame, entry: Entry, withHeaders = false): Uint8Array {
    return this.eventBytes(type, this.objectBytes(type, entry, withHeaders));
  }

  private firstFrame(type: Frame, entry: Entry): Uint8Array | undefined {
    if (!this.isTable || this.tableHeadersSent) return undefined;
    this.tableHeadersSent = true;
    return this.frame(type, entry, true);
  }

  /**
   * A deleted object is sent as its last state stamped with the revision of the delete. An object
   * that an update moved out of the selector is "deleted" as its previous, still matching state
   * (kube's cacheWatcher), stamped likewise.
   */
  private deletedEntry(ev: CacheEvent<KubeObject>): Entry {
    const last = ev.type === 'DELETED' || !ev.prev ? ev.entry : ev.prev;
    if (last.value.metadata?.resourceVersion === String(ev.revision)) return last;
    const value = { ...last.value, metadata: { ...last.value.metadata, resourceVersion: String(ev.revision) } };
    this.store.derive(value, last.value);
    const memo = ev.type === 'DELETED' ? 'deleted' : 'left-selector';
    return { ...last, value, encode: (format, encoder) => ev.encode(`${format}:${memo}`, () => encoder(value)) };
  }

  private unsent(): number {
    return (this.res as ServerResponse).writableLength ?? 0;
  }

  /** Records this watch's unsent bytes in the global budget (after a write, and on drain). */
  account(): void {
    this.watches.budget.account(this, this.unsent());
  }

  private rawWrite(buf: Uint8Array): void {
    this.recordEvent?.(buf.byteLength);
    (this.res as ServerResponse).write(buf);
    this.account();
  }

  private write(buf: Uint8Array): void {
    if (this.ended) return;
    if (this.queued) {
      this.queued.push(buf);
      this.queuedBytes += buf.byteLength;
      if (this.queuedBytes > WATCHER_BUFFER_BYTES) this.abort();
      return;
    }
    this.rawWrite(buf);
    // A live watcher this far behind is closed, as kube closes a watcher whose buffer stays full.
    if (!this.ended && this.unsent() > WATCHER_BUFFER_BYTES) this.abort();
  }

  // kube 1.32 marks the end of a watch-list's initial events with an empty list of the kind in the
  // response's encoding (base64), from which clients build the list the events stand for.
  // A metadata-only watch gets its bookmarks and blueprint as PartialObjectMetadata(List), as kube's
  // watch encoder transforms every object of the stream, bookmarks included.
  private get streamApiVersion(): string {
    return this.partialVersion ? `meta.k8s.io/${this.partialVersion}` : apiVersionOf(this.rt);
  }

  private listBlueprint(): string {
    const kind = this.partialVersion ? 'PartialObjectMetadataList' : this.rt.listKind;
    const apiVersion = this.streamApiVersion;
    const bytes = this.isProtobuf
      ? encodeProtobufList(kind, apiVersion, {}, [])
      : this.isCbor
        ? encodeCbor({ kind, apiVersion, metadata: {}, items: null })
        : // A custom resource list is unstructured: sorted keys, an empty item list, no metadata.
          this.rt.unstructured && !this.partialVersion
          ? Buffer.from(`${JSON.stringify({ apiVersion, items: [], kind })}\n`)
          : Buffer.from(`${JSON.stringify({ kind, apiVersion, metadata: {}, items: null })}\n`);
    return Buffer.from(bytes).toString('base64');
  }

  private bookmark(revision: number, initialEnd: boolean): void {
    const annotations = initialEnd
      ? { 'k8s.io/initial-events-end': 'true', ...(this.allowBookmarks ? { 'kubernetes.io/initial-events-list-blueprint': this.listBlueprint() } : {}) }
      : undefined;
    const object = {
      kind: this.partialVersion ? 'PartialObjectMetadata' : this.rt.kind,
      apiVersion: this.streamApiVersion,
      // (An unstructured custom resource has no creationTimestamp to write as null.)
      metadata: { resourceVersion: String(revision), ...(this.rt.unstructured && !this.partialVersion ? {} : { creationTimestamp: null }), ...(annotations ? { annotations } : {}) },
    };
    this.write(this.eventBytes('BOOKMARK', this.encodeOther(object)));
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.longRunningDone?.();
    this.handle?.close();
    watchTimers.remove(this);
    this.watches.delete(this);
    this.watches.budget.remove(this);
    this.queued = undefined;
    this.res.end();
    const work = this.endWork;
    if (work) {
      this.endWork = undefined;
      runResponseHooksLater(work.hooks, 200);
      for (const fn of work.callbacks) fn();
    }
  }

  /**
   * Ends a watcher that cannot keep up. Ending the response politely would keep its unsent bytes
   * queued behind the stuck client, so the stream (HTTP/2) or connection (HTTP/1.1) is reset,
   * which frees them; the client sees the watch end and re-watches.
   */
  abort(): void {
    if (this.ended) return;
    this.end();
    const res = this.res as Partial<Http2ServerResponse & ServerHttp2Stream>;
    const stream = typeof res.close === 'function' && typeof res.respond === 'function' ? (res as ServerHttp2Stream) : res.stream;
    if (stream && typeof stream.close === 'function') stream.close(0x8 /* NGHTTP2_CANCEL */);
    else (this.res as ServerResponse).socket?.destroy();
  }

  /** The global buffer budget closes the most backed-up watchers. */
  close(): void {
    this.abort();
  }

  /**
   * Initial events go out as fast as the client takes them: past the per-watcher buffer the loop
   * waits for the response to drain rather than holding every object's bytes at once.
   */
  async writeInitialEvents(initial: Entry[]): Promise<void> {
    const pending = this.queued!;
    this.queued = undefined;
    for (const e of initial) {
      if (this.ended) return;
      this.rawWrite(this.firstFrame('ADDED', e) ?? this.frame('ADDED', e));
      if (this.unsent() > WATCHER_BUFFER_BYTES) {
        this.queued = pending;
        await new Promise<void>((resolve) => {
          this.res.once('drain', resolve);
          this.res.once('close', resolve);
        });
        this.queued = undefined;
      }
    }
    if (this.ended) return;
    if (this.initialEndBookmark) this.bookmark(this.startRevision, true);
    for (const b of pending) this.write(b);
  }

  /** The watch cache's listener: an event of the watched prefix, in revision order. */
  onEvent(ev: CacheEvent<KubeObject>): void {
    if (this.rt.asyncConversion) this.convertThenSend(ev);
    else this.send(ev);
  }

  private send(ev: CacheEvent<KubeObject>): void {
    const { filter, store } = this;
    const nowMatches = ev.type !== 'DELETED' && (filter.always || filter.matches(store.servedReadOnly(ev.entry.value)));
    const prevMatched = ev.prev !== undefined && (filter.always || filter.matches(store.servedReadOnly(ev.prev.value)));
    let type: Frame | undefined;
    if (ev.type === 'ADDED') type = nowMatches ? 'ADDED' : undefined;
    else if (ev.type === 'MODIFIED') type = nowMatches ? (prevMatched || ev.prev === undefined ? 'MODIFIED' : 'ADDED') : prevMatched ? 'DELETED' : undefined;
    else type = filter.always || filter.matches(store.servedReadOnly(ev.entry.value)) ? 'DELETED' : undefined;
    if (!type) return;
    const entry = type === 'DELETED' ? this.deletedEntry(ev) : ev.entry;
    // The common case (the event's own type) shares one buffer across all watchers.
    const bytes = this.firstFrame(type, entry) ?? (type === ev.type ? ev.encode(`${this.formatKey}:frame`, () => this.frame(type, entry)) : this.frame(type, entry));
    this.write(bytes);
  }

  // A conversion that fails ends the watch with its error.
  private convertThenSend(ev: CacheEvent<KubeObject>): void {
    this.converting = (this.converting ?? Promise.resolve())
      .then(async () => {
        if (this.ended) return;
        const p = this.store.prepare([ev.entry.value, ev.prev?.value]);
        if (p) await p;
        if (!this.ended) this.send(ev);
      })
      .catch((err: unknown) => {
        const status = watchError(err).toStatus();
        this.write(this.eventBytes('ERROR', Buffer.from(JSON.stringify(status))));
        this.end();
      });
  }

  /** A custom resource's CRD went away: the watch ends as kube's does, without an error event. */
  onClose(): void {
    this.end();
  }

  onError(err: StorageError): void {
    const status = watchError(err).toStatus();
    const { isProtobuf, isCbor } = this;
    this.write(this.eventBytes('ERROR', isProtobuf ? encodeProtobufStatus(status) : isCbor ? encodeCbor(status) : Buffer.from(JSON.stringify(status))));
    this.end();
  }

  /** Puts this watch in the shared timer queue at its next bookmark or its deadline, whichever is first. */
  armTimer(): void {
    if (this.ended) return;
    let due = this.deadline;
    if (this.allowBookmarks) {
      const now = Date.now();
      const at = nextBookmarkAt(now, this.deadline);
      if (at !== undefined && at > this.lastBookmarkDue) {
        this.lastBookmarkDue = at;
        due = Math.min(due, Math.max(at, now));
      }
    }
    watchTimers.schedule(this, due);
  }

  /** Called by the timer queue when this watch is due: its deadline ends it; otherwise a bookmark is due. */
  onDue(now: number): void {
    if (this.ended) return;
    if (now >= this.deadline) {
      this.end();
      return;
    }
    // Like kube's cacher, a bookmark goes out only when a change of this resource came after the
    // watch's start, and carries that change's revision: writes of other kinds do not count.
    const rev = this.store.cache.lastEventRevision;
    if (rev > this.startRevision) this.bookmark(rev, false);
    this.armTimer();
  }
}

/**
 * When a bookmark-enabled watcher gets its next bookmark (kube's cacheWatcher.nextBookmarkTime):
 * a minute on, but never later than 2s before the deadline; none once that moment is past.
 * kube takes the deadline from the request context, set before the watcher asks, so a moment equal
 * to `now` at millisecond precision is already past in Go's nanoseconds: timeoutSeconds=2 gets none.
 */
export function nextBookmarkAt(now: number, deadline: number): number | undefined {
  const at = Math.min(now + bookmarkFrequencyMs, deadline - preTimeoutBookmarkMs);
  return at <= now ? undefined : at;
}

function watchError(err: unknown): ApiError {
  if (isApiError(err)) return err;
  if (isStorageError(err, 'TooOld')) return errors.expired(err.message);
  return errors.internal(err instanceof Error ? err.message : String(err));
}

/**
 * A watch event as kube's CBOR watch encoder writes it: a self-described map `{type, object}` with
 * byte-string keys in deterministic order, the object embedded as its own (self-described) item.
 */
function cborWatchEvent(type: string, object: Uint8Array): Uint8Array {
  const t = Buffer.from(type, 'utf8');
  // 0xd9d9f7: tag 55799; 0xa2: map of 2; 0x44 'type'; byte string of the type; 0x46 'object'.
  return Buffer.concat([CBOR_EVENT_HEAD, Buffer.from([0x40 | t.length]), t, CBOR_OBJECT_KEY, object]);
}
const CBOR_EVENT_HEAD = Buffer.from([0xd9, 0xd9, 0xf7, 0xa2, 0x44, 0x74, 0x79, 0x70, 0x65]);
const CBOR_OBJECT_KEY = Buffer.from([0x46, 0x6f, 0x62, 0x6a, 0x65, 0x63, 0x74]);
