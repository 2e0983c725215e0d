/**
 * kube JSON of one message to protobuf wire bytes, the inverse of message-decode: a field is
 * written when its JSON key holds a value; a null Time or MicroTime is written as Go writes its
 * zero time (an empty value), so that it decodes back to null. Map entries go in key order as Go
 * writes them.
 */
import protobuf from 'protobufjs/minimal.js';
import type { FieldDef, ScalarType } from './schema-types.ts';
import { parseRfc3339 } from './time-format.ts';
import { lookupMessage } from './schema.ts';

const { Writer } = protobuf;
type WriterT = InstanceType<typeof Writer>;

/** Thrown for JSON that does not fit the message (a wrong type, a bad timestamp). */
export class UnencodableValueError extends Error {}

function fail(path: string, what: string): never {
  throw new UnencodableValueError(`${path}: ${what}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function wireTypeOf(field: FieldDef): number {
  if (field.type.kind === 'scalar') {
    const t = field.type.type;
    if (t === 'bool' || t === 'int32' || t === 'int64') return 0;
  }
  return 2;
}

function writeTimestamp(w: WriterT, text: unknown, path: string): void {
  w.fork();
  if (text !== null) {
    if (typeof text !== 'string') fail(path, 'expected an RFC 3339 string');
    const ts = parseRfc3339(text);
    if (!ts) fail(path, `cannot parse ${JSON.stringify(text)} as RFC 3339`);
    w.uint32(1 << 3).int64(ts.seconds);
    w.uint32(2 << 3).int32(ts.nanos);
  }
  w.ldelim();
}

function integer(v: unknown, path: string, bits: 32 | 64): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(path, 'expected an integer');
  if (bits === 32 && (v < -2147483648 || v > 2147483647)) fail(path, 'out of int32 range');
  return v;
}

function writeScalar(w: WriterT, type: ScalarType, v: unknown, path: string): void {
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
      w.bool(v);
      return;
    case 'int32':
      w.int32(integer(v, path, 32));
      return;
    case 'int64':
      w.int64(integer(v, path, 64));
      return;
    case 'Time':
    case 'MicroTime':
      writeTimestamp(w, v, path);
      return;
    case 'FieldsV1':
      w.fork();
      w.uint32((1 << 3) | 2).bytes(Buffer.from(JSON.stringify(v), 'utf8'));
      w.ldelim();
      return;
  }
}

function writeMap(w: WriterT, field: FieldDef, value: unknown, path: string, valueType: 'string' | 'bytes'): void {
  if (!isObject(value)) fail(path, 'expected an object');
  const keys = Object.keys(value).sort();
  for (const key of keys) {
    const v = value[key];
    w.uint32((field.no << 3) | 2).fork();
    w.uint32((1 << 3) | 2).string(key);
    w.uint32((2 << 3) | 2);
    writeScalar(w, valueType, v, `${path}[${key}]`);
    w.ldelim();
  }
}

function writeOne(w: WriterT, field: FieldDef, v: unknown, path: string): void {
  w.uint32((field.no << 3) | wireTypeOf(field));
  if (field.type.kind === 'message') {
    if (!isObject(v)) fail(path, 'expected an object');
    w.fork();
    writeMessageFields(w, v, field.type.message, path);
    w.ldelim();
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

function writeMessageFields(w: WriterT, obj: Record<string, unknown>, messageName: string, path: string): void {
  for (const field of fieldsInWireOrder(messageName)) {
    const v = obj[field.name];
    const fieldPath = `${path}.${field.name}`;
    if (v === undefined || v === null) {
      writeZero(w, field, fieldPath);
      continue;
    }
    if (field.type.kind === 'map') {
      writeMap(w, field, v, fieldPath, field.type.value);
    } else if (field.repeated) {
      if (!Array.isArray(v)) fail(fieldPath, 'expected an array');
      v.forEach((item, i) => writeOne(w, field, item, `${fieldPath}[${i}]`));
    } else {
      writeOne(w, field, v, fieldPath);
    }
  }
}

/**
 * An absent field as gogo-protobuf's generated marshalers write it: every value (non-pointer)
 * field is written, zero or not (strings "", numbers 0, false, a zero Time as an empty
 * Timestamp, a value struct as a message of its own zero fields); nil pointers, lists, maps
 * and byte slices are not.
 */
function writeZero(w: WriterT, field: FieldDef, path: string): void {
  if (field.presence === 'pointer' || field.repeated || field.type.kind === 'map') return;
  if (field.type.kind === 'message') {
    w.uint32((field.no << 3) | 2).fork();
    writeMessageFields(w, {}, field.type.message, path);
    w.ldelim();
    return;
  }
  const zero: Partial<Record<ScalarType, unknown>> = { string: '', bool: false, int32: 0, int64: 0, Time: null, MicroTime: null };
  if (!(field.type.type in zero)) return;
  writeOne(w, field, zero[field.type.type], path);
}

/** Encodes one message (no envelope) from its JSON object. Throws UnencodableValueError. */
export function encodeMessageBytes(obj: Record<string, unknown>, messageName: string, path = messageName): Uint8Array {
  const w = Writer.create();
  writeMessageFields(w, obj, messageName, path);
  return w.finish();
}
