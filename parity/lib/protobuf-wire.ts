/**
 * A schema-less reader of Kubernetes protobuf responses. kube's protobuf body is the 4-byte magic
 * `k8s\0` followed by a runtime.Unknown message whose `raw` field holds the object. Without the
 * .proto schemas we decode the wire format into a tree of field numbers, so two servers' bytes can
 * be compared field by field (order, presence, values) after the same normalization as JSON.
 */

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const NOW_WINDOW_S = 3 * 24 * 3600;

/** One decoded field: its number and value. Repeated fields appear as repeated entries, in order. */
export type WireField = { readonly [field: string]: WireValue };
export type WireValue = number | string | readonly WireField[] | { readonly bytes: string } | WireMessage;
/**
 * A message as compared: field number -> value (repeated fields -> array of values). When the fields
 * were not written in ascending field-number order (Go's marshaller always does), `#order` lists the
 * order seen, since it is then a difference a byte comparison would show.
 */
export interface WireMessage {
  readonly [field: string]: unknown;
}

/** Folds a field list into a WireMessage (see there). */
export function foldMessage(fields: readonly WireField[]): WireMessage {
  const out: Record<string, unknown> = {};
  const order: string[] = [];
  const counts = new Map<string, number>();
  for (const f of fields) {
    const k = Object.keys(f)[0]!;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  for (const f of fields) {
    const k = Object.keys(f)[0]!;
    const v = f[k];
    const value = Array.isArray(v) ? foldMessage(v as WireField[]) : v;
    if (counts.get(k)! > 1) ((out[k] ??= []) as unknown[]).push(value);
    else out[k] = value;
    if (order[order.length - 1] !== k) order.push(k);
  }
  const nums = order.map((k) => parseInt(k, 10));
  if (nums.some((n, i) => i > 0 && n < nums[i - 1]!)) out['#order'] = order.join(',');
  return out;
}

/** Decodes a whole response body: checks the magic and decodes the Unknown envelope. */
export function decodeProtobufEnvelope(body: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): unknown {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) {
    return { notKubernetesProtobuf: body.subarray(0, 64).toString('base64') };
  }
  const fields = decodeMessage(body.subarray(4), nowSeconds);
  if (!fields) return { undecodable: body.subarray(4, 68).toString('base64') };
  return { magic: 'k8s\\0', envelope: foldMessage(fields) };
}

/** Decodes one frame of a protobuf watch stream: a bare WatchEvent message (type, RawExtension). */
export function decodeProtobufFrame(frame: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): unknown {
  const fields = decodeMessage(frame, nowSeconds);
  return fields ? foldMessage(fields) : { undecodable: frame.subarray(0, 64).toString('base64') };
}

/** Reads a varint at `pos`; returns the value (as bigint) and the next position, or undefined. */
function readVarint(buf: Buffer, pos: number): [bigint, number] | undefined {
  let result = 0n;
  let shift = 0n;
  for (let i = pos; i < buf.length && i < pos + 10; i++) {
    const b = buf[i]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, i + 1];
    shift += 7n;
  }
  return undefined;
}

/** Decodes a buffer as a message, or returns undefined when it is not one (then it is bytes/text). */
export function decodeMessage(buf: Buffer, nowSeconds: number): WireField[] | undefined {
  const out: WireField[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const tag = readVarint(buf, pos);
    if (!tag) return undefined;
    const field = Number(tag[0] >> 3n);
    const wire = Number(tag[0] & 7n);
    pos = tag[1];
    if (field === 0 || field > 10_000) return undefined;
    switch (wire) {
      case 0: {
        const v = readVarint(buf, pos);
        if (!v) return undefined;
        pos = v[1];
        out.push({ [field]: varintValue(v[0]) });
        break;
      }
      case 1:
        if (pos + 8 > buf.length) return undefined;
        out.push({ [`${field}:fixed64`]: buf.readBigUInt64LE(pos).toString() });
        pos += 8;
        break;
      case 5:
        if (pos + 4 > buf.length) return undefined;
        out.push({ [`${field}:fixed32`]: buf.readUInt32LE(pos) });
        pos += 4;
        break;
      case 2: {
        const len = readVarint(buf, pos);
        if (!len) return undefined;
        const end = len[1] + Number(len[0]);
        if (end > buf.length) return undefined;
        out.push({ [field]: lengthDelimited(buf.subarray(len[1], end), nowSeconds) });
        pos = end;
        break;
      }
      default:
        return undefined;
    }
  }
  return maskTime(out, nowSeconds);
}

function varintValue(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

/** Printable text is a string; otherwise a nested message if it parses; otherwise raw bytes. */
function lengthDelimited(b: Buffer, nowSeconds: number): WireValue {
  // An embedded Kubernetes object (a watch event's `object.raw`) carries its own envelope.
  if (b.length >= 4 && b.subarray(0, 4).equals(MAGIC)) {
    const inner = decodeMessage(b.subarray(4), nowSeconds);
    if (inner) return { 'k8s\\0': foldMessage(inner) };
  }
  const s = b.toString('utf8');
  if (Buffer.from(s, 'utf8').equals(b) && !/[\x00-\x08\x0b-\x1f\x7f]/.test(s) && (b.length === 0 || !/^[\n\r]/.test(s))) return s;
  const msg = decodeMessage(b, nowSeconds);
  if (msg) return msg;
  return { bytes: b.toString('base64') };
}

/**
 * metav1.Time and MicroTime are {1: seconds, 2: nanos}. Seconds within a few days of now were made by
 * the server during the run: mask them (and the nanos beside them), keeping which fields are present.
 */
function maskTime(fields: WireField[], nowSeconds: number): WireField[] {
  const first = fields[0];
  const sec = first?.['1'];
  if (typeof sec !== 'number' || Math.abs(sec - nowSeconds) > NOW_WINDOW_S) return fields;
  if (!fields.every((f) => Object.keys(f)[0] === '1' || Object.keys(f)[0] === '2')) return fields;
  return fields.map((f): WireField => ('1' in f ? { 1: '<epoch-seconds>' } : { 2: typeof f['2'] === 'number' ? '<nanos>' : f['2']! }));
}
