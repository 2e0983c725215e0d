import { describe, expect, it } from 'vitest';
import { decodeJson } from '../../src/codec/json-decode.ts';
import { decodeYaml } from '../../src/codec/yaml-decode.ts';
import { ApiError } from '../../src/api/status-errors.ts';

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('decodeJson', () => {
  it('reports duplicate keys with kube field paths, at depth and in arrays, last value wins', () => {
    const body = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a","name":"b"},
      "spec":{"paused":true,"paused":false,"template":{"spec":{"containers":[{"name":"n"},{"imagePullPolicy":"Always","imagePullPolicy":"Never"}]}}}}`;
    const r = decodeJson(body);
    expect(r.duplicates).toEqual(['metadata.name', 'spec.paused', 'spec.template.spec.containers[1].imagePullPolicy']);
    expect(r.strictErrors[0]).toBe('duplicate field "metadata.name"');
    expect((r.value as { metadata: { name: string } }).metadata.name).toBe('b');
  });

  it('compares escaped keys by their decoded text and ignores braces inside strings', () => {
    const r = decodeJson('{"a":"{\\"x\\":1}","\\u0061":2,"b":[{"k":1},{"k":2}]}');
    expect(r.duplicates).toEqual(['a']);
  });

  it('reports nothing for a clean body and accepts bytes', () => {
    const r = decodeJson(Buffer.from('{"kind":"ConfigMap","data":{"a":"1"}}'));
    expect(r.duplicates).toEqual([]);
    expect(r.value).toEqual({ kind: 'ConfigMap', data: { a: '1' } });
  });

  it('rejects malformed JSON with 400 and kube/Go wording', () => {
    const e = apiError(() => decodeJson('{"a":}', { expectedKind: 'ConfigMap' }));
    expect(e.code).toBe(400);
    expect(e.reason).toBe('BadRequest');
    expect(e.message).toBe(
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '}' looking for beginning of value ({"a":})`,
    );
    expect(apiError(() => decodeJson('{"a":1')).message).toBe(`couldn't get version/kind; json parse error: unexpected end of JSON input`);
    expect(apiError(() => decodeJson('xyz', { expectedKind: 'Pod' })).message).toContain("invalid character 'x' looking for beginning of value (78797a)");
    expect(apiError(() => decodeJson('[1 2]')).message).toContain("invalid character '2' after array element");
    expect(apiError(() => decodeJson('{"a":1}x')).message).toContain("invalid character 'x' after top-level value");
  });

  it('rejects deep nesting with 400 and does not overflow the stack', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const e = apiError(() => decodeJson(deep));
    expect(e.code).toBe(400);
    expect(e.message).toContain("invalid character '[' exceeded max depth");
    expect(decodeJson('['.repeat(50) + ']'.repeat(50), { maxDepth: 50 }).duplicates).toEqual([]);
    expect(apiError(() => decodeJson('['.repeat(51) + ']'.repeat(51), { maxDepth: 50 })).code).toBe(400);
  });
});

describe('decodeYaml', () => {
  const body = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: real
spec:
  paused: true
  paused: false
  template:
    spec:
      containers:
      - name: nginx
        imagePullPolicy: Always
        imagePullPolicy: Never
---
kind: Second`;

  it('reports duplicates in document order with go-yaml line messages and paths; first document only', () => {
    const r = decodeYaml(body);
    expect(r.strictErrors).toEqual([
      'line 5: key "name" already set in map',
      'line 8: key "paused" already set in map',
      'line 14: key "imagePullPolicy" already set in map',
    ]);
    expect(r.duplicates).toEqual(['metadata.name', 'spec.paused', 'spec.template.spec.containers[0].imagePullPolicy']);
    const v = r.value as { kind: string; metadata: { name: string } };
    expect(v.kind).toBe('Deployment');
    expect(v.metadata.name).toBe('real');
  });

  it('reads YAML 1.1 scalars like go-yaml v2 and keeps timestamps as strings', () => {
    const r = decodeYaml('a: yes\nb: off\nc: 2024-01-01T00:00:00Z\nd: 1:20\ne: "007"\n');
    expect(r.value).toEqual({ a: true, b: false, c: '2024-01-01T00:00:00Z', d: '1:20', e: '007' });
  });

  it('rejects a billion-laughs document quickly with 400', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    const names = 'abcdefghi';
    for (let i = 1; i < names.length; i++) {
      const prev = `*${names[i - 1]}`;
      lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(prev).join(',')}]`);
    }
    const e = apiError(() => decodeYaml(lines.join('\n'), { expectedKind: 'ConfigMap' }));
    expect(e.code).toBe(400);
    expect(e.message).toContain('): yaml: document contains excessive aliasing (');
  });

  it('allows a few aliases', () => {
    expect(decodeYaml('a: &x {k: 1}\nb: *x\n').value).toEqual({ a: { k: 1 }, b: { k: 1 } });
  });

  it('rejects deep nesting (flow, compact sequences, block) with 400', () => {
    expect(apiError(() => decodeYaml('['.repeat(200_000))).message).toContain('exceeded max depth');
    expect(apiError(() => decodeYaml('- '.repeat(200_000) + 'x')).message).toContain('exceeded max depth');
    let block = '';
    for (let i = 0; i < 60; i++) block += `${' '.repeat(i)}k:\n`;
    expect(apiError(() => decodeYaml(block, { maxDepth: 50 })).code).toBe(400);
  });

  it('rejects malformed YAML with 400 naming the line', () => {
    const e = apiError(() => decodeYaml('a: [1\nb: 2'));
    expect(e.code).toBe(400);
    // As kube-apiserver v1.32.4 words it: go-yaml's message and line, and no "error converting
    // YAML to JSON" prefix (that is sigs.k8s.io/yaml.Unmarshal's, on apply).
    expect(e.message).toBe("yaml: line 1: did not find expected ',' or ']'");
  });
});
