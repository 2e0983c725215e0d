/**
 * Go's time.ParseDuration, for the flags and configuration files (authorization and admission
 * webhook timeouts) that take Go durations.
 */

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3, // U+00B5 micro sign
  'μs': 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration (`300ms`, `1.5h`, `2h45m`, `-1m30s`, `0`) into milliseconds. Throws with
 * Go's wording (`time: invalid duration "x"`, `time: missing unit ...`, `time: unknown unit ...`).
 */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new Error(`time: invalid duration ${quoted}`);
  let total = 0;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const [whole = '', intPart = '', fracPart] = number;
    // At least one digit on one side of the point.
    if (intPart === '' && (fracPart ?? '') === '') throw new Error(`time: invalid duration ${quoted}`);
    rest = rest.slice(whole.length);
    const unitMatch = /^[^\d.]+/.exec(rest);
    if (unitMatch === null) throw new Error(`time: missing unit in duration ${quoted}`);
    const unit = unitMatch[0];
    const scale = DURATION_UNITS_MS[unit];
    if (scale === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    rest = rest.slice(unit.length);
    total += Number(`${intPart || '0'}.${fracPart || '0'}`) * scale;
  }
  // Go durations are int64 nanoseconds: about 292 years.
  if (total > 9_223_372_036_854) throw new Error(`time: invalid duration ${quoted}`);
  return sign * total;
}
