/**
 * Field selectors (`?fieldSelector=`), parsed as fields.ParseSelector does: comma-separated terms
 * `field=value`, `field==value`, `field!=value`; in values a backslash escapes `\`, `,` and `=`.
 * Fields are not trimmed or validated here; `validateFieldSelector` checks them against the
 * fields a resource supports, with the texts kube-apiserver's conversion functions use.
 */
import { ApiError } from '../api/status-errors.ts';

export interface FieldRequirement {
  readonly field: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  /** Sorted as kube sorts the terms (by their source text). */
  readonly requirements: readonly FieldRequirement[];
  /** True when the selector does not restrict anything. */
  readonly empty: boolean;
  /** True if every requirement holds; a field `get` does not know reads as the empty string. */
  matches(get: (field: string) => string | undefined): boolean;
  /** The canonical string form, values escaped. */
  toString(): string;
}

class FieldSelectorError extends Error {}

/** Splits on commas not escaped by a backslash; escapes stay in the terms. */
function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

const OPERATORS = ['!=', '==', '='] as const;

/** Splits a term at the first operator; the field part cannot contain escapes. */
function splitTerm(term: string): { field: string; op: (typeof OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Undoes value escaping; unescaped `,`/`=` and unknown escapes are errors (kube prints the rune as a number). */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes a value for the string form (`\` then `,` and `=`). */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function makeSelector(requirements: FieldRequirement[]): FieldSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (get) =>
      requirements.every((r) => {
        const actual = get(r.field) ?? '';
        return r.op === '=' ? actual === r.value : actual !== r.value;
      }),
    toString: () => requirements.map((r) => `${r.field}${r.op}${escapeFieldValue(r.value)}`).join(','),
  };
}

/** Parses a field selector string (`""` selects everything). Throws ApiError 400 with kube's text. */
export function parseFieldSelector(s: string): FieldSelector {
  const parts = splitTerms(s).sort(byteCompare);
  const reqs: FieldRequirement[] = [];
  try {
    for (const part of parts) {
      if (part === '') continue;
      const split = splitTerm(part);
      if (!split) throw new FieldSelectorError(`invalid selector: '${s}'; can't understand '${part}'`);
      const value = unescapeFieldValue(split.rhs);
      reqs.push({ field: split.field, op: split.op === '!=' ? '!=' : '=', value });
    }
  } catch (e) {
    if (e instanceof FieldSelectorError) throw new ApiError(400, 'BadRequest', e.message);
    throw e;
  }
  return makeSelector(reqs);
}

/**
 * How a resource words an unsupported field, as its conversion function does: kinds with their own
 * field list (pods, events, custom resources, ...) say `field label not supported: <name>`; kinds
 * that only accept the metadata fields say `"<name>" is not a known field selector: only ...`.
 */
export type FieldSelectorErrorStyle = 'field-label-not-supported' | 'not-a-known-field-selector';

/**
 * Throws ApiError 400 (kube's text, unwrapped, as the list handler sends it) for the first
 * requirement whose field is not in `allowed`; returns the selector unchanged otherwise.
 */
export function validateFieldSelector(
  sel: FieldSelector,
  allowed: readonly string[],
  style: FieldSelectorErrorStyle = 'field-label-not-supported',
): FieldSelector {
  for (const r of sel.requirements) {
    if (allowed.includes(r.field)) continue;
    const message =
      style === 'field-label-not-supported'
        ? `field label not supported: ${r.field}`
        : `${JSON.stringify(r.field)} is not a known field selector: only ${allowed.map((a) => JSON.stringify(a)).join(', ')}`;
    throw new ApiError(400, 'BadRequest', message);
  }
  return sel;
}
