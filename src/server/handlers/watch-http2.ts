/**
 * A watch over HTTP/2 streams on its raw stream once its headers are out (issue 19: an idle watcher
 * should cost little more than its stream). Node's compatibility layer gives every stream a
 * request and a response object, linked from the stream and listening on it, and Fastify's request
 * and reply hang from those by their own listeners: kept for a watch's whole life, they were most
 * of the ~10 KB an idle watcher held. Once the watch has written its headers nothing of them is
 * needed, so the stream is cut loose from them and the work that ran when the response ended (the
 * request metrics and audit hooks, the in-flight and priority-and-fairness releases) is kept as a
 * few callbacks that hold neither the request nor its reply.
 *
 * Everything here leans on Node's compatibility layer (lib/internal/http2/compat.js): its
 * listeners are recognised by name and its links by their symbols' descriptions. A Node whose
 * layer does not look like that is left alone, and the watch is served through the response object
 * as before (detachHttp2Watch answers undefined).
 */
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Stream } from 'node:http2';
import { takeResponseEndWork } from '../../request/response-end.ts';

/** The compatibility layer's listeners on a stream: its request's and response's. */
const COMPAT_LISTENERS = new Set([
  'onStreamData',
  'onStreamTrailers',
  'onStreamEnd',
  'onStreamError',
  'onStreamAbortedRequest',
  'onStreamCloseRequest',
  'onStreamTimeout',
  'onStreamDrain',
  'onStreamAbortedResponse',
  'onStreamCloseResponse',
  'onStreamTrailersReady',
]);
/** The events the compatibility layer listens to on a stream. */
const COMPAT_EVENTS = ['data', 'trailers', 'end', 'error', 'aborted', 'close', 'timeout', 'drain', 'wantTrailers'] as const;
/**
 * The stream's links to its request and response, by their symbols' descriptions; and the headers
 * it sent, kept only for the `sentHeaders` getter nothing here reads.
 */
const COMPAT_LINKS = new Set(['request', 'response', 'proxySocket', 'sent-headers']);

/** A watch's raw stream and what must run once when it ends. */
export interface DetachedWatch {
  readonly stream: ServerHttp2Stream;
  /** The end-of-response work, each to run once (src/request/response-end.ts). */
  readonly onEnd: readonly (() => void)[];
}

/**
 * Cuts an HTTP/2 watch's stream loose from its request and response objects, after its headers
 * were written and before the watch listens to anything. Answers undefined, changing nothing, when
 * the response is not HTTP/2 or the compatibility layer is not the one this knows.
 */
export function detachHttp2Watch(req: Http2ServerRequest, res: Http2ServerResponse): DetachedWatch | undefined {
  const stream = (res as Partial<Http2ServerResponse>).stream;
  if (stream === undefined || stream.destroyed || !res.headersSent) return undefined;
  const compat = COMPAT_EVENTS.flatMap((event) => (stream.rawListeners(event) as ((...args: unknown[]) => void)[]).filter((l) => COMPAT_LISTENERS.has(l.name)).map((l) => [event, l] as const));
  // Both objects' close listeners must be there to be removed, or the layer is not the known one.
  const names = new Set(compat.map(([, l]) => l.name));
  if (!names.has('onStreamCloseRequest') || !names.has('onStreamCloseResponse')) return undefined;
  const links = Object.getOwnPropertySymbols(stream).filter((s) => s.description !== undefined && COMPAT_LINKS.has(s.description));
  if (links.length === 0) return undefined;

  // The end work (src/request/response-end.ts: the in-flight and priority-and-fairness releases).
  // Fastify's own listeners ('finish', 'error') run the onResponse hooks, which the caller replaces
  // (FastifyInstance.responseHooksLater).
  const onEnd = takeResponseEndWork(res);

  for (const [event, listener] of compat) stream.removeListener(event, listener);
  for (const link of links) (stream as unknown as Record<symbol, unknown>)[link] = undefined;
  for (const emitter of [res, req]) emitter.removeAllListeners();
  return { stream, onEnd };
}

/** The onResponse hooks' work for a response that ends outside Fastify; see runResponseHooksLater. */
export interface ResponseHooksLater {
  /** performance.now() when the request came in. */
  readonly startedAt: number;
  readonly observe: ((code: number, seconds: number) => void) | undefined;
  readonly completeAudit: ((code: number) => void) | undefined;
}

/** Runs the hooks' work of a response that ended with `code`. */
export function runResponseHooksLater(hooks: ResponseHooksLater, code: number): void {
  hooks.observe?.(code, (performance.now() - hooks.startedAt) / 1000);
  hooks.completeAudit?.(code);
}
