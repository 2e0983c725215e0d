// Kubernetes resource.Quantity: exact decimal values with SI, binary-SI or exponent suffixes, and
// the canonical text kube-apiserver prints (apimachinery pkg/api/resource/quantity.go).

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_POWER = new Map(Object.entries(BINARY_SUFFIXES).map(([s, p]) => [p, s]));
const QUANTITY_PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** An exact quantity: num x 10^scale, remembering the suffix family it was written in. */
export class Quantity {
  readonly celTypeName = 'kubernetes.Quantity';
  constructor(
    readonly num: bigint,
    readonly scale: number,
    readonly format: QuantityFormat,
  ) {}

  /** Compares exactly: -1, 0 or 1. */
  compare(other: Quantity): -1 | 0 | 1 {
    const s = Math.min(this.scale, other.scale);
    const a = this.num * 10n ** BigInt(this.scale - s);
    const b = other.num * 10n ** BigInt(other.scale - s);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  add(other: Quantity): Quantity {
    const s = Math.min(this.scale, other.scale);
    const sum = this.num * 10n ** BigInt(this.scale - s) + other.num * 10n ** BigInt(other.scale - s);
    return new Quantity(sum, s, this.num === 0n ? other.format : this.format);
  }

  negate(): Quantity {
    return new Quantity(-this.num, this.scale, this.format);
  }

  sign(): -1 | 0 | 1 {
    return this.num < 0n ? -1 : this.num > 0n ? 1 : 0;
  }

  /** The exact integer value, or undefined when fractional or outside int64. */
  asInt64(): bigint | undefined {
    let n = this.num;
    if (this.scale >= 0) n *= 10n ** BigInt(this.scale);
    else {
      const d = 10n ** BigInt(-this.scale);
      if (n % d !== 0n) return undefined;
      n /= d;
    }
    return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
  }

  asApproximateFloat(): number {
    return Number(this.num) * 10 ** this.scale;
  }

  /** The canonical text kube-apiserver would print for this quantity. */
  toString(): string {
    const { num, scale } = roundUpToNano(this.num, this.scale);
    if (num === 0n) return '0';
    if (this.format === 'BinarySI') {
      const binary = binaryText(num, scale);
      if (binary !== undefined) return binary;
    }
    let [n, s] = stripTrailingZeros(num, scale);
    const s3 = Math.floor(s / 3) * 3;
    n *= 10n ** BigInt(s - s3);
    s = s3;
    if (this.format === 'DecimalExponent') return s === 0 ? `${n}` : `${n}e${s}`;
    if (s > 18) {
      n *= 10n ** BigInt(s - 18);
      s = 18;
    }
    return `${n}${DECIMAL_BY_EXPONENT.get(s) ?? ''}`;
  }
}

function roundUpToNano(num: bigint, scale: number): { num: bigint; scale: number } {
  if (scale >= -9) return { num, scale };
  const d = 10n ** BigInt(-9 - scale);
  let q = num / d;
  if (num % d !== 0n) q += num > 0n ? 1n : -1n;
  return { num: q, scale: -9 };
}

function stripTrailingZeros(num: bigint, scale: number): [bigint, number] {
  while (num !== 0n && num % 10n === 0n) {
    num /= 10n;
    scale++;
  }
  return [num, scale];
}

function binaryText(num: bigint, scale: number): string | undefined {
  let n = num;
  if (scale >= 0) n *= 10n ** BigInt(scale);
  else {
    const d = 10n ** BigInt(-scale);
    if (n % d !== 0n) return undefined;
    n /= d;
  }
  if (n > -1024n && n < 1024n) return undefined;
  let power = 0;
  while (power < 6 && n % 1024n === 0n) {
    n /= 1024n;
    power++;
  }
  return `${n}${BINARY_BY_POWER.get(power) ?? ''}`;
}

/** Parses a quantity string; returns undefined when it is not a valid Kubernetes quantity. */
export function parseQuantity(text: string): Quantity | undefined {
  const m = QUANTITY_PATTERN.exec(text);
  if (m === null) return undefined;
  const [, signText = '', digits = '', suffix = ''] = m;
  const [whole = '', fraction = ''] = digits.split('.');
  let num = BigInt((whole + fraction) || '0');
  let scale = -fraction.length;
  let format: QuantityFormat = 'DecimalSI';
  const binaryPower = BINARY_SUFFIXES[suffix];
  if (binaryPower !== undefined) {
    num *= 1024n ** BigInt(binaryPower);
    format = 'BinarySI';
  } else if (suffix in DECIMAL_SUFFIXES) {
    scale += DECIMAL_SUFFIXES[suffix] ?? 0;
  } else {
    const exp = Number(suffix.slice(1));
    if (!Number.isSafeInteger(exp) || Math.abs(exp) > 1000) return undefined;
    scale += exp;
    format = 'DecimalExponent';
  }
  if (signText === '-') num = -num;
  return new Quantity(num, scale, format);
}

/** A quantity from an int64, as quantity arithmetic with ints uses. */
export function quantityFromInt(n: bigint): Quantity {
  return new Quantity(n, 0, 'DecimalSI');
}
