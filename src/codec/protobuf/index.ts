/**
 * `application/vnd.kubernetes.protobuf` for our built-in kinds: decoding request bodies sent
 * by kubectl and client-go, encoding responses, lists, Status errors and watch events.
 */
import { errors, type StatusObject } from '../../api/status-errors.ts';
import { hasProtobufMagic, lengthDelimitedFrame, readEnvelope, splitFrames, varintLength, writeEnvelope, writeEnvelopeAround, writeLengthDelimited, writeVarintAt, PROTOBUF_MAGIC } from './envelope.ts';
import { decodeMessageBytes, MalformedMessageError } from './message-decode.ts';
import { encodeMessageBytes, UnencodableValueError } from './message-encode.ts';
import { messageForKind } from './schema.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** The media type of a protobuf watch stream. */
export const PROTOBUF_STREAM_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';
export { PROTOBUF_MAGIC, lengthDelimitedFrame, splitFrames };

export interface DecodedProtobufObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly object: Record<string, unknown>;
}

/** True when we can encode and decode (apiVersion, kind) in protobuf. */
export function isProtobufKind(apiVersion: string, kind: string): boolean {
  return messageForKind(apiVersion, kind) !== undefined;
}

/**
 * Decodes an enveloped protobuf body into kube's JSON form of the object (with kind and
 * apiVersion). Throws ApiError 400 for a missing prefix, an unserved kind or malformed bytes.
 */
export function decodeProtobufObject(body: Uint8Array): DecodedProtobufObject {
  if (!hasProtobufMagic(body)) {
    throw errors.badRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  let envelope;
  try {
    envelope = readEnvelope(body);
  } catch (err) {
    throw errors.badRequest(`malformed protobuf envelope: ${(err as Error).message}`);
  }
  const { apiVersion, kind, raw, contentEncoding } = envelope;
  if (contentEncoding !== '') throw errors.badRequest(`unsupported protobuf content encoding ${JSON.stringify(contentEncoding)}`);
  if (kind === '') throw errors.badRequest("Object 'Kind' is missing in protobuf body");
  const message = messageForKind(apiVersion, kind);
  if (!message) {
    throw errors.badRequest(`no kind "${kind}" is registered for version "${apiVersion}" in protobuf encoding`);
  }
  try {
    const fields = decodeMessageBytes(raw, message, kind);
    return { apiVersion, kind, object: { kind, apiVersion, ...fields } };
  } catch (err) {
    if (err instanceof MalformedMessageError) throw errors.badRequest(`malformed protobuf ${kind}: ${err.message}`);
    throw err;
  }
}

function encodeAs(apiVersion: string, kind: string, body: Record<string, unknown>): Uint8Array {
  const message = messageForKind(apiVersion, kind);
  if (!message) throw errors.notAcceptable([`kind ${kind} of ${apiVersion} has no protobuf encoding`]);
  try {
    return writeEnvelope(apiVersion, kind, encodeMessageBytes(body, message, kind));
  } catch (err) {
    if (err instanceof UnencodableValueError) throw errors.internal(`protobuf encoding of ${kind}: ${err.message}`);
    throw err;
  }
}

/** Encodes a JSON object (its own apiVersion and kind) with the envelope. Throws ApiError for an unserved kind. */
export function encodeProtobufObject(obj: Record<string, unknown>): Uint8Array {
  const kind = String(obj.kind ?? '');
  return encodeAs(String(obj.apiVersion ?? ''), kind, kind === 'APIResourceList' ? wrapVerbs(obj) : obj);
}

/** APIResource's `verbs` is a JSON list but the message `Verbs{items}` on the wire (meta/v1 Verbs). */
function wrapVerbs(list: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(list.resources)) return list;
  const resources = list.resources.map((r: Record<string, unknown>) => (Array.isArray(r.verbs) ? { ...r, verbs: { items: r.verbs } } : r));
  return { ...list, resources };
}

/** Encodes a list (`ConfigMapList` etc.) from its ListMeta and JSON items, with the envelope. */
export function encodeProtobufList(
  listKind: string,
  apiVersion: string,
  listMeta: Record<string, unknown>,
  items: readonly Record<string, unknown>[],
): Uint8Array {
  return encodeAs(apiVersion, listKind, { metadata: listMeta, items });
}

/**
 * One object's message bytes, without the envelope: what a list carries per item and what an
 * enveloped single object wraps. Callers memoize it per stored object (the list handler keeps
 * it on the cache entry), so a list encodes each object once, not once per request.
 */
export function encodeProtobufItemMessage(apiVersion: string, kind: string, obj: Record<string, unknown>): Uint8Array {
  const message = messageForKind(apiVersion, kind);
  if (!message) throw errors.notAcceptable([`kind ${kind} of ${apiVersion} has no protobuf encoding`]);
  try {
    return encodeMessageBytes(obj, message, kind);
  } catch (err) {
    if (err instanceof UnencodableValueError) throw errors.internal(`protobuf encoding of ${kind}: ${err.message}`);
    throw err;
  }
}

/**
 * A list (`ConfigMapList` etc.) with the envelope, from its ListMeta and its items' message bytes
 * (encodeProtobufItemMessage): the bytes encodeProtobufList writes for the same items, built by
 * splicing, in one allocation. Every `<Kind>List` message is {metadata=1 ListMeta, items=2 repeated}.
 */
export function encodeProtobufListOfMessages(listKind: string, apiVersion: string, listMeta: Record<string, unknown>, itemMessages: readonly Uint8Array[]): Uint8Array {
  if (!messageForKind(apiVersion, listKind)) throw errors.notAcceptable([`kind ${listKind} of ${apiVersion} has no protobuf encoding`]);
  const meta = encodeMessageBytes(listMeta, 'ListMeta', `${listKind}.metadata`);
  let listLength = 1 + varintLength(meta.length) + meta.length;
  for (const item of itemMessages) listLength += 1 + varintLength(item.length) + item.length;
  return writeEnvelopeAround(apiVersion, listKind, listLength, (out, at) => {
    at = writeLengthDelimited(out, at, (1 << 3) | 2, meta);
    for (const item of itemMessages) at = writeLengthDelimited(out, at, (2 << 3) | 2, item);
    return at;
  });
}

/** Encodes a Status (an ApiError's toStatus() or a success Status) with the envelope. */
export function encodeProtobufStatus(status: StatusObject | Record<string, unknown>): Uint8Array {
  return encodeAs('v1', 'Status', { ...status });
}

/**
 * The WatchEvent message kube writes for one event: {type, object: RawExtension{raw}}, where
 * raw is the complete enveloped object (as encodeProtobufObject returns). Itself carries no
 * envelope: kube encodes watch events with its raw protobuf serializer.
 */
export function encodeProtobufWatchEventMessage(type: string, objectBytes: Uint8Array): Uint8Array {
  // WatchEvent {type=1 string, object=2 RawExtension {raw=1 bytes}}, written around the object's
  // bytes without copying them through the message encoder.
  const typeBytes = Buffer.from(type, 'utf8');
  const rawLength = 1 + varintLength(objectBytes.length) + objectBytes.length;
  const size = 1 + varintLength(typeBytes.length) + typeBytes.length + 1 + varintLength(rawLength) + rawLength;
  const out = new Uint8Array(size);
  let at = writeLengthDelimited(out, 0, (1 << 3) | 2, typeBytes);
  at = writeVarintAt(out, at, (2 << 3) | 2);
  at = writeVarintAt(out, at, rawLength);
  writeLengthDelimited(out, at, (1 << 3) | 2, objectBytes);
  return out;
}

/** One frame of a protobuf watch stream (4-byte big-endian length, then the WatchEvent), ready to write. */
export function encodeProtobufWatchEvent(type: string, objectBytes: Uint8Array): Uint8Array {
  return lengthDelimitedFrame(encodeProtobufWatchEventMessage(type, objectBytes));
}

/** Reads one WatchEvent message (a frame without its length prefix): the type and the decoded object. */
export function decodeProtobufWatchEvent(message: Uint8Array): { readonly type: string; readonly object: DecodedProtobufObject } {
  let event: Record<string, unknown>;
  try {
    event = decodeMessageBytes(message, 'WatchEvent');
  } catch (err) {
    if (err instanceof MalformedMessageError) throw errors.badRequest(`malformed protobuf WatchEvent: ${err.message}`);
    throw err;
  }
  const raw = (event.object as { raw?: string } | undefined)?.raw ?? '';
  return { type: String(event.type), object: decodeProtobufObject(Buffer.from(raw, 'base64')) };
}
