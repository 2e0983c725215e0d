import { describe, expect, it } from 'vitest';
import {
  compile, evaluate, isCompileError, toCelValue, celTypeFromSchema, estimateCost, authorizerValue, parseQuantity, type CelEnvironment,
  escapePropertyName, unescapePropertyName, COST_LIMIT_MESSAGE, type Authorizer, type CompiledExpression,
} from '../../src/cel/index.ts';
import type { Schema } from '../../src/schema/types.ts';

const schema: Schema = {
  type: 'object',
  properties: {
    metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 63 } } },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        maxReplicas: { type: 'integer' },
        limit: { type: 'string' },
        endpoint: { type: 'string' },
        'x-dashed': { type: 'string' },
        namespace: { type: 'string' },
        ratio: { type: 'number' },
        tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
};
const selfType = celTypeFromSchema(schema);
const self = toCelValue(
  {
    metadata: { name: 'xenon' },
    spec: { replicas: 3, maxReplicas: 5, limit: '2Gi', endpoint: 'https://example.com:8443/p?q=1&q=2', 'x-dashed': 'd', namespace: 'ns', ratio: 0.5, tags: ['a', 'b'], labels: { app: 'web' } },
  },
  selfType,
);
const env: CelEnvironment = { variables: { self: { type: 'dyn' } } };

function mustCompile(expr: string, e = env): CompiledExpression {
  const c = compile(expr, e);
  if (isCompileError(c)) throw new Error(c.message);
  return c;
}

describe('Kubernetes-style expressions over objects', () => {
  const table: ReadonlyArray<readonly [string, unknown, number]> = [
    ['self.spec.replicas <= self.spec.maxReplicas', true, 7],
    ["self.metadata.name.startsWith('x')", true, 4],
    ["quantity(self.spec.limit).isGreaterThan(quantity('1Gi'))", true, 6],
    ["url(self.spec.endpoint).getScheme() == 'https'", true, 9],
    ["url(self.spec.endpoint).getHostname() + ':' + url(self.spec.endpoint).getPort()", 'example.com:8443', 20],
    ["url(self.spec.endpoint).getQuery()['q']", ['1', '2'], 10],
    ["self.spec.?missing.orValue('none')", 'none', 2],
    ["self.spec.labels[?'app'].orValue('')", 'web', 4],
    ["self.spec.x__dash__dashed == 'd'", true, 4],
    ["self.spec.__namespace__ == 'ns'", true, 4],
    ['self.spec.tags.all(t, t.size() < 5)', true, 16],
    ["self.spec.tags.exists(t, t == 'b')", true, 16],
    ['self.spec.ratio < 1', true, 4],
    ['self.spec.replicas == 3.0', true, 4],
    ['[3, 1, 2].max() == 3 && [1, 2, 3].isSorted() && [1, 2].sum() == 3', true, 10],
    ["'hello'.charAt(1) + 'a-b'.replace('-', '+') + 'x,y'.split(',').join('')", 'ea+bxy', 6],
    ["'abc123'.find('[0-9]+')", '123', 2],
    ["quantity('1.5Gi').add(quantity('512Mi')).compareTo(quantity('2Gi'))", 0n, 5],
    ["isQuantity('10Mi') && !isQuantity('10MB')", true, 3],
    ["quantity('1k').asInteger()", 1000n, 2],
    ["isURL('https://x.io') && !isURL('not a url')", true, 3],
  ];
  for (const [expr, want, cost] of table) {
    it(`${expr} => ${String(want)} (cost ${cost})`, () => {
      const r = evaluate(mustCompile(expr), { self });
      expect(r).toEqual({ kind: 'value', value: want, cost });
    });
  }

  it('reports runtime errors as values, never throws', () => {
    expect(evaluate(mustCompile('self.spec.missing == 1'), { self })).toMatchObject({ kind: 'error', reason: 'EvaluationError', message: expect.stringContaining('missing') });
    expect(evaluate(mustCompile("quantity('bogus')"), { self })).toMatchObject({ kind: 'error', reason: 'EvaluationError' });
    expect(evaluate(mustCompile("quantity('1.5').asInteger()"), { self })).toMatchObject({ kind: 'error', message: 'cannot convert value to integer' });
    expect(evaluate(mustCompile('[].min()'), { self })).toMatchObject({ kind: 'error' });
  });

  it('gives compile errors with a position and a caret', () => {
    const c = compile('self.spec.replicas <= ', env);
    expect(isCompileError(c) && c.line === 1 && typeof c.column === 'number').toBe(true);
    expect(isCompileError(c) ? c.message : '').toContain('^');
    const undeclared = compile('other.x == 1', env);
    expect(isCompileError(undeclared)).toBe(true);
  });

  it('caches compiled programs by expression and environment', () => {
    expect(compile('self.spec.replicas > 0', env)).toBe(compile('self.spec.replicas > 0', env));
    expect(compile('self.spec.replicas > 0', { variables: { self: { type: 'dyn' }, oldSelf: { type: 'dyn' } } })).not.toBe(compile('self.spec.replicas > 0', env));
  });

  it('calls the authorizer through the library chain', () => {
    const seen: unknown[] = [];
    const authz: Authorizer = {
      authorize: (attrs) => {
        seen.push(attrs);
        return attrs.verb === 'get' ? { decision: 'allow', reason: 'rbac' } : { decision: 'deny', reason: 'nope' };
      },
      forServiceAccount: () => authz,
    };
    const aenv = { variables: { authorizer: { type: 'dyn' as const } } };
    const c = mustCompile("authorizer.group('apps').resource('deployments').namespace('ns').name('web').check('get').allowed()", aenv);
    expect(evaluate(c, { authorizer: authorizerValue(authz) })).toEqual({ kind: 'value', value: true, cost: 350_006 });
    expect(seen[0]).toEqual({ verb: 'get', resource: { group: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'web' } });
    const reason = mustCompile("authorizer.path('/healthz').check('post').reason()", aenv);
    expect(evaluate(reason, { authorizer: authorizerValue(authz) })).toMatchObject({ kind: 'value', value: 'nope' });
  });
});

describe('quantities and escaping', () => {
  it('prints the canonical form kube-apiserver prints', () => {
    const cases: Array<[string, string]> = [['1Gi', '1Gi'], ['1024Mi', '1Gi'], ['1.5Gi', '1536Mi'], ['1000m', '1'], ['1.5k', '1500'], ['2000', '2k'], ['0.1', '100m'], ['100Ki', '100Ki'], ['512', '512'], ['1e3', '1e3'], ['0.0000000001', '1n'], ['-0.5', '-500m'], ['0', '0']];
    for (const [input, canonical] of cases) expect(parseQuantity(input)?.toString(), input).toBe(canonical);
    expect(parseQuantity('1.2.3')).toBeUndefined();
  });

  it("reproduces resource.Quantity's two internal forms and its parse errors", () => {
    const run = (expr: string) => evaluate(mustCompile(expr, { variables: {} }), {});
    // Parsed past int64 or with a binary fraction: an inf.Dec, which never converts to an integer.
    expect(run("quantity('1.5Gi').isInteger()")).toMatchObject({ value: false });
    expect(run("quantity('9223372036854775807').isInteger()")).toMatchObject({ value: false });
    // 8Ei is clamped to 2^63-1 when parsed; adding 1 reaches 8Ei again.
    expect(String((run("quantity('8Ei').add(1)") as { value: unknown }).value)).toBe('8Ei');
    // Below nano, parsing rounds up: 1e-10 is 1n.
    expect(run("quantity('0.0000000001').asApproximateFloat()")).toMatchObject({ value: 1e-9 });
    // Cmp converts its receiver to inf.Dec when the other side is one.
    expect(run("[quantity('1')].map(q, [q.isLessThan(quantity('1.5Gi')), q.isInteger()])")).toMatchObject({ value: [[true, false]] });
    expect(run("quantity('1Ki5')")).toMatchObject({ kind: 'error', message: "unable to parse quantity's suffix" });
    expect(run("quantity('.e-10')")).toMatchObject({ kind: 'error', message: 'unable to parse numeric part of quantity' });
    expect(run("quantity('1.2.3')")).toMatchObject({ kind: 'error', message: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" });
  });

  it('escapes property names both ways', () => {
    expect(escapePropertyName('a-b.c/d__e')).toBe('a__dash__b__dot__c__slash__d__underscores__e');
    expect(escapePropertyName('namespace')).toBe('__namespace__');
    expect(unescapePropertyName('a__dash__b__dot__c__slash__d__underscores__e')).toBe('a-b.c/d__e');
    expect(escapePropertyName('has space')).toBeUndefined();
  });
});

describe('cost budget', () => {
  const big = Array.from({ length: 200_000 }, (_, i) => BigInt(i));
  const lenv = { variables: { items: { type: 'dyn' as const } } };

  it('stops a loop over a large list at the budget with kube-apiserver\'s error', () => {
    const c = mustCompile('items.all(x, items.exists(y, y == x + 1) || x == 199999)', lenv);
    const r = evaluate(c, { items: big }, { costBudget: 100_000 });
    expect(r.kind).toBe('error');
    expect(r).toMatchObject({ reason: 'CostLimitExceeded', message: COST_LIMIT_MESSAGE });
    expect(COST_LIMIT_MESSAGE).toBe('operation cancelled: actual cost limit exceeded');
    expect(r.cost).toBeGreaterThan(100_000);
  });

  it('cannot be escaped by an error-absorbing || or &&', () => {
    const c = mustCompile('items.map(x, x * 2).size() > 0 || true', lenv);
    expect(evaluate(c, { items: big }, { costBudget: 1000 })).toMatchObject({ kind: 'error', reason: 'CostLimitExceeded' });
  });

  it('lets the same program run within budget', () => {
    const c = mustCompile('items.all(x, x >= 0)', lenv);
    const r = evaluate(c, { items: big.slice(0, 10) }, { costBudget: 1000 });
    expect(r).toMatchObject({ kind: 'value', value: true });
  });

  it('estimates a schema-bounded worst case, and a much larger one when unbounded', () => {
    const bounded = estimateCost("self.spec.tags.all(t, t.startsWith('a'))", { self: selfType });
    const unbounded = estimateCost("self.spec.labels.all(k, self.spec.labels[k].startsWith('a'))", { self: selfType });
    expect(bounded.kind === 'estimate' && bounded.max < 200).toBe(true);
    expect(unbounded.kind === 'estimate' && unbounded.max > 1_000_000).toBe(true);
  });
});
