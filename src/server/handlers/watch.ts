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
import { negotiateWatch } from '../../codec/negotiate.ts';
import { encodeProtobufObject, encodeProtobufStatus, encodeProtobufWatchEvent } from '../../codec/protobuf/index.ts';
import { apiVersionOf } from '../../api/types.ts';
import { offerFor, type VerbContext } from './resource.ts';
import type { Entry } from '../../registry/resource-store.ts';

/** Live watches, so a graceful shutdown can end them cleanly. */
export class WatchRegistry {
  private readonly active = new Set<() => void>();
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

// A watcher whose unsent output grows beyond this is too slow: it is closed (it will re-watch).
const maxBufferedBytes = 16 * 1024 * 1024;
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
  const q = parseWatchQuery(c.query);
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
    const listed = cache.list({ keyPrefix, filter: filter.always ? undefined : (e) => filter.matches(store.served(e.value)) });
    initial = listed.entries;
    startRevision = listed.revision;
  } else {
    startRevision = rv === '' || rv === '0' ? cache.revision : Number(rv);
  }

  const isTable = fmt.kind === 'table';
  const isProtobuf = fmt.serializer === 'protobuf' && !isTable;
  // A metadata-only watch (client-go's metadata informers) sends each object as PartialObjectMetadata.
  const partialVersion = fmt.kind === 'partial-metadata' || fmt.kind === 'partial-metadata-list' ? fmt.version : undefined;
  const baseKey = isTable ? `table@${rt.group}/${rt.version}/${rt.resource}` : isProtobuf ? `pb@${apiVersionOf(rt)}` : store.formatKey;
  const formatKey = partialVersion ? `partial-${partialVersion}:${baseKey}` : baseKey;
  // Table watches carry column definitions on their first event only, as kube's do.
  let headersSent = false;
  const objectBytes = (type: Frame, entry: Entry, withHeaders: boolean): Uint8Array => {
    if (partialVersion) {
      return entry.encode(formatKey, (v) => {
        const partial = toPartialObjectMetadata(store.served(v), partialVersion);
        return isProtobuf ? encodeProtobufObject(partial) : Buffer.from(stringifyGo(partial));
      });
    }
    if (isProtobuf) return entry.encode(formatKey, (v) => encodeProtobufObject(store.served(v)));
    if (!isTable) return store.encodeJson(entry);
    // Table cells hold ages, so rows are rendered now rather than memoized on the long-lived entry.
    return Buffer.from(JSON.stringify(tableWatchEventObject(type, store.served(entry.value), rt, { includeObject: 'Metadata', now: new Date(), firstEvent: withHeaders })));
  };
  /** One event on the wire: a JSON line, or a length-prefixed protobuf WatchEvent. */
  const eventBytes = (type: string, object: Uint8Array): Uint8Array =>
    isProtobuf ? encodeProtobufWatchEvent(type, object) : Buffer.concat([Buffer.from(`{"type":"${type}","object":`), object, Buffer.from('}\n')]);
  const frame = (type: Frame, entry: Entry, withHeaders = false): Uint8Array => eventBytes(type, objectBytes(type, entry, withHeaders));
  // A deleted object is sent as its last state stamped with the revision of the delete. An object
  // that an update moved out of the selector is "deleted" as its previous, still matching state
  // (kube's cacheWatcher), stamped likewise.
  const deletedEntry = (ev: CacheEvent<KubeObject>): Entry => {
    const last = ev.type === 'DELETED' || !ev.prev ? ev.entry : ev.prev;
    if (last.value.metadata?.resourceVersion === String(ev.revision)) return last;
    const value = { ...last.value, metadata: { ...last.value.metadata, resourceVersion: String(ev.revision) } };
    const memo = ev.type === 'DELETED' ? 'deleted' : 'left-selector';
    return { ...last, value, encode: (format, encoder) => ev.encode(`${format}:${memo}`, () => encoder(value)) };
  };

  c.reply.hijack();
  const res = c.reply.raw as ServerResponse | Http2ServerResponse;
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache, private' });
  if (typeof (res as ServerResponse).flushHeaders === 'function') (res as ServerResponse).flushHeaders();

  let ended = false;
  let synced = startRevision;
  const timers: NodeJS.Timeout[] = [];
  let handle: { close(): void } | undefined;
  const write = (buf: Uint8Array): void => {
    if (ended) return;
    (res as ServerResponse).write(buf);
    if (((res as ServerResponse).writableLength ?? 0) > maxBufferedBytes) end();
  };
  const bookmark = (revision: number, initialEnd: boolean): void => {
    const object = {
      kind: rt.kind,
      apiVersion: apiVersionOf(rt),
      metadata: { resourceVersion: String(revision), creationTimestamp: null, ...(initialEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) },
    };
    write(eventBytes('BOOKMARK', isProtobuf ? encodeProtobufObject(object) : Buffer.from(JSON.stringify(object))));
  };
  const end = (): void => {
    if (ended) return;
    ended = true;
    handle?.close();
    for (const t of timers) clearTimeout(t);
    unregister();
    res.end();
  };
  const unregister = watches.add(end);
  res.on('close', end);
  (c.req.raw as NodeJS.EventEmitter).on('close', end);

  const firstFrame = (type: Frame, entry: Entry): Uint8Array | undefined => {
    if (!isTable || headersSent) return undefined;
    headersSent = true;
    return frame(type, entry, true);
  };
  for (const e of initial) write(firstFrame('ADDED', e) ?? frame('ADDED', e));
  if (q.sendInitialEvents && q.allowWatchBookmarks) bookmark(startRevision, true);

  const onEvent = (ev: CacheEvent<KubeObject>): void => {
    const nowMatches = ev.type !== 'DELETED' && (filter.always || filter.matches(store.served(ev.entry.value)));
    const prevMatched = ev.prev !== undefined && (filter.always || filter.matches(store.served(ev.prev.value)));
    let type: Frame | undefined;
    if (ev.type === 'ADDED') type = nowMatches ? 'ADDED' : undefined;
    else if (ev.type === 'MODIFIED') type = nowMatches ? (prevMatched || ev.prev === undefined ? 'MODIFIED' : 'ADDED') : prevMatched ? 'DELETED' : undefined;
    else type = filter.always || filter.matches(store.served(ev.entry.value)) ? 'DELETED' : undefined;
    synced = ev.revision;
    if (!type) return;
    const entry = type === 'DELETED' ? deletedEntry(ev) : ev.entry;
    // The common case (the event's own type) shares one buffer across all watchers.
    const bytes = firstFrame(type, entry) ?? (type === ev.type ? ev.encode(`${formatKey}:frame`, () => frame(type!, entry)) : frame(type, entry));
    write(bytes);
  };
  handle = cache.watch(
    { fromRevision: startRevision, keyPrefix },
    {
      onEvent,
      onProgress: (revision) => {
        synced = Math.max(synced, revision);
      },
      onError: (err: StorageError) => {
        const status = watchError(err).toStatus();
        write(eventBytes('ERROR', isProtobuf ? encodeProtobufStatus(status) : Buffer.from(JSON.stringify(status))));
        end();
      },
    },
  );

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
      // Like the cacher, a bookmark goes out whenever the cache is past the watch's start.
      const rev = Math.max(synced, cache.revision);
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
 */
export function nextBookmarkAt(now: number, deadline: number): number | undefined {
  const at = Math.min(now + bookmarkFrequencyMs, deadline - preTimeoutBookmarkMs);
  return at < now ? undefined : at;
}

function watchError(err: unknown): ApiError {
  if (isApiError(err)) return err;
  if (isStorageError(err, 'TooOld')) return errors.expired(err.message);
  return errors.internal(err instanceof Error ? err.message : String(err));
}
