// CEL timestamps with Go's precision. The engine represents a timestamp as a JavaScript Date
// (milliseconds, always UTC); cel-go's is a time.Time: nanoseconds, and the UTC offset it was parsed
// with, which string() prints. A Date stays the representation (the engine dispatches on its
// constructor), carrying the nanoseconds below the millisecond and the offset as own properties;
// every operation that reads or makes a timestamp goes through this module.
import { Duration } from '@marcbachmann/cel-js/evaluator';

interface Precise {
  /** Nanoseconds below the Date's millisecond, 0..999999. */
  subMilliNanos?: number;
  /** The UTC offset the timestamp was written with, in seconds east; absent for UTC. */
  offsetSeconds?: number;
}

const NANOS_PER_MILLI = 1_000_000n;
const NANOS_PER_SECOND = 1_000_000_000n;

/** A timestamp at `nanos` since the Unix epoch, printed at the given UTC offset. */
export function makeTimestamp(nanos: bigint, offsetSeconds = 0): Date {
  let ms = nanos / NANOS_PER_MILLI;
  if (ms * NANOS_PER_MILLI > nanos) ms -= 1n;
  const d = new Date(Number(ms)) as Date & Precise;
  const sub = Number(nanos - ms * NANOS_PER_MILLI);
  if (sub !== 0) d.subMilliNanos = sub;
  if (offsetSeconds !== 0) d.offsetSeconds = offsetSeconds;
  return d;
}

/** Nanoseconds since the Unix epoch. */
export function timestampNanos(t: Date): bigint {
  return BigInt(t.getTime()) * NANOS_PER_MILLI + BigInt((t as Precise).subMilliNanos ?? 0);
}

export function offsetOf(t: Date): number {
  return (t as Precise).offsetSeconds ?? 0;
}

export function compareTimestamps(a: Date, b: Date): number {
  const x = timestampNanos(a);
  const y = timestampNanos(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function durationNanos(d: Duration): bigint {
  return d.seconds * NANOS_PER_SECOND + BigInt(d.nanos);
}

/** A Duration of `nanos` (seconds and nanos share the sign, as the engine's Duration does). */
export function durationFromNanos(nanos: bigint): Duration {
  return new Duration(nanos / NANOS_PER_SECOND, Number(nanos % NANOS_PER_SECOND));
}

/** t + d, keeping t's offset (Go's Time.Add keeps the location). */
export function addDuration(t: Date, d: Duration, sign: 1n | -1n = 1n): Date {
  return makeTimestamp(timestampNanos(t) + sign * durationNanos(d), offsetOf(t));
}

/** a - b as a Duration. */
export function timestampDifference(a: Date, b: Date): Duration {
  return durationFromNanos(timestampNanos(a) - timestampNanos(b));
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * Go's time.RFC3339Nano rendering, as cel-go's string(timestamp): the wall clock at the
 * timestamp's offset, the fraction without trailing zeros, `Z` for a zero offset. With `utc`,
 * the same instant in UTC.
 */
export function formatTimestamp(t: Date, utc = false): string {
  const offset = utc ? 0 : offsetOf(t);
  const wall = new Date(t.getTime() + offset * 1000);
  const nanos = wall.getUTCMilliseconds() * 1_000_000 + ((t as Precise).subMilliNanos ?? 0);
  const fraction = nanos === 0 ? '' : `.${pad(nanos, 9).replace(/0+$/, '')}`;
  let zone = 'Z';
  if (offset !== 0) {
    const abs = Math.abs(offset);
    zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 3600))}:${pad(Math.floor((abs % 3600) / 60))}`;
  }
  return `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}${fraction}${zone}`;
}
