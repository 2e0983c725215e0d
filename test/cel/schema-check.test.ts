import { describe, expect, it } from 'vitest';
import { compile, evaluate, isCompileError, toCelValue, celTypeFromSchema, type CelEnvironment } from '../../src/cel/index.ts';
import type { Schema } from '../../src/schema/types.ts';

const schema: Schema = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 63 },
    replicas: { type: 'integer' },
    ratio: { type: 'number' },
    namespace: { type: 'string' },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    tags: { type: 'array', items: { type: 'string' } },
    ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
  },
};

function envFor(s: Schema, resourceRoot = false): CelEnvironment {
  const type = celTypeFromSchema(s, { resourceRoot });
  return { variables: { self: { type }, oldSelf: { type } } };
}

function compileMessage(expr: string, env: CelEnvironment): string | undefined {
  const c = compile(expr, env);
  return isCompileError(c) ? c.message.split('\n')[0] : undefined;
}

describe('type checking against a schema', () => {
  const env = envFor(schema);

  it.each([
    ['self.nope', "undefined field 'nope'"],
    ['has(self.nope)', "undefined field 'nope'"],
    ['self.?nope.orValue("")', "undefined field 'nope'"],
    ['self.free.x', "undefined field 'x'"],
    ['self.ports.map(p, p.nope)', "undefined field 'nope'"],
    ['self.name.nope', "type 'string' does not support field selection"],
    ['self.replicas == 3.0', "found no matching overload for '_==_' applied to '(int, double)'"],
    ['self.name + 1', "found no matching overload for '_+_' applied to '(string, int)'"],
    ['self.tags + [1]', "found no matching overload for '_+_' applied to '(list(string), list(int))'"],
    ['self.ports + [{"name": "x"}]', "found no matching overload for '_+_' applied to '(list(selfType0.ports.@idx), list(map(string, string)))'"],
    ['self.tags.sum()', "found no matching overload for 'sum' applied to 'list(string).()'"],
  ])('rejects %s when it is compiled', (expr, message) => {
    expect(compileMessage(expr, env)).toBe(message);
  });

  it.each([
    'self.replicas > 1.5', 'self.labels.nope == "x"', 'self.tags + ["c"] == oldSelf.tags', 'self.ports.all(p, p.port > 0)',
    'self.ports[0] == oldSelf.ports[0]', 'has(self.name)', 'self.embedded.metadata.name == "x"', 'self.embedded.apiVersion != ""',
  ])('accepts %s', (expr) => {
    expect(compileMessage(expr, env)).toBeUndefined();
  });

  it('resolves a CEL word to its escaped field, as kube does', () => {
    const c = compile('self.namespace + "/" + self.__namespace__', env);
    if (isCompileError(c)) throw new Error(c.message);
    const self = toCelValue({ namespace: 'ns' }, celTypeFromSchema(schema));
    expect(evaluate(c, { self })).toMatchObject({ kind: 'value', value: 'ns/ns' });
  });

  it('declares apiVersion, kind and metadata.name at a resource root', () => {
    const root: Schema = { type: 'object', properties: { spec: { type: 'object' }, metadata: { type: 'object' } } };
    expect(compileMessage('self.metadata.name.startsWith("a") && self.kind != ""', envFor(root, true))).toBeUndefined();
    expect(compileMessage('self.metadata.name', envFor(root))).toBe("undefined field 'name'");
  });
});

describe('timestamps at Go precision', () => {
  const env: CelEnvironment = { variables: {} };
  const value = (expr: string): unknown => {
    const c = compile(expr, env);
    if (isCompileError(c)) throw new Error(c.message);
    const r = evaluate(c, {});
    if (r.kind !== 'value') throw new Error(r.message);
    return r.value;
  };

  it('keeps nanoseconds and the written offset', () => {
    expect(value("string(timestamp('2023-01-01T00:00:00.123456789Z'))")).toBe('2023-01-01T00:00:00.123456789Z');
    expect(value("string(timestamp('2023-01-01T10:00:00-07:30'))")).toBe('2023-01-01T10:00:00-07:30');
    expect(value("string(timestamp('2023-01-01T10:00:00+02:00') + duration('1ns'))")).toBe('2023-01-01T10:00:00.000000001+02:00');
  });

  it('compares and subtracts at nanosecond precision', () => {
    expect(value("timestamp('2023-01-01T00:00:00Z') < timestamp('2023-01-01T00:00:00.000000001Z')")).toBe(true);
    expect(value("timestamp('2023-01-01T00:00:00.000000001Z') == timestamp('2023-01-01T00:00:00Z')")).toBe(false);
    expect(value("string(timestamp('2023-01-01T00:00:00.5Z') - timestamp('2023-01-01T00:00:00.000000001Z'))")).toBe('0.499999999s');
  });
});

describe('the program cache', () => {
  it('tells apart schemas whose types the engine names alike: the same rule checks differently against each', () => {
    const ints = envFor({ type: 'object', properties: { x: { type: 'integer' } } });
    const strings = envFor({ type: 'object', properties: { x: { type: 'string' } } });
    const none = envFor({ type: 'object', properties: { y: { type: 'string' } } });
    expect(compileMessage('self.x > 0', ints)).toBeUndefined();
    expect(compileMessage('self.x > 0', strings)).toBe("found no matching overload for '_>_' applied to '(string, int)'");
    expect(compileMessage('self.x > 0', none)).toBe("undefined field 'x'");
    // And back: the first answer was not replaced.
    expect(compileMessage('self.x > 0', ints)).toBeUndefined();
  });
});
