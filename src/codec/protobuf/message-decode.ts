/**
 * Protobuf wire bytes of one message to the JSON kube would write for the same Go value:
 * JSON names, omitempty and pointer presence from the schema, bytes as base64, Time and
 * MicroTime as RFC 3339 strings (null for Go's zero time), FieldsV1 as the JSON it holds.
 */
import protobuf from 'protobufjs/minimal.js';
import type { FieldDef, MapValue, MessageDef, ScalarType } from './schema-types.ts';
import { formatMicroTime, formatTime, type Timestamp } from './time-format.ts';
import { jsonAdapterOf, lookupMessage } from './schema.ts';

const { Reader } = protobuf;
type ReaderT = InstanceType<typeof Reader>;

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;

/** Thrown for bytes that do not parse as the expected message; callers turn it into a 400. */
export class MalformedMessageError extends Error {}

type Collected = Map<number, unknown[]>;

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && 'toNumber' in v) return (v as { toNumber(): number }).toNumber();
  return Number(v);
}

function readTimestamp(bytes: Uint8Array): Timestamp {
  const r = Reader.create(bytes);
  let seconds = 0;
  let nanos = 0;
  while (r.pos < r.len) {
    const tag = r.uint32();
    const no = tag >>> 3;
    if (no === 1 && (tag & 7) === WIRE_VARINT) seconds = toNumber(r.int64());
    else if (no === 2 && (tag & 7) === WIRE_VARINT) nanos = r.int32();
    else r.skipType(tag & 7);
  }
  // Go's Time unmarshal reads a zero-length value as the zero time.
  if (bytes.length === 0) return { seconds: -62135596800, nanos: 0 };
  return { seconds, nanos };
}

/**
 * A message whose field 1 holds JSON text (meta/v1 FieldsV1, apiextensions/v1 JSON): the value it
 * holds, null when it holds none (as Go's MarshalJSON writes an empty one).
 */
function readRawJson(bytes: Uint8Array, path: string, what: string): unknown {
  const r = Reader.create(bytes);
  let raw: Uint8Array | undefined;
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === WIRE_LEN) raw = r.bytes();
    else r.skipType(tag & 7);
  }
  if (!raw || raw.length === 0) return null;
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch {
    throw new MalformedMessageError(`${path}: ${what} does not hold valid JSON`);
  }
}

function readMapEntry(bytes: Uint8Array, valueType: MapValue, path: string): [string, unknown] {
  const r = Reader.create(bytes);
  let key = '';
  let value: unknown;
  while (r.pos < r.len) {
    const tag = r.uint32();
    const no = tag >>> 3;
    if (no === 1 && (tag & 7) === WIRE_LEN) key = r.string();
    else if (no === 2 && (tag & 7) === WIRE_LEN) {
      if (valueType === 'string') value = r.string();
      else if (valueType === 'bytes') value = Buffer.from(r.bytes()).toString('base64');
      else if (valueType === 'strings') value = readStrings(r.bytes());
      else value = decodeValue(r.bytes(), valueType.message, `${path}[${key}]`);
    } else r.skipType(tag & 7);
  }
  // An entry without a value holds the value type's zero.
  if (value === undefined) value = valueType === 'strings' ? [] : typeof valueType === 'object' ? decodeValue(new Uint8Array(0), valueType.message, `${path}[${key}]`) : '';
  return [key, value];
}

/** An ExtraValue message: its repeated string field 1, as the JSON list Go writes. */
function readStrings(bytes: Uint8Array): string[] {
  const r = Reader.create(bytes);
  const out: string[] = [];
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === WIRE_LEN) out.push(r.string());
    else r.skipType(tag & 7);
  }
  return out;
}

function expectedWireType(field: FieldDef): number {
  if (field.type.kind !== 'scalar') return WIRE_LEN;
  const t = field.type.type;
  if (t === 'double') return WIRE_FIXED64;
  return t === 'bool' || t === 'int32' || t === 'int64' ? WIRE_VARINT : WIRE_LEN;
}

function readScalar(r: ReaderT, type: ScalarType, path: string): unknown {
  switch (type) {
    case 'string':
      return r.string();
    case 'bytes':
      return r.bytes();
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'int64':
      return toNumber(r.int64());
    case 'Time':
      return formatTime(readTimestamp(r.bytes()));
    case 'MicroTime':
      return formatMicroTime(readTimestamp(r.bytes()));
    case 'FieldsV1':
      return readRawJson(r.bytes(), path, 'FieldsV1');
    case 'double':
      return r.double();
    case 'JSON':
      return readRawJson(r.bytes(), path, 'JSON');
  }
}

function collect(bytes: Uint8Array, def: MessageDef, path: string): Collected {
  const byNumber = new Map(def.fields.map((f) => [f.no, f]));
  const out: Collected = new Map();
  const r = Reader.create(bytes);
  while (r.pos < r.len) {
    const tag = r.uint32();
    const no = tag >>> 3;
    const wire = tag & 7;
    const field = byNumber.get(no);
    if (!field) {
      r.skipType(wire);
      continue;
    }
    const fieldPath = `${path}.${field.name}`;
    if (wire !== expectedWireType(field)) {
      throw new MalformedMessageError(`${fieldPath}: unexpected wire type ${wire} for field ${no}`);
    }
    let value: unknown;
    if (field.type.kind === 'scalar') value = readScalar(r, field.type.type, fieldPath);
    else if (field.type.kind === 'map') value = readMapEntry(r.bytes(), field.type.value, fieldPath);
    else value = decodeValue(r.bytes(), field.type.message, fieldPath);
    const list = out.get(no);
    if (list) list.push(value);
    else out.set(no, [value]);
  }
  return out;
}

function zeroOf(type: ScalarType): unknown {
  if (type === 'bool') return false;
  if (type === 'int32' || type === 'int64' || type === 'double') return 0;
  return '';
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false || (v instanceof Uint8Array && v.length === 0);
}

function jsonOf(field: FieldDef, values: unknown[] | undefined): { readonly set: boolean; readonly value?: unknown } {
  const present = values !== undefined && values.length > 0;
  if (field.type.kind === 'map') {
    if (!present) return field.presence === 'always' ? { set: true, value: null } : { set: false };
    const entries = (values as [string, string][]).slice().sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return { set: true, value: Object.fromEntries(entries) };
  }
  if (field.repeated) {
    if (!present) return field.presence === 'always' ? { set: true, value: null } : { set: false };
    return { set: true, value: values };
  }
  const last = present ? values[values.length - 1] : undefined;
  if (field.type.kind === 'message') return present ? { set: true, value: last } : { set: false };
  const type = field.type.type;
  if (type === 'Time' || type === 'MicroTime' || type === 'FieldsV1' || type === 'JSON') return present ? { set: true, value: last } : { set: false };
  const value = type === 'bytes' && last instanceof Uint8Array ? Buffer.from(last).toString('base64') : last;
  switch (field.presence) {
    case 'pointer':
      return present ? { set: true, value } : { set: false };
    case 'always':
      return { set: true, value: present ? value : zeroOf(type) };
    case 'omitempty':
    // Scalars are never inline; embedded structs are handled by the caller.
    case 'inline':
      return present && !isZero(last) ? { set: true, value } : { set: false };
  }
}

/** A nested message as its JSON: an object of its fields, or what its adapter makes of them. */
function decodeValue(bytes: Uint8Array, messageName: string, path: string): unknown {
  const fields = decodeMessageBytes(bytes, messageName, path);
  const adapter = jsonAdapterOf(messageName);
  return adapter ? adapter.toJson(fields) : fields;
}

/** Decodes one message (no envelope) into its JSON object. Throws MalformedMessageError. */
export function decodeMessageBytes(bytes: Uint8Array, messageName: string, path = messageName): Record<string, unknown> {
  const def = lookupMessage(messageName);
  let collected: Collected;
  try {
    collected = collect(bytes, def, path);
  } catch (err) {
    if (err instanceof MalformedMessageError) throw err;
    throw new MalformedMessageError(`${path}: ${(err as Error).message}`);
  }
  const out: Record<string, unknown> = {};
  for (const field of def.fields) {
    if (field.presence === 'inline' && field.type.kind === 'message') {
      // An embedded struct writes its fields in the parent, zero or not (Go writes a zero embedded struct too).
      const values = collected.get(field.no);
      Object.assign(out, values !== undefined && values.length > 0 ? values[values.length - 1] : decodeMessageBytes(new Uint8Array(0), field.type.message, `${path}.${field.name}`));
      continue;
    }
    const { set, value } = jsonOf(field, collected.get(field.no));
    if (set) out[field.name] = value;
  }
  return out;
}
