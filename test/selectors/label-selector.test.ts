import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/status-errors.ts';
import { labelKeyErrors, labelSelectorFromObject, parseLabelSelector } from '../../src/registry/label-selector.ts';

function parseError(s: string): ApiError {
  try {
    parseLabelSelector(s);
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(s)} to be rejected`);
}

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseLabelSelector: valid syntax and canonical form', () => {
  const cases: ReadonlyArray<[string, string]> = [
    ['', ''],
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=,z= ', 'x=,z='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x>1,z<5', 'x>1,z<5'],
    ['x==a', 'x==a'],
    ['  x  in  (  b , a )  ', 'x in (a,b)'],
    ['x in (foo,,baz),y,z notin ()', 'x in (,baz,foo),y,z notin ()'],
    ['x in (foo,bar,baz),y', 'x in (bar,baz,foo),y'],
    ['z,a=1', 'a=1,z'],
    ['example.com/key=v', 'example.com/key=v'],
    ['a in (in)', 'a in (in)'],
    ['in=notin', 'in=notin'],
    ['x notin (a)', 'x notin (a)'],
  ];
  for (const [input, canonical] of cases) {
    it(JSON.stringify(input), () => {
      expect(parseLabelSelector(input).toString()).toBe(canonical);
    });
  }

  it('empty only for the empty selector', () => {
    expect(parseLabelSelector('').empty).toBe(true);
    expect(parseLabelSelector('  ').empty).toBe(true);
    expect(parseLabelSelector('a').empty).toBe(false);
  });

  it('exposes parsed requirements with sorted values', () => {
    expect(parseLabelSelector('b notin (z,y),!a').requirements).toEqual([
      { key: 'a', operator: '!', values: [] },
      { key: 'b', operator: 'notin', values: ['y', 'z'] },
    ]);
  });
});

describe('parseLabelSelector: errors carry kube-apiserver texts as 400 BadRequest', () => {
  const cases: ReadonlyArray<[string, string]> = [
    ['x IN (a)', "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt"],
    ['a:', `unable to parse requirement: <nil>: Invalid value: "a:": ${NAME_PART}`],
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LABEL_VALUE}`],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in a)', "unable to parse requirement: found 'a' expected: '('"],
    ['x notin a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['x,', "found '', expected: identifier after ','"],
    ['x,,y', "found ',', expected: identifier after ','"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a/b/c', `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
    ['x=' + 'a'.repeat(64), `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => {
      const err = parseError(input);
      expect([err.code, err.reason, err.message]).toEqual([400, 'BadRequest', message]);
    });
  }

  it('reports every problem of a key, joined with "; "', () => {
    expect(labelKeyErrors('Bad_/-x-')).toEqual([
      "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      NAME_PART,
    ]);
    expect(labelKeyErrors('/x')).toEqual(['prefix part must be non-empty']);
    expect(labelKeyErrors('p/')).toEqual(['name part must be non-empty', NAME_PART]);
    expect(labelKeyErrors('kubernetes.io/metadata.name')).toEqual([]);
  });
});

describe('LabelSelector.matches', () => {
  const yes: ReadonlyArray<[string, Record<string, string>]> = [
    ['', { x: 'y' }],
    ['x=y', { x: 'y' }],
    ['x=y,z=w', { x: 'y', z: 'w' }],
    ['x!=y,z!=w', { x: 'z', z: 'a' }],
    ['notin=in', { notin: 'in' }],
    ['x', { x: 'z' }],
    ['!x', { y: 'z' }],
    ['x>1', { x: '2' }],
    ['x<1', { x: '0' }],
    ['x in (a,b)', { x: 'b' }],
    ['x notin (a,b)', { y: 'a' }],
    ['x notin (a,b)', { x: 'c' }],
    ['x=', { x: '' }],
    ['x!=y', {}],
  ];
  for (const [sel, labels] of yes) {
    it(`${JSON.stringify(sel)} matches ${JSON.stringify(labels)}`, () => {
      expect(parseLabelSelector(sel).matches(labels)).toBe(true);
    });
  }
  const no: ReadonlyArray<[string, Record<string, string> | undefined]> = [
    ['x=z', { x: 'y' }],
    ['x=y,z=w', { x: 'w', z: 'w' }],
    ['x!=y,z!=w', { x: 'z', z: 'w' }],
    ['x', { y: 'z' }],
    ['!x', { x: '' }],
    ['x>1', { x: '0' }],
    ['x<1', { x: '2' }],
    ['x>1', { x: 'a' }],
    ['x>1', {}],
    ['x in (a,b)', { x: 'c' }],
    ['x in (a,b)', undefined],
    ['x notin (a,b)', { x: 'a' }],
    ['x=', {}],
  ];
  for (const [sel, labels] of no) {
    it(`${JSON.stringify(sel)} does not match ${JSON.stringify(labels)}`, () => {
      expect(parseLabelSelector(sel).matches(labels)).toBe(false);
    });
  }

  it('does not consult inherited properties', () => {
    expect(parseLabelSelector('toString').matches({})).toBe(false);
  });
});

describe('labelSelectorFromObject (metav1.LabelSelector)', () => {
  it('null selects nothing, {} selects everything', () => {
    expect(labelSelectorFromObject(null).matches({ a: 'b' })).toBe(false);
    expect(labelSelectorFromObject(null).empty).toBe(false);
    expect(labelSelectorFromObject({}).matches({ a: 'b' })).toBe(true);
    expect(labelSelectorFromObject({}).empty).toBe(true);
  });

  it('combines matchLabels and matchExpressions', () => {
    const sel = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['fe', 'be'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    expect(sel.toString()).toBe('app=web,env notin (prod),!legacy,owner,tier in (be,fe)');
    expect(sel.matches({ app: 'web', tier: 'fe', owner: 'me' })).toBe(true);
    expect(sel.matches({ app: 'web', tier: 'fe', owner: 'me', env: 'prod' })).toBe(false);
    expect(sel.matches({ app: 'web', tier: 'fe', owner: 'me', legacy: 'y' })).toBe(false);
    expect(sel.matches({ app: 'web', tier: 'fe' })).toBe(false);
  });

  const bad: ReadonlyArray<[Parameters<typeof labelSelectorFromObject>[0], string]> = [
    [{ matchExpressions: [{ key: 'a', operator: 'Foo' }] }, '"Foo" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist'],
    [{ matchLabels: { 'a b': 'c' } }, `key: Invalid value: "a b": ${NAME_PART}`],
  ];
  for (const [sel, message] of bad) {
    it(message, () => {
      expect(() => labelSelectorFromObject(sel)).toThrow(expect.objectContaining({ code: 400, reason: 'BadRequest', message }));
    });
  }
});
