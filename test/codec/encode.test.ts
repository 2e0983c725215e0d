import { describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { encodeYaml } from '../../src/codec/yaml-encode.ts';
import { encodeJson } from '../../src/codec/json-encode.ts';
import { acceptsGzip, GZIP_THRESHOLD_BYTES, maybeGzip } from '../../src/codec/compress.ts';

describe('encodeYaml (sigs.k8s.io/yaml shape)', () => {
  it('sorts keys, indents maps by two, keeps sequences at the key column, quotes only when needed', () => {
    const out = encodeYaml({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'p', creationTimestamp: '2024-01-01T00:00:00Z', labels: { a10: 'x', a2: 'yes', n: '1' } },
      spec: { containers: [{ name: 'c', args: ['-c', 'echo hi'], ports: [{ containerPort: 80 }] }], nodeSelector: {}, tolerations: [] },
    });
    expect(out).toBe(
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  creationTimestamp: "2024-01-01T00:00:00Z"',
        '  labels:',
        '    a2: "yes"',
        '    a10: x',
        '    "n": "1"',
        '  name: p',
        'spec:',
        '  containers:',
        '  - args:',
        '    - -c',
        '    - echo hi',
        '    name: c',
        '    ports:',
        '    - containerPort: 80',
        '  nodeSelector: {}',
        '  tolerations: []',
        '',
      ].join('\n'),
    );
  });

  it('uses single quotes for indicator characters, double quotes for escapes, literal blocks for newlines', () => {
    const out = encodeYaml({ a: '*', b: 'x: y', c: '', d: 'tab\there', e: 'l1\nl2\n', f: 'l1\nl2', g: null, h: 1.5, i: 1e21, j: ' lead' });
    expect(out).toBe(
      ["a: '*'", "b: 'x: y'", 'c: ""', 'd: "tab\\there"', 'e: |', '  l1', '  l2', 'f: |-', '  l1', '  l2', 'g: null', 'h: 1.5', 'i: 1e+21', "j: ' lead'", ''].join('\n'),
    );
  });

  it('folds long plain strings after column 80 at the scalar indentation', () => {
    const out = encodeYaml({ metadata: { annotations: { note: Array(30).fill('word').join(' ') } } });
    const lines = out.split('\n');
    expect(lines[2]!.startsWith('    note: word')).toBe(true);
    expect(lines[2]!.length).toBeGreaterThan(80);
    expect(lines[3]!.startsWith('      word')).toBe(true);
    expect(lines.slice(2, 4).join(' ').replace(/\s+/g, ' ').trim()).toBe(`note: ${Array(30).fill('word').join(' ')}`);
  });

  it('nests sequences of sequences on one line', () => {
    expect(encodeYaml({ m: [[1, 2], [3]] })).toBe('m:\n- - 1\n  - 2\n- - 3\n');
  });
});

describe('encodeJson', () => {
  it('escapes like Go and ends compact output with a newline', () => {
    expect(encodeJson({ a: '<b>&' })).toBe('{"a":"\\u003cb\\u003e\\u0026"}\n');
    expect(encodeJson({ a: [1] }, true)).toBe('{\n  "a": [\n    1\n  ]\n}');
  });
});

describe('gzip', () => {
  it('compresses only above 128 KiB and only when gzip is an accepted token', () => {
    const big = 'x'.repeat(GZIP_THRESHOLD_BYTES + 1);
    const atLimit = 'x'.repeat(GZIP_THRESHOLD_BYTES);
    const z = maybeGzip(big, 'deflate, gzip');
    expect(z.headers['Content-Encoding']).toBe('gzip');
    expect(z.headers['Vary']).toBe('Accept-Encoding');
    expect(gunzipSync(z.body).toString()).toBe(big);
    expect(maybeGzip(atLimit, 'gzip').headers).toEqual({});
    expect(maybeGzip(big, 'br').headers).toEqual({});
    expect(maybeGzip(big, 'gzip', false).headers).toEqual({});
    expect(acceptsGzip(' gzip ')).toBe(true);
    expect(acceptsGzip('gzip;q=0.5')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
