/**
 * Reads of stored custom resources are defaulted; `defaultsWouldChange` lets a read skip the copy
 * when defaulting would change nothing. It must agree with `applyDefaults` on every shape.
 */
import { describe, expect, it } from 'vitest';
import { applyDefaults, defaultsWouldChange } from '../../src/schema/defaults.ts';
import type { Schema } from '../../src/schema/types.ts';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        name: { type: 'string' },
        note: { type: 'string', nullable: true },
        ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } } },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string', default: 'x' } } } },
        levels: { type: 'array', items: { type: 'string', default: 'info' } },
      },
    },
  },
} as unknown as Schema;

const cases: [string, unknown][] = [
  ['everything set', { spec: { replicas: 2, name: 'a', ports: [{ port: 1, protocol: 'UDP' }], labels: { a: { v: 'y' } }, levels: ['debug'] } }],
  ['a top-level default missing', { spec: { name: 'a' } }],
  ['a default missing in a list item', { spec: { replicas: 1, ports: [{ port: 1 }] } }],
  ['a default missing under additionalProperties', { spec: { replicas: 1, labels: { a: {} } } }],
  ['a null list item with a default', { spec: { replicas: 1, levels: [null] } }],
  ['a null that is dropped', { spec: { replicas: 1, name: null } }],
  ['a null a nullable field keeps', { spec: { replicas: 1, note: null } }],
  ['a null replaced by its default', { spec: { replicas: null } }],
  ['unknown fields only', { spec: { replicas: 3, other: { deep: null } }, extra: 1 }],
  ['no spec', { metadata: { name: 'x' } }],
];

describe('defaultsWouldChange', () => {
  for (const [name, obj] of cases) {
    it(name, () => {
      const changed = JSON.stringify(applyDefaults(structuredClone(obj), schema)) !== JSON.stringify(obj);
      expect(defaultsWouldChange(obj, schema)).toBe(changed);
    });
  }
  it('the cases cover both answers', () => {
    const answers = new Set(cases.map(([, o]) => defaultsWouldChange(o, schema)));
    expect(answers).toEqual(new Set([true, false]));
  });
});
