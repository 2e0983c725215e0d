/** Field errors print their bad values as kube's field.Error does (checked against kube-apiserver v1.32.4). */
import { describe, expect, it } from 'vitest';
import { fieldErr, fieldErrorString, formatBadValue } from '../../src/api/field-errors.ts';

describe('bad values', () => {
  it('quotes strings with Go %q: control bytes as \\xNN, C1 and separators as \\uNNNN, printable text kept', () => {
    expect(formatBadValue('a\u0001b')).toBe('"a\\x01b"');
    expect(formatBadValue('tab\there "q" \\')).toBe('"tab\\there \\"q\\" \\\\"');
    expect(formatBadValue('del\u007f c1\u0085 ls\u2028')).toBe('"del\\x7f c1\\u0085 ls\\u2028"');
    expect(formatBadValue('héllo ✓')).toBe('"héllo ✓"');
  });

  it('words the fieldManager error as kube does', () => {
    expect(fieldErrorString(fieldErr.invalid('fieldManager', 'a\u0001b', 'invalid character U+0001 (at position 1)'))).toBe(
      'fieldManager: Invalid value: "a\\x01b": invalid character U+0001 (at position 1)',
    );
  });
});
