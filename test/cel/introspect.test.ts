import { describe, it, expect } from 'vitest';
import { compile, isCompileError, outputType, fieldPaths, type CompiledExpression, type CelEnvironment } from '../../src/cel/index.ts';

const env: CelEnvironment = { variables: { object: { type: 'dyn' }, n: { type: { kind: 'int' } } } };

function mustCompile(expr: string): CompiledExpression {
  const c = compile(expr, env);
  if (isCompileError(c)) throw new Error(c.message);
  return c;
}

describe('what src/cel tells about a compiled expression', () => {
  it("names the output type as cel-go does", () => {
    const cases: Array<[string, string]> = [
      ['n > 1', 'bool'], ["'a'", 'string'], ['null', 'null_type'], ['object.spec', 'dyn'], ['[1, 2]', 'list(int)'], ["{'a': [n]}", 'map(string, list(int))'],
      ['optional.of(n)', 'optional_type(int)'], ["duration('1s')", 'google.protobuf.Duration'], ['[object]', 'list(dyn)'], ['type(n)', 'type'],
    ];
    for (const [expr, name] of cases) expect(outputType(mustCompile(expr)), expr).toBe(name);
  });

  it('lists the selection chains from variables with the offsets cel-go reports', () => {
    const expr = "object.spec.?items[n].name.orValue('') == 'x' && object.spec.items.all(i, has(i.x))";
    expect(fieldPaths(mustCompile(expr))).toEqual([
      { variable: 'object', steps: [{ kind: 'field', name: 'spec', optional: false, offset: 6 }, { kind: 'field', name: 'items', optional: true, offset: 11 }, { kind: 'index' }, { kind: 'field', name: 'name', optional: false, offset: 21 }] },
      { variable: 'object', steps: [{ kind: 'field', name: 'spec', optional: false, offset: 55 }, { kind: 'field', name: 'items', optional: false, offset: 60 }] },
      { variable: 'i', steps: [{ kind: 'field', name: 'x', optional: false, offset: 79 }] },
    ]);
  });
});
