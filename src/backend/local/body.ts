/**
 * Request bodies: decoding by Content-Type, and field validation (unknown and duplicate fields)
 * with the Ignore / Warn / Strict modes of SPEC.md.
 */
import { goDecodedForm } from '../../codec/go-zero.ts';
import type { RequestBody } from '../../request/request-body.ts';
import { errors } from '../../api/status-errors.ts';
import { apiVersionOf, type KubeObject, type ResourceType } from '../../api/types.ts';
import { builtinResourceTypes } from '../../api/builtin.ts';
import { parseContentType, type BodyKind, type Serializer } from '../../codec/negotiate.ts';
import { CborDecodeError, decodeCbor } from '../../codec/cbor.ts';
import { decodeJson } from '../../codec/json-decode.ts';
import { decodeYamlAsync } from '../../codec/yaml-decode-async.ts';
import { decodeProtobufObject, isProtobufKind } from '../../codec/protobuf/index.ts';
import { pruneUnknownFields, formatUnknownFieldWarning, formatStrictDecodingError } from '../../schema/prune.ts';
import { checkGoTypes, goValue, type GoTypeError } from '../../codec/go-types.ts';
import { decodeFailure, MAX_STRICT_ERRORS } from '../../codec/decode-errors.ts';
import { LARGE_BODY_BYTES } from '../../request/request-body.ts';
import { ApiError } from '../../api/status-errors.ts';
import { fieldErr } from '../../api/field-errors.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface DecodedBody {
  readonly kind: BodyKind;
  readonly value: unknown;
  /** kube's strict-decoding messages for repeated keys (`duplicate field "metadata.name"`). */
  readonly duplicates: readonly string[];
  /** The bytes as sent (kube quotes their start in decode errors). */
  readonly raw?: Uint8Array;
}

/** Reads `fieldValidation`; anything but the three modes is 400. */
export function fieldValidationMode(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw errors.badRequest(`fieldValidation parameter must be one of 'Ignore', 'Warn', or 'Strict', got ${JSON.stringify(v)}`);
}

/**
 * Decodes the request body per its Content-Type; 415 for types we do not take, 400 for bad bytes.
 * `cbor`: whether CBOR bodies are taken (the CBORServingAndStorage gate).
 */
export async function decodeBody(body: RequestBody, cbor: boolean, verb: 'body' | 'patch', rt?: ResourceType, expectedKind = rt?.kind, protobuf = false): Promise<DecodedBody> {
  const ct = body.contentType;
  // Built-in kinds also take protobuf bodies, as kubectl's typed clients send them; CBOR when its gate is on.
  const serializers: Serializer[] = protobuf || (rt && protobufServed(rt)) ? ['json', 'yaml', 'protobuf'] : ['json', 'yaml'];
  if (cbor) serializers.push('cbor');
  // Custom resources take no strategic merge patch (kube's CRD handler answers 415).
  const { kind, mediaType } = parseContentType(ct, { verb, serializers, strategicMergePatch: !rt?.unstructured, applyCbor: cbor });
  const raw = body.bytes;
  if (!raw || raw.length === 0) {
    // A create or update decodes even no bytes, and fails reading the type meta from them.
    if (verb === 'body' && kind === 'json' && expectedKind) {
      throw decodeFailure("couldn't get version/kind; json parse error: unexpected end of JSON input", new Uint8Array(0), expectedKind);
    }
    throw errors.badRequest('the body of the request was empty');
  }
  if (kind === 'protobuf') return { kind, value: decodeProtobufObject(raw).object, duplicates: [] };
  if (kind === 'cbor' || mediaType === 'application/apply-patch+cbor') return decodeCborBody(kind, raw, rt, expectedKind);
  // A large body's work on the event loop is split at its decode: other requests (health probes
  // above all) run between reading it, decoding it, and storing it.
  const large = raw.length >= LARGE_BODY_BYTES;
  if (large) await yieldToEventLoop();
  const patchPrefix = PATCH_DECODE_PREFIX[kind];
  const decoded =
    kind === 'apply-patch'
      ? await decodeYamlAsync(raw, { applyPatch: true })
      : kind === 'yaml'
        ? await decodeYamlAsync(raw, { expectedKind })
        : decodeJson(raw, patchPrefix !== undefined ? { patchPrefix } : { expectedKind });
  if (large) await yieldToEventLoop();
  // Merge and strategic patches are decoded into a Go map first: anything but an object (or null) fails there.
  const v = decoded.value;
  if ((kind === 'merge-patch' || kind === 'strategic-merge-patch') && v !== null && (typeof v !== 'object' || Array.isArray(v))) {
    const what = Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v;
    throw errors.badRequest(`${patchPrefix}json: cannot unmarshal ${what} into Go value of type map[string]interface {}`);
  }
  // go-yaml reports every repeated key of a document in one error (and, its text holding line
  // breaks, it can only fail a Strict request: as a warning kube's recorder drops it).
  const duplicates = kind === 'yaml' && decoded.strictErrors.length > 0 ? [`yaml: unmarshal errors:\n  ${decoded.strictErrors.join('\n  ')}`] : decoded.strictErrors;
  return { kind, value: decoded.value, duplicates, raw };
}

/** A CBOR body (an object, or an apply patch): kube's strict decoder reports repeated keys as JSON's does. */
function decodeCborBody(kind: BodyKind, raw: Buffer, rt: ResourceType | undefined, expectedKind: string | undefined): DecodedBody {
  const duplicates: string[] = [];
  try {
    return { kind, value: decodeCbor(raw, rt?.schema, duplicates), duplicates, raw };
  } catch (err) {
    if (!(err instanceof CborDecodeError)) throw err;
    if (kind === 'apply-patch') throw errors.badRequest(`error decoding patch: ${err.message}`);
    throw decodeFailure(err.message, raw, expectedKind ?? '');
  }
}

/** How kube words a patch document it cannot decode, per patch type (see decodeJson's patchPrefix). */
const PATCH_DECODE_PREFIX: Partial<Record<BodyKind, string>> = {
  'json-patch': 'error decoding patch: ',
  'merge-patch': 'error decoding patch: ',
  'strategic-merge-patch': '',
};

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Whether the kind has a protobuf encoding (built-in kinds do; custom resources never). */
export function protobufServed(rt: ResourceType): boolean {
  return isProtobufKind(rt.group ? `${rt.group}/${rt.version}` : rt.version, rt.kind);
}

/**
 * The object a create or update body decodes to, as kube's decoder reads it: `null` is an empty
 * object (which then fails validation), and anything but an object fails reading the type meta.
 */
function typedObjectOf(body: DecodedBody, rt: ResourceType): KubeObject {
  const v = body.value;
  if (v === null || v === undefined) return {} as KubeObject;
  if (typeof v === 'object' && !Array.isArray(v)) return v as KubeObject;
  const what = Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v;
  throw decodeFailure(
    `couldn't get version/kind; json parse error: json: cannot unmarshal ${what} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    body.raw ?? new Uint8Array(0),
    rt.kind,
  );
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
 * duplicates found while decoding: Strict throws one 400 naming all (after `strictPrefix`, kube's
 * decode-error preamble for create and update), Warn adds one warning each. A built-in kind's
 * unknown fields are named in the order the body has them, as kube's strict decoder meets them; a
 * custom resource's in apiextensions' order (duplicates first, then sorted paths).
 */
export function enforceFieldValidation(obj: KubeObject, rt: ResourceType, duplicates: readonly string[], mode: FieldValidation, warnings: string[], strictPrefix = ''): void {
  // A custom resource's unknown fields are found by pruning, not by the decoder: sorted.
  const order = mode === 'Ignore' || rt.unstructured ? undefined : fieldOrder(obj);
  const unknown = pruneUnknownFields(obj, rt.schema);
  if (mode === 'Ignore') return;
  let messages: string[];
  if (rt.unstructured) {
    // apiextensions' decoder: the JSON decoder's duplicates, then the unknown fields of metadata,
    // then the others (each group sorted).
    const meta = unknown.filter((p) => p.startsWith('metadata.'));
    const rest = unknown.filter((p) => !p.startsWith('metadata.'));
    messages = [...duplicates, ...[...meta, ...rest].map(formatUnknownFieldWarning)];
  } else {
    if (order) unknown.sort((a, b) => (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity));
    // kube's strict decoder stops collecting at 100 errors (unknown and duplicate fields together).
    messages = [...unknown.slice(0, MAX_STRICT_ERRORS).map(formatUnknownFieldWarning), ...duplicates].slice(0, MAX_STRICT_ERRORS);
  }
  if (messages.length === 0) return;
  if (mode === 'Strict') throw errors.badRequest(`${strictPrefix}${formatStrictDecodingError(messages)}`);
  // One at a time: a spread of a hundred thousand arguments overflows the stack.
  for (const m of messages) warnings.push(m);
}

/** Every field path of a decoded body (`a.b`, `a.items[0].c`) with its position in document order. */
function fieldOrder(root: unknown): Map<string, number> {
  const order = new Map<string, number>();
  const stack: { v: unknown; path: string }[] = [{ v: root, path: '' }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (path !== '') order.set(path, order.size);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]` });
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ v: (v as Record<string, unknown>)[keys[i]!], path: path ? `${path}.${keys[i]}` : keys[i]! });
    }
  }
  return order;
}

/** The first mismatch between a decoded value and the Go type of `rt`'s kind (see go-types.ts). */
export function goTypeErrorOf(value: unknown, rt: ResourceType, opts: { patchDirectives?: boolean; zeroNulls?: boolean } = {}): GoTypeError | undefined {
  // Custom resources decode into unstructured JSON: the schema validates their types later (422).
  if (rt.unstructured) return undefined;
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
  throw errors.badRequest(`${decodeErrorPrefix(obj, rt)}${err.message}`);
}

/** kube's transformDecodeError preamble: `ConfigMap in version "v1" cannot be handled as a ConfigMap: `. */
function decodeErrorPrefix(obj: KubeObject, rt: ResourceType): string {
  const kind = typeof obj.kind === 'string' && obj.kind !== '' ? obj.kind : rt.kind;
  const apiVersion = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? obj.apiVersion : rt.version;
  const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
  return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${rt.kind}: `;
}

/**
 * A merge or JSON patch whose result does not decode into the kind's Go type: kube's 422 on the
 * `patch` field, with the patched JSON (keys sorted, as Go writes a map) as the value.
 */
export function patchTypeError(err: GoTypeError, patched: unknown): ApiError {
  return errors.invalid('', '', '', '', [fieldErr.invalid('patch', sortedJson(patched), err.message)]);
}

/**
 * A strategic merge patch that does not fit the kind: kube's 422 on `patch`, with the patch as Go
 * prints its map and the unstructured converter's complaint.
 */
export function strategicPatchTypeError(err: GoTypeError, patch: unknown): ApiError {
  return errors.invalid('', '', '', '', [fieldErr.invalid('patch', goValue(patch), err.converterMessage)]);
}

function sortedJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, (x as Record<string, unknown>)[k]])) : x,
  );
}

/**
 * Apply bodies go through structured-merge-diff's typed conversion; kube-apiserver answers a
 * mismatch there with a 500 carrying this message (an error it does not wrap in a Status). A
 * float where an integer belongs passes that step and fails the conversion to the Go type after.
 */
export function applyTypeError(err: GoTypeError, obj: KubeObject, rt: ResourceType): ApiError {
  const meta = (typeof obj.metadata === 'object' && obj.metadata !== null ? obj.metadata : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const gvk = `${rt.group}/${rt.version}, Kind=${rt.kind}`;
  const nn = `${str(meta.namespace)}/${str(meta.name)}; ${gvk}`;
  if (err.smdConversion) {
    return new ApiError(500, '', `failed to convert new object (${nn}) to proper version: unable to convert unstructured object to ${gvk}: ${err.smdConversion}`);
  }
  return new ApiError(500, '', `failed to create typed patch object (${nn}): ${err.smdPath}: ${err.smdMessage}`);
}

/**
 * A create or update body is decoded by kube's scheme into the endpoint's internal type: empty
 * type meta takes the endpoint's; another kind or version fails as the scheme words it (400, after
 * the decode-error preamble). Kinds are "registered" when this server serves them (kube's scheme
 * holds a few more, such as option kinds); the conversions between groups sharing an internal
 * type (core and events.k8s.io Events) are not made.
 */
function checkSchemeKind(obj: KubeObject, rt: ResourceType, prefix: string): void {
  if (obj.apiVersion === '') delete obj.apiVersion;
  if (obj.kind === '') delete obj.kind;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : apiVersionOf(rt);
  const kind = typeof obj.kind === 'string' ? obj.kind : rt.kind;
  if (apiVersion === apiVersionOf(rt) && kind === rt.kind) return;
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const registered = builtinResourceTypes.some((t) => t.group === group && t.version === version && (t.kind === kind || t.listKind === kind));
  if (!registered) {
    throw errors.badRequest(`${prefix}no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/runtime/scheme.go:100"`);
  }
  // Go package names: the versioned one is the version; the internal one is named after the group.
  throw errors.badRequest(`${prefix}converting (${version}.${kind}) to (${internalPackage(rt)}.${rt.kind}): unknown conversion`);
}

/** The Go package name of a kind's internal type (k8s.io/kubernetes/pkg/apis/<name>). */
function internalPackage(rt: ResourceType): string {
  const group = rt.internalGroup ?? rt.group;
  if (group === '') return 'core';
  if (group === 'internal.apiserver.k8s.io') return 'apiserverinternal';
  return group.split('.')[0]!;
}

/** Refuses a body whose apiVersion or kind is not the endpoint's; returns the endpoint's apiVersion. */
function assertTypeMeta(obj: KubeObject, rt: ResourceType): string {
  const apiVersion = rt.group ? `${rt.group}/${rt.version}` : rt.version;
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`);
  }
  if (obj.kind !== undefined && obj.kind !== rt.kind) {
    throw errors.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${rt.kind})`);
  }
  return apiVersion;
}

/** Checks apiVersion/kind of a body against the endpoint; fills them when absent (in place). */
export function checkTypeMeta(obj: KubeObject, rt: ResourceType): void {
  obj.apiVersion = assertTypeMeta(obj, rt);
  obj.kind = rt.kind;
}

/**
 * checkTypeMeta for a body just decoded, which nothing else holds yet: type meta the client left
 * out goes first, in kube's field order, in a new object. Appended, it would be moved to the front
 * before the write, by deleting and re-adding every field (src/registry/object-meta.ts
 * canonicalKeyOrder), which leaves the object in V8's slow dictionary mode for every step after.
 */
function typeMetaFirst(obj: KubeObject, rt: ResourceType): KubeObject {
  const apiVersion = assertTypeMeta(obj, rt);
  if (obj.kind !== undefined && obj.apiVersion !== undefined) return obj;
  return { kind: rt.kind, apiVersion, ...obj } as KubeObject;
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
  const decoded = body.kind === 'apply-patch' ? asObject(body.value) : typedObjectOf(body, rt);
  if (body.kind !== 'apply-patch') checkDecodedTypes(decoded, rt);
  const prefix = body.kind === 'apply-patch' ? '' : decodeErrorPrefix(decoded, rt);
  if (body.kind !== 'apply-patch' && !rt.unstructured) checkSchemeKind(decoded, rt, prefix);
  const obj = typeMetaFirst(decoded, rt);
  const meta = (obj.metadata ??= {});
  if (rt.namespaced && meta.namespace && meta.namespace !== target.namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (target.name !== '' && meta.name !== undefined && meta.name !== target.name) {
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${target.name})`);
  }
  enforceFieldValidation(obj, rt, body.duplicates, mode, warnings, prefix);
  return obj;
}

/** Decodes and checks an object body (create, update); see checkObjectBody. */
export async function readObjectBody(
  body: RequestBody,
  cbor: boolean,
  target: { readonly rt: ResourceType; readonly namespace: string; readonly name: string },
  mode: FieldValidation,
  warnings: string[],
): Promise<KubeObject> {
  const decoded = await decodeBody(body, cbor, 'body', target.rt);
  const value = decoded.value === null ? {} : decoded.value;
  if (typeof value !== 'object' || Array.isArray(value)) {
    // kube reads the type meta first, into a Go struct: any other JSON value fails there. (YAML
    // reaches the decoder converted to JSON, so its summary is of the JSON.)
    const jsonKind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
    const bytes = decoded.kind === 'json' ? body.bytes! : Buffer.from(JSON.stringify(value));
    throw decodeFailure(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      bytes,
      target.rt.kind,
    );
  }
  // As kube decodes the body into its Go type: empty omitempty fields are gone before anything
  // (managedFields included) looks at it.
  const obj = checkObjectBody({ ...decoded, value }, target, mode, warnings);
  return target.rt.unstructured ? obj : goDecodedForm(obj, target.rt.schema);
}
