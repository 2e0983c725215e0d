/**
 * Request bodies: decoding by Content-Type, and field validation (unknown and duplicate fields)
 * with the Ignore / Warn / Strict modes of SPEC.md.
 */
import { goDecodedForm } from '../../codec/go-zero.ts';
import type { FastifyRequest } from 'fastify';
import { errors } from '../../api/status-errors.ts';
import type { KubeObject, ResourceType } from '../../api/types.ts';
import { parseContentType, type BodyKind } from '../../codec/negotiate.ts';
import { decodeJson } from '../../codec/json-decode.ts';
import { decodeYamlAsync } from '../../codec/yaml-decode-async.ts';
import { decodeProtobufObject, isProtobufKind } from '../../codec/protobuf/index.ts';
import { pruneUnknownFields, formatUnknownFieldWarning, formatStrictDecodingError } from '../../schema/prune.ts';
import { checkGoTypes, type GoTypeError } from '../../codec/go-types.ts';
import { ApiError } from '../../api/status-errors.ts';
import { fieldErr } from '../../api/field-errors.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface DecodedBody {
  readonly kind: BodyKind;
  readonly value: unknown;
  /** kube's strict-decoding messages for repeated keys (`duplicate field "metadata.name"`). */
  readonly duplicates: readonly string[];
}

/** Reads `fieldValidation`; anything but the three modes is 400. */
export function fieldValidationMode(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw errors.badRequest(`fieldValidation parameter must be one of 'Ignore', 'Warn', or 'Strict', got ${JSON.stringify(v)}`);
}

/** Decodes the request body per its Content-Type; 415 for types we do not take, 400 for bad bytes. */
export async function decodeBody(req: FastifyRequest, verb: 'body' | 'patch', rt?: ResourceType, expectedKind = rt?.kind): Promise<DecodedBody> {
  const ct = req.headers['content-type'];
  // Built-in kinds also take protobuf bodies, as kubectl's typed clients send them.
  const serializers = rt && protobufServed(rt) ? (['json', 'yaml', 'protobuf'] as const) : (['json', 'yaml'] as const);
  const { kind } = parseContentType(ct === undefined ? undefined : String(ct), { verb, serializers, strategicMergePatch: true });
  const raw = req.body as Buffer | undefined;
  if (!raw || raw.length === 0) throw errors.badRequest('the body of the request was empty');
  if (kind === 'protobuf') return { kind, value: decodeProtobufObject(raw).object, duplicates: [] };
  const decoded = kind === 'yaml' || kind === 'apply-patch' ? await decodeYamlAsync(raw, { expectedKind }) : decodeJson(raw, { expectedKind });
  return { kind, value: decoded.value, duplicates: decoded.strictErrors };
}

/** Whether the kind has a protobuf encoding (built-in kinds do; custom resources never). */
export function protobufServed(rt: ResourceType): boolean {
  return isProtobufKind(rt.group ? `${rt.group}/${rt.version}` : rt.version, rt.kind);
}

/** Expects an object body; 400 otherwise. */
export function asObject(value: unknown): KubeObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(value)}'`);
  }
  return value as KubeObject;
}

/**
 * Drops unknown fields (mutates `obj`) and applies the field-validation mode to them and to the
 * duplicates found while decoding: Strict throws one 400 naming all, Warn adds one warning each.
 */
export function enforceFieldValidation(obj: KubeObject, rt: ResourceType, duplicates: readonly string[], mode: FieldValidation, warnings: string[]): void {
  const unknown = pruneUnknownFields(obj, rt.schema);
  if (mode === 'Ignore') return;
  const messages = [...unknown.map(formatUnknownFieldWarning), ...duplicates];
  if (messages.length === 0) return;
  if (mode === 'Strict') throw errors.badRequest(formatStrictDecodingError(messages));
  // One at a time: a spread of a hundred thousand arguments overflows the stack.
  for (const m of messages) warnings.push(m);
}

/** The first mismatch between a decoded value and the Go type of `rt`'s kind (see go-types.ts). */
export function goTypeErrorOf(value: unknown, rt: ResourceType, opts: { patchDirectives?: boolean; zeroNulls?: boolean } = {}): GoTypeError | undefined {
  return checkGoTypes(value, rt.schema, { rootStruct: rt.kind, rootPackage: rt.version, zeroNulls: opts.zeroNulls ?? true, patchDirectives: opts.patchDirectives });
}

/**
 * The decode step of create and update: a body whose values do not fit the kind's Go types is
 * 400, worded as kube's transformDecodeError words a typed decode failure. Nulls inside lists
 * and maps become zero values, as Go decodes them.
 */
export function checkDecodedTypes(obj: KubeObject, rt: ResourceType): void {
  const err = goTypeErrorOf(obj, rt);
  if (!err) return;
  const kind = typeof obj.kind === 'string' && obj.kind !== '' ? obj.kind : rt.kind;
  const apiVersion = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? obj.apiVersion : rt.version;
  const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
  throw errors.badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${rt.kind}: ${err.message}`);
}

/**
 * A patch whose result does not decode into the kind's Go type: kube's 422 on the `patch` field,
 * with the offending JSON as the value.
 */
export function patchTypeError(err: GoTypeError, patched: unknown): ApiError {
  return errors.invalid('', '', '', '', [fieldErr.invalid('patch', JSON.stringify(patched), err.message)]);
}

/**
 * Apply bodies go through structured-merge-diff's typed conversion; kube-apiserver answers a
 * mismatch there with a 500 carrying this message (an error it does not wrap in a Status).
 */
export function applyTypeError(err: GoTypeError, obj: KubeObject, rt: ResourceType, namespace: string): ApiError {
  const name = typeof obj.metadata?.name === 'string' ? obj.metadata.name : '';
  const gvk = `${rt.group}/${rt.version}, Kind=${rt.kind}`;
  return new ApiError(500, '', `failed to create typed patch object (${namespace}/${name}; ${gvk}): ${err.smdPath}: ${err.smdMessage}`);
}

/** Checks apiVersion/kind of a body against the endpoint; fills them when absent. */
export function checkTypeMeta(obj: KubeObject, rt: ResourceType): void {
  const apiVersion = rt.group ? `${rt.group}/${rt.version}` : rt.version;
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`);
  }
  if (obj.kind !== undefined && obj.kind !== rt.kind) {
    throw errors.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${rt.kind})`);
  }
  obj.apiVersion = apiVersion;
  obj.kind = rt.kind;
}

/**
 * Checks a decoded object body for create, update or apply against the request: type meta,
 * namespace and name as kube-apiserver does; then applies field validation (mutates the object,
 * appends warnings).
 */
export function checkObjectBody(
  body: DecodedBody,
  target: { readonly rt: ResourceType; readonly namespace: string; readonly name: string },
  mode: FieldValidation,
  warnings: string[],
): KubeObject {
  const { rt } = target;
  const obj = asObject(body.value);
  if (body.kind !== 'apply-patch') checkDecodedTypes(obj, rt);
  checkTypeMeta(obj, rt);
  const meta = (obj.metadata ??= {});
  if (rt.namespaced && meta.namespace && meta.namespace !== target.namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (target.name !== '' && meta.name !== undefined && meta.name !== target.name) {
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${target.name})`);
  }
  enforceFieldValidation(obj, rt, body.duplicates, mode, warnings);
  return obj;
}

/** Decodes and checks an object body (create, update); see checkObjectBody. */
export async function readObjectBody(
  req: FastifyRequest,
  target: { readonly rt: ResourceType; readonly namespace: string; readonly name: string },
  mode: FieldValidation,
  warnings: string[],
): Promise<KubeObject> {
  // As kube decodes the body into its Go type: empty omitempty fields are gone before anything
  // (managedFields included) looks at it.
  return goDecodedForm(checkObjectBody(await decodeBody(req, 'body', target.rt), target, mode, warnings), target.rt.schema);
}
