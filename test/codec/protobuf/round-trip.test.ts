import { describe, expect, it } from 'vitest';
import { ApiError, errors } from '../../../src/api/status-errors.ts';
import {
  decodeProtobufObject,
  decodeProtobufWatchEvent,
  encodeProtobufList,
  encodeProtobufObject,
  encodeProtobufStatus,
  encodeProtobufWatchEvent,
  encodeProtobufWatchEventMessage,
  isProtobufKind,
  splitFrames,
} from '../../../src/codec/protobuf/index.ts';
import { FIXTURES } from './fixtures.ts';

function expectBadRequest(fn: () => unknown, message: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(400);
    expect((err as ApiError).reason).toBe('BadRequest');
    expect((err as ApiError).message).toMatch(message);
    return;
  }
  throw new Error('expected a 400');
}

/** A hand-built protobuf: tag/varint/length-delimited helpers, independent of the encoder. */
const pb = {
  varint(n: number): number[] {
    const out: number[] = [];
    let v = BigInt.asUintN(64, BigInt(n));
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) b |= 0x80;
      out.push(b);
    } while (v > 0n);
    return out;
  },
  len(no: number, bytes: readonly number[]): number[] {
    return [...pb.varint((no << 3) | 2), ...pb.varint(bytes.length), ...bytes];
  },
  str(no: number, s: string): number[] {
    return pb.len(no, [...Buffer.from(s, 'utf8')]);
  },
  int(no: number, n: number): number[] {
    return [...pb.varint(no << 3), ...pb.varint(n)];
  },
  envelope(apiVersion: string, kind: string, raw: readonly number[]): Uint8Array {
    return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...pb.len(1, [...pb.str(1, apiVersion), ...pb.str(2, kind)]), ...pb.len(2, raw)]);
  },
};

describe('round trips JSON -> protobuf -> JSON', () => {
  for (const fixture of FIXTURES) {
    const name = (fixture.metadata as { name?: string } | undefined)?.name ?? '';
    it(`${fixture.apiVersion} ${fixture.kind} ${name}`, () => {
      const bytes = encodeProtobufObject(fixture);
      expect(Array.from(bytes.subarray(0, 4))).toEqual([0x6b, 0x38, 0x73, 0x00]);
      const decoded = decodeProtobufObject(bytes);
      expect(decoded.apiVersion).toBe(fixture.apiVersion);
      expect(decoded.kind).toBe(fixture.kind);
      expect(decoded.object).toEqual(fixture);
      // Stable: encoding the decoded form gives the same bytes.
      expect(Buffer.from(encodeProtobufObject(decoded.object)).equals(Buffer.from(bytes))).toBe(true);
    });
  }

  it('writes kind and apiVersion first, then fields in Go struct order', () => {
    const cm = FIXTURES.find((f) => f.kind === 'ConfigMap')!;
    const keys = Object.keys(decodeProtobufObject(encodeProtobufObject(cm)).object);
    expect(keys).toEqual(['kind', 'apiVersion', 'metadata', 'immutable', 'data', 'binaryData']);
  });
});

describe('Go JSON rules on decode', () => {
  it('omits empty omitempty fields and keeps zero pointer fields that are present', () => {
    const raw = [
      ...pb.len(1, [...pb.str(1, 'cm'), ...pb.str(2, ''), ...pb.str(3, ''), ...pb.int(7, 0), ...pb.len(8, [])]),
      ...pb.int(4, 0), // immutable=false (a *bool)
    ];
    const { object } = decodeProtobufObject(pb.envelope('v1', 'ConfigMap', raw));
    expect(object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm', creationTimestamp: null }, immutable: false });
  });

  it('writes Time to the second and MicroTime to the microsecond, dropping the rest', () => {
    const time = [...pb.int(1, 1704164645), ...pb.int(2, 987654321)];
    const raw = [...pb.len(1, [...pb.str(1, 'l'), ...pb.len(8, time)]), ...pb.len(2, [...pb.len(3, time), ...pb.len(4, pb.int(1, 1704164645))])];
    const { object } = decodeProtobufObject(pb.envelope('coordination.k8s.io/v1', 'Lease', raw));
    expect(object).toEqual({
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      metadata: { name: 'l', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: { acquireTime: '2024-01-02T03:04:05.987654Z', renewTime: '2024-01-02T03:04:05.000000Z' },
    });
  });

  it("reads Go's zero time written in full as null", () => {
    const zero = [...pb.int(1, -62135596800), ...pb.int(2, 0)];
    const { object } = decodeProtobufObject(pb.envelope('v1', 'Namespace', pb.len(1, [...pb.str(1, 'n'), ...pb.len(8, zero)])));
    expect(object.metadata).toEqual({ name: 'n', creationTimestamp: null });
  });

  it('writes non-omitempty strings and lists even when empty', () => {
    const raw = [...pb.len(1, []), ...pb.len(3, []), ...pb.len(2, pb.str(1, 'User'))];
    const { object } = decodeProtobufObject(pb.envelope('rbac.authorization.k8s.io/v1', 'RoleBinding', raw));
    expect(object).toEqual({
      kind: 'RoleBinding',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: {},
      subjects: [{ kind: 'User', name: '' }],
      roleRef: { apiGroup: '', kind: '', name: '' },
    });
  });

  it('sorts map keys, keeps the last of repeated map keys, and skips unknown fields', () => {
    const entry = (k: string, v: string) => pb.len(2, [...pb.str(1, k), ...pb.str(2, v)]);
    const raw = [...entry('z', '1'), ...entry('a', '2'), ...entry('z', '3'), ...pb.str(99, 'future field'), ...pb.int(98, 5)];
    const { object } = decodeProtobufObject(pb.envelope('v1', 'ConfigMap', raw));
    expect(Object.keys(object.data as object)).toEqual(['a', 'z']);
    expect(object.data).toEqual({ a: '2', z: '3' });
  });

  it('SubjectAccessReviewSpec.extra: map<string, ExtraValue> (field 5; ExtraValue is repeated string items = 1) as JSON lists', () => {
    // Bytes laid out from k8s.io/api authorization/v1 generated.proto, as Go's marshaler writes them.
    const extraEntry = (k: string, items: string[]) => pb.len(5, [...pb.str(1, k), ...pb.len(2, items.flatMap((i) => pb.str(1, i)))]);
    const spec = [...pb.len(2, [...pb.str(1, '/healthz'), ...pb.str(2, 'get')]), ...pb.str(3, 'alice'), ...extraEntry('scopes', ['a', 'b']), ...extraEntry('empty', []), ...pb.str(6, 'u-1')];
    const raw = [...pb.len(1, []), ...pb.len(2, spec), ...pb.len(3, [...pb.int(1, 0)])];
    const { object } = decodeProtobufObject(pb.envelope('authorization.k8s.io/v1', 'SubjectAccessReview', raw));
    expect((object as { spec: unknown }).spec).toEqual({ nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'alice', extra: { empty: [], scopes: ['a', 'b'] }, uid: 'u-1' });
    // And back: keys sorted, each list an ExtraValue message.
    const bytes = encodeProtobufObject(object);
    const again = decodeProtobufObject(bytes).object as { spec: { extra: unknown } };
    expect(again.spec.extra).toEqual({ empty: [], scopes: ['a', 'b'] });
    expect(Buffer.from(bytes).includes(Buffer.from([...extraEntry('scopes', ['a', 'b'])]))).toBe(true);
  });

  it('decodes ManagedFieldsEntry.fieldsV1 into the JSON object it holds', () => {
    const fields = '{"f:data":{"f:a":{}},"f:metadata":{"f:labels":{".":{}}}}';
    const mf = [...pb.str(1, 'kubectl'), ...pb.str(2, 'Apply'), ...pb.str(3, 'v1'), ...pb.str(6, 'FieldsV1'), ...pb.len(7, pb.str(1, fields))];
    const { object } = decodeProtobufObject(pb.envelope('v1', 'ConfigMap', pb.len(1, pb.len(17, mf))));
    expect(object.metadata).toEqual({
      managedFields: [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: JSON.parse(fields) }],
    });
  });
});

describe('decode errors are 400s', () => {
  it('rejects a body without the magic prefix', () => {
    expectBadRequest(() => decodeProtobufObject(Buffer.from('{"kind":"ConfigMap"}')), /expected prefix \[107 56 115 0\]/);
    expectBadRequest(() => decodeProtobufObject(new Uint8Array(0)), /expected prefix/);
  });
  it('rejects kinds we do not serve in protobuf', () => {
    expectBadRequest(() => decodeProtobufObject(pb.envelope('apps/v1', 'Deployment', [])), /no kind "Deployment" is registered for version "apps\/v1"/);
    expectBadRequest(() => decodeProtobufObject(pb.envelope('v1', '', [])), /Kind' is missing/);
  });
  it('rejects truncated and mistyped bytes', () => {
    const good = encodeProtobufObject(FIXTURES.find((f) => f.kind === 'Secret')!);
    expectBadRequest(() => decodeProtobufObject(good.subarray(0, good.length - 3)), /malformed/);
    expectBadRequest(() => decodeProtobufObject(pb.envelope('v1', 'ConfigMap', pb.int(1, 7))), /malformed protobuf ConfigMap: ConfigMap.metadata: unexpected wire type 0/);
    expectBadRequest(() => decodeProtobufObject(pb.envelope('v1', 'ConfigMap', [0x0a, 0x05, 0x01])), /malformed protobuf ConfigMap/);
  });
  it('rejects an encoded content encoding', () => {
    const body = Uint8Array.from([...pb.envelope('v1', 'ConfigMap', []), ...pb.str(3, 'gzip')]);
    expectBadRequest(() => decodeProtobufObject(body), /content encoding "gzip"/);
  });
});

describe('kinds, lists, Status, watch events', () => {
  it('knows which kinds it serves', () => {
    expect(isProtobufKind('v1', 'ConfigMap')).toBe(true);
    expect(isProtobufKind('v1', 'SecretList')).toBe(true);
    expect(isProtobufKind('events.k8s.io/v1', 'Event')).toBe(true);
    expect(isProtobufKind('rbac.authorization.k8s.io/v1', 'ClusterRoleBindingList')).toBe(true);
    expect(isProtobufKind('rbac.authorization.k8s.io/v1', 'DeleteOptions')).toBe(true);
    expect(isProtobufKind('v1', 'Status')).toBe(true);
    expect(isProtobufKind('v1', 'Pod')).toBe(false);
    expect(isProtobufKind('example.com/v1', 'Widget')).toBe(false);
    expect(isProtobufKind('v1', 'Lease')).toBe(false);
  });

  it('encodes a list from ListMeta and items', () => {
    const items = [{ metadata: { name: 'a', namespace: 'ns', creationTimestamp: '2024-01-02T03:04:05Z' }, data: { x: 'y' } }];
    const bytes = encodeProtobufList('ConfigMapList', 'v1', { resourceVersion: '10' }, items);
    expect(decodeProtobufObject(bytes).object).toEqual({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '10' }, items });
    const empty = encodeProtobufList('NamespaceList', 'v1', {}, []);
    expect(decodeProtobufObject(empty).object).toEqual({ kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: null });
  });

  it("encodes an ApiError's Status (the empty group is omitted, as Go's omitempty does)", () => {
    const status = errors.alreadyExists({ group: '', resource: 'configmaps' }, 'x').toStatus();
    expect(decodeProtobufObject(encodeProtobufStatus(status)).object).toEqual({
      ...status,
      details: { name: 'x', kind: 'configmaps' },
    });
  });

  it('refuses to encode kinds without a protobuf form, and values of the wrong type', () => {
    expect(() => encodeProtobufObject({ apiVersion: 'apps/v1', kind: 'Deployment' })).toThrow(ApiError);
    expect(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 1 } })).toThrow(/ConfigMap.data\[a\]: expected a string/);
    expect(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { creationTimestamp: 'yesterday' } })).toThrow(
      /Namespace.metadata.creationTimestamp: cannot parse "yesterday"/,
    );
  });

  it('accepts RFC 3339 offsets and fractions, normalizing to UTC', () => {
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: { renewTime: '2024-01-02T05:04:05.1234567+02:00' } };
    expect(decodeProtobufObject(encodeProtobufObject(lease)).object.spec).toEqual({ renewTime: '2024-01-02T03:04:05.123456Z' });
  });

  it('frames watch events with a 4-byte big-endian length and nests the enveloped object', () => {
    const cm = FIXTURES.find((f) => f.kind === 'ConfigMap')!;
    const objectBytes = encodeProtobufObject(cm);
    const frame = encodeProtobufWatchEvent('ADDED', objectBytes);
    const message = encodeProtobufWatchEventMessage('ADDED', objectBytes);
    expect(new DataView(frame.buffer, frame.byteOffset).getUint32(0, false)).toBe(message.length);
    expect(Buffer.from(frame.subarray(4)).equals(Buffer.from(message))).toBe(true);
    // WatchEvent{type=1 "ADDED", object=2 RawExtension{raw=1 <object with envelope>}}: no magic on the event itself.
    expect(Array.from(message.subarray(0, 7))).toEqual([0x0a, 5, ...Buffer.from('ADDED')]);
    expect(Buffer.from(message).includes(Buffer.from(objectBytes))).toBe(true);

    const second = encodeProtobufWatchEvent('DELETED', encodeProtobufStatus(errors.gone('too old').toStatus()));
    const stream = Uint8Array.from([...frame, ...second, 0, 0]);
    const { frames, rest } = splitFrames(stream);
    expect(frames).toHaveLength(2);
    expect(Array.from(rest)).toEqual([0, 0]);
    const first = decodeProtobufWatchEvent(frames[0]!);
    expect(first.type).toBe('ADDED');
    expect(first.object.object).toEqual(cm);
    const other = decodeProtobufWatchEvent(frames[1]!);
    expect(other.type).toBe('DELETED');
    expect(other.object.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Gone', message: 'too old' });
  });
});
