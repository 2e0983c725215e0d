// The cel-go strings extension functions the engine lacks: `string.format(list)` (clauses %s %d %f
// %e %b %o %x %X with optional precision, %% for a literal percent) and `strings.quote(string)`.
// Error texts follow cel-go's ext/formatting so callers see the same messages as kube-apiserver.
import { UnsignedInt, Duration } from '@marcbachmann/cel-js/evaluator';
import { formatTimestamp } from './timestamps.ts';

export { formatTimestamp };

function fail(message: string): never {
  throw new Error(message);
}

/** The CEL type name of a runtime value, as format errors name it. */
export function celTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof UnsignedInt) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  if (v instanceof Duration) return 'google.protobuf.Duration';
  if (Array.isArray(v)) return 'list';
  if (isTypeValue(v)) return 'type';
  if (v instanceof Map || (typeof v === 'object' && v.constructor === Object)) return 'map';
  return (v as object).constructor?.name ?? 'unknown';
}

function isTypeValue(v: unknown): v is { readonly name: string } {
  const ctor = (v as object).constructor?.name;
  return ctor === 'Type' || ctor === 'TypeDeclaration';
}

/** cel-go's string(duration): the seconds in decimal, shortest form, with an 's' suffix ("-0.001s", "90s"). */
export function durationText(d: Duration): string {
  const nanos = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const abs = nanos < 0n ? -nanos : nanos;
  const whole = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${nanos < 0n ? '-' : ''}${whole}${frac === '' ? '' : `.${frac}`}s`;
}

/**
 * Go's strconv.FormatFloat(d, 'g', -1, 64), which cel-go's string(double) uses: the shortest
 * digits, in exponent form when the exponent is below -4 or at least 6 ("1.23456789e+08", "1e-07").
 */
export function goFormatG(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? '+Inf' : '-Inf';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  const [mantissa = '', expText = '0'] = d.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(d);
}


function mapEntries(v: object): Array<[unknown, unknown]> {
  return v instanceof Map ? [...v.entries()] : Object.entries(v);
}

const isMapValue = (v: unknown): v is object => v instanceof Map || (typeof v === 'object' && v !== null && v.constructor === Object);

function stringClauseError(v: unknown): never {
  return fail(`error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${celTypeName(v)}`);
}

/** cel-go's FormatString, the %s rendering: a value's string conversion; lists and maps as CEL literals. */
export function formatAsString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return goFormatG(v);
  if (v instanceof UnsignedInt) return String(v.value);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Date) return formatTimestamp(v);
  if (v instanceof Duration) return durationText(v);
  if (Array.isArray(v)) return formatList(v);
  if (isTypeValue(v)) return v.name === 'null' ? 'null_type' : v.name;
  if (isMapValue(v)) return formatMap(v);
  return stringClauseError(v);
}

/** cel-go's clauseForType: how a list member or map value is written inside a %s of a list or map. */
function formatMember(v: unknown): string {
  if (typeof v === 'bigint') return String(v);
  if (v instanceof UnsignedInt) return String(v.value);
  if (typeof v === 'number') return Number.isFinite(v) ? formatFixed(v, 6) : goFormatG(v);
  if (v instanceof Date) return `timestamp(${goQuote(formatTimestamp(v))})`;
  if (v instanceof Duration) return `duration(${goQuote(durationText(v))})`;
  if (typeof v === 'string' || typeof v === 'boolean' || v === null || v instanceof Uint8Array || isTypeValue(v) || Array.isArray(v) || isMapValue(v)) {
    return formatAsString(v);
  }
  return fail(`no formatting function for ${celTypeName(v)}`);
}

/** cel-go's quoteForCEL: strings, bytes and non-finite doubles quoted so the member reads as a CEL literal. */
function quoteForCel(v: unknown, text: string): string {
  if (typeof v === 'string') return goQuote(text);
  if (v instanceof Uint8Array) return `b${goQuote(text)}`;
  if (typeof v === 'number' && !Number.isFinite(v)) return goQuote(text);
  return text;
}

function formatList(l: readonly unknown[]): string {
  return `[${l.map((m) => quoteForCel(m, formatMember(m))).join(', ')}]`;
}

function formatMap(m: object): string {
  const pairs = mapEntries(m).map(([k, x]) => {
    let key: string;
    if (typeof k === 'string' || typeof k === 'boolean') key = formatAsString(k);
    else if (typeof k === 'bigint' || k instanceof UnsignedInt) key = formatMember(k);
    else return fail(`no formatting function for map key of type ${celTypeName(k)}`);
    return [quoteForCel(k, key), quoteForCel(x, formatMember(x))] as const;
  });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `{${pairs.map(([k, x]) => `${k}:${x}`).join(', ')}}`;
}

const GO_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"',
};

/** Go's strconv.Quote (fmt's %q): printable characters kept, the rest escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escaped = GO_ESCAPES[ch];
    const cp = ch.codePointAt(0) as number;
    if (escaped !== undefined) out += escaped;
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else if (ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch)) out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function integerOf(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (v instanceof UnsignedInt) return v.value;
  return undefined;
}

/** The exact decimal expansion of a finite double as [digits, scale]: value = digits / 10^scale. */
function exactDecimal(d: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(d));
  const bits = view.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mantissa = exp === 0 ? frac : frac | (1n << 52n);
  const e = (exp === 0 ? 1 : exp) - 1075;
  if (e >= 0) return [mantissa << BigInt(e), 0];
  return [mantissa * 5n ** BigInt(-e), -e];
}

/** Fixed-point with round-half-to-even on the exact binary value, as Go's %.Nf does. */
function formatFixed(d: number, precision: number): string {
  const [digits, scale] = exactDecimal(d);
  let scaled: bigint;
  if (scale <= precision) scaled = digits * 10n ** BigInt(precision - scale);
  else {
    const div = 10n ** BigInt(scale - precision);
    scaled = digits / div;
    const rem = (digits % div) * 2n;
    if (rem > div || (rem === div && scaled % 2n === 1n)) scaled += 1n;
  }
  let text = scaled.toString().padStart(precision + 1, '0');
  if (precision > 0) text = `${text.slice(0, -precision)}.${text.slice(-precision)}`;
  return d < 0 || Object.is(d, -0) ? `-${text}` : text;
}

/** The decimal digits of a whole-number string grouped by thousands (golang.org/x/text's en-US printer). */
function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** x/text's rendering of an infinity or NaN. */
function nonFiniteText(d: number): string {
  return Number.isNaN(d) ? 'NaN' : d > 0 ? '∞' : '-∞';
}

/** cel-go's %f: x/text's printer, thousands grouped. */
function formatFixedClause(d: number, precision: number): string {
  if (!Number.isFinite(d)) return nonFiniteText(d);
  const text = formatFixed(d, precision);
  const [whole = '', fraction] = text.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const grouped = sign + groupThousands(whole.slice(sign.length));
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/**
 * cel-go's %e: x/text's printer given "%6e" (cel-go passes the precision as a width, so every
 * value gets six decimals and short results are padded to six characters): "1.234568\u202f×\u202f10⁰³".
 */
function formatScientific(d: number): string {
  let text: string;
  if (!Number.isFinite(d)) text = nonFiniteText(d);
  else {
    const [mantissa = '', exp = '0'] = d.toExponential(6).split('e');
    const e = Number(exp);
    const digits = String(Math.abs(e)).padStart(2, '0').replace(/\d/g, (x) => SUPERSCRIPT[Number(x)] as string);
    text = `${mantissa}\u202f×\u202f10${e < 0 ? '⁻' : ''}${digits}`;
  }
  const length = [...text].length;
  return length < 6 ? ' '.repeat(6 - length) + text : text;
}

/** The double a %f or %e argument stands for: a double, or one of the strings cel-go accepts for the specials. */
function floatArgument(verb: string, arg: unknown): number {
  if (typeof arg === 'number') return arg;
  if (arg === 'NaN') return NaN;
  if (arg === 'Infinity') return Infinity;
  if (arg === '-Infinity') return -Infinity;
  return fail(`error during formatting: ${verb === 'f' ? 'fixed-point' : 'scientific'} clause can only be used on doubles, was given ${celTypeName(arg)}`);
}

function formatClause(verb: string, precision: number | undefined, arg: unknown): string {
  switch (verb) {
    case 's':
      return formatAsString(arg);
    case 'd': {
      const n = integerOf(arg);
      if (n === undefined) fail(`error during formatting: decimal clause can only be used on integers, was given ${celTypeName(arg)}`);
      return String(n);
    }
    case 'f':
      return formatFixedClause(floatArgument(verb, arg), precision ?? 6);
    case 'e':
      return formatScientific(floatArgument(verb, arg));
    case 'b': {
      const n = typeof arg === 'boolean' ? (arg ? 1n : 0n) : integerOf(arg);
      if (n === undefined) fail(`error during formatting: only integers and bools can be formatted as binary, was given ${celTypeName(arg)}`);
      return n.toString(2);
    }
    case 'o': {
      const n = integerOf(arg);
      if (n === undefined) fail(`error during formatting: octal clause can only be used on integers, was given ${celTypeName(arg)}`);
      return n.toString(8);
    }
    case 'x':
    case 'X': {
      const n = integerOf(arg);
      let hex: string;
      if (n !== undefined) hex = n.toString(16);
      else if (typeof arg === 'string') hex = Buffer.from(arg, 'utf8').toString('hex');
      else if (arg instanceof Uint8Array) hex = Buffer.from(arg).toString('hex');
      else return fail(`error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${celTypeName(arg)}`);
      return verb === 'X' ? hex.toUpperCase() : hex;
    }
    default:
      return fail(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

/** The verbs of a format string's clauses in order (%% excluded); throws cel-go's parse errors. */
export function formatVerbs(template: string): string[] {
  const verbs: string[] = [];
  const counting = new Proxy([], { get: (_t, key) => (key === 'length' ? Infinity : undefined) }) as unknown as unknown[];
  formatString(template, counting, (verb) => verbs.push(verb));
  return verbs;
}

/** Implements `string.format(list)`: substitutes each clause with the next argument. */
export function formatString(template: string, args: readonly unknown[], onlyParse?: (verb: string) => void): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    if (template[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    let j = i + 1;
    let precision: number | undefined;
    if (template[j] === '.') {
      const m = /^\d+/.exec(template.slice(j + 1));
      if (m === null) fail('could not parse formatting clause: error while parsing precision: no digits');
      precision = Number(m[0]);
      j += 1 + m[0].length;
    }
    const verb = template[j];
    if (verb === undefined) fail('could not parse formatting clause: unexpected end of string');
    if (!'sdfebxXo'.includes(verb)) fail(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    if (next >= args.length) fail(`index ${next} out of range`);
    if (onlyParse !== undefined) {
      onlyParse(verb);
      next++;
    } else out += formatClause(verb, precision, args[next++]);
    i = j;
  }
  return out;
}

const QUOTE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"',
};

/** Implements `strings.quote(string)` as cel-go does: only the named escapes; other control characters stay as they are, invalid runes become U+FFFD. */
export function quoteString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escaped = QUOTE_ESCAPES[ch];
    if (escaped !== undefined) out += escaped;
    else if (ch.length === 1 && ch >= '\ud800' && ch <= '\udfff') out += '\ufffd';
    else out += ch;
  }
  return `${out}"`;
}
