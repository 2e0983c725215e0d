/**
 * Go's http.ServeContent for a document held in memory, which is how kube-openapi serves the
 * OpenAPI documents: Last-Modified and Accept-Ranges, the conditional headers (If-Match,
 * If-Unmodified-Since, If-None-Match, If-Modified-Since, If-Range) and a single byte range (206,
 * or 416 with `Content-Range: bytes *\/size`). Optionally wrapped, as kube wraps /openapi/v2, in
 * the gzip handler kube uses (NYTimes gziphandler: `Vary: Accept-Encoding` on every answer, gzip
 * from 1400 bytes).
 *
 * Not done: several ranges in one request (Go answers multipart/byteranges); those are served
 * whole, as Go also does when the ranges add up to more than the document.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { gzipSync } from 'node:zlib';
import { acceptsGzip } from '../codec/compress.ts';

/** NYTimes gziphandler's DefaultMinSize: smaller bodies are written as they are. */
const GZIP_MIN_BYTES = 1400;

export interface ServedDocument {
  readonly body: Uint8Array;
  readonly contentType: string;
  /** Sent as Last-Modified (whole seconds) and compared with If-Modified-Since / If-Unmodified-Since. */
  readonly lastModified: Date;
  /** A quoted ETag; when absent the ETag conditions never match. */
  readonly etag?: string;
  /** Vary values in the order kube's handlers add them. */
  readonly vary?: readonly string[];
  readonly cacheControl?: string;
  /** Wrap in kube's gzip handler (the /openapi/v2 handler is; the v3 ones are not). */
  readonly gzip?: boolean;
  /** Extra headers set before ServeContent runs (Expires on content-addressed documents). */
  readonly headers?: Readonly<Record<string, string>>;
}

type Cond = 'none' | 'true' | 'false';

/** Go's http.TimeFormat of a date truncated to the second. */
function httpDate(d: Date): string {
  return d.toUTCString();
}

function etagList(header: string): string[] {
  return header
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

const weakStrip = (t: string): string => (t.startsWith('W/') ? t.slice(2) : t);

function checkIfMatch(req: FastifyRequest, etag: string | undefined): Cond {
  const im = req.headers['if-match'];
  if (typeof im !== 'string' || im === '') return 'none';
  for (const t of etagList(im)) {
    if (t === '*') return 'true';
    // Strong comparison: weak tags never match.
    if (etag !== undefined && !t.startsWith('W/') && !etag.startsWith('W/') && t === etag) return 'true';
  }
  return 'false';
}

function checkIfNoneMatch(req: FastifyRequest, etag: string | undefined): Cond {
  const inm = req.headers['if-none-match'];
  if (typeof inm !== 'string' || inm === '') return 'none';
  for (const t of etagList(inm)) {
    if (t === '*') return 'false';
    // Weak comparison.
    if (etag !== undefined && weakStrip(t) === weakStrip(etag)) return 'false';
  }
  return 'true';
}

/** Seconds since the epoch of an HTTP date header, or undefined when absent or unparsable. */
function headerTime(req: FastifyRequest, name: string): number | undefined {
  const v = req.headers[name];
  if (typeof v !== 'string' || v === '') return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? Math.floor(t / 1000) : undefined;
}

const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);

/** A single `bytes=` range resolved against `size`, 'none' for no (usable) Range, or the 416 reason. */
function parseRange(header: string, size: number): { start: number; end: number } | 'none' | 'invalid range' | 'invalid range: failed to overlap' {
  if (!header.startsWith('bytes=')) return 'invalid range';
  const specs = header.slice(6).split(',').map((s) => s.trim()).filter((s) => s !== '');
  const ranges: { start: number; end: number }[] = [];
  let noOverlap = false;
  for (const spec of specs) {
    const m = /^(\d*)\s*-\s*(\d*)$/.exec(spec);
    if (!m || (m[1] === '' && m[2] === '')) return 'invalid range';
    if (m[1] === '') {
      // Suffix range: the last N bytes.
      let n = Number(m[2]);
      if (n === 0) {
        noOverlap = true;
        continue;
      }
      if (n > size) n = size;
      ranges.push({ start: size - n, end: size - 1 });
      continue;
    }
    const start = Number(m[1]);
    if (start >= size) {
      noOverlap = true;
      continue;
    }
    let end = m[2] === '' ? size - 1 : Number(m[2]);
    if (m[2] !== '' && end < start) return 'invalid range';
    if (end >= size) end = size - 1;
    ranges.push({ start, end });
  }
  if (ranges.length === 0) return noOverlap ? 'invalid range: failed to overlap' : 'none';
  // Several ranges (multipart in Go) or ranges adding up to more than the document: served whole.
  if (ranges.length > 1) return 'none';
  return ranges[0]!;
}

/** Answers `doc` as Go's http.ServeContent (inside kube's gzip handler when `doc.gzip`). */
export function serveContent(req: FastifyRequest, reply: FastifyReply, doc: ServedDocument): void {
  const vary = doc.gzip ? ['Accept-Encoding', ...(doc.vary ?? [])] : [...(doc.vary ?? [])];
  if (vary.length > 0) reply.header('vary', vary);
  reply.header('cache-control', doc.cacheControl ?? 'no-cache, private');
  for (const [k, v] of Object.entries(doc.headers ?? {})) reply.header(k, v);
  if (doc.etag !== undefined) reply.header('etag', doc.etag);
  reply.header('last-modified', httpDate(doc.lastModified));
  const isRead = req.method === 'GET' || req.method === 'HEAD';

  // Go's checkPreconditions.
  let cond = checkIfMatch(req, doc.etag);
  if (cond === 'none') {
    const ius = headerTime(req, 'if-unmodified-since');
    if (ius !== undefined) cond = seconds(doc.lastModified) <= ius ? 'true' : 'false';
  }
  if (cond === 'false') return void reply.code(412).send();
  const noneMatch = checkIfNoneMatch(req, doc.etag);
  if (noneMatch === 'false') return isRead ? notModified(reply, doc) : void reply.code(412).send();
  if (noneMatch === 'none' && isRead) {
    const ims = headerTime(req, 'if-modified-since');
    if (ims !== undefined && seconds(doc.lastModified) <= ims) return notModified(reply, doc);
  }
  let rangeHeader = typeof req.headers.range === 'string' ? req.headers.range : '';
  if (rangeHeader !== '' && isRead) {
    // If-Range: the range applies only while the document is the one the client names.
    const ifRange = req.headers['if-range'];
    if (typeof ifRange === 'string' && ifRange !== '') {
      const matches = ifRange.startsWith('"') || ifRange.startsWith('W/') ? doc.etag !== undefined && ifRange === doc.etag && !ifRange.startsWith('W/') : headerTime(req, 'if-range') === seconds(doc.lastModified);
      if (!matches) rangeHeader = '';
    }
  } else {
    rangeHeader = '';
  }

  let body = doc.body;
  let code = 200;
  if (rangeHeader !== '') {
    const r = parseRange(rangeHeader, body.length);
    if (typeof r === 'string' && r !== 'none') {
      // Go's serveError: http.Error's plain text (the gzip handler leaves it alone: too small).
      if (r === 'invalid range: failed to overlap') reply.header('content-range', `bytes */${body.length}`);
      reply.code(416).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff');
      reply.removeHeader('etag');
      reply.removeHeader('last-modified');
      return void reply.send(`${r}\n`);
    }
    if (r !== 'none') {
      reply.header('content-range', `bytes ${r.start}-${r.end}/${body.length}`);
      body = body.subarray(r.start, r.end + 1);
      code = 206;
    }
  }
  reply.code(code).header('content-type', doc.contentType).header('accept-ranges', 'bytes');
  if (doc.gzip && body.length >= GZIP_MIN_BYTES && acceptsGzip(String(req.headers['accept-encoding'] ?? '')) && req.method !== 'HEAD') {
    const gz = gzipSync(body);
    reply.header('content-encoding', 'gzip');
    return void reply.send(gz);
  }
  reply.header('content-length', body.length);
  reply.send(req.method === 'HEAD' ? undefined : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
}

/** Go's writeNotModified: no body headers; Last-Modified only when there is no ETag. */
function notModified(reply: FastifyReply, doc: ServedDocument): void {
  if (doc.etag !== undefined) reply.removeHeader('last-modified');
  reply.code(304).send();
}
