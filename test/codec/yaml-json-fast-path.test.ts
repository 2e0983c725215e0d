/**
 * The JSON-shaped YAML shortcut (issue 19) against the YAML parser it stands in for: for every
 * body it takes, both give the same value with the same key order; the bodies where YAML reads
 * JSON differently (or fails) are left to the parser.
 */
import { describe, expect, it } from 'vitest';
import { decodeYaml, decodeYamlByParser } from '../../src/codec/yaml-decode.ts';
import { decodeJsonShapedYaml } from '../../src/codec/yaml-json-fast-path.ts';

const byParser = (text: string) => decodeYamlByParser(text, text);
const ordered = (v: unknown) => JSON.stringify(v);

/** A deterministic generator of JSON values with the shapes manifests have. */
function generator(seed: number) {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const words = ['a', 'b', 'name', 'z', '10', '2', 'yes', 'null', '<<', 'on', '~', 'Kind', '_x', '-', 'a.b', 'true', '1e3', '0x1F', '__proto__', ''];
  const scalars: unknown[] = [0, 1, -1, 7, 1.5, -2.25, 1e21, 2 ** 63, 2 ** 64 + 2048, 123456789012345680000, true, false, null, 'yes', 'no', '', '0x10', '2024-01-01', '1e400', '-0', '.inf', 'a: b', '#c', '*x', '&y', '{}', '[1]', 'with space', '~'];
  const value = (depth: number): unknown => {
    const r = rand();
    if (depth > 3 || r < 0.4) return scalars[Math.floor(rand() * scalars.length)];
    if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    const n = Math.floor(rand() * 6);
    for (let i = 0; i < n; i++) o[words[Math.floor(rand() * words.length)]!] = value(depth + 1);
    return o;
  };
  return () => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < 1 + Math.floor(rand() * 6); i++) o[words[Math.floor(rand() * words.length)]!] = value(1);
    return o;
  };
}

describe('JSON-shaped YAML bodies', () => {
  it('decode as the YAML parser decodes them, keys in the same order', () => {
    const next = generator(19);
    let taken = 0;
    for (let i = 0; i < 400; i++) {
      const obj = next();
      for (const text of [JSON.stringify(obj), `${JSON.stringify(obj, null, 0)}\n`, JSON.stringify(obj).replace(/,/g, ', ').replace(/":/g, '": ')]) {
        const fast = decodeJsonShapedYaml(text, 1000);
        if (fast === undefined) continue;
        taken++;
        expect(ordered(fast), text).toBe(ordered(byParser(text).value));
      }
    }
    // Most generated bodies qualify: the comparison above is not vacuous.
    expect(taken).toBeGreaterThan(900);
  });

  it('an apply body as kubectl sends it', () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { b: '1', a: 'yes' } }, data: { k2: 'v', k1: 'on', n: '3' } });
    const fast = decodeJsonShapedYaml(text, 1000);
    expect(fast).toBeDefined();
    expect(Object.keys(fast!)).toEqual(['apiVersion', 'data', 'kind', 'metadata']);
    expect(ordered(fast)).toBe(ordered(byParser(text).value));
    expect(ordered(decodeYaml(text).value)).toBe(ordered(fast));
  });

  it.each([
    ['a number YAML reads as the integer 0', '{"a":-0}'],
    ['a number beyond float64, a string to YAML', '{"a":1e400}'],
    ['a repeated key (reported by the parser)', '{"a":1,"a":2}'],
    ['an escape', '{"a":"\\u00e9"}'],
    ['non-ASCII text', '{"a":"é"}'],
    ['a line break between tokens', '{"a":1,\n"b":2}'],
    ['a tab', '{"a":\t1}'],
    ['a key longer than go-yaml looks for its colon', `{"${'k'.repeat(1200)}":1}`],
    ['a top-level array', '[1,2]'],
    ['YAML that is not JSON', '{a: 1}'],
    ['a comment', '{"a":1} # c'],
    ['a nesting beyond the limit', `${'{"a":'.repeat(20)}1${'}'.repeat(20)}`],
  ])('leaves %s to the parser', (_what, text) => {
    expect(decodeJsonShapedYaml(text, 10)).toBeUndefined();
  });

  it('the parser still reports what the shortcut leaves to it', () => {
    expect(decodeYaml('{"a":1,"a":2}').strictErrors).toEqual(['line 1: key "a" already set in map']);
    expect(decodeYaml('{"a":-0}').value).toEqual({ a: 0 });
    expect(Object.is((decodeYaml('{"a":-0}').value as { a: number }).a, -0)).toBe(false);
    expect(decodeYaml('{"a":1e400}').value).toEqual({ a: '1e400' });
  });
});
