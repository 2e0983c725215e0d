/**
 * Kubernetes name and key formats (apimachinery `util/validation` and `api/validate/content`):
 * each check returns the list of problems in kube's own wording, empty when the value is valid.
 */
import type { NameValidation } from '../types.ts';

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const LABEL_VALUE_MAX_LENGTH = 63;
const LABEL_KEY_NAME_MAX_LENGTH = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFmt = `(${labelKeyFmt})?`;
const configMapKeyFmt = '[-._a-zA-Z0-9]+';

const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const labelKeyRe = new RegExp(`^${labelKeyFmt}$`);
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

const dns1123LabelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const labelKeyMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const configMapKeyMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/** `must be no more than N characters`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** kube's RegexError: the message, the examples, and the pattern used. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Go appends "', " after each example and " or " before the next, hence the double space.
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** `must be non-empty`. */
export function emptyError(): string {
  return 'must be non-empty';
}

/** Length in bytes as Go's `len(string)` counts it (UTF-8). */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Problems with `value` as an RFC 1123 label (at most 63 characters, no dots). */
export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const dns1035LabelMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** Problems with `value` as an RFC 1035 label (Service names: at most 63 characters, a letter first). */
export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** Problems with `value` as an RFC 1123 subdomain (at most 253 characters). */
export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** Problems with `name` as a prefix of a path segment: it may not contain `/` or `%`. */
export function isPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** Problems with `name` as a whole path segment: not `.` or `..`, no `/` or `%`. */
export function isPathSegmentName(name: string): string[] {
  for (const bad of ['.', '..']) if (name === bad) return [`may not be '${bad}'`];
  return isPathSegmentPrefix(name);
}

/** Problems with `value` as a qualified name (label key, annotation key, finalizer): `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDns1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a qualified name ${regexError(labelKeyMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > LABEL_KEY_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(LABEL_KEY_NAME_MAX_LENGTH)}`);
  if (!labelKeyRe.test(name)) errs.push(`name part ${regexError(labelKeyMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** Problems with `value` as a label value (empty, or at most 63 alphanumerics with `-_.` inside). */
export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Problems with `value` as a ConfigMap or Secret key. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKeyRe.test(value)) errs.push(regexError(configMapKeyMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Checks a name, or with `prefix` a generateName prefix (which may end in `-`). */
export type NameValidator = (name: string, prefix: boolean) => string[];

// A generateName prefix may end with '-': validate it as if one more character followed.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** The name check kube uses for each NameValidation. */
export function nameValidator(kind: NameValidation): NameValidator {
  switch (kind) {
    case 'dns1123-label':
      return (name, prefix) => isDns1123Label(prefix ? maskTrailingDash(name) : name);
    case 'dns1123-subdomain':
      return (name, prefix) => isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);
    case 'dns1035-label':
      return (name, prefix) => isDns1035Label(prefix ? maskTrailingDash(name) : name);
    case 'path-segment':
      return (name, prefix) => (prefix ? isPathSegmentPrefix(name) : isPathSegmentName(name));
  }
}

const MAX_NAME_LENGTH = 63;
const RANDOM_LENGTH = 5;
const MAX_GENERATED_PREFIX_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH;
// Vowels and look-alike digits are left out so that generated names do not spell words.
const GENERATED_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A name from a generateName prefix as kube's SimpleNameGenerator makes it: prefix cut to 58, plus 5 random characters. */
export function generateNameFrom(prefix: string, random: () => number = Math.random): string {
  const base = prefix.length > MAX_GENERATED_PREFIX_LENGTH ? prefix.slice(0, MAX_GENERATED_PREFIX_LENGTH) : prefix;
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += GENERATED_ALPHABET[Math.floor(random() * GENERATED_ALPHABET.length)]!;
  return base + suffix;
}
