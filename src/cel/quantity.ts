// Kubernetes resource.Quantity as apimachinery v0.32 implements it (pkg/api/resource: quantity.go,
// amount.go, math.go, suffix.go), including what its two internal forms make observable through
// CEL: a quantity is either an int64Amount (an int64 times 10^scale) or an inf.Dec (a big unscaled
// integer and a decimal scale). Which form a value has decides isInteger()/asInteger() (an inf.Dec
// never converts), asApproximateFloat() (an inf.Dec from parsing is rounded to nano), arithmetic
// past int64 (8Ei is clamped to 2^63-1 when parsed) and the canonical text. The Go behaviours kept on
// purpose because they are visible to expressions:
//  - a parsed quantity whose text is already canonical keeps that text (`String()` returns it);
//  - DecimalSI exponents outside n..E print with no suffix (suffix lookup fails);
//  - `copy := *q` in the CEL library shares the inf.Dec, so add/sub on an inf.Dec quantity change it;
//  - Cmp converts its receiver to inf.Dec when either side is one (isLessThan, isGreaterThan, compareTo).

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const NANO = -9;
/** maxInt64Factors: decimal digits an int64 always holds. */
const MAX_INT64_FACTORS = 18;

/** inf.Dec: unscaled x 10^-scale. Mutable and shared between shallow copies, as Go's *inf.Dec is. */
interface Dec {
  unscaled: bigint;
  scale: number;
}

/** int64Amount: value x 10^scale, value within int64. */
interface Int64Amount {
  readonly value: bigint;
  readonly scale: number;
}

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const NUMERIC_ERROR = 'unable to parse numeric part of quantity';
const SUFFIX_ERROR = "unable to parse quantity's suffix";

/** Go's int32 conversion (wraps). */
function int32(n: bigint): number {
  return Number(BigInt.asIntN(32, n));
}

function inInt64(n: bigint): boolean {
  return n >= INT64_MIN && n <= INT64_MAX;
}

/**
 * Beyond this many digits a power of ten is refused: Go computes such values (slowly, 10^20M takes
 * seconds), but no quantity a person writes needs one, and an expression must not stall the server.
 */
const MAX_POW10 = 100_000;

function pow10(n: number): bigint {
  if (n > MAX_POW10) throw new Error('quantity out of range');
  return 10n ** BigInt(n);
}

// ---- int64Amount (amount.go, math.go) ----

/** positiveScaleInt64: base x 10^scale, or undefined on int64 overflow. */
function positiveScaleInt64(base: bigint, scale: number): bigint | undefined {
  if (base === 0n) return 0n;
  if (scale > 19) return undefined;
  const r = base * pow10(scale);
  return inInt64(r) ? r : undefined;
}

/** negativeScaleInt64: base / 10^scale rounded away from zero, and whether that was exact. */
function negativeScaleInt64(base: bigint, scale: number): [bigint, boolean] {
  if (scale === 0) return [base, true];
  if (scale > 19) return base === 0n ? [0n, true] : [base > 0n ? 1n : -1n, false];
  const d = pow10(scale);
  const q = base / d;
  if (base % d === 0n) return [q, true];
  return [base > 0n ? q + 1n : q - 1n, false];
}

function intAsInt64(a: Int64Amount): bigint | undefined {
  if (a.scale === 0) return a.value;
  if (a.scale < 0) return undefined;
  return positiveScaleInt64(a.value, a.scale);
}

function intAsScaledInt64(a: Int64Amount, scale: number): bigint | undefined {
  if (a.scale < scale) return negativeScaleInt64(a.value, scale - a.scale)[0];
  return positiveScaleInt64(a.value, a.scale - scale);
}

function intAsDec(a: Int64Amount): Dec {
  return { unscaled: a.value, scale: -a.scale };
}

/** int64Amount.Add: the sum, or undefined when it overflows (the caller falls back to inf.Dec). */
function intAdd(a: Int64Amount, b: Int64Amount): Int64Amount | undefined {
  if (b.value === 0n) return a;
  if (a.value === 0n) return b;
  if (a.scale === b.scale) {
    const c = a.value + b.value;
    return inInt64(c) ? { value: c, scale: a.scale } : undefined;
  }
  if (a.scale > b.scale) {
    const c = positiveScaleInt64(a.value, a.scale - b.scale);
    if (c === undefined || !inInt64(c + b.value)) return undefined;
    return { value: c + b.value, scale: b.scale };
  }
  const c = positiveScaleInt64(b.value, b.scale - a.scale);
  if (c === undefined || !inInt64(a.value + c)) return undefined;
  return { value: a.value + c, scale: a.scale };
}

/** removeInt64Factors / removeBigIntFactors: strips factors of base, counting them. */
function removeFactors(value: bigint, base: bigint): [bigint, number] {
  let times = 0;
  let r = value;
  while (r !== 0n && r % base === 0n) {
    r /= base;
    times++;
  }
  return [r, times];
}

// ---- inf.Dec ----

function decCmp(x: Dec, y: Dec): number {
  const sx = x.unscaled < 0n ? -1 : x.unscaled > 0n ? 1 : 0;
  const sy = y.unscaled < 0n ? -1 : y.unscaled > 0n ? 1 : 0;
  if (sx !== sy || sx === 0) return sx < sy ? -1 : sx > sy ? 1 : 0;
  // Different orders of magnitude decide without scaling (scales may be far apart: 1e2147483647).
  const mx = (x.unscaled < 0n ? -x.unscaled : x.unscaled).toString().length - x.scale;
  const my = (y.unscaled < 0n ? -y.unscaled : y.unscaled).toString().length - y.scale;
  if (mx !== my) return (mx > my ? 1 : -1) * sx;
  const s = Math.max(x.scale, y.scale);
  const a = x.unscaled * pow10(s - x.scale);
  const b = y.unscaled * pow10(s - y.scale);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** x + sign*y at the larger scale (inf.Dec Add/Sub). */
function decAdd(x: Dec, y: Dec, sign: 1n | -1n): Dec {
  const s = Math.max(x.scale, y.scale);
  return { unscaled: x.unscaled * pow10(s - x.scale) + sign * y.unscaled * pow10(s - y.scale), scale: s };
}

/** inf.Dec Round(x, scale, RoundUp): rounds away from zero. */
function decRoundUp(x: Dec, scale: number): Dec {
  if (scale >= x.scale) return { unscaled: x.unscaled * pow10(scale - x.scale), scale };
  const d = pow10(x.scale - scale);
  let q = x.unscaled / d;
  if (x.unscaled % d !== 0n) q += x.unscaled > 0n ? 1n : -1n;
  return { unscaled: q, scale };
}

// ---- Go's math.Pow10, so approximate floats round as Go's do ----

const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS_32 = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
const POW10_NEG_32 = Array.from({ length: 11 }, (_, i) => Number(`1e-${i * 32}`));

function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return (POW10_POS_32[Math.floor(n / 32)] as number) * (POW10_TAB[n % 32] as number);
  if (n >= -323 && n <= 0) return (POW10_NEG_32[Math.floor(-n / 32)] as number) / (POW10_TAB[-n % 32] as number);
  return n > 0 ? Infinity : 0;
}

// ---- suffixes (suffix.go) ----

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s]));

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | undefined {
  const dec = DECIMAL_SUFFIXES[suffix];
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BINARY_SUFFIXES[suffix];
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'E' || suffix[0] === 'e')) {
    // strconv.ParseInt(s, 10, 64), then an int32 conversion.
    if (!/^[+-]?\d+$/.test(suffix.slice(1))) return undefined;
    const parsed = BigInt(suffix.slice(1));
    if (!inInt64(parsed)) return undefined;
    return { base: 10, exponent: int32(parsed), format: 'DecimalExponent' };
  }
  return undefined;
}

function constructSuffix(base: 2 | 10, exponent: number, format: QuantityFormat): string {
  if (format === 'DecimalSI') return base === 10 ? DECIMAL_BY_EXPONENT.get(exponent) ?? '' : '';
  if (format === 'BinarySI') return base === 2 ? BINARY_BY_EXPONENT.get(exponent) ?? '' : '';
  return exponent === 0 ? '' : `e${exponent}`;
}

/** The mantissa and exponent (a multiple of 3) of the canonical decimal text. */
function canonicalDecimal(unscaled: bigint, exponent: number): [bigint, number] {
  const [amount, times] = removeFactors(unscaled, 10n);
  let e = exponent + times;
  let n = amount;
  while (e % 3 !== 0) {
    n *= 10n;
    e--;
  }
  return [n, e];
}

/** A resource.Quantity. Mutable where Go's is observed to mutate (see the file comment). */
export class Quantity {
  readonly celTypeName = 'kubernetes.Quantity';
  /** The int64Amount form, meaningful while `d` is undefined. */
  private i: Int64Amount;
  /** The inf.Dec form; shared with shallow copies. */
  private d: Dec | undefined;
  /** Cached text: the parsed string when it was canonical, else computed on first String(). */
  private s: string;
  format: QuantityFormat;

  constructor(i: Int64Amount, d: Dec | undefined, format: QuantityFormat, s = '') {
    this.i = i;
    this.d = d;
    this.format = format;
    this.s = s;
  }

  /** `copy := *q`: the fields copied, the inf.Dec shared. */
  private shallowCopy(): Quantity {
    return new Quantity(this.i, this.d, this.format, this.s);
  }

  private toDec(): Dec {
    if (this.d === undefined) {
      this.d = intAsDec(this.i);
      this.i = { value: 0n, scale: 0 };
    }
    return this.d;
  }

  isZero(): boolean {
    return this.d !== undefined ? this.d.unscaled === 0n : this.i.value === 0n;
  }

  sign(): -1 | 0 | 1 {
    const v = this.d !== undefined ? this.d.unscaled : this.i.value;
    return v < 0n ? -1 : v > 0n ? 1 : 0;
  }

  /** Quantity.Cmp: exact; converts this quantity to inf.Dec when either side is one, as Go does. */
  cmp(y: Quantity): -1 | 0 | 1 {
    if (this.d === undefined && y.d === undefined) {
      const c = decCmp(intAsDec(this.i), intAsDec(y.i));
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    const c = decCmp(this.toDec(), y.d ?? intAsDec(y.i));
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }

  /** Quantity.Equal (a value receiver: neither side changes). */
  equals(y: Quantity): boolean {
    return this.shallowCopy().cmp(y) === 0;
  }

  private cmpInt64(n: bigint): number {
    return decCmp(this.d ?? intAsDec(this.i), { unscaled: n, scale: 0 });
  }

  /** The CEL library's add: `copy := *q; copy.Add(y)`. */
  plus(y: Quantity): Quantity {
    const q = this.shallowCopy();
    q.addInPlace(y, 1n);
    return q;
  }

  /** The CEL library's sub: `copy := *q; copy.Sub(y)`. */
  minus(y: Quantity): Quantity {
    const q = this.shallowCopy();
    q.addInPlace(y, -1n);
    return q;
  }

  /** Quantity.Add / Quantity.Sub. */
  private addInPlace(y: Quantity, sign: 1n | -1n): void {
    this.s = '';
    if (sign === 1n) {
      if (this.d === undefined && y.d === undefined) {
        if (this.i.value === 0n) this.format = y.format;
        const r = intAdd(this.i, y.i);
        if (r !== undefined) {
          this.i = r;
          return;
        }
      } else if (this.isZero()) {
        this.format = y.format;
      }
    } else {
      if (this.isZero()) this.format = y.format;
      if (this.d === undefined && y.d === undefined) {
        // int64Amount.Sub negates in int64: -(-2^63) wraps to -2^63.
        const r = intAdd(this.i, { value: BigInt.asIntN(64, -y.i.value), scale: y.i.scale });
        if (r !== undefined) {
          this.i = r;
          return;
        }
      }
    }
    // q.ToDec().d.Dec.Add(q.d.Dec, y.AsDec()): the result is written into the (shared) inf.Dec.
    const d = this.toDec();
    const r = decAdd(d, y.d ?? intAsDec(y.i), sign);
    d.unscaled = r.unscaled;
    d.scale = r.scale;
  }

  /** Quantity.AsInt64: the integer value; never for an inf.Dec. */
  asInt64(): bigint | undefined {
    if (this.d !== undefined) return undefined;
    return intAsInt64(this.i);
  }

  /** Quantity.AsApproximateFloat64. */
  asApproximateFloat(): number {
    const [base, exponent] = this.d !== undefined ? [Number(this.d.unscaled), -this.d.scale] : [Number(this.i.value), this.i.scale];
    if (exponent === 0) return base;
    return base * goPow10(exponent);
  }

  /** Quantity.String: the cached text or the canonical one. */
  toString(): string {
    if (this.s === '') this.s = this.canonicalize();
    return this.s;
  }

  /** Quantity.CanonicalizeBytes. */
  private canonicalize(): string {
    if (this.isZero()) return '0';
    let format = this.format;
    let rounded: Dec | undefined;
    if (format === 'BinarySI') {
      if (this.cmpInt64(-1024n) > 0 && this.cmpInt64(1024n) < 0) format = 'DecimalSI';
      else {
        const [r, exact] = this.asScale0();
        if (exact) rounded = r;
        else format = 'DecimalSI';
      }
    }
    if (format !== 'BinarySI' || rounded === undefined) {
      // int64Amount.AsCanonicalBytes falls back to inf.Dec's on overflow: the same digits.
      const [n, e] = this.d !== undefined ? canonicalDecimal(this.d.unscaled, -this.d.scale) : canonicalDecimal(this.i.value, this.i.scale);
      return `${n}${constructSuffix(10, e, format)}`;
    }
    // AsCanonicalBase1024Bytes of a value at scale >= 0.
    const whole = rounded.scale <= 0 ? rounded.unscaled * pow10(-rounded.scale) : decRoundUp(rounded, 0).unscaled;
    const [n, e] = removeFactors(whole, 1024n);
    return `${n}${constructSuffix(2, e * 10, format)}`;
  }

  /** Quantity.AsScale(0): the value rounded up to an integer, and whether that was exact. */
  private asScale0(): [Dec, boolean] {
    if (this.d !== undefined) {
      const r = decRoundUp(this.d, 0);
      return [r, decCmp(r, this.d) === 0];
    }
    if (this.i.scale >= 0) return [intAsDec(this.i), true];
    const [v, exact] = negativeScaleInt64(this.i.value, -this.i.scale);
    return [{ unscaled: v, scale: 0 }, exact];
  }

  /** Quantity.ScaledValue(scale) of an int64Amount, for callers wanting milli/nano values. */
  scaledInt64(scale: number): bigint | undefined {
    if (this.d !== undefined) return undefined;
    return intAsScaledInt64(this.i, scale);
  }
}

/** resource.ParseQuantity; the Go error text when the string is not a quantity. */
export function parseQuantityOrError(str: string): Quantity | { error: string } {
  if (str.length === 0) return { error: QUANTITY_FORMAT_ERROR };
  if (str === '0') return new Quantity({ value: 0n, scale: 0 }, undefined, 'DecimalSI', str);
  const parts = splitQuantity(str);
  if (parts === undefined) return { error: QUANTITY_FORMAT_ERROR };
  const { positive, value, num, denom, suffix } = parts;
  const interpreted = interpretSuffix(suffix);
  if (interpreted === undefined) return { error: SUFFIX_ERROR };
  const { base, exponent } = interpreted;
  let { format } = interpreted;

  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      // int32(float32(exponent)*3/10): exact for the suffix exponents 10..60.
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }

  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      if (!inInt64(v)) return { error: NUMERIC_ERROR };
      let result = v * mantissa;
      if (inInt64(result)) {
        if (!positive) result = -result;
        const amount = { value: result, scale };
        const canonical = format === 'BinarySI' ? exponent % 10 === 0 && (v & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return new Quantity(amount, undefined, format, canonical ? str : '');
      }
    }
  }

  const parsed = parseDec(value);
  if (parsed === undefined) return { error: NUMERIC_ERROR };
  let amount: Dec = parsed;
  if (base === 10) amount = { unscaled: amount.unscaled, scale: amount.scale - exponent };
  else amount = { unscaled: amount.unscaled << BigInt(exponent), scale: amount.scale };
  const negative = amount.unscaled < 0n;
  if (negative) amount = { unscaled: -amount.unscaled, scale: amount.scale };
  // Round up to nano unless the value is an int64 zero.
  if (amount.unscaled !== 0n) amount = decRoundUp(amount, -NANO);
  if (format === 'BinarySI' && decCmp(amount, { unscaled: INT64_MAX, scale: 0 }) > 0) amount = { unscaled: INT64_MAX, scale: 0 };
  if (format === 'BinarySI' && decCmp(amount, { unscaled: 1n, scale: 0 }) < 0 && amount.unscaled > 0n) format = 'DecimalSI';
  if (negative) amount = { unscaled: -amount.unscaled, scale: amount.scale };
  return new Quantity({ value: 0n, scale: 0 }, amount, format);
}

/** parseQuantityString: sign, the digits before and after the point (leading zeros dropped), and the suffix. */
function splitQuantity(str: string): { positive: boolean; value: string; num: string; denom: string; suffix: string } | undefined {
  const end = str.length;
  let pos = 0;
  let positive = true;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  let num = str.slice(pos, i);
  if (num === '') num = '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && 'eEinumkKMGTP'.includes(str[i] as string)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  return undefined;
}

/** inf.Dec SetString: an optional sign, digits with at most one point, nothing else. */
function parseDec(s: string): Dec | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(s);
  if (m === null) return undefined;
  const [, sign = '', whole = '', fraction = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  const unscaled = BigInt(whole + fraction);
  return { unscaled: sign === '-' ? -unscaled : unscaled, scale: s.includes('.') ? fraction.length : 0 };
}

/** Parses a quantity string; returns undefined when it is not a valid Kubernetes quantity. */
export function parseQuantity(text: string): Quantity | undefined {
  const q = parseQuantityOrError(text);
  return q instanceof Quantity ? q : undefined;
}

/** resource.NewQuantity(n, DecimalExponent), as quantity arithmetic with ints uses. */
export function quantityFromInt(n: bigint): Quantity {
  return new Quantity({ value: n, scale: 0 }, undefined, 'DecimalExponent');
}
