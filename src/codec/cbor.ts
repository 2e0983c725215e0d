/**
 * CBOR (RFC 8949) as kube-apiserver's cbor serializer writes and reads it (gate
 * CBORServingAndStorage): every top-level item starts with the self-described CBOR tag 55799;
 * strings, map keys included, are byte strings (kube's StringToByteString / FieldNameToByteString);
 * Go []byte fields (schema `format: byte`, base64 in JSON) are byte strings under tag 22 (expected
 * base64); floats take the shortest width that keeps their value; no indefinite lengths. Map keys
 * are sorted bytewise over their encodings (RFC 8949 core deterministic order, kube's
 * deterministic mode), so equal objects always give equal bytes (kube's default response mode
 * leaves Go's map order, which is random).
 *
 * Decoding accepts what kube's decoder accepts for an object: text or byte strings (both become
 * JS strings, or base64 for `format: byte`), tags 55799 and 21/22/23 around byte strings, definite
 * and indefinite lengths; it refuses duplicate map keys, non-string keys and trailing bytes.
 */
import type { Schema } from '../schema/types.ts';

const SELF_DESCRIBED = Buffer.from([0xd9, 0xd9, 0xf7]);
const TAG_EXPECTED_BASE64 = 22;

/** A CBOR document that cannot be decoded; the message says why. */
export class CborDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CborDecodeError';
  }
}

/** Encodes a JSON value as one self-described CBOR item; `schema` marks `format: byte` fields. */
export function encodeCbor(value: unknown, schema?: Schema): Buffer {
  const w = new Writer();
  w.bytes(SELF_DESCRIBED);
  w.value(value, schema);
  return w.finish();
}

/** The schema of a list envelope whose items are objects of `itemSchema` (for `format: byte` inside items). */
export function listSchemaOf(itemSchema: Schema): Schema {
  return { type: 'object', properties: { items: { type: 'array', items: itemSchema } } } as Schema;
}

class Writer {
  private buf = Buffer.allocUnsafe(1024);
  private n = 0;

  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.n));
  }

  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.n + k));
    this.buf.copy(next, 0, 0, this.n);
    this.buf = next;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
  }

  /** A head: major type and argument, in the shortest form. */
  head(major: number, arg: number): void {
    this.room(9);
    const m = major << 5;
    if (arg < 24) this.buf[this.n++] = m | arg;
    else if (arg < 0x100) {
      this.buf[this.n++] = m | 24;
      this.buf[this.n++] = arg;
    } else if (arg < 0x10000) {
      this.buf[this.n++] = m | 25;
      this.buf.writeUInt16BE(arg, this.n);
      this.n += 2;
    } else if (arg < 0x100000000) {
      this.buf[this.n++] = m | 26;
      this.buf.writeUInt32BE(arg, this.n);
      this.n += 4;
    } else {
      this.buf[this.n++] = m | 27;
      this.buf.writeBigUInt64BE(BigInt(arg), this.n);
      this.n += 8;
    }
  }

  byteString(b: Uint8Array): void {
    this.head(2, b.length);
    this.bytes(b);
  }

  number(v: number): void {
    if (Number.isInteger(v) && Number.isSafeInteger(v)) {
      if (v >= 0) this.head(0, v);
      else this.head(1, -1 - v);
      return;
    }
    if (!Number.isFinite(v)) throw new Error(`CBOR: cannot encode ${v} (kube rejects NaN and infinities)`);
    this.room(9);
    const half = toHalf(v);
    if (half !== undefined) {
      this.buf[this.n++] = 0xf9;
      this.buf.writeUInt16BE(half, this.n);
      this.n += 2;
    } else if (Math.fround(v) === v) {
      this.buf[this.n++] = 0xfa;
      this.buf.writeFloatBE(v, this.n);
      this.n += 4;
    } else {
      this.buf[this.n++] = 0xfb;
      this.buf.writeDoubleBE(v, this.n);
      this.n += 8;
    }
  }

  value(v: unknown, s: Schema | undefined): void {
    if (v === null || v === undefined) {
      this.room(1);
      this.buf[this.n++] = 0xf6;
    } else if (typeof v === 'string') {
      if (s?.format === 'byte') {
        this.head(6, TAG_EXPECTED_BASE64);
        this.byteString(Buffer.from(v, 'base64'));
      } else this.byteString(Buffer.from(v, 'utf8'));
    } else if (typeof v === 'number') this.number(v);
    else if (typeof v === 'boolean') {
      this.room(1);
      this.buf[this.n++] = v ? 0xf5 : 0xf4;
    } else if (Array.isArray(v)) {
      this.head(4, v.length);
      const items = s?.items as Schema | undefined;
      for (const x of v) this.value(x, items);
    } else if (v instanceof Uint8Array) {
      this.byteString(v);
    } else if (typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      // Sorted by the encoded key: as all keys are byte strings, shorter first, then bytewise.
      const keys = entries.map(([k, x]) => ({ key: Buffer.from(k, 'utf8'), name: k, x }));
      keys.sort((a, b) => a.key.length - b.key.length || Buffer.compare(a.key, b.key));
      this.head(5, keys.length);
      const props = s?.properties;
      const additional = s && typeof s.additionalProperties === 'object' ? (s.additionalProperties as Schema) : undefined;
      for (const { key, name, x } of keys) {
        this.byteString(key);
        this.value(x, props?.[name] ?? additional);
      }
    } else throw new Error(`CBOR: cannot encode a ${typeof v}`);
  }
}

/** The IEEE 754 half-precision bits of `v` when they hold it exactly; undefined otherwise. */
function toHalf(v: number): number | undefined {
  if (Math.fround(v) !== v) return undefined;
  const f = new Float32Array([v]);
  const bits = new Uint32Array(f.buffer)[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0 && mant === 0) return sign;
  const e = exp - 127 + 15;
  if (e >= 31) return undefined;
  if (e <= 0) {
    // Subnormal half: the value must be a multiple of 2^-24.
    if (e < -10) return undefined;
    const m = mant | 0x800000;
    const shift = 14 - e;
    if ((m & ((1 << shift) - 1)) !== 0) return undefined;
    return sign | (m >>> shift);
  }
  if ((mant & 0x1fff) !== 0) return undefined;
  return sign | (e << 10) | (mant >>> 13);
}

/**
 * Decodes one CBOR item (optionally self-described) into a JSON value. `schema` marks `format:
 * byte` fields, whose byte strings become base64 as in JSON. Throws CborDecodeError; `duplicates`
 * collects repeated map keys as kube's strict decoding names them (`duplicate field "a.b"`) when
 * given, else a duplicate is an error.
 */
export function decodeCbor(bytes: Uint8Array, schema?: Schema, duplicates?: string[]): unknown {
  const r = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), duplicates);
  if (r.buf.length === 0) throw new CborDecodeError('cbor: unexpected EOF');
  const v = r.item(schema, '');
  if (r.pos !== r.buf.length) throw new CborDecodeError(`cbor: ${r.buf.length - r.pos} bytes of extraneous data starting at index ${r.pos}`);
  return v;
}

const BREAK = Symbol('break');
// kube's decode mode: MaxNestedLevels 64.
const MAX_DEPTH = 64;

class Reader {
  pos = 0;
  private depth = 0;
  constructor(
    readonly buf: Buffer,
    private readonly duplicates: string[] | undefined,
  ) {}

  private need(k: number): void {
    if (this.pos + k > this.buf.length) throw new CborDecodeError('cbor: unexpected EOF');
  }

  private arg(info: number): number {
    if (info < 24) return info;
    const sizes: Record<number, number> = { 24: 1, 25: 2, 26: 4, 27: 8 };
    const size = sizes[info];
    if (size === undefined) throw new CborDecodeError(`cbor: invalid additional information ${info}`);
    this.need(size);
    let v: number;
    if (size === 1) v = this.buf[this.pos]!;
    else if (size === 2) v = this.buf.readUInt16BE(this.pos);
    else if (size === 4) v = this.buf.readUInt32BE(this.pos);
    else {
      const big = this.buf.readBigUInt64BE(this.pos);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new CborDecodeError('cbor: integer overflows the supported range');
      v = Number(big);
    }
    this.pos += size;
    return v;
  }

  /** A definite or indefinite byte or text string's bytes. */
  private stringBytes(major: number, info: number): Buffer {
    if (info !== 31) {
      const len = this.arg(info);
      this.need(len);
      const b = this.buf.subarray(this.pos, this.pos + len);
      this.pos += len;
      return b;
    }
    const parts: Buffer[] = [];
    for (;;) {
      this.need(1);
      const ib = this.buf[this.pos++]!;
      if (ib === 0xff) return Buffer.concat(parts);
      if (ib >> 5 !== major || (ib & 31) === 31) throw new CborDecodeError('cbor: wrong chunk type in an indefinite-length string');
      parts.push(this.stringBytes(major, ib & 31));
    }
  }

  item(s: Schema | undefined, path: string): unknown {
    if (++this.depth > MAX_DEPTH) throw new CborDecodeError(`cbor: exceeded max nested level ${MAX_DEPTH}`);
    try {
      return this.itemAt(s, path);
    } finally {
      this.depth--;
    }
  }

  private itemAt(s: Schema | undefined, path: string): unknown {
    this.need(1);
    const ib = this.buf[this.pos++]!;
    const major = ib >> 5;
    const info = ib & 31;
    switch (major) {
      case 0:
        return this.arg(info);
      case 1:
        return -1 - this.arg(info);
      case 2: {
        const b = this.stringBytes(2, info);
        return s?.format === 'byte' ? b.toString('base64') : utf8(b);
      }
      case 3:
        return utf8(this.stringBytes(3, info));
      case 4: {
        const out: unknown[] = [];
        const items = s?.items as Schema | undefined;
        if (info === 31) {
          for (;;) {
            const v = this.itemOrBreak(items, `${path}[${out.length}]`);
            if (v === BREAK) return out;
            out.push(v);
          }
        }
        const len = this.arg(info);
        for (let i = 0; i < len; i++) out.push(this.item(items, `${path}[${i}]`));
        return out;
      }
      case 5: {
        const out: Record<string, unknown> = {};
        const len = info === 31 ? Infinity : this.arg(info);
        for (let i = 0; i < len; i++) {
          this.need(1);
          if (info === 31 && this.buf[this.pos] === 0xff) {
            this.pos++;
            break;
          }
          const key = this.item(undefined, path);
          if (typeof key !== 'string') throw new CborDecodeError(`cbor: map keys must be strings, got ${typeof key}`);
          const child = s?.properties?.[key] ?? (s && typeof s.additionalProperties === 'object' ? (s.additionalProperties as Schema) : undefined);
          const field = path ? `${path}.${key}` : key;
          const value = this.item(child, field);
          if (Object.hasOwn(out, key)) {
            if (!this.duplicates) throw new CborDecodeError(`cbor: found duplicate map key "${key}" at map element index ${i}`);
            this.duplicates.push(`duplicate field ${JSON.stringify(field)}`);
          }
          out[key] = value;
        }
        return out;
      }
      case 6: {
        const tag = this.arg(info);
        if (tag === 55799) return this.item(s, path);
        // Expected-encoding tags (base64url, base64, base16) around a []byte: the bytes as base64.
        if (tag === 21 || tag === TAG_EXPECTED_BASE64 || tag === 23) {
          const v = this.item(s?.format === 'byte' ? s : { format: 'byte' } as Schema, path);
          return v;
        }
        throw new CborDecodeError(`cbor: unsupported tag ${tag}`);
      }
      default: {
        switch (info) {
          case 20:
            return false;
          case 21:
            return true;
          case 22:
          case 23:
            return null;
          case 25: {
            this.need(2);
            const v = fromHalf(this.buf.readUInt16BE(this.pos));
            this.pos += 2;
            return finite(v);
          }
          case 26: {
            this.need(4);
            const v = this.buf.readFloatBE(this.pos);
            this.pos += 4;
            return finite(v);
          }
          case 27: {
            this.need(8);
            const v = this.buf.readDoubleBE(this.pos);
            this.pos += 8;
            return finite(v);
          }
          case 31:
            throw new CborDecodeError('cbor: unexpected "break" code');
          default:
            throw new CborDecodeError(`cbor: unsupported simple value ${info}`);
        }
      }
    }
  }

  private itemOrBreak(s: Schema | undefined, path: string): unknown {
    this.need(1);
    if (this.buf[this.pos] === 0xff) {
      this.pos++;
      return BREAK;
    }
    return this.item(s, path);
  }
}

function utf8(b: Buffer): string {
  const s = b.toString('utf8');
  // kube rejects invalid UTF-8 in strings.
  if (!Buffer.from(s, 'utf8').equals(b)) throw new CborDecodeError('cbor: invalid UTF-8 string');
  return s;
}

function finite(v: number): number {
  if (!Number.isFinite(v)) throw new CborDecodeError('cbor: floating-point number NaN or infinity is not accepted');
  return v;
}

function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}
