import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/status-errors.ts';
import { escapeFieldValue, parseFieldSelector, validateFieldSelector } from '../../src/registry/field-selector.ts';

function rejected(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('parseFieldSelector', () => {
  const cases: ReadonlyArray<{ input: string; want: ReadonlyArray<{ field: string; op: '=' | '!='; value: string }> }> = [
    { input: '', want: [] },
    { input: 'a=b', want: [{ field: 'a', op: '=', value: 'b' }] },
    { input: 'a==b', want: [{ field: 'a', op: '=', value: 'b' }] },
    { input: 'a!=b', want: [{ field: 'a', op: '!=', value: 'b' }] },
    { input: 'a=', want: [{ field: 'a', op: '=', value: '' }] },
    { input: 'z=1,a=2', want: [{ field: 'a', op: '=', value: '2' }, { field: 'z', op: '=', value: '1' }] },
    { input: 'a=b,,c!=d,', want: [{ field: 'a', op: '=', value: 'b' }, { field: 'c', op: '!=', value: 'd' }] },
    { input: 'a=b\\,c', want: [{ field: 'a', op: '=', value: 'b,c' }] },
    { input: 'a=b\\=c', want: [{ field: 'a', op: '=', value: 'b=c' }] },
    { input: 'a=b\\\\c', want: [{ field: 'a', op: '=', value: 'b\\c' }] },
    { input: ' spec.nodeName = x', want: [{ field: ' spec.nodeName ', op: '=', value: ' x' }] },
    { input: 'metadata.name!=', want: [{ field: 'metadata.name', op: '!=', value: '' }] },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.input), () => {
      const sel = parseFieldSelector(c.input);
      expect(sel.requirements).toEqual(c.want);
      expect(sel.empty).toBe(c.want.length === 0);
    });
  }

  it('round-trips through the canonical string form', () => {
    const sel = parseFieldSelector('b!=x\\,y,a=p\\=q');
    expect(sel.toString()).toBe('a=p\\=q,b!=x\\,y');
    expect(parseFieldSelector(sel.toString()).requirements).toEqual(sel.requirements);
    expect(escapeFieldValue('a\\b,c=d')).toBe('a\\\\b\\,c\\=d');
  });

  const errors: ReadonlyArray<[string, string]> = [
    ['abc', "invalid selector: 'abc'; can't understand 'abc'"],
    ['a=b,zzz', "invalid selector: 'a=b,zzz'; can't understand 'zzz'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a!==b', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
  ];
  for (const [input, message] of errors) {
    it(`rejects ${JSON.stringify(input)}`, () => {
      const err = rejected(() => parseFieldSelector(input));
      expect([err.code, err.reason, err.message]).toEqual([400, 'BadRequest', message]);
    });
  }
});

describe('FieldSelector.matches', () => {
  const pod: Record<string, string> = { 'metadata.name': 'web-1', 'status.phase': 'Running', 'spec.nodeName': 'n1' };
  const get = (f: string) => pod[f];
  const cases: ReadonlyArray<[string, boolean]> = [
    ['', true],
    ['status.phase=Running', true],
    ['status.phase==Running', true],
    ['status.phase!=Running', false],
    ['status.phase=Running,spec.nodeName=n2', false],
    ['status.phase!=Pending,spec.nodeName=n1', true],
    ['spec.restartPolicy=', true],
    ['spec.restartPolicy!=Always', true],
    ['spec.restartPolicy=Always', false],
  ];
  for (const [sel, want] of cases) {
    it(`${JSON.stringify(sel)} -> ${want}`, () => {
      expect(parseFieldSelector(sel).matches(get)).toBe(want);
    });
  }
});

describe('validateFieldSelector', () => {
  it('accepts supported fields', () => {
    const sel = parseFieldSelector('metadata.name=a,status.phase!=Running');
    expect(validateFieldSelector(sel, ['metadata.name', 'metadata.namespace', 'status.phase'])).toBe(sel);
  });

  it('kinds with their own field list say "field label not supported"', () => {
    const err = rejected(() => validateFieldSelector(parseFieldSelector('spec.foo=bar'), ['metadata.name', 'spec.nodeName']));
    expect([err.code, err.reason, err.message]).toEqual([400, 'BadRequest', 'field label not supported: spec.foo']);
  });

  it('kinds with only metadata fields use the default conversion text (kubectl docs example)', () => {
    const err = rejected(() =>
      validateFieldSelector(parseFieldSelector('foo.bar=baz'), ['metadata.name', 'metadata.namespace'], 'not-a-known-field-selector'),
    );
    expect(err.message).toBe('"foo.bar" is not a known field selector: only "metadata.name", "metadata.namespace"');
    expect(err.code).toBe(400);
  });
});
