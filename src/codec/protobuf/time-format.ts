/**
 * meta/v1 Time and MicroTime between their wire form ({seconds, nanos} since the Unix epoch)
 * and kube's JSON strings: Time as RFC 3339 to the second (`2024-01-02T03:04:05Z`), MicroTime
 * with six fraction digits (`2024-01-02T03:04:05.000000Z`), both in UTC; Go's zero time is null.
 */

export interface Timestamp {
  readonly seconds: number;
  readonly nanos: number;
}

/** Unix seconds of 0001-01-01T00:00:00Z, Go's zero time.Time. */
export const GO_ZERO_SECONDS = -62135596800;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** True for what Go's Time.IsZero reports: the zero instant (kube writes it as JSON null). */
export function isZeroTimestamp(ts: Timestamp): boolean {
  return ts.seconds === GO_ZERO_SECONDS && ts.nanos === 0;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function formatSeconds(seconds: number): string {
  const d = new Date(seconds * 1000);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`
  );
}

/** Time's JSON: seconds only (Go's Time unmarshal drops the nanos of the wire value too). */
export function formatTime(ts: Timestamp): string | null {
  if (isZeroTimestamp(ts)) return null;
  return `${formatSeconds(ts.seconds)}Z`;
}

/** MicroTime's JSON: microseconds, truncated as Go's formatting truncates. */
export function formatMicroTime(ts: Timestamp): string | null {
  if (isZeroTimestamp(ts)) return null;
  return `${formatSeconds(ts.seconds)}.${pad(Math.floor(ts.nanos / 1000), 6)}Z`;
}

/** Parses an RFC 3339 timestamp (any offset, optional fraction); undefined when malformed. */
export function parseRfc3339(text: string): Timestamp | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zulu, sign, oh, om] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return undefined;
  // Date.UTC maps years 0-99 into 1900-1999; set the year explicitly.
  const date = new Date(ms);
  date.setUTCFullYear(Number(y));
  let seconds = Math.floor(date.getTime() / 1000);
  if (!zulu) {
    const offset = (Number(oh) * 60 + Number(om)) * 60;
    seconds -= sign === '-' ? -offset : offset;
  }
  const nanos = frac ? Number(frac.padEnd(9, '0')) : 0;
  return { seconds, nanos };
}
