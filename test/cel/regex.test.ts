import { describe, expect, it } from 'vitest';
import { compile, evaluate, isCompileError, type CelEnvironment, type EvalResult } from '../../src/cel/index.ts';
import { compileRegex } from '../../src/cel/regex.ts';

const env: CelEnvironment = { variables: { s: { type: 'dyn' }, re: { type: 'dyn' }, n: { type: 'dyn' } } };

function run(expr: string, vars: Record<string, unknown> = {}): EvalResult {
  const c = compile(expr, env);
  if (isCompileError(c)) throw new Error(c.message);
  return evaluate(c, vars);
}

function value(expr: string, vars: Record<string, unknown> = {}): unknown {
  const r = run(expr, vars);
  if (r.kind === 'error') throw new Error(r.message);
  return r.value;
}

function compileMessage(expr: string): string {
  const c = compile(expr, env);
  return isCompileError(c) ? c.message : 'compiled';
}

describe('regex functions evaluate with RE2 (linear time)', () => {
  const catastrophic = '^(a+)+$';
  const input = `${'a'.repeat(10_000)}!`;

  it('answers a catastrophic-backtracking pattern on a 10,000-character input', () => {
    expect(value(`s.matches('${catastrophic}')`, { s: input })).toBe(false);
    expect(value(`matches(s, '${catastrophic}')`, { s: input })).toBe(false);
    expect(value('s.matches(re)', { s: input, re: catastrophic })).toBe(false);
    expect(value('matches(s, re)', { s: input, re: catastrophic })).toBe(false);
    expect(value(`s.find('${catastrophic}')`, { s: input })).toBe('');
    expect(value('s.findAll(re)', { s: input, re: '(a+)+!' })).toEqual([input]);
    expect(value(`s.matches('${catastrophic}')`, { s: 'a'.repeat(10_000) })).toBe(true);
  });

  it("keeps cel-go's regex cost formula: (1 + input length) * 0.1 times pattern length * 0.25, rounded up", () => {
    const expected = Math.ceil(10_002 * 0.1) * Math.ceil(catastrophic.length * 0.25);
    expect(run(`s.matches('${catastrophic}')`, { s: input })).toMatchObject({ kind: 'value', cost: 1 + expected });
    expect(run('s.matches(re)', { s: input, re: catastrophic })).toMatchObject({ kind: 'value', cost: 2 + expected });
    expect(run("'abc'.find('b')")).toEqual({ kind: 'value', value: 'b', cost: 1 });
  });
});

describe('RE2 syntax errors', () => {
  it('rejects a literal lookahead or backreference in matches at compile time, at the pattern', () => {
    const c = compile("s.matches('x(?=y)')", env);
    expect(isCompileError(c)).toBe(true);
    expect(isCompileError(c) ? [c.message.split('\n')[0], c.line, c.column] : []).toEqual(['invalid matches argument', 1, 11]);
    // The global form: cel-go's validator reads the first argument as the pattern, so the real one
    // fails only when folded (kube-apiserver: `matches('abc', '[')`).
    expect(compileMessage(String.raw`matches(s, '(a)\\1')`).split('\n')[0]).toBe('program instantiation failed: error parsing regexp: invalid escape sequence: `\\1`');
    expect(compileMessage("'ab'.matches('(?<=a)b')").split('\n')[0]).toBe('invalid matches argument');
  });

  it('rejects a literal invalid pattern in find and findAll as kube-apiserver program instantiation does', () => {
    expect(compileMessage("s.find('(?=a)')").split('\n')[0]).toBe('program instantiation failed: error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    expect(compileMessage(String.raw`s.findAll('(a)\\1', 2)`).split('\n')[0]).toBe('program instantiation failed: error parsing regexp: invalid escape sequence: `\\1`');
  });

  it('reports a dynamic invalid pattern as a runtime error with Go regexp texts', () => {
    expect(run('s.matches(re)', { s: 'xy', re: 'x(?=y)' })).toMatchObject({ kind: 'error', reason: 'EvaluationError', message: 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`' });
    expect(run('matches(s, re)', { s: 'aa', re: String.raw`(a)\1` })).toMatchObject({ kind: 'error', message: 'error parsing regexp: invalid escape sequence: `\\1`' });
    expect(run('s.find(re)', { s: 'a', re: '[a' })).toMatchObject({ kind: 'error', message: 'Illegal regex: error parsing regexp: missing closing ]: `[a`' });
    expect(run('s.findAll(re, 1)', { s: 'a', re: 'a{1001}' })).toMatchObject({ kind: 'error', message: 'Illegal regex: error parsing regexp: invalid repeat count: `{1001}`' });
  });

  it('rejects escapes JavaScript accepts but RE2 does not, and accepts RE2 syntax JavaScript lacks', () => {
    expect(compileMessage(String.raw`s.matches('a\\Z')`).split('\n')[0]).toBe('invalid matches argument');
    expect(value(String.raw`'a.b'.matches('^\\Qa.b\\E$') && !'axb'.matches('^\\Qa.b\\E$')`)).toBe(true);
    expect(value("'xy'.find('(?P<first>x)y')")).toBe('xy');
  });

  it('still refuses operands that are not strings', () => {
    expect(run("s.matches('a')", { s: 5n })).toMatchObject({ kind: 'error', message: 'no such overload' });
    expect(isCompileError(compile("1.matches('a')", env))).toBe(true);
  });
});

describe('RE2 semantics', () => {
  const cases: ReadonlyArray<readonly [string, unknown]> = [
    ["'hubba'.matches('ubb')", true],
    ["'hubba'.matches('^ubb')", false],
    ["matches('hubba', 'b+a$')", true],
    ["'ABC'.matches('(?i)^abc$')", true],
    ["'ABC'.matches('^abc$')", false],
    [String.raw`'Ünïcode'.matches('^\\pL+$')`, true],
    [String.raw`'Ünï'.find('\\pL+')`, 'Ünï'],
    [String.raw`'日本語'.matches('^\\p{Han}+$')`, true],
    ["'ab12cd'.findAll('[[:alpha:]]+')", ['ab', 'cd']],
    ["'ab12cd'.find('[[:digit:]]+')", '12'],
    ["'a\\nb'.matches('^b$')", false],
    ["'a\\nb'.matches('(?m)^b$')", true],
    ["'a\\nb'.matches('^a.b$')", false],
    ["'a\\nb'.matches('(?s)^a.b$')", true],
    ["'aaa'.find('(?U)a+')", 'a'],
    ["'aaa'.find('a+?')", 'a'],
    ["'😀x'.find('.')", '😀'],
    ["'abc'.find('z')", ''],
    ["'abc'.find('')", ''],
    ["'a1b22c333'.findAll('[0-9]+')", ['1', '22', '333']],
    ["'a1b22c333'.findAll('[0-9]+', 2)", ['1', '22']],
    ["'a1b22c333'.findAll('[0-9]+', -1)", ['1', '22', '333']],
    ["'a1b22c333'.findAll('[0-9]+', 0)", []],
    ["'abc'.findAll('z')", []],
    // Go's FindAllString drops an empty match right after a previous match.
    ["'axxb'.findAll('x*')", ['', 'xx', '']],
  ];
  for (const [expr, want] of cases) {
    it(`${expr} => ${JSON.stringify(want)}`, () => {
      expect(value(expr)).toEqual(want);
    });
  }

  it('gives the same answers for dynamic patterns as for literal ones', () => {
    expect(value('s.matches(re)', { s: 'ABC', re: '(?i)b' })).toBe(true);
    expect(value('s.find(re)', { s: 'ab12cd', re: '[[:digit:]]+' })).toBe('12');
    expect(value('s.findAll(re, n)', { s: 'a1b22c333', re: '[0-9]+', n: 2n })).toEqual(['1', '22']);
  });

  it('compiles each distinct pattern once', () => {
    const first = compileRegex('^web-[0-9]+$');
    expect(compileRegex('^web-[0-9]+$')).toBe(first);
    expect(first.kind).toBe('regex');
    expect(compileRegex('(?=x)')).toEqual({ kind: 'invalid', message: 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`' });
  });
});
