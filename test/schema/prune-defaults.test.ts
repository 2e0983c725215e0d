import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../src/schema/defaults.ts';
import {
  formatDuplicateFieldWarning,
  formatStrictDecodingError,
  formatUnknownFieldWarning,
  pruneUnknownFields,
} from '../../src/schema/prune.ts';
import type { Schema } from '../../src/schema/types.ts';
import { childSchema, isIntOrString, itemSchema, listMapKeys, listType, mapType, patchMergeKey, preservesUnknown } from '../../src/schema/walk.ts';
import { configMapSchema, crontabSchema } from './sample-types.ts';

describe('pruneUnknownFields', () => {
  it('drops undeclared fields and returns their sorted paths', () => {
    const obj = {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'a', bogus: 1, labels: { x: 'y' } },
      spec: { cronSpec: '*', foo: 1, ports: [{ name: 'a', junk: true }], template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'k', y: 2 }, other: 3 } },
      top: 'level',
    };
    const dropped = pruneUnknownFields(obj, crontabSchema);
    expect(dropped).toEqual(['metadata.bogus', 'spec.foo', 'spec.ports[0].junk', 'spec.template.other', 'spec.template.spec.y', 'top']);
    expect(obj).toEqual({
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'a', labels: { x: 'y' } },
      spec: { cronSpec: '*', ports: [{ name: 'a' }], template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'k' } } },
    });
  });

  it('keeps everything under preserve-unknown-fields but prunes inside declared children', () => {
    const obj = { spec: { cronSpec: '*', extra: { free: { deep: [1, { a: 1 }] }, known: { a: 'x', b: 'gone' } } } };
    expect(pruneUnknownFields(obj, crontabSchema)).toEqual(['spec.extra.known.b']);
    expect(obj.spec.extra).toEqual({ free: { deep: [1, { a: 1 }] }, known: { a: 'x' } });
  });

  it('keeps map entries declared by additionalProperties', () => {
    const obj = { data: { a: 'b', c: 'd' }, binaryData: {}, stray: { x: 1 } };
    expect(pruneUnknownFields(obj, configMapSchema)).toEqual(['stray']);
    expect(obj).toEqual({ data: { a: 'b', c: 'd' }, binaryData: {} });
  });

  it('drops every key of an object with no declared fields', () => {
    const s: Schema = { type: 'object', properties: { o: { type: 'object' } } };
    const obj = { o: { a: 1, b: { c: 2 } } };
    expect(pruneUnknownFields(obj, s, { isResourceRoot: false })).toEqual(['o.a', 'o.b']);
    expect(obj).toEqual({ o: {} });
  });

  it('formats warnings and the Strict error as kube-apiserver does', () => {
    expect(formatUnknownFieldWarning('spec.foo')).toBe('unknown field "spec.foo"');
    expect(formatDuplicateFieldWarning('metadata.name')).toBe('duplicate field "metadata.name"');
    expect(formatUnknownFieldWarning('a"b\n')).toBe('unknown field "a\\"b\\n"');
    expect(formatStrictDecodingError([formatUnknownFieldWarning('spec.foo'), formatDuplicateFieldWarning('x')])).toBe(
      'strict decoding error: unknown field "spec.foo", duplicate field "x"',
    );
  });
});

describe('applyDefaults', () => {
  it('fills absent properties, recursing into items', () => {
    const obj = applyDefaults({ spec: { cronSpec: '*', ports: [{ name: 'a' }, { name: 'b', port: 8080 }] } }, crontabSchema);
    expect(obj.spec).toEqual({ cronSpec: '*', replicas: 1, policy: 'Allow', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 8080 }] });
  });

  it('replaces non-nullable nulls that have defaults and drops those that do not', () => {
    const obj = applyDefaults({ spec: { cronSpec: '*', replicas: null, image: null, note: null } }, crontabSchema);
    expect(obj.spec).toEqual({ cronSpec: '*', replicas: 1, policy: 'Allow', note: null });
  });

  it('defaults additionalProperties values and array items, deep-copying defaults', () => {
    const s: Schema = {
      type: 'object',
      properties: {
        m: { type: 'object', additionalProperties: { type: 'object', properties: { x: { type: 'integer', default: 5 } } } },
        l: { type: 'array', items: { type: 'object', default: { k: [] }, properties: { k: { type: 'array', items: { type: 'string' } } } } },
        o: { type: 'object', default: { a: [1] } },
      },
    };
    const obj = applyDefaults({ m: { one: {}, two: { x: 1 } }, l: [null, { k: ['a'] }] } as Record<string, unknown>, s);
    expect(obj).toEqual({ m: { one: { x: 5 }, two: { x: 1 } }, l: [{ k: [] }, { k: ['a'] }], o: { a: [1] } });
    (obj['o'] as { a: number[] }).a.push(2);
    expect(s.properties!['o']!.default).toEqual({ a: [1] });
  });
});

describe('walk helpers', () => {
  const ports = crontabSchema.properties!['spec']!.properties!['ports']!;
  it('navigates properties, additionalProperties and items', () => {
    expect(childSchema(configMapSchema, 'data')?.type).toBe('object');
    expect(childSchema(childSchema(configMapSchema, 'data'), 'anything')).toEqual({ type: 'string' });
    expect(childSchema(configMapSchema, 'nope')).toBeUndefined();
    expect(childSchema(configMapSchema, 'constructor')).toBeUndefined();
    expect(itemSchema(ports)?.required).toEqual(['name']);
  });
  it('reads list and map markers, falling back to the patch merge key', () => {
    expect(listType(ports)).toBe('map');
    expect(listMapKeys(ports)).toEqual(['name']);
    const smp: Schema = { type: 'array', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' };
    expect(listType(smp)).toBe('map');
    expect(listMapKeys(smp)).toEqual(['name']);
    expect(patchMergeKey(smp)).toBe('name');
    expect(listType({ type: 'array' })).toBe('atomic');
    expect(mapType({ type: 'object', 'x-kubernetes-map-type': 'atomic' })).toBe('atomic');
    expect(mapType({ type: 'object' })).toBe('granular');
    expect(isIntOrString({ 'x-kubernetes-int-or-string': true })).toBe(true);
    expect(preservesUnknown(crontabSchema.properties!['spec']!.properties!['extra'])).toBe(true);
    expect(preservesUnknown(ports)).toBe(false);
  });
});
