import { describe, expect, it } from 'vitest';
import { aggregateFieldErrors, fieldErrorString } from '../../src/api/field-errors.ts';
import type { Schema } from '../../src/schema/types.ts';
import { validateAgainstSchema } from '../../src/schema/validate.ts';
import { configMapSchema, crontabSchema } from './sample-types.ts';

const strings = (value: unknown, schema: Schema, root?: string, dots = false) =>
  validateAgainstSchema(value, schema, root, dots ? { mapKeyPaths: 'dots' } : {}).map(fieldErrorString);

const crontab = (spec: Record<string, unknown>) => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'a' }, spec });

describe('validateAgainstSchema', () => {
  it('accepts a valid object', () => {
    expect(validateAgainstSchema(crontab({ cronSpec: '* * * * */5', replicas: 3, tags: ['a', 'b'] }), crontabSchema)).toEqual([]);
  });

  it('reports type errors with the kube-openapi wording', () => {
    expect(strings(crontab({ cronSpec: '* * * * *', replicas: 'string' }), crontabSchema)).toEqual([
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
    expect(strings(crontab({ cronSpec: '* * * * *', replicas: 1.5 }), crontabSchema)).toEqual([
      'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    ]);
    expect(strings({ spec: 'x' }, crontabSchema)).toEqual(['spec: Invalid value: "string": spec in body must be of type object: "string"']);
  });

  it('reports null for non-nullable fields and accepts it for nullable ones', () => {
    expect(strings(crontab({ cronSpec: '* * * * *', image: null, note: null }), crontabSchema)).toEqual([
      'spec.image: Invalid value: "null": spec.image in body must be of type string: "null"',
    ]);
  });

  it('reports missing required fields', () => {
    expect(strings(crontab({}), crontabSchema)).toEqual(['spec.cronSpec: Required value']);
    expect(strings(crontab({ cronSpec: '* * * * *', ports: [{ port: 1 }] }), crontabSchema)).toEqual(['spec.ports[0].name: Required value']);
  });

  it('reports enum, pattern, length and range failures', () => {
    const errs = strings(crontab({ cronSpec: 'nope', image: 'abcdefghijkl', replicas: 20, policy: 'Sometimes' }), crontabSchema);
    expect(errs).toContain(`spec.cronSpec: Invalid value: "nope": spec.cronSpec in body should match '${crontabSchema.properties!['spec']!.properties!['cronSpec']!.pattern}'`);
    expect(errs).toContain('spec.image: Too long: may not be more than 10 bytes');
    expect(errs).toContain('spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10');
    expect(errs).toContain('spec.policy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid"');
    expect(errs).toHaveLength(4);
  });

  it('counts string length in characters, not bytes', () => {
    const s: Schema = { type: 'string', maxLength: 3, minLength: 2 };
    expect(validateAgainstSchema('äöü', s)).toEqual([]);
    expect(validateAgainstSchema('😀😀', s)).toEqual([]);
    expect(strings('ä', s, 'f')).toEqual(['f: Invalid value: "ä": f in body should be at least 2 chars long']);
  });

  it('checks minimum, exclusive bounds and multipleOf', () => {
    const s: Schema = { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, multipleOf: 0.25 };
    expect(strings(0, s, 'x')).toEqual(['x: Invalid value: 0: x in body should be greater than 0']);
    expect(strings(0.3, s, 'x')).toEqual(['x: Invalid value: 0.3: x in body should be a multiple of 0.25']);
    expect(validateAgainstSchema(0.75, s)).toEqual([]);
    expect(validateAgainstSchema(3, { type: 'number' })).toEqual([]);
  });

  it('checks int32 and byte formats and string formats', () => {
    expect(strings(crontab({ cronSpec: '* * * * *', replicas: 3_000_000_000 }), crontabSchema)).toContain(
      'spec.replicas: Invalid value: 3000000000: spec.replicas in body must be of type int32',
    );
    expect(strings({ binaryData: { k: 'not base64!' } }, configMapSchema)).toEqual([
      'binaryData[k]: Invalid value: "not base64!": binaryData.k in body must be of type byte: "not base64!"',
    ]);
    expect(validateAgainstSchema({ binaryData: { k: 'aGVsbG8=' } }, configMapSchema)).toEqual([]);
    const dt: Schema = { type: 'string', format: 'date-time' };
    expect(validateAgainstSchema('2024-02-29T10:00:00Z', dt)).toEqual([]);
    expect(strings('2023-02-29T10:00:00Z', dt, 't')).toEqual(['t: Invalid value: "2023-02-29T10:00:00Z": t in body must be of type date-time: "2023-02-29T10:00:00Z"']);
    expect(validateAgainstSchema('2024-01-31', { type: 'string', format: 'date' })).toEqual([]);
    expect(validateAgainstSchema('whatever', { type: 'string', format: 'no-such-format' })).toEqual([]);
    expect(validateAgainstSchema('10.0.0.0/8', { type: 'string', format: 'cidr' })).toEqual([]);
    expect(validateAgainstSchema('10.0.0.0/33', { type: 'string', format: 'cidr' })).toHaveLength(1);
    // Valid date-times are remembered; an invalid one is still refused after, and a valid one again accepted.
    for (let i = 0; i < 3; i++) {
      expect(validateAgainstSchema('2024-02-29T10:00:00Z', dt)).toEqual([]);
      expect(validateAgainstSchema('2024-02-29T24:00:00Z', dt)).toHaveLength(1);
      expect(validateAgainstSchema('2024-02-29T10:00:00Z', { type: 'string', format: 'datetime' })).toEqual([]);
    }
    // A format named like an object's own property is no format the server knows: not validated.
    expect(validateAgainstSchema('anything', { type: 'string', format: 'valueOf' })).toEqual([]);
    expect(validateAgainstSchema('anything', { type: 'string', format: 'hasOwnProperty' })).toEqual([]);
  });

  it('uses data[key] paths for map entries by default and dotted paths on request', () => {
    expect(strings({ data: { a: 1 } }, configMapSchema)).toEqual(['data[a]: Invalid value: "integer": data.a in body must be of type string: "integer"']);
    expect(strings({ data: { a: 1 } }, configMapSchema, '', true)).toEqual(['data.a: Invalid value: "integer": data.a in body must be of type string: "integer"']);
  });

  it('prefixes the root path to fields and messages', () => {
    expect(strings({ a: 1 }, { type: 'object', properties: { a: { type: 'string' } } }, 'spec.template')).toEqual([
      'spec.template.a: Invalid value: "integer": spec.template.a in body must be of type string: "integer"',
    ]);
  });

  it('reports items counts, uniqueItems and property counts', () => {
    const arr: Schema = { type: 'array', minItems: 2, maxItems: 3, uniqueItems: true, items: { type: 'integer' } };
    expect(strings([1], arr, 'l')).toEqual(['l: Invalid value: 1: l in body should have at least 2 items']);
    expect(strings([1, 2, 3, 4], arr, 'l')).toEqual(['l: Too many: 4: must have at most 3 items']);
    expect(strings([1, 1], arr, 'l')).toEqual([`l: Invalid value: "": l in body shouldn't contain duplicates`]);
    const obj: Schema = { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } };
    expect(strings({ a: 'x', b: 'y' }, obj, 'm')).toEqual(['m: Too many: 2: must have at most 1 items']);
  });

  it('reports duplicates in list-type set and map lists at the duplicate index', () => {
    expect(strings(crontab({ cronSpec: '* * * * *', tags: ['a', 'b', 'a'] }), crontabSchema)).toEqual(['spec.tags[2]: Duplicate value: "a"']);
    // A map's key fields print as Go's %#v of the unstructured map (kube-apiserver v1.32.4's message).
    expect(strings(crontab({ cronSpec: '* * * * *', ports: [{ name: 'http' }, { name: 'https' }, { name: 'http', port: 1 }] }), crontabSchema)).toEqual([
      'spec.ports[2]: Duplicate value: map[string]interface {}{"name":"http"}',
    ]);
  });

  it('accepts integers and strings for int-or-string, and nothing else', () => {
    expect(validateAgainstSchema(crontab({ cronSpec: '* * * * *', size: 3 }), crontabSchema)).toEqual([]);
    expect(validateAgainstSchema(crontab({ cronSpec: '* * * * *', size: '50%' }), crontabSchema)).toEqual([]);
    expect(strings(crontab({ cronSpec: '* * * * *', size: true }), crontabSchema)).toEqual([
      'spec.size: Invalid value: "boolean": spec.size in body must be of type integer,string: "boolean"',
    ]);
  });

  it('checks embedded resources for apiVersion and kind', () => {
    expect(strings(crontab({ cronSpec: '* * * * *', template: { spec: {} } }), crontabSchema)).toEqual([
      'spec.template.apiVersion: Required value: must not be empty',
      'spec.template.kind: Required value: must not be empty',
    ]);
    expect(validateAgainstSchema(crontab({ cronSpec: '* * * * *', template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } } }), crontabSchema)).toEqual([]);
  });

  it('validates allOf, anyOf, oneOf and not', () => {
    const s: Schema = { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] };
    expect(validateAgainstSchema('abc', s)).toEqual([]);
    const errs = strings('zzz', s, 'f');
    expect(errs[0]).toBe('f: Invalid value: "": "f" must validate at least one schema (anyOf)');
    expect(errs).toHaveLength(2);
    const one: Schema = { type: 'integer', oneOf: [{ minimum: 0 }, { maximum: 10 }] };
    expect(strings(5, one, 'n')).toEqual(['n: Invalid value: "": "n" must validate one and only one schema (oneOf). Found 2 valid alternatives']);
    expect(validateAgainstSchema(20, one)).toEqual([]);
    const all: Schema = { type: 'integer', allOf: [{ minimum: 0 }, { maximum: 10 }] };
    expect(strings(20, all, 'n')).toEqual([
      'n: Invalid value: 20: n in body should be less than or equal to 10',
      'n: Invalid value: "": "n" must validate all the schemas (allOf)',
    ]);
    expect(strings('x', { type: 'string', not: { enum: ['x'] } }, 'n')).toEqual(['n: Invalid value: "": "n" must not validate the schema (not)']);
  });

  it('leaves preserved unknown fields alone but still checks declared ones inside', () => {
    expect(validateAgainstSchema(crontab({ cronSpec: '* * * * *', extra: { anything: [1, { b: 2 }], known: { a: 'x' } } }), crontabSchema)).toEqual([]);
    expect(strings(crontab({ cronSpec: '* * * * *', extra: { known: { a: 1 } } }), crontabSchema)).toEqual([
      'spec.extra.known.a: Invalid value: "integer": spec.extra.known.a in body must be of type string: "integer"',
    ]);
  });

  it('aggregates like kube-apiserver for the Invalid status message', () => {
    const errs = validateAgainstSchema(crontab({ replicas: 0 }), crontabSchema);
    expect(aggregateFieldErrors(errs)).toBe('[spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1, spec.cronSpec: Required value]');
  });
});
