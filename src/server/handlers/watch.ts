/**
 * Watch: a chunked stream of `{type, object}` events, one per line. Served from the watch cache;
 * each event's bytes are built once per encoding and shared by every watcher.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { ApiError, errors, isApiError } from '../../api/status-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { isStorageError, type StorageError } from '../../storage/types.ts';
import type { CacheEvent } from '../../storage/watch-cache.ts';
import { isWatchListRequest, parseWatchQuery } from '../../registry/list-options.ts';
import { buildObjectFilter } from '../../registry/object-filter.ts';
import { tableWatchEventObject, toPartialObjectMetadata } from '../../codec/table.ts';
import { stringifyGo } from '../../codec/json-encode.ts';
import { encodeCbor } from '../../codec/cbor.ts';
import { negotiateWatch } from '../../codec/negotiate.ts';
import { encodeProtobufList, encodeProtobufObject, encodeProtobufStatus, encodeProtobufWatchEvent } from '../../codec/protobuf/index.ts';
import { apiVersionOf } from '../../api/types.ts';
import { offerFor, type VerbContext } from './resource.ts';
import type { Entry } from '../../registry/resource-store.ts';

/** Live watches, so a graceful shutdown can end them cleanly; and their shared buffer budget. */
export class WatchRegistry {
  private readonly active = new Set<() => void>();
  constructor(readonly budget: WatchBufferBudget = defaultBudget) {}
  add(end: () => void): () => void {
    this.active.add(end);
    return () => this.active.delete(end);
  }
  endAll(): void {
    for (const end of [...this.active]) end();
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

  const isTable = fmt.kind === 'table';
  const isProtobuf = fmt.serializer === 'protobuf' && !isTable;
  // CBOR: every event one self-described item of a CBOR sequence, the object embedded as its own item.
  const isCbor = fmt.serializer === 'cbor';
  const encodeOther = (v: unknown): Uint8Array => (isProtobuf ? encodeProtobufObject(v as KubeObject) : isCbor ? encodeCbor(v) : Buffer.from(JSON.stringify(v)));
  // A metadata-only watch (client-go's metadata informers) sends each object as PartialObjectMetadata.
  const partialVersion = fmt.kind === 'partial-metadata' || fmt.kind === 'partial-metadata-list' ? fmt.version : undefined;
  const baseKey = isTable ? `table@${rt.group}/${rt.version}/${rt.resource}` : isProtobuf ? `pb@${apiVersionOf(rt)}` : isCbor ? `cbor@${apiVersionOf(rt)}` : store.formatKey;
  const formatKey = partialVersion ? `partial-${partialVersion}:${baseKey}` : baseKey;
  // Table watches carry column definitions on their first event only, as kube's do.
  let headersSent = false;
  const objectBytes = (type: Frame, entry: Entry, withHeaders: boolean): Uint8Array => {
    if (partialVersion) {
      return entry.encode(formatKey, (v) => {
        const partial = toPartialObjectMetadata(store.served(v), partialVersion);
        return isProtobuf ? encodeProtobufObject(partial) : isCbor ? encodeCbor(partial) : Buffer.from(stringifyGo(partial));
      });
    }
    if (isProtobuf) return entry.encode(formatKey, (v) => encodeProtobufObject(store.served(v)));
    if (isCbor && !isTable) return entry.encode(formatKey, (v) => encodeCbor(store.served(v), rt.schema));
    if (!isTable) return store.encodeJson(entry);
    // Table cells hold ages, so rows are rendered now rather than memoized on the long-lived entry.
    const row = tableWatchEventObject(type, store.served(entry.value), rt, { includeObject: 'Metadata', now: new Date(), firstEvent: withHeaders });
    return isCbor ? encodeCbor(row) : Buffer.from(JSON.stringify(row));
  };
  /** One event on the wire: a JSON line, a length-prefixed protobuf WatchEvent, or a CBOR item. */
  const eventBytes = (type: string, object: Uint8Array): Uint8Array =>
    isProtobuf
      ? encodeProtobufWatchEvent(type, object)
      : isCbor
        ? cborWatchEvent(type, object)
        : Buffer.concat([Buffer.from(`{"type":"${type}","object":`), object, Buffer.from('}\n')]);
  const frame = (type: Frame, entry: Entry, withHeaders = false): Uint8Array => eventBytes(type, objectBytes(type, entry, withHeaders));
  // A deleted object is sent as its last state stamped with the revision of the delete. An object
  // that an update moved out of the selector is "deleted" as its previous, still matching state
  // (kube's cacheWatcher), stamped likewise.
  const deletedEntry = (ev: CacheEvent<KubeObject>): Entry => {
    const last = ev.type === 'DELETED' || !ev.prev ? ev.entry : ev.prev;
    if (last.value.metadata?.resourceVersion === String(ev.revision)) return last;
    const value = { ...last.value, metadata: { ...last.value.metadata, resourceVersion: String(ev.revision) } };
    store.derive(value, last.value);
    const memo = ev.type === 'DELETED' ? 'deleted' : 'left-selector';
    return { ...last, value, encode: (format, encoder) => ev.encode(`${format}:${memo}`, () => encoder(value)) };
  };

  c.reply.hijack();
  const res = c.reply.raw as ServerResponse | Http2ServerResponse;
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache, private' });
  if (typeof (res as ServerResponse).flushHeaders === 'function') (res as ServerResponse).flushHeaders();

  let ended = false;
  const timers: NodeJS.Timeout[] = [];
  let handle: { close(): void } | undefined;
  // Live events that arrive while the initial events are still being written wait here.
  let queued: Uint8Array[] | undefined = [];
  let queuedBytes = 0;
  const budget = watches.budget;
  const self = { buffered: 0, close: () => abort() };
  budget.add(self);
  const unsent = (): number => (res as ServerResponse).writableLength ?? 0;
  // kube's apiserver_watch_events_total/_sizes and apiserver_longrunning_requests.
  const apiMetrics = c.req.server.apiMetrics;
  const recordEvent = apiMetrics?.watchEventRecorder(rt.group, rt.version, rt.kind);
  const longRunningDone = apiMetrics?.longRunningStarted(c.info);
  const rawWrite = (buf: Uint8Array): void => {
    recordEvent?.(buf.byteLength);
    (res as ServerResponse).write(buf);
    budget.account(self, unsent());
  };
  const write = (buf: Uint8Array): void => {
    if (ended) return;
    if (queued) {
      queued.push(buf);
      queuedBytes += buf.byteLength;
      if (queuedBytes > WATCHER_BUFFER_BYTES) abort();
      return;
    }
    rawWrite(buf);
    // A live watcher this far behind is closed, as kube closes a watcher whose buffer stays full.
    if (!ended && unsent() > WATCHER_BUFFER_BYTES) abort();
  };
  res.on('drain', () => budget.account(self, unsent()));
  // kube 1.32 marks the end of a watch-list's initial events with an empty list of the kind in the
  // response's encoding (base64), from which clients build the list the events stand for.
  // A metadata-only watch gets its bookmarks and blueprint as PartialObjectMetadata(List), as kube's
  // watch encoder transforms every object of the stream, bookmarks included.
  const streamKind = partialVersion ? 'PartialObjectMetadata' : rt.kind;
  const streamListKind = partialVersion ? 'PartialObjectMetadataList' : rt.listKind;
  const streamApiVersion = partialVersion ? `meta.k8s.io/${partialVersion}` : apiVersionOf(rt);
  const listBlueprint = (): string => {
    const bytes = isProtobuf
      ? encodeProtobufList(streamListKind, streamApiVersion, {}, [])
      : isCbor
        ? encodeCbor({ kind: streamListKind, apiVersion: streamApiVersion, metadata: {}, items: null })
        : Buffer.from(`${JSON.stringify({ kind: streamListKind, apiVersion: streamApiVersion, metadata: {}, items: null })}\n`);
    return Buffer.from(bytes).toString('base64');
  };
  const bookmark = (revision: number, initialEnd: boolean): void => {
    const annotations = initialEnd
      ? { 'k8s.io/initial-events-end': 'true', ...(q.allowWatchBookmarks ? { 'kubernetes.io/initial-events-list-blueprint': listBlueprint() } : {}) }
      : undefined;
    const object = {
      kind: streamKind,
      apiVersion: streamApiVersion,
      metadata: { resourceVersion: String(revision), creationTimestamp: null, ...(annotations ? { annotations } : {}) },
    };
    write(eventBytes('BOOKMARK', encodeOther(object)));
  };
  const end = (): void => {
    if (ended) return;
    ended = true;
    longRunningDone?.();
    handle?.close();
    for (const t of timers) clearTimeout(t);
    unregister();
    budget.remove(self);
    queued = undefined;
    res.end();
  };
  /**
   * Ends a watcher that cannot keep up. Ending the response politely would keep its unsent bytes
   * queued behind the stuck client, so the stream (HTTP/2) or connection (HTTP/1.1) is reset,
   * which frees them; the client sees the watch end and re-watches.
   */
  const abort = (): void => {
    if (ended) return;
    end();
    const stream = (res as Http2ServerResponse).stream;
    if (stream && typeof stream.close === 'function') stream.close(0x8 /* NGHTTP2_CANCEL */);
    else (res as ServerResponse).socket?.destroy();
  };
  const unregister = watches.add(end);
  res.on('close', end);
  (c.req.raw as NodeJS.EventEmitter).on('close', end);

  const firstFrame = (type: Frame, entry: Entry): Uint8Array | undefined => {
    if (!isTable || headersSent) return undefined;
    headersSent = true;
    return frame(type, entry, true);
  };
  /**
   * Initial events go out as fast as the client takes them: past the per-watcher buffer the loop
   * waits for the response to drain rather than holding every object's bytes at once.
   */
  const writeInitialEvents = async (): Promise<void> => {
    const pending = queued!;
    queued = undefined;
    for (const e of initial) {
      if (ended) return;
      rawWrite(firstFrame('ADDED', e) ?? frame('ADDED', e));
      if (unsent() > WATCHER_BUFFER_BYTES) {
        queued = pending;
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
        queued = undefined;
      }
    }
    if (ended) return;
    if (q.sendInitialEvents && q.allowWatchBookmarks) bookmark(startRevision, true);
    for (const b of pending) write(b);
  };

  const onEvent = (ev: CacheEvent<KubeObject>): void => {
    const nowMatches = ev.type !== 'DELETED' && (filter.always || filter.matches(store.served(ev.entry.value)));
    const prevMatched = ev.prev !== undefined && (filter.always || filter.matches(store.served(ev.prev.value)));
    let type: Frame | undefined;
    if (ev.type === 'ADDED') type = nowMatches ? 'ADDED' : undefined;
    else if (ev.type === 'MODIFIED') type = nowMatches ? (prevMatched || ev.prev === undefined ? 'MODIFIED' : 'ADDED') : prevMatched ? 'DELETED' : undefined;
    else type = filter.always || filter.matches(store.served(ev.entry.value)) ? 'DELETED' : undefined;
    if (!type) return;
    const entry = type === 'DELETED' ? deletedEntry(ev) : ev.entry;
    // The common case (the event's own type) shares one buffer across all watchers.
    const bytes = firstFrame(type, entry) ?? (type === ev.type ? ev.encode(`${formatKey}:frame`, () => frame(type!, entry)) : frame(type, entry));
    write(bytes);
  };
  // A kind converted by webhook converts each event's objects before it is sent, in order; a
  // conversion that fails ends the watch with its error.
  let converting = Promise.resolve();
  const convertThenSend = (ev: CacheEvent<KubeObject>): void => {
    converting = converting
      .then(async () => {
        if (ended) return;
        const p = store.prepare([ev.entry.value, ev.prev?.value]);
        if (p) await p;
        if (!ended) onEvent(ev);
      })
      .catch((err: unknown) => {
        const status = watchError(err).toStatus();
        write(eventBytes('ERROR', Buffer.from(JSON.stringify(status))));
        end();
      });
  };
  handle = cache.watch(
    { fromRevision: startRevision, keyPrefix },
    {
      onEvent: rt.asyncConversion ? convertThenSend : onEvent,
      // A custom resource's CRD went away: the watch ends as kube's does, without an error event.
      onClose: () => end(),
      onError: (err: StorageError) => {
        const status = watchError(err).toStatus();
        write(eventBytes('ERROR', isProtobuf ? encodeProtobufStatus(status) : isCbor ? encodeCbor(status) : Buffer.from(JSON.stringify(status))));
        end();
      },
    },
  );

  // API Priority and Fairness counts a watch's seat until its initial events are out (src/flowcontrol/filter.ts).
  writeInitialEvents().then(() => c.req.watchInitialized?.(), () => abort());

  // timeoutSeconds=0 (or none) is the server's default; a negative one has already expired, as a Go deadline in the past.
  const timeout = q.timeoutSeconds === undefined || q.timeoutSeconds === 0 ? defaultTimeoutSeconds * (1 + Math.random()) : Math.max(q.timeoutSeconds, 0);
  const deadline = Date.now() + timeout * 1000;
  if (q.allowWatchBookmarks) {
    // Each bookmark is due strictly after the previous one: the pre-deadline one comes once.
    let lastDue = -Infinity;
    const schedule = (): void => {
      const now = Date.now();
      const at = nextBookmarkAt(now, deadline);
      if (at === undefined || at <= lastDue) return;
      lastDue = at;
      timers.push(setTimeout(tick, Math.max(0, at - now)).unref());
    };
    const tick = (): void => {
      if (ended) return;
      // Like kube's cacher, a bookmark goes out only when a change of this resource came after the
      // watch's start, and carries that change's revision: writes of other kinds do not count.
      const rev = cache.lastEventRevision;
      if (rev > startRevision) bookmark(rev, false);
      schedule();
    };
    schedule();
  }
  timers.push(setTimeout(end, timeout * 1000).unref());
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
