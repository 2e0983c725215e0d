/**
 * DeleteOptions as kube-apiserver reads them: from the request body when there is one, else from
 * the query (never a mix: kube's delete handler decodes the query only when the body is empty),
 * then checked with apimachinery's ValidateDeleteOptions, in its order and wording.
 */
import { queryBool } from './list-options.ts';
import { ApiError, errors } from '../api/status-errors.ts';
import { fieldErr, goLiteral, goStringSlice, type FieldError } from '../api/field-errors.ts';
import type { DeleteOptions } from './resource-store.ts';

export interface ParsedDeleteOptions extends DeleteOptions {
  readonly dryRun: boolean;
  readonly gracePeriodSeconds?: number;
  readonly ignoreStoreReadError: boolean;
}

/** The values kube accepts in `dryRun` (metav1 validation's allowedDryRunValues). */
const allowedDryRunValues = ['All'];

/**
 * Checks a `dryRun` list as ValidateDryRun does; an error names the whole list in Go syntax
 * (`[]string{""}`), as kube's field error prints a slice.
 */
export function dryRunErrors(values: readonly string[]): FieldError[] {
  if (values.every((v) => allowedDryRunValues.includes(v))) return [];
  return [fieldErr.notSupported('dryRun', goLiteral(goStringSlice(values)), allowedDryRunValues)];
}


/**
 * The dryRun query parameter of create, update and patch: 422 `<Kind>Options.meta.k8s.io` when a
 * value is not `All` (an empty value included), as kube's Validate{Create,Update,Patch}Options.
 */
export function dryRunFromQuery(q: URLSearchParams, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions'): boolean {
  const values = q.getAll('dryRun');
  const errs = dryRunErrors(values);
  if (errs.length > 0) throw invalidOptions(optionsKind, errs);
  return values.length > 0;
}

export function invalidOptions(kind: string, errs: readonly FieldError[]) {
  return errors.invalid(`${kind}.meta.k8s.io`, 'meta.k8s.io', kind, '', errs);
}

type Source = { readonly from: 'body'; readonly body: Record<string, unknown> } | { readonly from: 'query'; readonly query: URLSearchParams };

/**
 * A DeleteOptions body the decoder refuses: kube's delete handler passes the decoder's error on
 * unwrapped, which the API machinery sends as a 500 Status without a reason. Other API errors
 * (415 for an unknown content type) pass through.
 */
export function deleteOptionsDecodeError(err: unknown): unknown {
  if (err instanceof ApiError && err.code === 400 && err.reason === 'BadRequest') return new ApiError(500, '', err.message);
  return err;
}

/**
 * Reads and validates DeleteOptions from a decoded body object or from the query. Without
 * `allowUnsafeDelete` (gate AllowUnsafeMalformedObjectDeletion, off by default) kube drops
 * ignoreStoreReadErrorWithClusterBreakingPotential before validating, as if it were not sent.
 */
export function parseDeleteOptions(src: Source, allowUnsafeDelete = true): ParsedDeleteOptions {
  const raw = src.from === 'body' ? fromBody(src.body) : fromQuery(src.query);
  if (!allowUnsafeDelete) raw.ignoreStoreReadError = false;
  const errs: FieldError[] = [];
  if (raw.orphanDependents !== undefined && raw.propagationPolicy !== undefined) {
    errs.push(fieldErr.invalid('propagationPolicy', raw.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (raw.propagationPolicy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(raw.propagationPolicy)) {
    errs.push(fieldErr.notSupported('propagationPolicy', raw.propagationPolicy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  errs.push(...dryRunErrors(raw.dryRun));
  if (raw.ignoreStoreReadError) {
    const field = 'ignoreStoreReadErrorWithClusterBreakingPotential';
    const conflicts: [boolean, string][] = [
      [raw.dryRun.length > 0, 'dryRun'],
      [raw.propagationPolicy !== undefined, 'propagationPolicy'],
      [raw.orphanDependents !== undefined, 'orphanDependents'],
      [raw.gracePeriodSeconds !== undefined, 'gracePeriodSeconds'],
      [raw.preconditions !== undefined, 'preconditions'],
    ];
    for (const [set, name] of conflicts) if (set) errs.push(fieldErr.invalid(field, true, `cannot be set together with .${name}`));
  }
  if (errs.length > 0) throw invalidOptions('DeleteOptions', errs);
  return {
    ...(raw.preconditions ? { preconditions: raw.preconditions } : {}),
    propagationPolicy: raw.propagationPolicy,
    orphanDependents: raw.orphanDependents,
    dryRun: raw.dryRun.length > 0,
    gracePeriodSeconds: raw.gracePeriodSeconds,
    ignoreStoreReadError: raw.ignoreStoreReadError,
  };
}

interface RawOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  orphanDependents?: boolean;
  dryRun: string[];
  gracePeriodSeconds?: number;
  ignoreStoreReadError: boolean;
}

/**
 * Go's json decoding of DeleteOptions; null is the zero value. kube's delete handler passes a
 * decode error on unwrapped, so a wrong type is a 500 Status with no reason.
 */
function fromBody(body: Record<string, unknown>): RawOptions {
  // DeleteOptions is registered in every version of kube's meta scheme; any other kind is not.
  const kind = typeof body.kind === 'string' ? body.kind : '';
  if (kind !== '' && kind !== 'DeleteOptions') {
    const version = typeof body.apiVersion === 'string' && body.apiVersion !== '' ? body.apiVersion : 'meta.k8s.io/v1';
    throw new ApiError(500, '', `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(version)} in scheme "pkg/runtime/scheme.go:100"`);
  }
  const typeError = (field: string, want: string) =>
    new ApiError(500, '', `json: cannot unmarshal ${jsonKind(body[field])} into Go struct field DeleteOptions.${field} of type ${want}`);
  const opt = <T>(field: string, check: (v: unknown) => v is T, want: string): T | undefined => {
    const v = body[field];
    if (v === undefined || v === null) return undefined;
    if (!check(v)) throw typeError(field, want);
    return v;
  };
  const isString = (v: unknown): v is string => typeof v === 'string';
  const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
  const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
  const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string' || x === null);
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const pre = opt('preconditions', isObject, 'v1.Preconditions');
  const preconditions = pre
    ? {
        ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
        ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
      }
    : undefined;
  return {
    preconditions,
    propagationPolicy: opt('propagationPolicy', isString, 'v1.DeletionPropagation'),
    orphanDependents: opt('orphanDependents', isBool, 'bool'),
    dryRun: (opt('dryRun', isStrings, '[]string') ?? []).map((v) => v ?? ''),
    gracePeriodSeconds: opt('gracePeriodSeconds', isInt, 'int64'),
    ignoreStoreReadError: opt('ignoreStoreReadErrorWithClusterBreakingPotential', isBool, 'bool') === true,
  };
}

function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** kube's query conversion of DeleteOptions (only the fields it maps from parameters). */
function fromQuery(q: URLSearchParams): RawOptions {
  const gps = q.get('gracePeriodSeconds');
  if (gps !== null) {
    const err = goParseInt64Error(gps);
    if (err) throw errors.badRequest(err);
  }
  // kube's query conversion of a bool: any value but 0 and false (any case) is true.
  const bool = (name: string): boolean | undefined => queryBool(q.getAll(name)[0]);
  const policy = q.get('propagationPolicy');
  return {
    propagationPolicy: policy === null || policy === '' ? undefined : policy,
    orphanDependents: bool('orphanDependents'),
    dryRun: q.getAll('dryRun'),
    gracePeriodSeconds: gps === null ? undefined : Number(gps),
    ignoreStoreReadError: bool('ignoreStoreReadErrorWithClusterBreakingPotential') === true,
  };
}

/** The error of Go's strconv.ParseInt(s, 10, 64), or undefined when it parses. */
function goParseInt64Error(s: string): string | undefined {
  if (!/^[+-]?\d+$/.test(s)) return `strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return `strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`;
  return undefined;
}
