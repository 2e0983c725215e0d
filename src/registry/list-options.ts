/**
 * List and watch options from the query string, validated, and resolved into the read
 * semantics of SPEC.md's table (Most Recent, Any, Not Older Than, Exact, Continue).
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
  readonly sendInitialEvents: boolean | undefined;
  readonly timeoutSeconds: number | undefined;
}

function listOptionsInvalid(errs: FieldError[]): ApiError {
  return errors.invalid('ListOptions.meta.k8s.io', 'meta.k8s.io', 'ListOptions', '', errs);
}

/** Parses a resourceVersion string into a revision; throws 400 for anything else. */
export function parseResourceVersion(rv: string): number {
  if (!/^[0-9]+$/.test(rv)) throw errors.badRequest(`invalid resource version: ${rv}`);
  const n = Number(rv);
  if (!Number.isSafeInteger(n)) throw errors.badRequest(`invalid resource version: ${rv}`);
  return n;
}

function parseBool(v: string | null): boolean | undefined {
  if (v === null) return undefined;
  return v === '' || v === '1' || v.toLowerCase() === 'true';
}

/** Reads list options and resolves the read semantics; throws 400/422 for invalid combinations. */
export function parseListQuery(q: URLSearchParams): ListQuery {
  const rv = q.get('resourceVersion') ?? '';
  const match = q.get('resourceVersionMatch') ?? '';
  const cont = q.get('continue') ?? '';
  const limitStr = q.get('limit') ?? '';
  let limit = 0;
  if (limitStr !== '') {
    limit = Number(limitStr);
    if (!Number.isInteger(limit)) throw errors.badRequest(`invalid limit: ${limitStr}`);
    if (limit < 0) limit = 0;
  }
  const errs: FieldError[] = [];
  if (match !== '') {
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    } else if (rv === '') {
      errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    } else if (cont !== '') {
      errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    } else if (match === 'Exact' && rv === '0') {
      errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (errs.length > 0) throw listOptionsInvalid(errs);

  let semantics: ReadSemantics;
  if (cont !== '') {
    if (rv !== '' && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    semantics = { kind: 'continue', position: decodeContinue(cont) };
  } else if (rv === '') {
    semantics = { kind: 'most-recent' };
  } else if (rv === '0') {
    semantics = { kind: 'any' };
  } else {
    const revision = parseResourceVersion(rv);
    if (match === 'Exact' || (match === '' && limit > 0)) semantics = { kind: 'exact', revision };
    else semantics = { kind: 'not-older-than', revision };
  }
  return {
    labelSelector: q.get('labelSelector') ?? '',
    fieldSelector: q.get('fieldSelector') ?? '',
    limit,
    semantics,
    resourceVersion: rv,
  };
}

/** Reads watch options; throws 422 for invalid sendInitialEvents combinations as kube does. */
export function parseWatchQuery(q: URLSearchParams): WatchQuery {
  const rv = q.get('resourceVersion') ?? '';
  const match = q.get('resourceVersionMatch') ?? '';
  const sendInitialEvents = parseBool(q.get('sendInitialEvents'));
  const allowWatchBookmarks = parseBool(q.get('allowWatchBookmarks')) ?? false;
  const errs: FieldError[] = [];
  if (sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') {
      errs.push(fieldErr.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (sendInitialEvents && !allowWatchBookmarks) {
      errs.push(fieldErr.forbidden('allowWatchBookmarks', 'allowWatchBookmarks must be set to true when sendInitialEvents is true'));
    }
  } else if (match !== '') {
    errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
  }
  if (match !== '' && match !== 'NotOlderThan') {
    errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
  }
  if (errs.length > 0) throw listOptionsInvalid(errs);
  if (rv !== '') parseResourceVersion(rv);
  const ts = q.get('timeoutSeconds');
  let timeoutSeconds: number | undefined;
  if (ts !== null && ts !== '') {
    timeoutSeconds = Number(ts);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 0) throw errors.badRequest(`invalid timeoutSeconds: ${ts}`);
  }
  return {
    labelSelector: q.get('labelSelector') ?? '',
    fieldSelector: q.get('fieldSelector') ?? '',
    resourceVersion: rv,
    allowWatchBookmarks,
    sendInitialEvents,
    timeoutSeconds,
  };
}
