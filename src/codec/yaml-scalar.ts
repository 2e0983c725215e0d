/**
 * Scalar rules of go-yaml v2 as sigs.k8s.io/yaml uses them when kube-apiserver writes YAML:
 * whether a string would read back as another type (then it must be quoted), how numbers print,
 * and the emitter's analysis that picks plain, single-quoted, double-quoted or literal style.
 */

const RESOLVE_MAP = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF', '<<',
]);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
// The timestamp layouts go-yaml v2 tries (Go's 1-or-2-digit fields), date first.
const TIMESTAMP = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/;

function isTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s);
  if (!m) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const year = Number(m[1]);
  const daysIn = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (day > daysIn) return false;
  const h = Number(m[4] ?? m[7] ?? 0);
  const min = Number(m[5] ?? m[8] ?? 0);
  const sec = Number(m[6] ?? m[9] ?? 0);
  return h < 24 && min < 60 && sec < 60;
}

/** True when the text, written plain, would read back as a string (go-yaml's `resolve`). */
export function resolvesToString(s: string): boolean {
  if (RESOLVE_MAP.has(s)) return false;
  const c = s.charCodeAt(0);
  if (c === 0x2e) return !/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
  const sign = c === 0x2b || c === 0x2d;
  const digit = c >= 0x30 && c <= 0x39;
  if (!sign && !digit) return true;
  if (isTimestamp(s)) return false;
  const plain = s.includes('_') ? s.replace(/_/g, '') : s;
  if (GO_INT.test(plain) || YAML_STYLE_FLOAT.test(plain) || /^-0b[01]+$/.test(plain)) return false;
  return true;
}

/** Whether go-yaml may write `s` plain as far as the type resolver is concerned. */
export function canUsePlain(s: string): boolean {
  return resolvesToString(s) && !(/^[-+0-9]/.test(s) && s.includes(':') && BASE60_FLOAT.test(s));
}

/** A number as JSON -> go-yaml v2 prints it: integers in full, other floats in Go's %g. */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (!Number.isFinite(n)) return n > 0 ? '.inf' : '-.inf';
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return Math.abs(n) < 2 ** 53 ? String(n) : BigInt(n).toString();
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 6) {
    const [mant, e] = n.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[-+]/, '');
    return `${mant}e${sign}${digits.padStart(2, '0')}`;
  }
  return String(n);
}

export function isPrintable(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

export const isBreak = (cp: number) => cp === 0x0a || cp === 0x0d || cp === 0x85 || cp === 0x2028 || cp === 0x2029;

export interface ScalarAnalysis {
  readonly multiline: boolean;
  readonly blockPlainAllowed: boolean;
  readonly singleQuotedAllowed: boolean;
  readonly blockAllowed: boolean;
}

/** libyaml's yaml_emitter_analyze_scalar, for block context (we never emit non-empty flow collections). */
export function analyzeScalar(value: string): ScalarAnalysis {
  if (value.length === 0) return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  let blockIndicators = value.startsWith('---') || value.startsWith('...');
  let special = false;
  let lineBreaks = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  const cps = Array.from(value, (ch) => ch.codePointAt(0)!);
  const blankOrEnd = (k: number) => k >= cps.length || cps[k] === 0x20 || cps[k] === 0x09 || isBreak(cps[k]!);
  for (let k = 0; k < cps.length; k++) {
    const c = cps[k]!;
    const followedByWhitespace = blankOrEnd(k + 1);
    const first = k === 0;
    const last = k === cps.length - 1;
    if (first) {
      if ('#,[]{}&*!|>\'"%@`'.includes(String.fromCodePoint(c))) blockIndicators = true;
      if ((c === 0x3f || c === 0x3a || c === 0x2d) && followedByWhitespace) blockIndicators = true;
    } else {
      if (c === 0x3a && followedByWhitespace) blockIndicators = true;
      if (c === 0x23 && precededByWhitespace) blockIndicators = true;
    }
    // NEL, LS and PS are line breaks to go-yaml (YAML 1.1) but ordinary characters to YAML 1.2
    // readers, so written raw (go-yaml copies them into single quotes, followed by indentation)
    // they read back differently per reader. Escaped in double quotes (\N, \L, \P) every
    // reader, go-yaml and ours included, gets the same string back.
    if (!isPrintable(c) || c === 0x85 || c === 0x2028 || c === 0x2029) special = true;
    if (isBreak(c)) lineBreaks = true;
    if (c === 0x20) {
      if (first) leadingSpace = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      if (first) leadingBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousBreak = true;
      previousSpace = false;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = c === 0x20 || c === 0x09 || isBreak(c);
  }
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) blockPlainAllowed = singleQuotedAllowed = false;
  if (spaceBreak || special) blockPlainAllowed = singleQuotedAllowed = blockAllowed = false;
  if (lineBreaks) blockPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

/** yaml.v2's map key order: runs of digits compare as numbers, non-letters sort before letters. */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  return keyLess(a, b) ? -1 : 1;
}

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;
const isLetter = (s: string) => LETTER.test(s);
const isDigit = (s: string) => DIGIT.test(s);

function keyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = ar[i]!;
    const y = br[i]!;
    if (x === y) continue;
    const al = isLetter(x);
    const bl = isLetter(y);
    if (al && bl) return x.codePointAt(0)! < y.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (x === '0' || y === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = BigInt.asIntN(64, an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48));
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = BigInt.asIntN(64, bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return x.codePointAt(0)! < y.codePointAt(0)!;
  }
  return ar.length < br.length;
}
