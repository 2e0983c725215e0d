/**
 * metav1.Time and metav1.MicroTime as Go decodes and re-encodes them. UnmarshalJSON parses with
 * time.Parse and the layouts RFC3339 (`2006-01-02T15:04:05Z07:00`) and RFC3339Micro
 * (`2006-01-02T15:04:05.000000Z07:00`); MarshalJSON formats the UTC instant with the same layout.
 * So a Time accepts any fraction (and drops it), a MicroTime needs exactly six digits, and both
 * come back in UTC with `Z`. Failures carry Go's ParseError text, which kube puts in its 400.
 */

export type GoTimeLayout = 'Time' | 'MicroTime';

const LAYOUTS: Readonly<Record<GoTimeLayout, string>> = {
  Time: '2006-01-02T15:04:05Z07:00',
  MicroTime: '2006-01-02T15:04:05.000000Z07:00',
};

export type GoTimeResult = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly message: string };

/** The layout chunks of Go's parser for the two layouts: literals and the std elements between them. */
type Chunk = { readonly lit: string } | { readonly std: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'micro' | 'zone'; readonly text: string };

const CHUNKS: Readonly<Record<GoTimeLayout, readonly Chunk[]>> = {
  Time: chunks(false),
  MicroTime: chunks(true),
};

function chunks(micro: boolean): Chunk[] {
  return [
    { std: 'year', text: '2006' },
    { lit: '-' },
    { std: 'month', text: '01' },
    { lit: '-' },
    { std: 'day', text: '02' },
    { lit: 'T' },
    { std: 'hour', text: '15' },
    { lit: ':' },
    { std: 'minute', text: '04' },
    { lit: ':' },
    { std: 'second', text: '05' },
    ...(micro ? [{ std: 'micro', text: '.000000' } as const] : []),
    { std: 'zone', text: 'Z07:00' },
  ];
}

/** Go's time.quote: the string in double quotes, escaping quotes, backslashes and non-printables. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

const isDigit = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Go's getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): { n: number; rest: string } | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : { n: Number(s[0]), rest: s.slice(1) };
  return { n: Number(s.slice(0, 2)), rest: s.slice(2) };
}

/** Go's parseNanoseconds over value[0:n] (a `.` or `,` then digits). */
function parseNanos(value: string, n: number): number | undefined {
  if (value[0] !== '.' && value[0] !== ',') return undefined;
  const digits = value.slice(1, Math.min(n, 10));
  if (!/^\d+$/.test(digits)) return undefined;
  return Number(digits) * 10 ** (9 - digits.length);
}

function daysIn(month: number, year: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Parses `value` as Go's time.Parse does with the layout; on success, the Go re-encoding in UTC. */
export function parseGoTime(value: string, layout: GoTimeLayout): GoTimeResult {
  const layoutText = LAYOUTS[layout];
  const fail = (layoutElem: string, valueElem: string): GoTimeResult => ({
    ok: false,
    message: `parsing time ${goQuote(value)} as ${goQuote(layoutText)}: cannot parse ${goQuote(valueElem)} as ${goQuote(layoutElem)}`,
  });
  const failMessage = (message: string): GoTimeResult => ({ ok: false, message: `parsing time ${goQuote(value)}${message}` });
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let offsetMinutes = 0;
  for (const chunk of CHUNKS[layout]) {
    if ('lit' in chunk) {
      if (!rest.startsWith(chunk.lit)) return fail(chunk.lit, rest);
      rest = rest.slice(chunk.lit.length);
      continue;
    }
    const hold = rest;
    let range = '';
    switch (chunk.std) {
      case 'year': {
        if (rest.length < 4 || !/^\d{4}/.test(rest)) return fail(chunk.text, hold);
        year = Number(rest.slice(0, 4));
        rest = rest.slice(4);
        break;
      }
      case 'month': {
        const r = getnum(rest, true);
        if (!r) return fail(chunk.text, hold);
        ({ n: month, rest } = r);
        if (month <= 0 || month > 12) range = 'month';
        break;
      }
      case 'day': {
        // Any one or two digits here; the date as a whole is checked after parsing.
        const r = getnum(rest, true);
        if (!r) return fail(chunk.text, hold);
        ({ n: day, rest } = r);
        break;
      }
      case 'hour': {
        const r = getnum(rest, false);
        if (!r) return fail(chunk.text, hold);
        ({ n: hour, rest } = r);
        if (hour >= 24) range = 'hour';
        break;
      }
      case 'minute': {
        const r = getnum(rest, true);
        if (!r) return fail(chunk.text, hold);
        ({ n: minute, rest } = r);
        if (minute >= 60) range = 'minute';
        break;
      }
      case 'second': {
        const r = getnum(rest, true);
        if (!r) return fail(chunk.text, hold);
        ({ n: second, rest } = r);
        if (second >= 60) {
          range = 'second';
          break;
        }
        // A fraction the layout does not spell is still read (and, for Time, later dropped).
        if (layout === 'Time' && rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
          let n = 2;
          while (isDigit(rest, n)) n++;
          nanos = parseNanos(rest, n) ?? 0;
          rest = rest.slice(n);
        }
        break;
      }
      case 'micro': {
        if (rest.length < 7) return fail(chunk.text, hold);
        const ns = parseNanos(rest, 7);
        if (ns === undefined) return fail(chunk.text, hold);
        nanos = ns;
        rest = rest.slice(7);
        break;
      }
      case 'zone': {
        if (rest[0] === 'Z') {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ':' || (rest[0] !== '+' && rest[0] !== '-')) return fail(chunk.text, hold);
        const hh = getnum(rest.slice(1, 3), true);
        const mm = getnum(rest.slice(4, 6), true);
        if (!hh || !mm) return fail(chunk.text, hold);
        if (hh.n > 24) range = 'time zone offset hour';
        else if (mm.n > 60) range = 'time zone offset minute';
        offsetMinutes = (rest[0] === '-' ? -1 : 1) * (hh.n * 60 + mm.n);
        rest = rest.slice(6);
        break;
      }
    }
    if (range) return failMessage(`: ${range} out of range`);
  }
  if (rest.length > 0) return failMessage(`: extra text: ${goQuote(rest)}`);
  if (day < 1 || day > daysIn(month, year)) return failMessage(': day out of range');
  return { ok: true, value: formatUtc(year, month, day, hour, minute, second, offsetMinutes, layout === 'MicroTime' ? Math.floor(nanos / 1000) : undefined) };
}

/** The instant in UTC, `2006-01-02T15:04:05Z` or with `.000000` microseconds. */
function formatUtc(y: number, mo: number, d: number, h: number, mi: number, s: number, offsetMinutes: number, micros: number | undefined): string {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi - offsetMinutes, s, 0);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const base = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return micros === undefined ? `${base}Z` : `${base}.${pad(micros, 6)}Z`;
}
