import { describe, expect, it } from 'vitest';
import { fieldErrorString } from '../../src/api/field-errors.ts';
import { configMapType } from '../../src/api/kinds/configmap.ts';
import { foldSecretStringData, jsonObjectError, secretType } from '../../src/api/kinds/secret.ts';
import type { KubeObject } from '../../src/api/types.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const meta = { name: 'x', namespace: 'd', resourceVersion: '1' };

describe('ConfigMap', () => {
  const validate = (o: KubeObject) => (configMapType.strategy.validate?.(o) ?? []).map(fieldErrorString);
  const validateUpdate = (o: KubeObject, old: KubeObject) => (configMapType.strategy.validateUpdate?.(o, old) ?? []).map(fieldErrorString);

  it('validates keys and duplicates across data and binaryData', () => {
    expect(validate({ metadata: meta, data: { 'a.conf': 'x' }, binaryData: { bin: b64('y') } })).toEqual([]);
    const errs = validate({ metadata: meta, data: { 'a b': 'x', dup: 'x' }, binaryData: { dup: b64('y') } });
    expect(errs[0]).toMatch(/^data\[a b\]: Invalid value: "a b": a valid config key must consist of alphanumeric characters/);
    expect(errs[1]).toBe('data[dup]: Invalid value: "dup": duplicate of key present in binaryData');
  });

  it('limits the total size to 1 MiB', () => {
    const half = 'x'.repeat(512 * 1024);
    expect(validate({ metadata: meta, data: { a: half, b: half } })).toEqual([]);
    expect(validate({ metadata: meta, data: { a: half, b: half }, binaryData: { c: b64('z') } })).toEqual(['[]: Too long: may not be more than 1048576 bytes']);
  });

  it('keeps data, binaryData and immutable fixed once immutable is set', () => {
    const old = { metadata: meta, data: { a: '1' }, binaryData: { b: b64('2') }, immutable: true };
    expect(validateUpdate({ ...old, metadata: { ...meta, labels: { x: 'y' } } }, old)).toEqual([]);
    expect(validateUpdate({ metadata: meta, data: { a: '2' }, binaryData: {}, immutable: false }, old)).toEqual([
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'data: Forbidden: field is immutable when `immutable` is set',
      'binaryData: Forbidden: field is immutable when `immutable` is set',
    ]);
    expect(validateUpdate({ metadata: meta, data: { a: '1' }, binaryData: { b: b64('2') } }, old)).toEqual([
      'immutable: Forbidden: field is immutable when `immutable` is set',
    ]);
  });

  it('allows anything while immutable is unset or false', () => {
    const old = { metadata: meta, data: { a: '1' } };
    expect(validateUpdate({ metadata: meta, data: { a: '2' }, immutable: true }, old)).toEqual([]);
  });
});

describe('Secret', () => {
  const prepare = (o: KubeObject) => {
    secretType.strategy.defaults?.(o);
    return o;
  };
  const validate = (o: KubeObject) => (secretType.strategy.validate?.(o) ?? []).map(fieldErrorString);

  it('folds stringData into base64 data, overriding data, and drops it', () => {
    const s = prepare({ metadata: meta, data: { a: b64('old'), keep: b64('k') }, stringData: { a: 'new', 'b.txt': 'héllo' } });
    expect(s.stringData).toBeUndefined();
    expect(s.data).toEqual({ a: b64('new'), keep: b64('k'), 'b.txt': Buffer.from('héllo', 'utf8').toString('base64') });
    expect(s.type).toBe('Opaque');
  });

  it('folds on update too and leaves an empty stringData without effect', () => {
    const s: KubeObject = { metadata: meta, type: 'Opaque', stringData: { p: 'q' } };
    secretType.strategy.defaults?.(s);
    expect(s).toEqual({ metadata: meta, type: 'Opaque', data: { p: b64('q') } });
    const e: KubeObject = { metadata: meta, stringData: {} };
    foldSecretStringData(e);
    expect(e).toEqual({ metadata: meta });
  });

  it('requires the keys of well-known types', () => {
    expect(validate({ metadata: meta, type: 'kubernetes.io/tls', data: {} })).toEqual([
      'data[tls.crt]: Required value',
      'data[tls.key]: Required value',
    ]);
    expect(validate({ metadata: meta, type: 'kubernetes.io/basic-auth', data: {} })).toEqual([
      'data[username]: Required value',
      'data[password]: Required value',
    ]);
    expect(validate({ metadata: meta, type: 'kubernetes.io/basic-auth', data: { password: '' } })).toEqual([]);
    expect(validate({ metadata: meta, type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } })).toEqual(['data[ssh-privatekey]: Required value']);
    expect(validate({ metadata: meta, type: 'kubernetes.io/service-account-token' })).toEqual([
      'metadata.annotations[kubernetes.io/service-account.name]: Required value',
    ]);
    expect(validate({ metadata: meta, type: 'kubernetes.io/dockerconfigjson', data: {} })).toEqual(['data[.dockerconfigjson]: Required value']);
  });

  it('checks that docker configs are JSON objects, redacting the contents', () => {
    expect(validate({ metadata: meta, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } })).toEqual([]);
    expect(validate({ metadata: meta, type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('<html>') } })).toEqual([
      `data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character '<' looking for beginning of value`,
    ]);
    expect(jsonObjectError(Buffer.from('[1]'))).toBe('json: cannot unmarshal array into Go value of type map[string]interface {}');
    expect(jsonObjectError(Buffer.from(''))).toBe('unexpected end of JSON input');
    // Syntax errors in encoding/json's scanner words (checked against kube-apiserver v1.32.4).
    expect(jsonObjectError(Buffer.from('not json'))).toBe("invalid character 'o' in literal null (expecting 'u')");
    expect(jsonObjectError(Buffer.from('{"a" 1}'))).toBe("invalid character '1' after object key");
  });

  it('makes type immutable and honours immutable', () => {
    const old = { metadata: meta, type: 'Opaque', data: { a: b64('1') }, immutable: true };
    const errs = (secretType.strategy.validateUpdate?.({ metadata: meta, type: 'kubernetes.io/basic-auth', data: { a: b64('2') }, immutable: true }, old) ?? []).map(
      fieldErrorString,
    );
    expect(errs).toEqual([
      'type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
      'data: Forbidden: field is immutable when `immutable` is set',
      'data[username]: Required value',
      'data[password]: Required value',
    ]);
  });

  it('selects by type', () => {
    expect(secretType.fieldSelectors.type!({ type: 'kubernetes.io/tls' })).toBe('kubernetes.io/tls');
  });
});

describe('core-group finalizer names', () => {
  it('rejects unprefixed non-standard finalizers on core kinds, with an indexed path', () => {
    const o: KubeObject = { metadata: { ...meta, finalizers: ['kubernetes', 'mine', 'example.com/mine'] }, data: {} };
    expect((configMapType.strategy.validate?.(o) ?? []).map(fieldErrorString)).toEqual([
      'metadata.finalizers[1]: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    // On update kube checks them twice: in core ValidateObjectMetaUpdate and again in ValidateSecret.
    expect((secretType.strategy.validateUpdate?.({ ...o, type: 'Opaque' }, { metadata: meta, type: 'Opaque' }) ?? []).map(fieldErrorString)).toEqual([
      'metadata.finalizers[1]: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified',
      'metadata.finalizers[1]: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});
