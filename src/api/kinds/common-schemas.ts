/** Small schema builders and the shared reference and selector types of core/v1 and meta/v1. */
import { goTimeLayout, type Schema } from '../../schema/types.ts';

export const s = {
  string: (description: string, extra: Partial<Schema> = {}): Schema => ({ type: 'string', description, ...extra }),
  /** metav1.Time: RFC 3339, re-encoded to the second in UTC. */
  dateTime: (description: string): Schema => ({ type: 'string', format: 'date-time', description, [goTimeLayout]: 'Time' }),
  /** metav1.MicroTime: RFC 3339 with exactly six fractional digits, re-encoded in UTC. */
  microTime: (description: string): Schema => ({ type: 'string', format: 'date-time', description, [goTimeLayout]: 'MicroTime' }),
  int32: (description: string): Schema => ({ type: 'integer', format: 'int32', description }),
  int64: (description: string): Schema => ({ type: 'integer', format: 'int64', description }),
  boolean: (description: string): Schema => ({ type: 'boolean', description }),
  stringMap: (description: string): Schema => ({ type: 'object', description, additionalProperties: { type: 'string', default: '' } }),
  bytesMap: (description: string): Schema => ({ type: 'object', description, additionalProperties: { type: 'string', format: 'byte' } }),
  atomicStrings: (description: string): Schema => ({
    type: 'array',
    description,
    items: { type: 'string', default: '' },
    'x-kubernetes-list-type': 'atomic',
  }),
  object: (description: string, properties: Readonly<Record<string, Schema>>, extra: Partial<Schema> = {}): Schema => ({
    type: 'object',
    description,
    properties,
    ...extra,
  }),
};

/** core/v1 ObjectReference: an atomic struct. */
export const objectReferenceSchema: Schema = s.object(
  'A reference to an object, with enough information to inspect or modify it.',
  {
    kind: s.string('Kind of the referent.'),
    namespace: s.string('Namespace of the referent.'),
    name: s.string('Name of the referent.'),
    uid: s.string('UID of the referent.'),
    apiVersion: s.string('API version of the referent.'),
    resourceVersion: s.string('Specific resourceVersion this reference is made to, if any.'),
    fieldPath: s.string('A piece of the object instead of the whole, such as `spec.containers{name}`.'),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

/** core/v1 LocalObjectReference: a name in the same namespace, atomic. */
export const localObjectReferenceSchema: Schema = s.object(
  'A reference to an object in the same namespace, by name.',
  { name: s.string('Name of the referent.', { default: '' }) },
  { 'x-kubernetes-map-type': 'atomic' },
);

/** meta/v1 LabelSelector: an atomic struct of matchLabels and matchExpressions. */
export const labelSelectorSchema: Schema = s.object(
  'A label query over a set of resources; the requirements are ANDed, and an empty selector matches all.',
  {
    matchLabels: s.stringMap('Label key/value pairs, each equivalent to an In requirement with one value.'),
    matchExpressions: {
      type: 'array',
      description: 'Label selector requirements.',
      'x-kubernetes-list-type': 'atomic',
      items: s.object(
        'A key, an operator, and values.',
        {
          key: s.string('The label key the selector applies to.', { default: '' }),
          operator: s.string('In, NotIn, Exists or DoesNotExist.', { default: '' }),
          values: s.atomicStrings('Values for In and NotIn; empty for Exists and DoesNotExist.'),
        },
        { required: ['key', 'operator'] },
      ),
    },
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

/** A string field of an object, or '' when absent or not a string. */
export function strField(obj: unknown, ...path: string[]): string {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[p];
  }
  return typeof cur === 'string' ? cur : '';
}

/** A plain-object field, or undefined. */
export function objField(obj: unknown, key: string): Record<string, unknown> | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const v = (obj as Record<string, unknown>)[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** An array field, or []. */
export function arrField(obj: unknown, key: string): unknown[] {
  if (obj === null || typeof obj !== 'object') return [];
  const v = (obj as Record<string, unknown>)[key];
  return Array.isArray(v) ? v : [];
}
