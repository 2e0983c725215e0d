import { describe, expect, it } from 'vitest';
import { FieldSet } from '../../src/apply/field-set.ts';
import { fieldSetToFieldsV1, fieldsV1ToFieldSet } from '../../src/apply/fields-v1.ts';
import { encodeGoJson } from '../../src/apply/go-json.ts';
import { fieldElement as f, keyElement, pathToString, type PathElement } from '../../src/apply/path.ts';
import { managerFromUserAgent, managerOrUserAgent } from '../../src/apply/index.ts';

const k = (o: Record<string, unknown>): PathElement => keyElement(Object.entries(o));
const v = (value: unknown): PathElement => ({ kind: 'value', value });

describe('FieldsV1 encoding', () => {
  it('writes ".", fields, keys and values in structured-merge-diff order', () => {
    const set = FieldSet.of([
      [f('spec'), f('containers'), k({ name: 'b' })],
      [f('spec'), f('containers'), k({ name: 'b' }), f('image')],
      [f('spec'), f('containers'), k({ name: 'a' })],
      [f('spec'), f('containers'), k({ name: 'a' }), f('name')],
      [f('spec'), f('replicas')],
      [f('metadata'), f('finalizers'), v('z')],
      [f('metadata'), f('finalizers'), v('a')],
      [f('spec'), f('ports'), k({ protocol: 'TCP', containerPort: 80 })],
    ]);
    expect(JSON.stringify(fieldSetToFieldsV1(set))).toBe(
      '{"f:metadata":{"f:finalizers":{"v:\\"a\\"":{},"v:\\"z\\"":{}}},' +
        '"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{".":{},"f:name":{}},"k:{\\"name\\":\\"b\\"}":{".":{},"f:image":{}}},' +
        '"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{}},"f:replicas":{}}}',
    );
  });

  it('orders multi-field keys by size first, then by field', () => {
    const set = FieldSet.of([
      [f('l'), k({ a: 1, b: 2 })],
      [f('l'), k({ a: 2 })],
      [f('l'), k({ a: 1 })],
    ]);
    expect(Object.keys(fieldSetToFieldsV1(set)['f:l']!)).toEqual(['k:{"a":1}', 'k:{"a":2}', 'k:{"a":1,"b":2}']);
  });

  it('round-trips through decoding', () => {
    const text = {
      'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
      'f:spec': { 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:name': {} } } },
    };
    const set = fieldsV1ToFieldSet(text);
    expect(set.has([f('data')])).toBe(true);
    expect(set.has([f('spec')])).toBe(false);
    expect(set.has([f('spec'), f('ports'), k({ containerPort: 80, protocol: 'TCP' }), f('name')])).toBe(true);
    expect(JSON.stringify(fieldSetToFieldsV1(set))).toBe(JSON.stringify(text));
  });

  it('rejects unknown prefixes', () => {
    expect(() => fieldsV1ToFieldSet({ 'x:foo': {} })).toThrow(/unknown path element prefix/);
  });

  it('prints paths as kube does in conflicts', () => {
    expect(pathToString([f('spec'), f('containers'), k({ name: 'app' }), f('image')])).toBe('.spec.containers[name="app"].image');
    expect(pathToString([f('p'), k({ protocol: 'TCP', containerPort: 80 })])).toBe('.p[containerPort=80,protocol="TCP"]');
    expect(pathToString([f('metadata'), f('finalizers'), v('x')])).toBe('.metadata.finalizers[="x"]');
  });

  it('encodes JSON as Go does', () => {
    expect(encodeGoJson({ b: '<&>', a: [1, 'x\u2028'] })).toBe('{"a":[1,"x\\u2028"],"b":"\\u003c\\u0026\\u003e"}');
  });
});

describe('manager names', () => {
  it.each([
    ['kubectl/v1.32.0 (linux/amd64) kubernetes/abc', 'kubectl'],
    ['kube-controller-manager/v1.32.0', 'kube-controller-manager'],
    ['curl', 'curl'],
    // No usable User-Agent: kube-apiserver v1.32.4 records the write as "unknown".
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['/x', 'unknown'],
    ['a b/c', 'a b'],
    ['a\u0001b/x', 'ab'],
    ['x'.repeat(200), 'x'.repeat(128)],
  ])('User-Agent %j gives %j', (ua, want) => {
    expect(managerFromUserAgent(ua)).toBe(want);
  });

  it('prefers fieldManager', () => {
    expect(managerOrUserAgent('mine', 'kubectl/v1')).toBe('mine');
    expect(managerOrUserAgent('', 'kubectl/v1')).toBe('kubectl');
  });
});

describe('FieldsV1 decoding reuse', () => {
  it('decodes the same text once: sets are immutable, so the stored object of every write shares it', () => {
    const fields = { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } };
    const first = fieldsV1ToFieldSet(fields);
    expect(fieldsV1ToFieldSet(structuredClone(fields))).toBe(first);
    expect(fieldSetToFieldsV1(first)).toEqual(fields);
  });

  it('never keeps a malformed text: it fails every time', () => {
    const bad = { 'f:data': { 'x:nope': {} } };
    expect(() => fieldsV1ToFieldSet(bad)).toThrow();
    expect(() => fieldsV1ToFieldSet(structuredClone(bad))).toThrow();
  });
});
