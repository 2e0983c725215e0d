import { describe, expect, it } from 'vitest';
import { compile, evaluate, isCompileError, toCelValue, celTypeFromSchema, estimateCost, type CelEnvironment } from '../../src/cel/index.ts';
import type { Schema } from '../../src/schema/types.ts';

const schema: Schema = {
  type: 'object',
  properties: {
    finalizers: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    other: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    ordered: { type: 'array', items: { type: 'string' } },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name', 'protocol'],
      items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string' }, port: { type: 'integer' } } },
    },
    timeout: { type: 'string', format: 'duration' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
  },
};
const self = toCelValue(
  {
    finalizers: ['a', 'b'],
    other: ['b', 'a'],
    ordered: ['b', 'a'],
    ports: [{ name: 'http', protocol: 'TCP', port: 80 }, { name: 'dns', protocol: 'UDP', port: 53 }],
    timeout: '1m30s',
    labels: { 'app.kubernetes.io/name': 'web' },
  },
  celTypeFromSchema(schema),
);
// The stored-expressions environment: two-variable comprehensions are in kube 1.32 only for stored expressions.
const env: CelEnvironment = { expressions: 'stored', variables: { self: { type: 'dyn' } } };

function run(expr: string): unknown {
  const c = compile(expr, env);
  if (isCompileError(c)) throw new Error(c.message);
  const r = evaluate(c, { self });
  if (r.kind === 'error') throw new Error(r.message);
  return r.value;
}

describe('list-type set and map semantics', () => {
  it('compares set lists ignoring order, atomic lists by position (the left operand decides)', () => {
    expect(run('self.finalizers == self.other')).toBe(true);
    expect(run("self.finalizers == ['b', 'a']")).toBe(true);
    expect(run("self.finalizers == ['a', 'c']")).toBe(false);
    expect(run('self.ordered == self.finalizers')).toBe(false);
    expect(run('self.finalizers == self.ordered')).toBe(true);
    expect(run("self.ordered == ['a', 'b']")).toBe(false);
  });

  it('concatenates a set list as a union keeping the left order', () => {
    expect(run("self.finalizers + ['c', 'a', 'd']")).toEqual(['a', 'b', 'c', 'd']);
    expect(run("self.ordered + ['a']")).toEqual(['b', 'a', 'a']);
  });

  it('merges a map list by its keys: matching keys replace in place, new keys append', () => {
    // kube requires homogeneous map literals: mixed string and int values go through dyn().
    const merged = run("self.ports + [{'name': dyn('http'), 'protocol': dyn('TCP'), 'port': dyn(8080)}, {'name': dyn('http'), 'protocol': dyn('UDP'), 'port': dyn(1)}]") as Array<Record<string, unknown>>;
    expect(merged.map((p) => [p.name, p.protocol, p.port])).toEqual([['http', 'TCP', 8080n], ['dns', 'UDP', 53n], ['http', 'UDP', 1n]]);
    expect(run("self.ports == [{'name': dyn('dns'), 'protocol': dyn('UDP'), 'port': dyn(53)}, {'name': dyn('http'), 'protocol': dyn('TCP'), 'port': dyn(80)}]")).toBe(true);
    expect(run("self.ports == [{'name': dyn('dns'), 'protocol': dyn('UDP'), 'port': dyn(54)}, {'name': dyn('http'), 'protocol': dyn('TCP'), 'port': dyn(80)}]")).toBe(false);
  });
});

describe('extension functions and syntax', () => {
  it('maps format: duration strings to duration values', () => {
    expect(run("self.timeout == duration('90s')")).toBe(true);
    expect(run("self.timeout < duration('2m')")).toBe(true);
    expect(run('string(self.timeout)')).toBe('90s');
  });

  it('has no cel.bind: kube 1.32 does not include the bindings extension', () => {
    const c = compile('cel.bind(n, self.finalizers.size(), n * n + n)', env);
    expect(isCompileError(c) ? c.message.split('\n')[0] : c.kind).toBe("undeclared reference to 'cel' (in container '')");
  });

  it('quotes and formats strings as the cel-go strings extension does', () => {
    expect(run('strings.quote("a\\n\\"b\\"")')).toBe('"a\\n\\"b\\""');
    expect(run("'%s has %d ports, %.2f%% used, %x'.format([self.finalizers, self.ports.size(), 12.345, 255])")).toBe('["a", "b"] has 2 ports, 12.35% used, ff');
    // Constant arguments are checked when the expression is compiled, as kube does; others when evaluated.
    const constant = compile("'%d'.format(['x'])", env);
    expect(isCompileError(constant) && constant.message).toContain('decimal clause can only be used on integers, was given string');
    const c = compile("'%d'.format([self.ordered[0]])", env);
    expect(isCompileError(c)).toBe(false);
    const r = evaluate(c as Exclude<typeof c, { kind: 'compileError' }>, { self });
    expect(r.kind === 'error' && r.message).toContain('decimal clause can only be used on integers, was given string');
  });

  it('evaluates two-variable comprehensions over lists and maps', () => {
    expect(run('self.ordered.all(i, v, i < 2 && v != "")')).toBe(true);
    expect(run("self.labels.exists(k, v, k.startsWith('app.') && v == 'web')")).toBe(true);
    expect(run('self.ordered.transformList(i, v, i > 0, v + string(i))')).toEqual(['a1']);
    expect(run('self.ordered.transformMap(i, v, v.upperAscii())')).toEqual(new Map([[0n, 'B'], [1n, 'A']]));
  });

  it('accepts optional list elements, optional map entries and has() on any map; rejects backquoted fields as kube 1.32 does', () => {
    expect(run("[?self.labels.?missing, ?self.labels[?'app.kubernetes.io/name']]")).toEqual(['web']);
    expect(run("{?'a': self.labels.?missing, 'b': 1}")).toEqual({ b: 1n });
    expect(run("has({'x': 1}.y)")).toBe(false);
    expect(isCompileError(compile('has(self.labels.`app.kubernetes.io/name`)', env))).toBe(true);
  });

  it('reports int64 overflow as an evaluation error; a repeated map key keeps its last value, as in kube 1.32', () => {
    const overflow = compile('9223372036854775807 + 1', env);
    expect(isCompileError(overflow)).toBe(false);
    expect(evaluate(overflow as Exclude<typeof overflow, { kind: 'compileError' }>, { self }).kind).toBe('error');
    expect(run("{'a': 1, 'a': 2}.a")).toBe(2n);
  });
});

describe('cost estimate of the added syntax', () => {
  const listOf = (maxItems: number) => celTypeFromSchema({ type: 'object', properties: { l: { type: 'array', maxItems, items: { type: 'string', maxLength: 10 } } } });
  const estimate = (expr: string, maxItems: number): number => {
    const e = estimateCost(expr, { self: listOf(maxItems) }, { expressions: 'stored' });
    if (e.kind !== 'estimate') throw new Error(e.message);
    return e.max;
  };

  it('charges two-variable comprehensions per element, like the one-variable macros', () => {
    for (const expr of ['self.l.all(i, x, x.size() > i)', 'self.l.existsOne(i, x, x == "a")']) {
      expect(estimate(expr, 100)).toBeGreaterThan(9 * estimate(expr, 10));
    }
    // kube-apiserver v1.32.4's figures: cel-go tracks only the first variable's size, so the
    // unbounded second variable saturates transformList's estimate.
    expect(estimate('self.l.all(i, x, x.size() > i)', 10)).toBe(73);
    expect(estimate('self.l.existsOne(i, x, x == "a")', 100)).toBe(404);
    expect(estimate('self.l.transformList(i, x, x + "a")', 10)).toBe(18446744073709551615);
  });

  it('estimates expressions that use optional literal syntax instead of rejecting them', () => {
    expect(estimate('[?self.?l].size() > 0', 10)).toBeGreaterThan(0);
  });
});
