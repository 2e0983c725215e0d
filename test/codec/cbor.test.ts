/**
 * CBOR against kube-apiserver v1.32.4's own bytes (test/fixtures/cbor, fetched from a reference
 * started with CBORServingAndStorage=true): the same object encodes to the reference's bytes once
 * its map entries are put in deterministic order (kube writes Go's random map order), and the
 * reference's bytes decode to the JSON it serves. cborg, an independent decoder, reads ours.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decode as cborgDecode } from 'cborg';
import { CborDecodeError, decodeCbor, encodeCbor, listSchemaOf } from '../../src/codec/cbor.ts';
import { secretType } from '../../src/api/kinds/secret.ts';
import { configMapType } from '../../src/api/kinds/configmap.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/cbor/${name}`, import.meta.url));

/**
 * Re-orders every map of a CBOR item sequence by the bytes of its encoded keys, leaving every
 * other byte as it is (a raw walk, no decoding of values): the deterministic form of kube's bytes.
 */
export function canonicalCbor(bytes: Uint8Array): Buffer {
  const buf = Buffer.from(bytes);
  let pos = 0;
  const head = (): { major: number; arg: number; start: number } => {
    const start = pos;
    const ib = buf[pos++]!;
    const info = ib & 31;
    let arg = info;
    if (info === 24) arg = buf[pos++]!;
    else if (info === 25) (arg = buf.readUInt16BE(pos)), (pos += 2);
    else if (info === 26) (arg = buf.readUInt32BE(pos)), (pos += 4);
    else if (info === 27) (arg = Number(buf.readBigUInt64BE(pos))), (pos += 8);
    else if (info > 27) throw new Error(`indefinite or reserved length at ${start}`);
    return { major: ib >> 5, arg, start };
  };
  const item = (): Buffer => {
    const h = head();
    const headBytes = buf.subarray(h.start, pos);
    switch (h.major) {
      case 2:
      case 3: {
        const body = buf.subarray(pos, pos + h.arg);
        pos += h.arg;
        return Buffer.concat([headBytes, body] as Uint8Array[]);
      }
      case 4: {
        const parts: Uint8Array[] = [headBytes];
        for (let i = 0; i < h.arg; i++) parts.push(item());
        return Buffer.concat(parts);
      }
      case 5: {
        const entries: { key: Buffer; value: Buffer }[] = [];
        for (let i = 0; i < h.arg; i++) entries.push({ key: item(), value: item() });
        entries.sort((a, b) => Buffer.compare(a.key, b.key));
        return Buffer.concat([headBytes, ...entries.flatMap((e) => [e.key, e.value])]);
      }
      case 6:
        return Buffer.concat([headBytes, item()]);
      default: {
        // Simple values and floats: the head holds them whole (ints too).
        return Buffer.from(headBytes);
      }
    }
  };
  const out: Buffer[] = [];
  while (pos < buf.length) out.push(item());
  return Buffer.concat(out);
}

/** cborg's reading of a kube CBOR item: byte strings as text, maps as objects. */
function independentDecode(bytes: Uint8Array): unknown {
  const plain = (v: unknown): unknown => {
    if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [Buffer.from(k as Uint8Array).toString('utf8'), plain(x)]));
    if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
    if (Array.isArray(v)) return v.map(plain);
    if (v && typeof v === 'object' && 'tag' in v && 'value' in v) return plain((v as { value: unknown }).value);
    return v;
  };
  // Tag 55799 (self-described CBOR) wraps the item and means nothing more.
  const tags: ((inner: unknown) => unknown)[] = [];
  tags[55799] = (inner) => (typeof inner === 'function' ? (inner as () => unknown)() : inner);
  return plain(cborgDecode(bytes, { useMaps: true, tags }));
}

describe('CBOR as kube-apiserver writes it', () => {
  const cases: [string, Parameters<typeof encodeCbor>[1]][] = [
    ['c1', configMapType.schema],
    ['s1', secretType.schema],
    ['n1', undefined],
    ['nope', undefined],
  ];
  for (const [name, schema] of cases) {
    it(`encodes ${name} to the reference's bytes, and decodes them back`, () => {
      const json = JSON.parse(fixture(`${name}.json`).toString('utf8'));
      const ref = fixture(`${name}.cbor`);
      const ours = encodeCbor(json, schema);
      expect(ours.subarray(0, 3)).toEqual(Buffer.from([0xd9, 0xd9, 0xf7]));
      expect(ours.toString('hex')).toBe(canonicalCbor(ref).toString('hex'));
      expect(decodeCbor(ref, schema)).toEqual(json);
    });
  }

  it('writes a watch event as kube does: a self-described {type, object} with the object embedded', () => {
    const ref = fixture('c1-watch.cbor');
    const event = JSON.parse(fixture('c1-watch.json').toString('utf8').split('\n')[0]!);
    // The watch handler's framing (cborWatchEvent) is this map with the object's own item inside.
    const ours = Buffer.concat([Buffer.from([0xd9, 0xd9, 0xf7, 0xa2, 0x44, ...Buffer.from('type'), 0x45, ...Buffer.from('ADDED'), 0x46, ...Buffer.from('object')]), encodeCbor(event.object, configMapType.schema)]);
    expect(ours.toString('hex')).toBe(canonicalCbor(ref).toString('hex'));
  });

  it('is read by an independent decoder', () => {
    const json = JSON.parse(fixture('n1.json').toString('utf8'));
    expect(independentDecode(encodeCbor(json))).toEqual(json);
  });

  it('writes floats in the shortest exact width and integers in the shortest head', () => {
    expect(encodeCbor(1.5).toString('hex')).toBe('d9d9f7f93e00');
    expect(encodeCbor(0.1).toString('hex')).toBe('d9d9f7fb3fb999999999999a');
    expect(encodeCbor(100000.5).toString('hex')).toBe('d9d9f7fa47c35040');
    expect(encodeCbor(-25).toString('hex')).toBe('d9d9f73818');
    expect(encodeCbor(2 ** 40).toString('hex')).toBe('d9d9f71b0000010000000000');
    for (const v of [0.5, -2.75, 65504, 1e-7, 5.960464477539063e-8, 3.4028234663852886e38, 1e300]) expect(decodeCbor(encodeCbor(v))).toBe(v);
  });

  it('orders list item maps and byte fields by the item schema', () => {
    const list = { kind: 'SecretList', apiVersion: 'v1', metadata: {}, items: [{ metadata: { name: 'a' }, data: { k: 'aGVsbG8=' } }] };
    const bytes = encodeCbor(list, listSchemaOf(secretType.schema));
    expect(bytes.includes(Buffer.from([0xd6, 0x45, ...Buffer.from('hello')]))).toBe(true);
    expect(decodeCbor(bytes, listSchemaOf(secretType.schema))).toEqual(list);
  });

  it('refuses bad input with an error, never a crash', () => {
    const bad = ['', 'd9d9f7', 'a1', 'a2416101416102', 'a1010203', '5f41', 'ff', 'f97c00', 'c10a', '63e282', 'a14161', '1b7fffffffffffffff'];
    for (const hex of bad) expect(() => decodeCbor(Buffer.from(hex, 'hex')), hex).toThrow(CborDecodeError);
    // Repeated keys: reported for strict field validation when asked.
    const dups: string[] = [];
    expect(decodeCbor(Buffer.from('a2416101416102', 'hex'), undefined, dups)).toEqual({ a: 2 });
    expect(dups).toEqual(['duplicate field "a"']);
    // Indefinite lengths and text strings are read.
    expect(decodeCbor(Buffer.from('bf6161' + '9f0102ff' + 'ff', 'hex'))).toEqual({ a: [1, 2] });
    let deep = Buffer.alloc(0);
    for (let i = 0; i < 100; i++) deep = Buffer.concat([deep, Buffer.from([0x81])]);
    expect(() => decodeCbor(Buffer.concat([deep, Buffer.from([0x01])]))).toThrow(CborDecodeError);
  });
});
