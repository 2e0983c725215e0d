/**
 * Writing responses: objects, lists and Status errors, encoded per the negotiated media type,
 * with `Warning` headers and gzip for large bodies. The one place bodies leave the server.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors, isApiError } from '../api/status-errors.ts';
import { negotiateOutput, type Negotiated } from '../codec/negotiate.ts';

export type OutputFormat = Pick<Negotiated, 'serializer' | 'pretty'>;
const plainJson: OutputFormat = { serializer: 'json', pretty: false };
import { encodeYaml } from '../codec/yaml-encode.ts';
import { encodeJson } from '../codec/json-encode.ts';
import { maybeGzip } from '../codec/compress.ts';
import { encodeProtobufList, encodeProtobufObject, encodeProtobufStatus, PROTOBUF_MEDIA_TYPE } from '../codec/protobuf/index.ts';

/** Formats one warning the way kube-apiserver does: `299 - "text"`. */
export function warningHeaderValue(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

export function addWarnings(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  const existing = reply.getHeader('warning');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  reply.header('warning', [...list, ...warnings.map(warningHeaderValue)]);
}

/** Serializes a JSON value for the chosen format. */
export function encodeBody(value: unknown, format: OutputFormat): { body: Buffer; contentType: string } {
  if (format.serializer === 'yaml') return { body: Buffer.from(encodeYaml(value)), contentType: 'application/yaml' };
  if (format.serializer === 'protobuf') return { body: Buffer.from(encodeProtobuf(value as Record<string, unknown>)), contentType: PROTOBUF_MEDIA_TYPE };
  // As Go's encoding/json writes kube's responses: HTML characters escaped, compact output newline-terminated.
  return { body: Buffer.from(encodeJson(value, format.pretty)), contentType: 'application/json' };
}

/** Sends a JSON value (object, list, table, discovery document) with the negotiated encoding. */
export function sendValue(req: FastifyRequest, reply: FastifyReply, code: number, value: unknown, format?: OutputFormat): void {
  const { body, contentType } = encodeBody(value, format ?? plainJson);
  sendBytes(req, reply, code, body, contentType);
}

/** Sends pre-encoded bytes (memoized JSON), gzipped when large and accepted. */
export function sendBytes(req: FastifyRequest, reply: FastifyReply, code: number, body: Uint8Array, contentType: string): void {
  reply.code(code).header('content-type', contentType).header('cache-control', 'no-cache, private');
  const gz = maybeGzip(body, String(req.headers['accept-encoding'] ?? ''));
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
  if (apiErr.code >= 500 && !isApiError(err)) req.log.error({ err }, 'internal error');
  for (const [k, v] of Object.entries(apiErr.headers ?? {})) reply.header(k, v);
  // When the Accept header names nothing kube can write, kube falls back to indented JSON (WriteRawJSON).
  let fmt: OutputFormat = { serializer: 'json', pretty: true };
  try {
    const q = req.searchParams?.get('pretty');
    // kube negotiates errors with its default restrictions: any serializer (a protobuf client gets
    // a protobuf Status), no `as=` conversions (asking only for a Table gets the JSON fallback).
    fmt = negotiateOutput({
      accept: String(req.headers.accept ?? ''),
      offer: { serializers: ['json', 'yaml', 'protobuf'], conversions: false },
      prettyQuery: q,
      userAgent: String(req.headers['user-agent'] ?? ''),
    });
  } catch {
    // Errors are always sendable as JSON.
  }
  sendValue(req, reply, apiErr.code, apiErr.toStatus(), fmt);
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
