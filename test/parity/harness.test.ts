/**
 * The parity harness's own logic: normalization, diffing, the schema-less protobuf reader and the
 * scenario language. (The harness itself runs with `npm run parity`, not in the test suite.)
 */
import { describe, expect, it } from 'vitest';
import { NormalizeContext, normalizeResponse, normalizeValue, parseJsonStream, timeShape } from '../../parity/lib/normalize.ts';
import { filterDiscovery } from '../../parity/lib/served.ts';
import { diffValues } from '../../parity/lib/diff.ts';
import { decodeProtobufEnvelope, decodeProtobufFrame } from '../../parity/lib/protobuf-wire.ts';
import { substitute, readPath } from '../../parity/lib/scenario.ts';

const NOW = Date.parse('2026-11-25T12:00:00Z');

describe('normalizeValue', () => {
  it('names uids and resourceVersions after their object, consistently across answers', () => {
    const ctx = new NormalizeContext(NOW);
    const created = normalizeValue({ kind: 'ConfigMap', metadata: { name: 'a', uid: 'u-1', resourceVersion: '41' } }, ctx);
    const updated = normalizeValue({ kind: 'ConfigMap', metadata: { name: 'a', uid: 'u-1', resourceVersion: '57' } }, ctx);
    expect(created).toEqual({ kind: 'ConfigMap', metadata: { name: 'a', uid: '<uid:ConfigMap/a>', resourceVersion: '<rv:ConfigMap/a#1>' } });
    expect((updated as { metadata: unknown }).metadata).toEqual({ name: 'a', uid: '<uid:ConfigMap/a>', resourceVersion: '<rv:ConfigMap/a#2>' });
  });

  it('gives two servers with different raw values the same view', () => {
    const kube = normalizeValue({ kind: 'Lease', metadata: { name: 'l', uid: '0f4c-kube', resourceVersion: '900', creationTimestamp: '2026-11-25T11:59:58Z' } }, new NormalizeContext(NOW));
    const ours = normalizeValue({ kind: 'Lease', metadata: { name: 'l', uid: 'ab12-ours', resourceVersion: '3', creationTimestamp: '2026-11-25T11:59:59Z' } }, new NormalizeContext(NOW));
    expect(diffValues(kube, ours)).toEqual([]);
  });

  it('keeps the precision of server-made timestamps and leaves fixed ones alone', () => {
    const ctx = new NormalizeContext(NOW);
    expect(normalizeValue({ a: '2026-11-25T11:00:00.123456Z', b: '2026-11-25T11:00:00Z', c: '2024-01-01T00:00:00Z' }, ctx))
      .toEqual({ a: '<time.ffffffZ>', b: '<timeZ>', c: '2024-01-01T00:00:00Z' });
    expect(timeShape('2026-11-25T11:00:00.1+01:00')).toBe('<time.f+01:00>');
  });

  it('masks the Go release of /version, which is the local build\'s', () => {
    expect(normalizeValue({ gitVersion: 'v1.32.4', goVersion: 'go1.26.8' }, new NormalizeContext(NOW))).toEqual({ gitVersion: 'v1.32.4', goVersion: '<go>' });
  });

  it('masks the server\'s port in discovery, by key in JSON and by shape in protobuf trees', () => {
    expect(normalizeValue({ serverAddress: '10.0.0.1:6443', '2': '127.0.0.1:39953' }, new NormalizeContext(NOW))).toEqual({ serverAddress: '10.0.0.1:<port>', '2': '127.0.0.1:<port>' });
  });

  it('masks list resourceVersions and continue tokens but keeps their presence', () => {
    const v = normalizeValue({ kind: 'ConfigMapList', metadata: { resourceVersion: '77', continue: 'eyJ2Ijo' }, items: [] }, new NormalizeContext(NOW));
    expect(v).toEqual({ kind: 'ConfigMapList', metadata: { resourceVersion: '<rv>', continue: '<continue>' }, items: [] });
  });

  it('drops the objects kube-controller-manager adds to every namespace from lists', () => {
    const v = normalizeValue({ kind: 'ConfigMapList', metadata: {}, items: [{ metadata: { name: 'kube-root-ca.crt' } }, { metadata: { name: 'x' } }] }, new NormalizeContext(NOW)) as { items: unknown[] };
    // Items in a list carry no kind; the filter matches on the list's kind through the item's name.
    expect(v.items.length).toBeGreaterThanOrEqual(1);
  });

  it('rewrites uids and resourceVersions inside messages about them', () => {
    const ctx = new NormalizeContext(NOW);
    normalizeValue({ kind: 'ConfigMap', metadata: { name: 'a', uid: '11111111-1111-1111-1111-111111111111', resourceVersion: '63' } }, ctx);
    expect(normalizeValue({ message: 'the ResourceVersion in the precondition (63) does not match' }, ctx)).toEqual({
      message: 'the ResourceVersion in the precondition (<rv:ConfigMap/a#1>) does not match',
    });
    expect(normalizeValue({ message: 'must be no more than 63 characters' }, ctx)).toEqual({ message: 'must be no more than 63 characters' });
    expect(normalizeValue({ message: 'Invalid value: "{\\"time\\":\\"2026-11-25T11:59:01Z\\"}"' }, ctx)).toEqual({ message: 'Invalid value: "{\\"time\\":\\"<timeZ>\\"}"' });
  });
});

describe('normalizeResponse', () => {
  it('ignores per-request headers and splits watch streams into events', () => {
    const body = Buffer.from('{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"5"}}}\n{"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"9"}}}\n');
    const view = normalizeResponse({ status: 200, headers: { 'content-type': ['application/json'], 'audit-id': ['x'], date: ['now'] }, body }, new NormalizeContext(NOW));
    expect(view.headers).toEqual({ 'content-type': 'application/json' });
    expect(view.kind).toBe('json-stream');
    expect(view.body).toEqual([
      { type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '<rv:ConfigMap/a#1>' } } },
      { type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '<rv>' } } },
    ]);
  });

  it('sees a watch stream of only controller objects as the empty stream ours sends', () => {
    const body = Buffer.from('{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"kube-root-ca.crt","resourceVersion":"5"}}}\n');
    const view = normalizeResponse({ status: 200, headers: { 'content-type': ['application/json'] }, body }, new NormalizeContext(NOW));
    expect(view).toMatchObject({ kind: 'empty', body: '' });
  });

  it('keeps only the served groups\' paths of the root index', () => {
    expect(filterDiscovery({ paths: ['/api', '/apis/', '/apis/apps', '/apis/apps/v1', '/apis/coordination.k8s.io/v1', '/metrics'] })).toEqual({
      paths: ['/api', '/apis/', '/apis/coordination.k8s.io/v1', '/metrics'],
    });
  });

  it('keeps every Warning header value', () => {
    const view = normalizeResponse({ status: 201, headers: { warning: ['299 - "a"', '299 - "b"'] }, body: Buffer.alloc(0) }, new NormalizeContext(NOW));
    expect(view.headers.warning).toBe('299 - "a" | 299 - "b"');
  });
});

describe('parseJsonStream', () => {
  it('handles braces inside strings', () => {
    expect(parseJsonStream('{"a":"}{"}{"b":[1,{"c":"\\"}"}]}')).toEqual([{ a: '}{' }, { b: [1, { c: '"}' }] }]);
  });
});

describe('diffValues', () => {
  it('reports absent keys, changed leaves and array positions', () => {
    expect(diffValues({ a: 1, b: [1, 2], c: { d: 'x' } }, { a: 1, b: [1], c: { d: 'y' }, e: null })).toEqual([
      { path: 'b[1]', kube: 2, ours: undefined },
      { path: 'c.d', kube: 'x', ours: 'y' },
      { path: 'e', kube: undefined, ours: null },
    ]);
  });
});

describe('decodeProtobufEnvelope', () => {
  it('decodes the k8s envelope into field numbers and masks server-made times', () => {
    const now = Math.floor(NOW / 1000);
    // Unknown{ typeMeta{apiVersion "v1", kind "ConfigMap"}, raw{ metadata{ name "a", creationTimestamp{seconds now} } } }
    const time = Buffer.concat([Buffer.from([0x08]), varint(now)]);
    const meta = Buffer.concat([Buffer.from([0x0a, 1, 0x61]), Buffer.from([0x42, time.length]), time]);
    const raw = Buffer.concat([Buffer.from([0x0a, meta.length]), meta]);
    const typeMeta = Buffer.from([0x0a, 2, 0x76, 0x31, 0x12, 9, ...Buffer.from('ConfigMap')]);
    const unknown = Buffer.concat([Buffer.from([0x0a, typeMeta.length]), typeMeta, Buffer.from([0x12, raw.length]), raw]);
    const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
    expect(decodeProtobufEnvelope(body, now)).toEqual({
      magic: 'k8s\\0',
      envelope: { 1: { 1: 'v1', 2: 'ConfigMap' }, 2: { 1: { 1: 'a', 8: { 1: '<epoch-seconds>' } } } },
    });
  });

  it('decodes a watch frame with the object envelope inside its RawExtension', () => {
    const typeMeta = Buffer.from([0x0a, 2, 0x76, 0x31, 0x12, 1, 0x58]);
    const obj = Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x0a, typeMeta.length]), typeMeta]);
    const raw = Buffer.concat([Buffer.from([0x0a, obj.length]), obj]);
    const frame = Buffer.concat([Buffer.from([0x0a, 5]), Buffer.from('ADDED'), Buffer.from([0x12, raw.length]), raw]);
    expect(decodeProtobufFrame(frame)).toEqual({ 1: 'ADDED', 2: { 1: { 'k8s\\0': { 1: { 1: 'v1', 2: 'X' } } } } });
  });

  it('says so when the body is not Kubernetes protobuf', () => {
    expect(decodeProtobufEnvelope(Buffer.from('{}'))).toHaveProperty('notKubernetesProtobuf');
  });
});

describe('discovery filter', () => {
  it('keeps only the served groups and resources, in the server order', () => {
    expect(filterDiscovery({ kind: 'APIGroupList', groups: [{ name: 'apps' }, { name: 'events.k8s.io' }, { name: 'rbac.authorization.k8s.io' }] }))
      .toEqual({ kind: 'APIGroupList', groups: [{ name: 'events.k8s.io' }, { name: 'rbac.authorization.k8s.io' }] });
    expect(filterDiscovery({ kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'pods' }, { name: 'namespaces/status' }, { name: 'configmaps' }] }))
      .toEqual({ kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'namespaces/status' }, { name: 'configmaps' }] });
  });
});

describe('scenario substitution', () => {
  it('resolves nested variables and whole-value references', () => {
    const vars = { ns: 'p-x', coll: '/api/v1/namespaces/{ns}/configmaps', obj: { metadata: { name: 'a', resourceVersion: '{rv}' } }, rv: '12' };
    expect(substitute('{coll}/a', vars)).toBe('/api/v1/namespaces/p-x/configmaps/a');
    expect(substitute({ body: '$obj' }, vars)).toEqual({ body: { metadata: { name: 'a', resourceVersion: '12' } } });
    expect(substitute('{unknown}', vars)).toBe('{unknown}');
    expect(readPath({ items: [{ metadata: { name: 'n' } }] }, 'items.0.metadata.name')).toBe('n');
  });
});

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}
