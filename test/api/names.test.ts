import { describe, expect, it } from 'vitest';
import {
  generateNameFrom,
  isConfigMapKey,
  isDns1123Label,
  isDns1123Subdomain,
  isLabelValue,
  isPathSegmentName,
  isQualifiedName,
  nameValidator,
} from '../../src/api/validation/names.ts';

describe('DNS-1123 names', () => {
  it('accepts valid subdomains and labels', () => {
    expect(isDns1123Subdomain('example.com')).toEqual([]);
    expect(isDns1123Subdomain('a'.repeat(253))).toEqual([]);
    expect(isDns1123Label('my-name')).toEqual([]);
    expect(isDns1123Label('a'.repeat(63))).toEqual([]);
  });

  it('reports an invalid subdomain with the regex and example', () => {
    expect(isDns1123Subdomain('Foo_bar')).toEqual([
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
  });

  it('reports length before format', () => {
    const errs = isDns1123Subdomain('a'.repeat(254));
    expect(errs).toEqual(['must be no more than 253 characters']);
    expect(isDns1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });

  it('tells a label with dots that it must not contain dots', () => {
    expect(isDns1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDns1123Label('-a')).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});

describe('path segment names', () => {
  it('rejects . and .. and names with / or %', () => {
    expect(isPathSegmentName('.')).toEqual(["may not be '.'"]);
    expect(isPathSegmentName('..')).toEqual(["may not be '..'"]);
    expect(isPathSegmentName('a/b%c')).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(isPathSegmentName('system:node:Foo')).toEqual([]);
  });

  it('checks a generateName prefix only for forbidden characters', () => {
    const check = nameValidator('path-segment');
    expect(check('..', true)).toEqual([]);
    expect(check('a/', true)).toEqual(["may not contain '/'"]);
  });
});

describe('qualified names and label values', () => {
  it('accepts prefixed and plain keys', () => {
    expect(isQualifiedName('app')).toEqual([]);
    expect(isQualifiedName('kubernetes.io/metadata.name')).toEqual([]);
  });

  it('reports prefix and name parts separately', () => {
    expect(isQualifiedName('/app')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('Bad_Prefix/app')[0]).toMatch(/^prefix part a lowercase RFC 1123 subdomain/);
    expect(isQualifiedName('example.com/')).toEqual([
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(isQualifiedName('x'.repeat(64))).toContain('name part must be no more than 63 characters');
  });

  it('rejects keys with two slashes as a whole', () => {
    const errs = isQualifiedName('a/b/c');
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  });

  it('validates label values', () => {
    expect(isLabelValue('')).toEqual([]);
    expect(isLabelValue('v1.2_3-x')).toEqual([]);
    expect(isLabelValue('-bad')[0]).toMatch(/^a valid label must be an empty string or consist of alphanumeric characters/);
    expect(isLabelValue('v'.repeat(64))[0]).toBe('must be no more than 63 characters');
  });
});

describe('config map keys', () => {
  it('accepts dotted keys and rejects . .. and ..x', () => {
    expect(isConfigMapKey('.env')).toEqual([]);
    expect(isConfigMapKey('.')).toEqual(["must not be '.'"]);
    expect(isConfigMapKey('..')).toEqual(["must not be '..'"]);
    expect(isConfigMapKey('..data')).toEqual(["must not start with '..'"]);
    expect(isConfigMapKey('a/b')).toEqual([
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
  });
});

describe('generateName', () => {
  it('appends five characters and truncates long prefixes to 58', () => {
    const n = generateNameFrom('web-');
    expect(n).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const long = generateNameFrom('p'.repeat(100));
    expect(long).toHaveLength(63);
  });

  it('lets a DNS prefix end with a dash', () => {
    const check = nameValidator('dns1123-subdomain');
    expect(check('web-', true)).toEqual([]);
    expect(check('web-', false)).not.toEqual([]);
  });
});
