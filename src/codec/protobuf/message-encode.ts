/**
 * kube JSON of one message to protobuf wire bytes, the inverse of message-decode: a field is
 * written when its JSON key holds a value; a null Time or MicroTime is written as Go writes its
 * zero time (an empty value), so that it decodes back to null. Map entries go in key order as Go
 * writes them.
 *
 * Speed matters here (every protobuf get, list item and watch event of client-go passes through),
 * so the writer is a flat byte buffer rather than a tree of write operations: a nested message
 * reserves one length byte and its bytes are shifted in the rare case it needs more. Field paths
 * for error messages are only built when an encoding fails: the failing value is encoded again
 * with paths on, so the fast path allocates no strings.
 */
import type { FieldDef, MapValue, ScalarType } from './schema-types.ts';
import { parseRfc3339 } from './time-format.ts';
import { jsonAdapterOf, lookupMessage } from './schema.ts';

/** Thrown for JSON that does not fit the message (a wrong type, a bad timestamp). */
export class UnencodableValueError extends Error {}

/** Thrown on the fast path, which has no paths; the caller re-encodes with paths for the message. */
const UNENCODABLE = new UnencodableValueError('unencodable value');

/** `path` is undefined on the fast path. */
function fail(path: string | undefined, what: string): never {
  if (path === undefined) throw UNENCODABLE;
  throw new UnencodableValueError(`${path}: ${what}`);
}

function child(path: string | undefined, name: string): string | undefined {
  return path === undefined ? undefined : `${path}.${name}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

/** A growable buffer with the protobuf primitives kube's messages need. */
class ByteWriter {
  buf: Uint8Array = new Uint8Array(4096);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** A non-negative integer below 2^53. */
  varint(n: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (n >= 0x80) {
      buf[pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  /** int32 and int64 as Go writes them: negative numbers sign-extended to ten bytes. */
  signedVarint(n: number): void {
    if (n >= 0) {
      this.varint(n);
      return;
    }
    let v = BigInt.asUintN(64, BigInt(n));
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  tag(no: number, wireType: number): void {
    this.varint(no * 8 + wireType);
  }

  string(s: string): void {
    // Names, keys and most values are short ASCII: copy them without a native call.
    const n = s.length;
    if (n < 128) {
      let ascii = true;
      for (let i = 0; i < n; i++) {
        if (s.charCodeAt(i) > 0x7f) {
          ascii = false;
          break;
        }
      }
      if (ascii) {
        this.ensure(n + 1);
        const buf = this.buf;
        let pos = this.pos;
        buf[pos++] = n;
        for (let i = 0; i < n; i++) buf[pos++] = s.charCodeAt(i);
        this.pos = pos;
        return;
      }
    }
    this.bytes(Buffer.from(s, 'utf8'));
  }

  /** A float64, little-endian (wire type 1). */
  double(v: number): void {
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset).setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Starts a length-delimited value; returns where its length goes. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Ends the value begun at `start`, writing its length (shifting the bytes when it takes more than one byte). */
  end(start: number): void {
    const len = this.pos - start - 1;
    if (len < 0x80) {
      this.buf[start] = len;
      return;
    }
    const extra = varintLength(len) - 1;
    this.ensure(extra);
    this.buf.copyWithin(start + 1 + extra, start + 1, this.pos);
    this.pos += extra;
    let at = start;
    let n = len;
    while (n >= 0x80) {
      this.buf[at++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[at] = n;
  }
}

function wireTypeOf(field: FieldDef): number {
  if (field.type.kind === 'scalar') {
    const t = field.type.type;
    if (t === 'bool' || t === 'int32' || t === 'int64') return 0;
    if (t === 'double') return 1;
  }
  return 2;
}

function writeTimestamp(w: ByteWriter, text: unknown, path: string | undefined): void {
  const start = w.begin();
  if (text !== null) {
    if (typeof text !== 'string') fail(path, 'expected an RFC 3339 string');
    const ts = parseRfc3339(text);
    if (!ts) fail(path, `cannot parse ${JSON.stringify(text)} as RFC 3339`);
    w.tag(1, 0);
    w.signedVarint(ts.seconds);
    w.tag(2, 0);
    w.signedVarint(ts.nanos);
  }
  w.end(start);
}

function integer(v: unknown, path: string | undefined, bits: 32 | 64): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(path, 'expected an integer');
  if (bits === 32 && (v < -2147483648 || v > 2147483647)) fail(path, 'out of int32 range');
  return v;
}

function writeScalar(w: ByteWriter, type: ScalarType, v: unknown, path: string | undefined): void {
  switch (type) {
    case 'string':
      if (typeof v !== 'string') fail(path, 'expected a string');
      w.string(v);
      return;
    case 'bytes':
      if (typeof v !== 'string') fail(path, 'expected a base64 string');
      w.bytes(Buffer.from(v, 'base64'));
      return;
    case 'bool':
      if (typeof v !== 'boolean') fail(path, 'expected a boolean');
      w.varint(v ? 1 : 0);
      return;
    case 'int32':
      w.signedVarint(integer(v, path, 32));
      return;
    case 'int64':
      w.signedVarint(integer(v, path, 64));
      return;
    case 'Time':
    case 'MicroTime':
      writeTimestamp(w, v, path);
      return;
    case 'FieldsV1': {
      const start = w.begin();
      w.tag(1, 2);
      w.bytes(Buffer.from(JSON.stringify(v), 'utf8'));
      w.end(start);
      return;
    }
    case 'double':
      if (typeof v !== 'number') fail(path, 'expected a number');
      w.double(v);
      return;
    case 'JSON': {
      // Go's JSON holds the value's text; null holds none.
      const start = w.begin();
      if (v !== null) {
        w.tag(1, 2);
        w.bytes(Buffer.from(JSON.stringify(v), 'utf8'));
      }
      w.end(start);
      return;
    }
  }
}

function writeMap(w: ByteWriter, field: FieldDef, value: unknown, path: string | undefined, valueType: MapValue): void {
  if (!isObject(value)) fail(path, 'expected an object');
  const keys = Object.keys(value).sort();
  for (const key of keys) {
    w.tag(field.no, 2);
    const start = w.begin();
    w.tag(1, 2);
    w.string(key);
    w.tag(2, 2);
    const at = path === undefined ? undefined : `${path}[${key}]`;
    if (valueType === 'strings') {
      const items = value[key] ?? [];
      if (!Array.isArray(items)) fail(at, 'expected an array');
      const inner = w.begin();
      for (const item of items) {
        w.tag(1, 2);
        writeScalar(w, 'string', item, at);
      }
      w.end(inner);
    } else if (typeof valueType === 'object') {
      const inner = w.begin();
      writeMessageFields(w, fieldsOf(value[key], valueType.message, at), valueType.message, at);
      w.end(inner);
    } else writeScalar(w, valueType, value[key], at);
    w.end(start);
  }
}

/** The fields to write for a message's JSON value: the object itself, or what its adapter makes of it. */
function fieldsOf(v: unknown, messageName: string, path: string | undefined): Record<string, unknown> {
  const adapter = jsonAdapterOf(messageName);
  if (adapter) {
    const fields = adapter.fromJson(v);
    if (fields === undefined) fail(path, 'expected a value of this union');
    return fields;
  }
  if (!isObject(v)) fail(path, 'expected an object');
  return v;
}

function writeOne(w: ByteWriter, field: FieldDef, v: unknown, path: string | undefined): void {
  w.tag(field.no, wireTypeOf(field));
  if (field.type.kind === 'message') {
    const fields = fieldsOf(v, field.type.message, path);
    const start = w.begin();
    writeMessageFields(w, fields, field.type.message, path);
    w.end(start);
  } else if (field.type.kind === 'scalar') {
    writeScalar(w, field.type.type, v, path);
  }
}

// gogo-protobuf's marshalers write fields in field-number order, whatever the Go struct order.
const fieldsByNumber = new Map<string, readonly FieldDef[]>();
function fieldsInWireOrder(messageName: string): readonly FieldDef[] {
  let fields = fieldsByNumber.get(messageName);
  if (!fields) fieldsByNumber.set(messageName, (fields = [...lookupMessage(messageName).fields].sort((a, b) => a.no - b.no)));
  return fields;
}

function writeMessageFields(w: ByteWriter, obj: Record<string, unknown>, messageName: string, path: string | undefined): void {
  for (const field of fieldsInWireOrder(messageName)) {
    if (field.presence === 'inline') {
      // An embedded struct: its fields are this object's own.
      writeOne(w, field, obj, path);
      continue;
    }
    const v = obj[field.name];
    const fieldPath = child(path, field.name);
    if (v === undefined || v === null) {
      writeZero(w, field, fieldPath);
      continue;
    }
    if (field.type.kind === 'map') {
      writeMap(w, field, v, fieldPath, field.type.value);
    } else if (field.repeated) {
      if (!Array.isArray(v)) fail(fieldPath, 'expected an array');
      for (let i = 0; i < v.length; i++) writeOne(w, field, v[i], fieldPath === undefined ? undefined : `${fieldPath}[${i}]`);
    } else {
      writeOne(w, field, v, fieldPath);
    }
  }
}

const ZERO_SCALARS: Partial<Record<ScalarType, unknown>> = { string: '', bool: false, int32: 0, int64: 0, Time: null, MicroTime: null };
const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/**
 * An absent field as gogo-protobuf's generated marshalers write it: every value (non-pointer)
 * field is written, zero or not (strings "", numbers 0, false, a zero Time as an empty
 * Timestamp, a value struct as a message of its own zero fields); nil pointers, lists, maps
 * and byte slices are not.
 */
function writeZero(w: ByteWriter, field: FieldDef, path: string | undefined): void {
  if (field.presence === 'pointer' || field.repeated || field.type.kind === 'map') return;
  if (field.type.kind === 'message') {
    w.tag(field.no, 2);
    const start = w.begin();
    writeMessageFields(w, EMPTY, field.type.message, path);
    w.end(start);
    return;
  }
  if (!(field.type.type in ZERO_SCALARS)) return;
  writeOne(w, field, ZERO_SCALARS[field.type.type], path);
}

/** One writer reused by every encoding (encoding never re-enters itself); shrunk after a large message. */
let scratch = new ByteWriter();
const SCRATCH_KEEP_BYTES = 1 << 20;

/** Encodes one message (no envelope) from its JSON object. Throws UnencodableValueError. */
export function encodeMessageBytes(obj: Record<string, unknown>, messageName: string, path = messageName): Uint8Array {
  const w = scratch;
  w.pos = 0;
  try {
    writeMessageFields(w, obj, messageName, undefined);
  } catch (err) {
    if (err !== UNENCODABLE) throw err;
    // Again with paths, for the message that says where.
    writeMessageFields(new ByteWriter(), obj, messageName, path);
    throw err;
  }
  // An exact copy: memoized bytes must not pin the scratch buffer.
  const out = w.buf.slice(0, w.pos);
  if (w.buf.length > SCRATCH_KEEP_BYTES) scratch = new ByteWriter();
  return out;
}
