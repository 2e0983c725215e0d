/**
 * The `timeout` query parameter every request may carry. kube-apiserver's WithRequestDeadline
 * filter parses it (Go's time.ParseDuration) for every request that is not long-running, before
 * authentication, and answers a malformed one with 400 "invalid timeout specified in the request
 * URL - <Go's error>". Watches are long-running and never look at it.
 */
import { errors } from '../api/status-errors.ts';
import type { RequestInfo } from '../request/request-info.ts';

const invalidTimeoutInURL = 'invalid timeout specified in the request URL';

const unitNanos: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  '\u00b5s': 1e3,
  '\u03bcs': 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};
const maxNanos = 9223372036854775807;

/** Go's time.ParseDuration: the duration in nanoseconds, or Go's error text. */
export function parseGoDuration(orig: string): { nanos: number } | { error: string } {
  const q = JSON.stringify;
  const invalid = { error: `time: invalid duration ${q(orig)}` };
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { nanos: 0 };
  if (s === '') return invalid;
  let total = 0;
  while (s !== '') {
    if (!/^[0-9.]/.test(s)) return invalid;
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s)!;
    const whole = m[1]!;
    const frac = m[2];
    if (whole === '' && (frac === undefined || frac === '')) return invalid;
    s = s.slice(m[0].length);
    const unitMatch = /^[^0-9.]*/.exec(s)![0];
    if (unitMatch === '') return { error: `time: missing unit in duration ${q(orig)}` };
    const unit = unitNanos[unitMatch];
    if (unit === undefined) return { error: `time: unknown unit ${q(unitMatch)} in duration ${q(orig)}` };
    s = s.slice(unitMatch.length);
    const value = Number(whole || '0') * unit + (frac ? Number(`0.${frac}`) * unit : 0);
    total += value;
    if (!Number.isFinite(total) || total > maxNanos) return invalid;
  }
  return { nanos: neg ? -total : total };
}

/** Throws kube's 400 when a non-long-running request carries a malformed `timeout`. */
export function checkRequestTimeout(info: RequestInfo, query: URLSearchParams): void {
  if (info.isResourceRequest && info.verb === 'watch') return;
  const value = query.get('timeout');
  if (!value) return;
  const parsed = parseGoDuration(value);
  if ('error' in parsed) throw errors.badRequest(`${invalidTimeoutInURL} - ${parsed.error}`);
}
