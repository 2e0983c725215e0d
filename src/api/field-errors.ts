/**
 * Field errors in the shape of Kubernetes' validation `field.Error`, so that Status causes and
 * messages read exactly as kube-apiserver's (`data[x]: Invalid value: "x": detail`).
 */
import { goQuote } from '../schema/prune.ts';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

export interface FieldError {
  readonly type: FieldErrorType;
  /** Path like `metadata.labels[app]` or `spec.containers[0].name`. */
  readonly field: string;
  readonly badValue?: unknown;
  readonly detail?: string;
  /** Only for NotSupported: the allowed values. */
  readonly supported?: readonly string[];
  /** Only for TooLong / TooMany: the limit. */
  readonly limit?: number;
}

/** A bad value already written in Go syntax (a slice prints as `[]string{"a"}`), printed as is. */
export class GoLiteral {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

/** `[]string{"a", "b"}`: Go's %#v of a string slice (each element quoted with %q). */
export function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

export function goLiteral(text: string): GoLiteral {
  return new GoLiteral(text);
}

/** Formats a bad value the way Go's `%q`/`%v` does in field errors. */
export function formatBadValue(v: unknown): string {
  if (v instanceof GoLiteral) return v.text;
  // field.Error prints a string with %q: control bytes as \x01, not JSON's \u0001.
  if (typeof v === 'string') return goQuote(v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** The error text without the field path (Kubernetes' `ErrorBody`). */
export function fieldErrorBody(e: FieldError): string {
  const withDetail = (s: string) => (e.detail ? `${s}: ${e.detail}` : s);
  switch (e.type) {
    case 'FieldValueRequired':
      return withDetail('Required value');
    case 'FieldValueForbidden':
      return withDetail('Forbidden');
    case 'FieldValueNotFound':
      return withDetail(`Not found: ${formatBadValue(e.badValue)}`);
    case 'FieldValueDuplicate':
      return withDetail(`Duplicate value: ${formatBadValue(e.badValue)}`);
    case 'FieldValueTooLong':
      return e.limit !== undefined ? `Too long: may not be more than ${e.limit} bytes` : withDetail('Too long');
    case 'FieldValueTooMany':
      return e.limit !== undefined ? `Too many: ${formatBadValue(e.badValue)}: must have at most ${e.limit} items` : withDetail('Too many');
    case 'FieldValueNotSupported': {
      const supported = e.supported && e.supported.length > 0 ? `: supported values: ${e.supported.map((s) => JSON.stringify(s)).join(', ')}` : '';
      return `Unsupported value: ${formatBadValue(e.badValue)}${supported}`;
    }
    case 'InternalError':
      return withDetail('Internal error');
    case 'FieldValueInvalid':
    case 'FieldValueTypeInvalid':
    default:
      return withDetail(`Invalid value: ${formatBadValue(e.badValue)}`);
  }
}

/** `field: body`, as Kubernetes prints one field error. */
export function fieldErrorString(e: FieldError): string {
  return e.field ? `${e.field}: ${fieldErrorBody(e)}` : fieldErrorBody(e);
}

/** Aggregates a list as Kubernetes does: one error alone, several inside brackets. */
export function aggregateFieldErrors(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map(fieldErrorString))];
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
}

export const fieldErr = {
  required: (field: string, detail?: string): FieldError => ({ type: 'FieldValueRequired', field, detail }),
  invalid: (field: string, badValue: unknown, detail?: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue, detail }),
  typeInvalid: (field: string, badValue: unknown, detail?: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, badValue, detail }),
  notSupported: (field: string, badValue: unknown, supported: readonly string[]): FieldError => ({ type: 'FieldValueNotSupported', field, badValue, supported }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail }),
  duplicate: (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, badValue }),
  tooLong: (field: string, badValue: unknown, limit: number): FieldError => ({ type: 'FieldValueTooLong', field, badValue, limit }),
  tooMany: (field: string, actual: number, limit: number): FieldError => ({ type: 'FieldValueTooMany', field, badValue: actual, limit }),
  notFound: (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueNotFound', field, badValue }),
};

/** Joins a parent path and a child the way field.Path does: `a.b`, `a[0]`, `a[key]`. */
export const fieldPath = {
  child: (parent: string, name: string): string => (parent ? `${parent}.${name}` : name),
  index: (parent: string, i: number): string => `${parent}[${i}]`,
  key: (parent: string, k: string): string => `${parent}[${k}]`,
};
