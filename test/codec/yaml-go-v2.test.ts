/**
 * YAML bodies read as kube-apiserver reads them (go-yaml v2 under sigs.k8s.io/yaml), and YAML
 * output that reads back as the same value.
 */
import { describe, expect, it } from 'vitest';
import { decodeYaml } from '../../src/codec/yaml-decode.ts';
import { encodeYaml } from '../../src/codec/yaml-encode.ts';
import { costlyYaml } from '../../src/codec/yaml-decode-async.ts';
import { isApiError } from '../../src/api/status-errors.ts';

const value = (text: string) => decodeYaml(text).value;
function failure(text: string): { code: number; message: string } {
  try {
    decodeYaml(text, { expectedKind: 'ConfigMap' });
  } catch (e) {
    if (isApiError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error(`decoded without error: ${text}`);
}

describe('YAML scalars resolve as in go-yaml v2', () => {
  it.each([
    ['.', '.'],
    ['-.', '-.'],
    ['0_', 0],
    ['1_000', 1000],
    ['1e400', '1e400'],
    ['0o17', 15],
    ['0X1F', 31],
    ['0B1', 1],
    ['017', 15],
    ['08', 8],
    ['.5', 0.5],
    ['+1', 1],
    ['yes', true],
    ['Off', false],
    ['~', null],
    ['1:20', '1:20'],
    ['2001-12-14', '2001-12-14'],
    ['!!int "5"', 5],
    ['!!float 1', 1],
    ['!!str 5', '5'],
    ['!custom 5', '5'],
    ['!!binary aGVsbG8=', 'hello'],
  ])('%s', (text, expected) => {
    expect(value(`a: ${text}\n`)).toEqual({ a: expected });
  });

  it('refuses infinities and NaN, which JSON cannot carry', () => {
    for (const t of ['.inf', '-.Inf', '.nan']) {
      const f = failure(`a: ${t}\n`);
      expect(f.code).toBe(400);
      expect(f.message).toMatch(/json: unsupported value: (\+Inf|-Inf|NaN)/);
    }
  });

  it('prints number and boolean keys as sigs.k8s.io/yaml does', () => {
    expect(value('1.5: a\n1e6: b\ntrue: c\n0x10: d\n.inf: e\n')).toEqual({ '1.5': 'a', '1e+06': 'b', true: 'c', '16': 'd', '.inf': 'e' });
  });

  it('turns !!set and !!omap into the maps and lists go-yaml makes of them', () => {
    expect(value('s: !!set {a, b}\no: !!omap [a: 1, b: 2]\n')).toEqual({ s: { a: null, b: null }, o: [{ a: 1 }, { b: 2 }] });
  });
});

describe('YAML structures only JSON can carry', () => {
  it('applies merge keys as go-yaml v2: merged keys override earlier ones, later keys override merged', () => {
    expect(value('b: &x {p: 1, r: 1}\na:\n  p: 0\n  <<: *x\n  r: 3\n')).toEqual({ b: { p: 1, r: 1 }, a: { p: 1, r: 3 } });
    expect(value('<<: [{a: 1}, {a: 2, b: 2}]\n')).toEqual({ a: 1, b: 2 });
  });

  it('refuses a merge of anything but maps', () => {
    expect(failure('<<: 5\n').message).toContain('yaml: map merge requires map or sequence of maps as the value');
  });

  it('refuses complex keys, merge keys inside them included, with 400 (never an emptied map)', () => {
    for (const t of ['? {<<: {a: 1}}\n: v\n', '? [a, b]\n: v\n', '{[a]: 1}\n']) {
      const f = failure(t);
      expect(f.code).toBe(400);
      expect(f.message).toContain('yaml: invalid map key: ');
    }
  });

  // Wording checked against kube-apiserver v1.32.4.
  it('words failures as kube does for bodies and for apply', () => {
    expect(failure('data:\n  ? [a]\n  : v\n').message).toMatch(/^the object provided is unrecognized \(must be of type ConfigMap\): yaml: invalid map key: \[\]interface \{\}\{"a"\} \(/);
    expect(failure('data:\n  ? {<<: {a: 1}}\n  : v\n').message).toContain('yaml: invalid map key: map[interface {}]interface {}{"a":1}');
    expect(failure('data:\n  ~: v\n').message).toContain('unsupported map key of type: %!s(<nil>), key: <nil>, value: "v"');
    try {
      decodeYaml('a: .inf\n', { applyPatch: true });
      throw new Error('decoded');
    } catch (e) {
      expect((e as Error).message).toBe('error decoding YAML: error converting YAML to JSON: json: unsupported value: +Inf');
    }
  });

  it.each([
    ['metadata:\n\tname: tabs\n', 'yaml: line 2: found character that cannot start any token'],
    ['a: [1\nb: 2\n', "yaml: line 1: did not find expected ',' or ']'"],
    ['a: {b: 1\n', "yaml: line 1: did not find expected ',' or '}'"],
    // Cut off at the end: the problem is the stream end, on a new line after a non-empty last line.
    ['data: [unclosed', "yaml: line 1: did not find expected ',' or ']'"],
    ['a: 1\ndata: {x: 1', "yaml: line 2: did not find expected ',' or '}'"],
    ['a: 1\ndata: [a, b\n\n\n', "yaml: line 4: did not find expected ',' or ']'"],
    ['a: [', 'yaml: line 1: did not find expected node content'],
    ['a: [1,', 'yaml: line 1: did not find expected node content'],
    ['a: b: c\n', 'yaml: mapping values are not allowed in this context'],
    ['a:\n  b: 1\n c: 2\n', 'yaml: line 2: did not find expected key'],
    ["a: 'x\n", 'yaml: line 2: found unexpected end of stream'],
    ['a: "x\\q"\n', 'yaml: found unknown escape character'],
    ['a: *\n', 'yaml: did not find expected alphabetic or numeric character'],
    ['a: !!binary "%%"\n', 'yaml: !!binary value contains invalid base64 data'],
  ])('words the syntax error in %j as go-yaml', (text, message) => {
    expect(failure(text).message).toContain(`(must be of type ConfigMap): ${message} (`);
  });

  it('writes object keys in Go map order, so the first type error is the one kube reports', () => {
    expect(Object.keys(value('metadata: {}\nkind: x\ndata: {}\napiVersion: v1\n') as object)).toEqual(['apiVersion', 'data', 'kind', 'metadata']);
  });

  it('refuses self-referencing anchors and null keys with 400', () => {
    expect(failure('a: &r [*r]\n').message).toContain("yaml: anchor 'r' value contains itself");
    expect(failure('~: 1\n').message).toContain('unsupported map key');
  });

  it('resolves thousands of aliases in one pass (each used to walk the whole document)', () => {
    const text = 'a: &a [1, 2, 3]\n' + Array.from({ length: 2000 }, (_, i) => `b${i}: [*a, *a]`).join('\n') + '\n';
    const v = value(text) as Record<string, unknown>;
    expect(Object.keys(v)).toHaveLength(2001);
    expect(v.b1999).toEqual([[1, 2, 3], [1, 2, 3]]);
    expect(value('a: &x 1\nb: &x 2\nc: *x\n')).toEqual({ a: 1, b: 2, c: 2 });
    expect(failure('a: *nope\n').message).toContain("yaml: unknown anchor 'nope' referenced");
  });

  it('keeps a key named __proto__ as data', () => {
    const v = value('__proto__: {a: 1}\n') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });

  it('sends bodies with aliases or explicit keys to the worker whatever their size', () => {
    expect(costlyYaml(Buffer.from('a: &x 1\nb: *x\n'))).toBe(true);
    expect(costlyYaml(Buffer.from('? a\n: b\n'))).toBe(true);
    expect(costlyYaml(Buffer.from('apiVersion: v1\nkind: ConfigMap\ndata:\n  a: "x*y? z"\n  b: 2*3\n'))).toBe(false);
  });
});

describe('YAML output round-trips', () => {
  it.each(['\u2028', 'a\u2029b', 'x\u0085y', 'a\u2028  b', '\u2028\n'])('%j reads back as itself, nested or not', (s) => {
    for (const v of [s, [s], { k: s }, { k: { n: [s] } }, { [s]: 1 }]) {
      const text = encodeYaml(v);
      expect(decodeYaml(text).value).toEqual(v);
    }
  });

  it('escapes line and paragraph separators in double quotes', () => {
    expect(encodeYaml({ k: 'a\u2028b' })).toBe('k: "a\\Lb"\n');
    expect(encodeYaml({ k: 'a\u2029b' })).toBe('k: "a\\Pb"\n');
  });
});
