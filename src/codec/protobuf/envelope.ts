/**
 * kube's protobuf envelope: the magic prefix `k8s\0`, then a runtime.Unknown message
 * {typeMeta=1 {apiVersion=1, kind=2}, raw=2, contentEncoding=3, contentType=4}, and the
 * 4-byte big-endian length framing of protobuf watch streams.
 */
import protobuf from 'protobufjs/minimal.js';

const { Reader, Writer } = protobuf;

export const PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  readonly raw: Uint8Array;
  readonly contentEncoding: string;
  readonly contentType: string;
}

/** True when the bytes start with the magic prefix. */
export function hasProtobufMagic(body: Uint8Array): boolean {
  return body.length >= 4 && PROTOBUF_MAGIC.every((b, i) => body[i] === b);
}

function readTypeMeta(bytes: Uint8Array): { apiVersion: string; kind: string } {
  const r = Reader.create(bytes);
  let apiVersion = '';
  let kind = '';
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag === ((1 << 3) | 2)) apiVersion = r.string();
    else if (tag === ((2 << 3) | 2)) kind = r.string();
    else r.skipType(tag & 7);
  }
  return { apiVersion, kind };
}

/** Parses the Unknown after the magic prefix (the caller checks the prefix). Throws on malformed bytes. */
export function readEnvelope(body: Uint8Array): Envelope {
  const r = Reader.create(body.subarray(PROTOBUF_MAGIC.length));
  let typeMeta = { apiVersion: '', kind: '' };
  let raw: Uint8Array = new Uint8Array(0);
  let contentEncoding = '';
  let contentType = '';
  while (r.pos < r.len) {
    const tag = r.uint32();
    switch (tag) {
      case (1 << 3) | 2:
        typeMeta = readTypeMeta(r.bytes());
        break;
      case (2 << 3) | 2:
        raw = r.bytes();
        break;
      case (3 << 3) | 2:
        contentEncoding = r.string();
        break;
      case (4 << 3) | 2:
        contentType = r.string();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  return { ...typeMeta, raw, contentEncoding, contentType };
}

/** The magic prefix and an Unknown holding `raw`, written as Go writes it (empty strings included). */
export function writeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const w = Writer.create();
  w.uint32((1 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).string(apiVersion);
  w.uint32((2 << 3) | 2).string(kind);
  w.ldelim();
  w.uint32((2 << 3) | 2).bytes(raw);
  w.uint32((3 << 3) | 2).string('');
  w.uint32((4 << 3) | 2).string('');
  const unknown = w.finish();
  const out = new Uint8Array(PROTOBUF_MAGIC.length + unknown.length);
  out.set(PROTOBUF_MAGIC, 0);
  out.set(unknown, PROTOBUF_MAGIC.length);
  return out;
}

/** Bytes a base-128 varint of `n` (a non-negative length) takes. */
export function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

/** Writes a varint of a non-negative `n` at `at`; returns the position after it. */
export function writeVarintAt(out: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
}

/** Writes a length-delimited field (tag, length, bytes) at `at`; returns the position after it. */
export function writeLengthDelimited(out: Uint8Array, at: number, tag: number, bytes: Uint8Array): number {
  at = writeVarintAt(out, at, tag);
  at = writeVarintAt(out, at, bytes.length);
  out.set(bytes, at);
  return at + bytes.length;
}

/**
 * writeEnvelope for a raw message of `rawLength` bytes that `writeRaw` writes in place (returning
 * the position after it): the same bytes, one allocation, no copy of the message.
 */
export function writeEnvelopeAround(apiVersion: string, kind: string, rawLength: number, writeRaw: (out: Uint8Array, at: number) => number): Uint8Array {
  const typeMeta = Buffer.from(writeTypeMeta(apiVersion, kind));
  const size = PROTOBUF_MAGIC.length + 1 + varintLength(typeMeta.length) + typeMeta.length + 1 + varintLength(rawLength) + rawLength + 4;
  const out = Buffer.allocUnsafe(size);
  out.set(PROTOBUF_MAGIC, 0);
  let at = writeLengthDelimited(out, PROTOBUF_MAGIC.length, (1 << 3) | 2, typeMeta);
  at = writeVarintAt(out, at, (2 << 3) | 2);
  at = writeVarintAt(out, at, rawLength);
  const end = writeRaw(out, at);
  if (end !== at + rawLength) throw new Error(`protobuf envelope: raw message wrote ${end - at} bytes, expected ${rawLength}`);
  at = end;
  // contentEncoding and contentType, empty, as Go writes them.
  out[at++] = (3 << 3) | 2;
  out[at++] = 0;
  out[at++] = (4 << 3) | 2;
  out[at++] = 0;
  return out;
}

function writeTypeMeta(apiVersion: string, kind: string): Uint8Array {
  const w = Writer.create();
  w.uint32((1 << 3) | 2).string(apiVersion);
  w.uint32((2 << 3) | 2).string(kind);
  return w.finish();
}

/** One frame of a protobuf watch stream: 4-byte big-endian length, then the bytes. */
export function lengthDelimitedFrame(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + message.length);
  new DataView(out.buffer).setUint32(0, message.length, false);
  out.set(message, 4);
  return out;
}

/** Splits a buffer into complete frames; `rest` holds an incomplete trailing frame. */
export function splitFrames(buffer: Uint8Array): { readonly frames: Uint8Array[]; readonly rest: Uint8Array } {
  const frames: Uint8Array[] = [];
  let pos = 0;
  while (buffer.length - pos >= 4) {
    const len = new DataView(buffer.buffer, buffer.byteOffset + pos, 4).getUint32(0, false);
    if (buffer.length - pos - 4 < len) break;
    frames.push(buffer.subarray(pos + 4, pos + 4 + len));
    pos += 4 + len;
  }
  return { frames, rest: buffer.subarray(pos) };
}
