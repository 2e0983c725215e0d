/**
 * The query options of create, update and patch, validated as kube-apiserver's
 * Validate{Create,Update,Patch}Options do, before the body is read: every problem in one 422
 * `<Kind>Options.meta.k8s.io "" is invalid`, in kube's order (force / apply's fieldManager,
 * fieldManager length and characters, dryRun, fieldValidation).
 */
import { fieldErr, type FieldError } from '../../api/field-errors.ts';
import { dryRunErrors, invalidOptions } from '../../registry/delete-options.ts';

export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/** kube's FieldManagerMaxLength. */
const fieldManagerMaxLength = 128;
const fieldValidationValues = ['', 'Ignore', 'Strict', 'Warn'];

/** Go's %#U of a rune: `U+0007`, or `U+00E9 'é'` for printable ones (never printable here). */
function goRune(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** unicode.IsPrint, approximately: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrint(ch: string): boolean {
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/** ValidateFieldManager's errors. */
function fieldManagerErrors(manager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager) > fieldManagerMaxLength) errs.push(fieldErr.tooLong('fieldManager', '', fieldManagerMaxLength));
  let byte = 0;
  for (const ch of manager) {
    if (!isPrint(ch)) errs.push(fieldErr.invalid('fieldManager', manager, `invalid character ${goRune(ch.codePointAt(0)!)} (at position ${byte})`));
    byte += Buffer.byteLength(ch);
  }
  return errs;
}

/** Throws kube's 422 when the write's query options are invalid. */
export function validateWriteOptions(q: URLSearchParams, kind: WriteOptionsKind, isApply: boolean): void {
  const errs: FieldError[] = [];
  const fieldManager = q.getAll('fieldManager')[0] ?? '';
  if (kind === 'PatchOptions') {
    if (!isApply) {
      if (q.getAll('force').length > 0) errs.push(fieldErr.forbidden('force', 'may not be specified for non-apply patch'));
    } else if (fieldManager === '') {
      errs.push(fieldErr.required('fieldManager', 'is required for apply patch'));
    }
  }
  errs.push(...fieldManagerErrors(fieldManager));
  errs.push(...dryRunErrors(q.getAll('dryRun')));
  const fieldValidation = q.getAll('fieldValidation')[0] ?? '';
  if (!fieldValidationValues.includes(fieldValidation)) errs.push(fieldErr.notSupported('fieldValidation', fieldValidation, fieldValidationValues));
  if (errs.length > 0) throw invalidOptions(kind, errs);
}
