/**
 * List and watch options from the query string, parsed and validated in kube-apiserver's order
 * and with its errors, then resolved into the read semantics of SPEC.md's table (Most Recent,
 * Any, Not Older Than, Exact, Continue):
 *
 * 1. Query conversion (url.Values -> ListOptions): booleans are true unless `0`/`false`,
 *    integers are Go's strconv.ParseInt (400 with Go's message: `1e3`, `0x10`, ` 1` are refused).
 * 2. ValidateListOptions: 422 ListOptions.meta.k8s.io.
 * 3. The resource version, parsed where kube's storage parses it: a read kube's cacher serves
 *    answers a malformed version with a bare 500; a read it hands to etcd (continue, Exact,
 *    legacy paged exact) with 400 "invalid resource version: ...". Either way at once.
 */
import { errors, ApiError } from '../api/status-errors.ts';
import { fieldErr, type FieldError } from '../api/field-errors.ts';
import { decodeContinue, type ContinuePosition } from './continue-token.ts';

export type ReadSemantics =
  | { readonly kind: 'most-recent' }
  | { readonly kind: 'any' }
  | { readonly kind: 'not-older-than'; readonly revision: number }
  | { readonly kind: 'exact'; readonly revision: number }
  | { readonly kind: 'continue'; readonly position: ContinuePosition };

export interface ListQuery {
  readonly labelSelector: string;
  readonly fieldSelector: string;
  readonly limit: number;
  readonly semantics: ReadSemantics;
  readonly resourceVersion: string;
}

export interface WatchQuery {
  readonly labelSelector: string;
  readonly fieldSelector: string;
  readonly resourceVersion: string;
  readonly allowWatchBookmarks: boolean;
  /** As asked; absent means kube's default (initial events for a watch from "" or "0"). */
  readonly sendInitialEvents: boolean | undefined;
  /** Seconds; negative ends the watch at once, as a Go context with a past deadline. */
  readonly timeoutSeconds: number | undefined;
}

/** The raw ListOptions after kube's query conversion. */
interface RawListOptions {
  readonly labelSelector: string;
  readonly fieldSelector: string;
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  readonly resourceVersion: string;
  readonly resourceVersionMatch: string;
  readonly timeoutSeconds: number | undefined;
  readonly limit: number;
  readonly continue: string;
  readonly sendInitialEvents: boolean | undefined;
}

/** The first value of a query parameter, as Go's url.Values conversion takes it. */
function first(q: URLSearchParams, name: string): string | undefined {
  const all = q.getAll(name);
  return all.length > 0 ? all[0] : undefined;
}

/** kube's conversion of a query value to bool: only `0` and `false` (any case) are false. */
export function queryBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** Go's `strconv.Quote` for the ASCII printable cases error messages meet. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

const INT64_MAX = 9223372036854775807n;
const UINT64_MAX = 18446744073709551615n;

/** Go's strconv.ParseInt(s, 10, 64), with its error text; values beyond 2^53 lose precision. */
export function parseGoInt64(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > INT64_MAX || n < -INT64_MAX - 1n) throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  return Number(n);
}

/** url.Values -> ListOptions, in the generated conversion's field order; 400 on the first bad integer. */
function convertListOptions(q: URLSearchParams): RawListOptions {
  const ts = first(q, 'timeoutSeconds');
  const timeoutSeconds = ts === undefined ? undefined : parseGoInt64(ts);
  const limitStr = first(q, 'limit');
  const limit = limitStr === undefined ? 0 : parseGoInt64(limitStr);
  return {
    labelSelector: first(q, 'labelSelector') ?? '',
    fieldSelector: first(q, 'fieldSelector') ?? '',
    watch: queryBool(first(q, 'watch')) ?? false,
    allowWatchBookmarks: queryBool(first(q, 'allowWatchBookmarks')) ?? false,
    resourceVersion: first(q, 'resourceVersion') ?? '',
    resourceVersionMatch: first(q, 'resourceVersionMatch') ?? '',
    timeoutSeconds,
    limit,
    continue: first(q, 'continue') ?? '',
    sendInitialEvents: queryBool(first(q, 'sendInitialEvents')),
  };
}

function listOptionsInvalid(errs: FieldError[]): ApiError {
  return errors.invalid('ListOptions.meta.k8s.io', 'meta.k8s.io', 'ListOptions', '', errs);
}

/**
 * Parses a resource version as kube's APIObjectVersioner (strconv.ParseUint). `delegated` says
 * whether kube would hand the read to etcd (400 BadRequest) or serve it from its cache (a 500
 * with no reason: the cacher returns the storage error unconverted).
 */
export function parseResourceVersion(rv: string, delegated: boolean): number {
  let why: string | undefined;
  if (!/^[0-9]+$/.test(rv)) why = 'invalid syntax';
  else if (BigInt(rv) > UINT64_MAX) why = 'value out of range';
  if (why === undefined) return Number(rv);
  const message = `resourceVersion: Invalid value: ${goQuote(rv)}: strconv.ParseUint: parsing ${goQuote(rv)}: ${why}`;
  if (delegated) throw errors.badRequest(`invalid resource version: ${message}`);
  throw errors.unknown(500, message);
}

/** Reads list options (list and deletecollection) and resolves the read semantics. */
export function parseListQuery(q: URLSearchParams): ListQuery {
  const o = convertListOptions(q);
  const rv = o.resourceVersion;
  const match = o.resourceVersionMatch;
  const errs: FieldError[] = [];
  if (match !== '') {
    if (rv === '') errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (o.continue !== '') errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && rv === '0') errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (o.sendInitialEvents !== undefined) errs.push(fieldErr.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  if (errs.length > 0) throw listOptionsInvalid(errs);

  // kube 1.32's cacher serves resourceVersion "0" (without continue) from the watch cache, which
  // does not page: the limit is ignored and the whole list comes back, without a continue token.
  const limit = o.limit > 0 && !(rv === '0' && o.continue === '') ? o.limit : 0;
  let semantics: ReadSemantics;
  if (o.continue !== '') {
    const position = decodeContinue(o.continue);
    if (rv !== '' && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    semantics = { kind: 'continue', position };
  } else if (rv === '') {
    semantics = { kind: 'most-recent' };
  } else if (rv === '0') {
    semantics = { kind: 'any' };
  } else {
    // kube's cacher hands Exact and the legacy "limit with a version" reads to etcd.
    const exact = match === 'Exact' || (match === '' && limit > 0);
    const revision = parseResourceVersion(rv, exact);
    semantics = exact ? { kind: 'exact', revision } : { kind: 'not-older-than', revision };
  }
  return { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit, semantics, resourceVersion: rv };
}

/**
 * Reads watch options; 400/422 as kube for malformed or invalid combinations, 500 for a malformed
 * version. `watchList` is the WatchList gate: without it sendInitialEvents is refused.
 */
export function parseWatchQuery(q: URLSearchParams, watchList = true): WatchQuery {
  const o = convertListOptions(q);
  const match = o.resourceVersionMatch;
  const errs: FieldError[] = [];
  if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push(fieldErr.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (o.sendInitialEvents !== undefined && !watchList) {
    errs.push(fieldErr.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
  }
  if (match !== '') {
    if (o.sendInitialEvents === undefined) errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (o.continue !== '') errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  if (errs.length > 0) throw listOptionsInvalid(errs);
  // kube's cacher parses the version of every watch it serves.
  if (o.resourceVersion !== '') parseResourceVersion(o.resourceVersion, false);
  return {
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    resourceVersion: o.resourceVersion,
    allowWatchBookmarks: o.allowWatchBookmarks,
    sendInitialEvents: o.sendInitialEvents,
    timeoutSeconds: o.timeoutSeconds,
  };
}

/**
 * Whether kube treats the watch as a WatchList request (initial events, then a bookmark):
 * sendInitialEvents after defaulting, with bookmarks allowed. Such a watch cannot be a Table.
 */
export function isWatchListRequest(q: URLSearchParams): boolean {
  const o = convertListOptions(q);
  const legacy = o.resourceVersion === '' || o.resourceVersion === '0';
  const defaulted = o.sendInitialEvents === undefined && o.resourceVersionMatch === '' && legacy ? true : o.sendInitialEvents;
  return defaulted === true && o.allowWatchBookmarks;
}
