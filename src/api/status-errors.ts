/**
 * The catalogue of API errors. Every failure a client sees is one of these, rendered as a
 * `Status` object with the code, reason, message and details kube-apiserver sends, so that
 * kubectl prints the same text. Backend errors are translated into these at one boundary.
 */
import { aggregateFieldErrors, fieldErrorBody, type FieldError } from './field-errors.ts';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'ServiceUnavailable'
  | '';

export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

export interface StatusObject {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Failure' | 'Success';
  readonly message?: string;
  readonly reason?: StatusReason;
  readonly details?: StatusDetails;
  readonly code: number;
}

/** A group-qualified resource, as used in error messages (`configmaps`, `roles.rbac.authorization.k8s.io`). */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers, such as Retry-After. */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): StatusObject {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      // Go's omitempty: an unknown reason (and an empty message) is left out.
      ...(this.message ? { message: this.message } : {}),
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.details ? { details: goStatusDetails(this.details) } : {}),
      code: this.code,
    };
  }
}

/**
 * StatusDetails as Go's JSON tags write them: every field is omitempty, so empty names, groups
 * and kinds, a zero retryAfterSeconds and empty causes are left out (`details: {}` stays).
 */
function goStatusDetails(d: StatusDetails): StatusDetails {
  const causes = d.causes?.map((c) => ({
    ...(c.reason ? { reason: c.reason } : {}),
    ...(c.message ? { message: c.message } : {}),
    ...(c.field ? { field: c.field } : {}),
  }));
  return {
    ...(d.name ? { name: d.name } : {}),
    ...(d.group ? { group: d.group } : {}),
    ...(d.kind ? { kind: d.kind } : {}),
    ...(d.uid ? { uid: d.uid } : {}),
    ...(causes && causes.length > 0 ? { causes } : {}),
    ...(d.retryAfterSeconds ? { retryAfterSeconds: d.retryAfterSeconds } : {}),
  };
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

export const errors = {
  notFound: (gr: GroupResource, name: string) =>
    new ApiError(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, { name, group: gr.group, kind: gr.resource }),
  /** A path the server does not serve at all. */
  pathNotFound: () => new ApiError(404, 'NotFound', 'the server could not find the requested resource', {}),
  /** A served path asked with a method no route of it takes (go-restful's 405, as kube words it). */
  methodNotAllowed: () => new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}),
  alreadyExists: (gr: GroupResource, name: string) =>
    new ApiError(409, 'AlreadyExists', `${groupResourceString(gr)} "${name}" already exists`, { name, group: gr.group, kind: gr.resource }),
  conflict: (gr: GroupResource, name: string, detail: string) =>
    new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${detail}`, { name, group: gr.group, kind: gr.resource }),
  /** The standard optimistic-concurrency conflict. */
  staleResourceVersion: (gr: GroupResource, name: string) =>
    errors.conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again'),
  /** `Kind "name" is invalid: ...`; `qualifiedKind` is `ConfigMap` or `Role.rbac.authorization.k8s.io`. */
  invalid: (qualifiedKind: string, group: string, kind: string, name: string, errs: readonly FieldError[]) =>
    new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${aggregateFieldErrors(errs)}`, {
      name,
      group,
      kind,
      causes: errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
    }),
  /**
   * An error kube passes through without a Status of its own (a raw storage error): the code and
   * message only, no reason, no details.
   */
  unknown: (code: number, message: string) => new ApiError(code, '', message),
  badRequest: (message: string, causes?: readonly StatusCause[]) =>
    new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined),
  /** 410 with reason Expired: too old resource version, expired continue token. */
  expired: (message: string) => new ApiError(410, 'Expired', message),
  gone: (message: string) => new ApiError(410, 'Gone', message),
  tooLargeResourceVersion: (requested: number, current: number) =>
    new ApiError(
      504,
      'Timeout',
      // kube's NewTimeoutError prefixes the storage error's text.
      `Timeout: Too large resource version: ${requested}, current: ${current}`,
      { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      { 'Retry-After': '1' },
    ),
  methodNotSupported: (gr: GroupResource, action: string) =>
    new ApiError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceString(gr)}"`, {
      group: gr.group,
      kind: gr.resource,
    }),
  /** go-restful's own 406, before any handler runs: no Accept entry names a type the route produces. */
  restfulNotAcceptable: (produces: readonly string[]) =>
    new ApiError(406, 'NotAcceptable', `406: Not Acceptable\n\nAvailable representations: ${produces.join(', ')}`, {}),
  notAcceptable: (accepted: readonly string[]) =>
    new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`),
  /** The serializer negotiation's 415 (a body type no serializer decodes): no details. */
  unsupportedMediaType: (accepted: readonly string[]) =>
    new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`),
  /** go-restful's own 415, before any handler runs: the Content-Type is none the route consumes. */
  restfulUnsupportedMediaType: () => new ApiError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}),
  requestEntityTooLarge: (limit: number) =>
    new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`),
  unauthorized: () => new ApiError(401, 'Unauthorized', 'Unauthorized'),
  forbidden: (gr: GroupResource, name: string, reason: string) =>
    new ApiError(403, 'Forbidden', `${groupResourceString(gr)}${name ? ` "${name}"` : ''} is forbidden: ${reason}`, {
      ...(name ? { name } : {}),
      group: gr.group,
      kind: gr.resource,
    }),
  internal: (message: string) =>
    new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
  serviceUnavailable: (message: string) => new ApiError(503, 'ServiceUnavailable', message),
  timeout: (message: string, retryAfterSeconds = 1) =>
    new ApiError(504, 'Timeout', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) }),
};
