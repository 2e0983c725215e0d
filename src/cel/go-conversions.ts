// String conversions exactly as cel-go performs them with Go's strconv and time packages:
// int(string) is strconv.ParseInt(s, 10, 64), uint(string) ParseUint, double(string) ParseFloat,
// timestamp(string) time.Parse(time.RFC3339, s), duration(string) time.ParseDuration.
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { makeTimestamp } from './timestamps.ts';

function fail(message: string): never {
  throw new Error(message);
}

const conversionError = (to: string): never => fail(`type conversion error from 'string' to '${to}'`);

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

export function goParseInt(s: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(s)) return conversionError('int');
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? conversionError('int') : v;
}

export function goParseUint(s: string): UnsignedInt {
  if (!/^[0-9]+$/.test(s)) return conversionError('uint');
  const v = BigInt(s);
  return v > UINT64_MAX ? conversionError('uint') : new UnsignedInt(v);
}

const DECIMAL_FLOAT = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]((?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+))[pP]([+-]?[0-9]+)$/;
const SPECIAL_FLOAT = /^([+-]?)(inf|infinity|nan)$/i;

export function goParseFloat(s: string): number {
  const special = SPECIAL_FLOAT.exec(s);
  if (special !== null) return special[2]?.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  let v: number;
  const hex = HEX_FLOAT.exec(s);
  if (hex !== null) {
    const [whole = '', frac = ''] = (hex[2] as string).split('.');
    const mantissa = parseInt(whole || '0', 16) + (frac === '' ? 0 : parseInt(frac, 16) / 16 ** frac.length);
    v = (hex[1] === '-' ? -1 : 1) * mantissa * 2 ** Number(hex[3]);
  } else if (DECIMAL_FLOAT.test(s.replace(/(?<=[0-9])_(?=[0-9])/g, ''))) {
    // strconv.ParseFloat accepts underscores between digits, as Go literals do.
    v = Number(s.replace(/_/g, ''));
  } else {
    return conversionError('double');
  }
  // ParseFloat reports a range error (which cel-go turns into a conversion error) on overflow.
  return Number.isFinite(v) ? v : conversionError('double');
}

/** cel-go's uint(double): truncation, an error outside [0, 2^64). */
export function uintFromDouble(d: number): UnsignedInt {
  if (!(d >= 0 && d < 2 ** 64)) fail('unsigned integer overflow');
  return new UnsignedInt(BigInt(Math.trunc(d)));
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|([+-])(\d{2}):(\d{2}))$/;

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** time.Parse(time.RFC3339, s): nanoseconds (up to nine digits of fraction) and the written offset kept (see timestamps.ts). */
export function goParseTimestamp(s: string): Date {
  // cel-go reports every parse failure as the one conversion error (time.Parse's text is dropped).
  const invalid = (): never => conversionError('google.protobuf.Timestamp');
  const m = RFC3339.exec(s);
  if (m === null) return invalid();
  const [y, mo, d, h, mi, sec] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) || h > 23 || mi > 59 || sec > 59) invalid();
  let offsetMinutes = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 24 || om > 59) invalid();
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(Date.UTC(2000, mo - 1, d, h, mi, sec));
  date.setUTCFullYear(y);
  const fraction = BigInt((m[7] ?? '').slice(0, 9).padEnd(9, '0'));
  const nanos = (BigInt(date.getTime()) - BigInt(offsetMinutes * 60_000)) * 1_000_000n + fraction;
  return makeTimestamp(nanos, offsetMinutes * 60);
}

const DURATION_UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n,
};

/** time.ParseDuration: a sequence of decimal numbers with units, optional sign; "0" alone; int64 nanoseconds. */
export function goParseDuration(s: string): Duration {
  // cel-go reports a failed time.ParseDuration as a conversion error, without Go's own text.
  const invalid = (): never => conversionError('google.protobuf.Duration');
  let rest = s;
  let negative = false;
  if (rest[0] === '-' || rest[0] === '+') {
    negative = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return new Duration(0n, 0);
  if (rest === '') invalid();
  let total = 0n;
  const part = /^([0-9]*)(?:\.([0-9]*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/;
  while (rest !== '') {
    const m = part.exec(rest);
    if (m === null || (m[1] === '' && (m[2] ?? '') === '')) return invalid();
    const unit = DURATION_UNITS[m[3] as string] as bigint;
    const whole = BigInt(m[1] || '0');
    const frac = m[2] ?? '';
    total += whole * unit + (frac === '' ? 0n : (BigInt(frac) * unit) / 10n ** BigInt(frac.length));
    if (total > INT64_MAX + (negative ? 1n : 0n)) invalid();
    rest = rest.slice(m[0].length);
  }
  const nanos = negative ? -total : total;
  return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
}
