/**
 * Writing responses: objects, lists and Status errors, encoded per the negotiated media type,
 * with `Warning` headers and gzip for large bodies. The one place bodies leave the server.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors, isApiError } from '../api/status-errors.ts';
import { negotiateOutput, type Negotiated } from '../codec/negotiate.ts';

/** How to write a body; `schema` marks the `format: byte` fields CBOR writes as byte strings. */
export type OutputFormat = Pick<Negotiated, 'serializer' | 'pretty'> & { readonly schema?: Schema };
const plainJson: OutputFormat = { serializer: 'json', pretty: false };
import { encodeYaml } from '../codec/yaml-encode.ts';
import { encodeJson } from '../codec/json-encode.ts';
import { goQuote } from '../schema/prune.ts';
import { maybeGzip } from '../codec/compress.ts';
import { encodeCbor } from '../codec/cbor.ts';
import type { Schema } from '../schema/types.ts';
import { MEDIA_CBOR, type Serializer } from '../codec/negotiate.ts';
import { encodeProtobufList, encodeProtobufObject, encodeProtobufStatus, PROTOBUF_MEDIA_TYPE } from '../codec/protobuf/index.ts';

/** Formats one warning the way kube-apiserver does: `299 - "text"` (text quoted as Go's %q). */
export function warningHeaderValue(text: string): string {
  // Header values go out as bytes: carry the UTF-8 of the text as one char per byte, as Go writes it.
  return Buffer.from(`299 - ${goQuote(text)}`, 'utf8').toString('latin1');
}

/** kube-apiserver's limits on Warning headers (filters/warning.go): total text, and each item once over it. */
export const WARNING_TOTAL_RUNES = 4 * 1024;
export const WARNING_ITEM_RUNES = 256;

/** Per response: kube's deduplicating, truncating warning recorder. */
interface WarningRecorder {
  readonly recorded: Set<string>;
  readonly ordered: string[];
  headers: string[];
  written: number;
  truncating: boolean;
}
const recorders = new WeakMap<FastifyReply, WarningRecorder>();

const runeCount = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};
const truncateRunes = (s: string, max: number): string => Array.from(s).slice(0, max).join('');
// Go's unicode.IsControl: C0, DEL and C1.
const hasControl = (s: string): boolean => /[\u0000-\u001f\u007f-\u009f]/.test(s);

/**
 * Adds warnings as kube's recorder does: each distinct text once; while the total stays within
 * 4096 runes every text in full; past that, every text so far (and later ones, until the total is
 * reached) is cut to 256 runes, and the rest dropped. So a body with a hundred thousand unknown
 * fields still gets headers of about 4 KiB, which every client and HTTP/2 frame can carry.
 */
export function addWarnings(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  let r = recorders.get(reply);
  if (!r) {
    r = { recorded: new Set(), ordered: [], headers: [], written: 0, truncating: false };
    recorders.set(reply, r);
  }
  for (const w of warnings) {
    if (!addWarning(r, w)) break;
  }
  reply.header('warning', r.headers);
}

/** One AddWarning; false once nothing more can be added. */
function addWarning(r: WarningRecorder, original: string): boolean {
  if (original.length === 0) return true;
  if (r.written >= WARNING_TOTAL_RUNES && r.truncating) return false;
  if (r.recorded.has(original)) return true;
  r.recorded.add(original);
  r.ordered.push(original);
  let text = original;
  let runes = runeCount(text);
  if (r.truncating && runes > WARNING_ITEM_RUNES) {
    text = truncateRunes(text, WARNING_ITEM_RUNES);
    runes = WARNING_ITEM_RUNES;
  }
  // kube's NewWarningHeader refuses control characters; such a warning is not sent.
  if (hasControl(text)) return true;
  if (r.written + runes <= WARNING_TOTAL_RUNES || r.truncating) {
    r.written += runes;
    r.headers.push(warningHeaderValue(text));
    return true;
  }
  // Over the limit for the first time: replay everything so far, each cut to the item limit.
  r.truncating = true;
  r.written = 0;
  r.headers = [];
  for (const w of r.ordered) {
    const t = runeCount(w) > WARNING_ITEM_RUNES ? truncateRunes(w, WARNING_ITEM_RUNES) : w;
    if (hasControl(t)) continue;
    r.written += Math.min(runeCount(w), WARNING_ITEM_RUNES);
    r.headers.push(warningHeaderValue(t));
  }
  return true;
}

/** Serializes a JSON value for the chosen format. */
export function encodeBody(value: unknown, format: OutputFormat): { body: Buffer; contentType: string } {
  if (format.serializer === 'yaml') return { body: Buffer.from(encodeYaml(value)), contentType: 'application/yaml' };
  if (format.serializer === 'protobuf') return { body: Buffer.from(encodeProtobuf(value as Record<string, unknown>)), contentType: PROTOBUF_MEDIA_TYPE };
  if (format.serializer === 'cbor') return { body: encodeCbor(value, format.schema), contentType: MEDIA_CBOR };
  // As Go's encoding/json writes kube's responses: HTML characters escaped, compact output newline-terminated.
  return { body: Buffer.from(encodeJson(value, format.pretty)), contentType: 'application/json' };
}

/** Sends a JSON value (object, list, table, discovery document) with the negotiated encoding. */
export function sendValue(req: FastifyRequest, reply: FastifyReply, code: number, value: unknown, format?: OutputFormat): void {
  const { body, contentType } = encodeBody(value, format ?? plainJson);
  sendBytes(req, reply, code, body, contentType);
}

/** Sends pre-encoded bytes (memoized JSON), gzipped when large and accepted. */
export function sendBytes(req: FastifyRequest, reply: FastifyReply, code: number, body: Uint8Array, contentType: string, cacheControl = 'no-cache, private'): void {
  reply.code(code).header('content-type', contentType).header('cache-control', cacheControl);
  const gz = maybeGzip(body, String(req.headers['accept-encoding'] ?? ''), req.server.features.enabled('APIResponseCompression'));
  for (const [k, v] of Object.entries(gz.headers)) reply.header(k, v);
  if (req.method === 'HEAD') {
    reply.header('content-length', gz.body.length).send();
    return;
  }
  reply.send(Buffer.from(gz.body.buffer, gz.body.byteOffset, gz.body.byteLength));
}

/** Sends any thrown error as a Status; unknown errors become 500 InternalError and are logged. */
export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown): void {
  const apiErr: ApiError = isApiError(err) ? err : toApiError(err);
  if (apiErr.code >= 500 && !isApiError(err)) logUncaught(req, err);
  for (const [k, v] of Object.entries(apiErr.headers ?? {})) reply.header(k, v);
  // When the Accept header names nothing kube can write, kube falls back to indented JSON (WriteRawJSON).
  let fmt: OutputFormat = { serializer: 'json', pretty: true };
  try {
    const q = req.searchParams?.get('pretty');
    // kube negotiates errors with its default restrictions: any serializer (a protobuf client gets
    // a protobuf Status), no `as=` conversions (asking only for a Table gets the JSON fallback).
    const serializers: Serializer[] = ['json', 'yaml', 'protobuf'];
    if (req.server.features?.enabled('CBORServingAndStorage')) serializers.push('cbor');
    fmt = negotiateOutput({
      accept: String(req.headers.accept ?? ''),
      offer: { serializers, conversions: false },
      prettyQuery: q,
      userAgent: String(req.headers['user-agent'] ?? ''),
    });
  } catch {
    // Errors are always sendable as JSON.
  }
  const status: Record<string, unknown> = { ...apiErr.toStatus() };
  // kube omits an empty reason (errors it returns unwrapped carry none).
  if (status.reason === '') delete status.reason;
  sendValue(req, reply, apiErr.code, status, fmt);
}

/**
 * An exception no code turned into a Status is a defect wherever it happens: say so on stderr
 * with the request and the stack, whether or not the request logger is on, so it cannot go unseen.
 */
function logUncaught(req: FastifyRequest, err: unknown): void {
  const what = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  console.error(`kube-gateway: uncaught exception in ${req.method} ${req.url}: ${what}`);
  req.log.error({ err }, 'internal error');
}

function toApiError(err: unknown): ApiError {
  const e = err as { statusCode?: number; code?: string; message?: string };
  if (e?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.requestEntityTooLarge(3 * 1024 * 1024);
  // Fastify's fallback for methods no route registers (any non-standard method): kube's router answers 405.
  if (e?.code === 'FST_ERR_NOT_FOUND') return errors.methodNotAllowed();
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return errors.badRequest(e.message ?? 'bad request');
  return errors.internal(e?.message ?? String(err));
}

/** Protobuf for a Status, a list or a single object (the caller only asks for kinds that have one). */
function encodeProtobuf(value: Record<string, unknown>): Uint8Array {
  if (value.kind === 'Status') return encodeProtobufStatus(value);
  const kind = String(value.kind ?? '');
  if (kind.endsWith('List') && Array.isArray(value.items)) {
    return encodeProtobufList(kind, String(value.apiVersion ?? ''), (value.metadata ?? {}) as Record<string, unknown>, value.items as Record<string, unknown>[]);
  }
  return encodeProtobufObject(value);
}

/**
 * Go's http.NotFound: what kube answers for paths no component serves. It still passes kube's
 * handler chain, whose cache-control filter marks every answer `no-cache, private`.
 */
export function sendPageNotFound(reply: FastifyReply): void {
  reply
    .code(404)
    .header('content-type', 'text/plain; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-cache, private')
    .send('404 page not found\n');
}
