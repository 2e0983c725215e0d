/**
 * PATCH: JSON patch, merge patch, strategic merge patch, and server-side apply, applied to the
 * current object inside the store's guaranteed-update loop (so a concurrent write re-runs the patch).
 */
import { queryBool } from '../../registry/list-options.ts';
import { errors } from '../../api/status-errors.ts';
import { apiVersionOf, type KubeObject, type ResourceType } from '../../api/types.ts';
import { applyJsonPatch } from '../../patch/json-patch.ts';
import { applyMergePatch } from '../../patch/merge-patch.ts';
import { applyStrategicMergePatch } from '../../patch/strategic-merge-patch.ts';
import { serverSideApply } from '../../apply/index.ts';
import { typedPatchError, typedPatchErrors } from '../../apply/typed-check.ts';
import type { WriteContext } from '../../registry/resource-store.ts';
import { cloneObject } from '../../registry/object-meta.ts';
import { applyTypeError, asObject, checkObjectBody, checkTypeMeta, decodeBody, fieldValidationMode, goTypeErrorOf, strategicPatchTypeError, type DecodedBody, type FieldValidation } from './body.ts';
import { ApiError } from '../../api/status-errors.ts';
import { fromUnstructuredError } from '../../patch/from-unstructured.ts';
import { goJsonSyntaxError } from '../../codec/json-syntax.ts';
import { DEFAULT_MAX_DEPTH } from '../../codec/json-decode.ts';
import { formatStrictDecodingError, formatUnknownFieldWarning, goQuote, pruneUnknownFields } from '../../schema/prune.ts';
import { jsonPatchedText, mergePatchedText } from '../../patch/patched-text.ts';
import { goFormat, isJsonObject } from '../../patch/json-value.ts';
import { mergeSubresource } from './subresource-merge.ts';
import type { ServedResource } from '../../registry/resource-catalog.ts';
import type { ResourceRequest } from '../types.ts';
import { applyContextFor } from '../../registry/apply-context.ts';
import { fieldErr } from '../../api/field-errors.ts';
import { managerFor } from './field-manager.ts';

/** Applies the PATCH body of `r` and writes the result (may be retried on conflict); returns the stored object. */
export async function applyPatchBody(target: ServedResource, r: ResourceRequest, ctx: WriteContext): Promise<{ object: KubeObject; created: boolean }> {
  const { rt, store } = target;
  const mode = fieldValidationMode(r.query);
  checkPatchSyntax(r, mode);
  const body = await decodePatchBody(target, r);
  if (body.kind === 'json-patch' && mode !== 'Ignore') checkJsonPatchOps(body.value);
  const sub = r.info.subresource;
  const isApply = body.kind === 'apply-patch';
  const applied = isApply ? readAppliedConfig(rt, r, body, mode, ctx.warnings) : null;
  // A merge patch is decoded strictly into a map first when fields are validated.
  if (body.kind === 'merge-patch' && mode !== 'Ignore' && body.value !== null && !isJsonObject(body.value)) {
    throw errors.badRequest(`error decoding patch: json: cannot unmarshal ${goJsonKind(body.value)} into Go value of type map[string]interface {}`);
  }
  // A strategic merge patch is typed like the object it patches (null deletes, `$` keys are
  // directives), and kube converts it to the Go type before merging; checking it first keeps
  // ill-typed values away from the schema-driven merge code. Its result is checked again below.
  if (body.kind === 'strategic-merge-patch') {
    const convertErr = converterError(body.value, rt, true);
    if (convertErr) throw patchDecodeError(convertErr, body, null, null);
    const typeErr = goTypeErrorOf(body.value, rt, { zeroNulls: false, patchDirectives: true });
    if (typeErr) throw strategicPatchTypeError(typeErr, body.value);
  }
  // PatchOptions.force converts as kube's query booleans: any value but 0/false is true.
  const force = queryBool(r.query.getAll('force')[0]) ?? false;
  if (!isApply && r.query.get('force') !== null) {
    throw errors.invalid('PatchOptions.meta.k8s.io', 'meta.k8s.io', 'PatchOptions', '', [fieldErr.forbidden('force', 'may not be specified for non-apply patch')]);
  }
  const applyCtx = applyContextFor(rt, isApply ? r.query.get('fieldManager')! : managerFor(r.query, r.userAgent), sub, ctx.now);
  const writeCtx: WriteContext = { ...ctx, manager: applyCtx.manager, subresource: sub, skipManagedFields: isApply };
  const patchStrictErrors = isApply ? [] : patchDecodeStrictErrors(body, mode);
  let warned = false;

  return store.update(
    r.info.namespace,
    r.info.name,
    (current) => {
      if (isApply) {
        // (A live object that cannot be typed is the engine's 500 `failed to create typed live object`.)
        const merged = serverSideApply(current, cloneObject(applied!), { ...applyCtx, force });
        checkPatchedName((merged.metadata ??= {}), r.info.name, rt.namespaced ? r.info.namespace : '');
        if (current) {
          mergeSubresource(merged, current, sub, rt);
          unpinResourceVersion(merged, current);
        } else {
          delete merged.metadata?.resourceVersion;
        }
        return merged;
      }
      if (!current) throw errors.notFound(store.gr, r.info.name);
      let patched: unknown;
      switch (body.kind) {
        case 'json-patch':
          patched = applyJsonPatch(current, body.value);
          break;
        case 'merge-patch':
          patched = applyMergePatch(current, body.value);
          break;
        default:
          patched = applyStrategicMergePatch(current, body.value, rt.schema);
      }
      const obj = asObject(patched);
      // The result becomes the kind's Go type: from JSON for JSON and merge patches, through the
      // unstructured converter (its own messages) for strategic merge patches.
      const convertErr = body.kind === 'strategic-merge-patch' ? converterError(obj, rt, false) : undefined;
      if (convertErr) throw patchDecodeError(convertErr, body, current, patched);
      const typeErr = goTypeErrorOf(obj, rt);
      if (typeErr) throw patchDecodeError(typeErr.message, body, current, patched);
      checkTypeMeta(obj, rt);
      const meta = (obj.metadata ??= {});
      const unknown = pruneUnknownFields(obj, rt.schema).map(formatUnknownFieldWarning);
      if (mode !== 'Ignore') {
        const violations = [...patchStrictErrors, ...unknown];
        if (violations.length > 0 && mode === 'Strict') throw strictPatchError(body, current, patched, violations);
        // The update may be retried: warn once.
        if (violations.length > 0 && !warned) ctx.warnings.push(...violations);
        warned = true;
      }
      checkPatchedName(meta, r.info.name, rt.namespaced ? r.info.namespace : '');
      mergeSubresource(obj, current, sub, rt);
      unpinResourceVersion(obj, current);
      return obj;
    },
    writeCtx,
    { allowCreate: isApply, subresource: sub },
  );
}

/**
 * The applied configuration of a server-side apply, checked in kube's order: the fieldManager
 * option, a map body, the version check (exactly this endpoint's kind), no managedFields, then
 * the field manager's typing (unknown fields and ill-typed values fail with 500 whatever the
 * validation mode; nothing is pruned), then strict YAML decoding for duplicate keys.
 */
function readAppliedConfig(rt: ResourceType, r: ResourceRequest, body: DecodedBody, mode: FieldValidation, warnings: string[]): KubeObject {
  if ((r.query.get('fieldManager') ?? '') === '') {
    throw errors.invalid('PatchOptions.meta.k8s.io', 'meta.k8s.io', 'PatchOptions', '', [fieldErr.required('fieldManager', 'is required for apply patch')]);
  }
  const raw = appliedObject(body.value);
  if (raw.apiVersion !== apiVersionOf(rt) || raw.kind !== rt.kind) {
    const av = typeof raw.apiVersion === 'string' ? raw.apiVersion : '';
    throw errors.badRequest(`invalid object type: ${av.includes('/') ? av : `/${av}`}, Kind=${typeof raw.kind === 'string' ? raw.kind : ''}`);
  }
  // (A metadata that is no object has no managedFields: the typing below reports it.)
  if (isJsonObject(raw.metadata) && raw.metadata.managedFields != null) throw errors.badRequest('metadata.managedFields must be nil');
  const typeErrors = typedPatchErrors(raw, rt.schema);
  // Deeper Go type mismatches are reported by the decode check, one at a time.
  const typeErr = typeErrors.length === 0 ? goTypeErrorOf(raw, rt) : undefined;
  const applied = checkObjectBody({ ...body, duplicates: [] }, { rt, namespace: r.info.namespace, name: r.info.name }, 'Ignore', warnings);
  if (typeErrors.length > 0) throw typedPatchError(raw, typeErrors);
  if (typeErr) throw applyTypeError(typeErr, raw, rt);
  if (body.duplicates.length > 0 && mode === 'Strict') {
    throw errors.badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n${body.duplicates.map((d) => `  ${d}`).join('\n')}`);
  }
  if (mode === 'Warn') warnings.push(...body.duplicates);
  return applied;
}

/** A patch that leaves resourceVersion as read is not a precondition; one that changes it is. */
function unpinResourceVersion(obj: KubeObject, current: KubeObject): void {
  if (obj.metadata && obj.metadata.resourceVersion === current.metadata?.resourceVersion) delete obj.metadata.resourceVersion;
}

/** JSON patch operations have exactly these members (kube decodes them strictly into jsonPatchOp). */
const JSON_PATCH_OP_FIELDS = new Set(['op', 'path', 'from', 'value']);

/**
 * The strict-decoding errors of the patch document itself, as kube reports them before the
 * patched object's own: for JSON patch, unknown operation members then duplicates, each
 * prefixed `json patch`; for merge and strategic merge patch, the duplicates.
 */
function patchDecodeStrictErrors(body: DecodedBody, mode: FieldValidation): string[] {
  if (mode === 'Ignore') return [];
  if (body.kind !== 'json-patch') return [...body.duplicates];
  const unknown: string[] = [];
  if (Array.isArray(body.value)) {
    body.value.forEach((op, i) => {
      if (!isJsonObject(op)) return;
      for (const k of Object.keys(op)) if (!JSON_PATCH_OP_FIELDS.has(k)) unknown.push(formatUnknownFieldWarning(`[${i}].${k}`));
    });
  }
  return [...unknown, ...body.duplicates].map((e) => `json patch ${e}`);
}

/**
 * The document kube prints when a patch result fails: the patched JSON as the patch library
 * wrote it (JSON and merge patch), or the patch map printed with `%+v` (strategic merge patch).
 */
function patchedDocumentText(body: DecodedBody, current: KubeObject | null, patched: unknown): string {
  if (body.kind === 'merge-patch' && current) return mergePatchedText(current, body.value);
  if (body.kind === 'json-patch') return jsonPatchedText(patched, Array.isArray(body.value) ? body.value : []);
  return goFormat(body.value);
}

/** A patch result that does not decode into the kind's Go type: kube's 422 on the `patch` field. */
function patchDecodeError(message: string, body: DecodedBody, current: KubeObject | null, patched: unknown): ApiError {
  return errors.invalid('', '', '', '', [fieldErr.invalid('patch', patchedDocumentText(body, current, patched), message)]);
}

/**
 * kube's Strict failure of a patch: 422 Invalid with no kind or name, one `patch` cause whose
 * value is the patched document (JSON and merge patch) or the patch map printed with `%+v`
 * (strategic merge patch).
 */
function strictPatchError(body: DecodedBody, current: KubeObject, patched: unknown, violations: readonly string[]): ApiError {
  const text = patchedDocumentText(body, current, patched);
  const detail = `Invalid value: ${goQuote(text)}: ${formatStrictDecodingError(violations)}`;
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${detail}`, { causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }] });
}

/**
 * kube's checks of a patched object (rest.EnsureObjectNamespaceMatchesRequestNamespace, then
 * checkName): a namespace left out is the URL's (none for cluster-scoped kinds), another one is
 * 400; the name must be there and be the URL's. Mutates `meta`.
 */
function checkPatchedName(meta: NonNullable<KubeObject['metadata']>, name: string, namespace: string): void {
  const objNamespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (objNamespace === '' || namespace === '') meta.namespace = namespace || undefined;
  else if (objNamespace !== namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (meta.namespace === undefined) delete meta.namespace;
  const objName = typeof meta.name === 'string' ? meta.name : '';
  if (objName === '') throw errors.badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  if (objName !== name) throw errors.badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
}

/** encoding/json's name for a JSON value's kind in `json: cannot unmarshal X into ...`. */
function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/**
 * An apply body as kube decodes it into an unstructured object: null (or empty YAML) is an empty
 * object, anything but a map is kube's 400.
 */
function appliedObject(value: unknown): KubeObject {
  if (value === null || value === undefined) return {};
  if (!isJsonObject(value)) {
    throw errors.badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonKind(value)} into Go value of type map[string]interface {}`);
  }
  return value as KubeObject;
}

const JSON_BODIED_PATCHES: Readonly<Record<string, 'json-patch' | 'merge-patch' | 'strategic-merge-patch'>> = {
  'application/json-patch+json': 'json-patch',
  'application/merge-patch+json': 'merge-patch',
  'application/strategic-merge-patch+json': 'strategic-merge-patch',
};

/**
 * A JSON patch body that is not JSON fails where kube's patch handler first reads it: the strict
 * decode when fields are validated (`error decoding patch: ...`), else the patch library (JSON
 * patch: the bare error; merge patch: `Invalid JSON Patch`); strategic merge patch always bare.
 */
function checkPatchSyntax(r: ResourceRequest, mode: FieldValidation): void {
  const ct = String(r.body.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const kind = JSON_BODIED_PATCHES[ct];
  const raw = r.body.bytes;
  if (!kind || !raw || raw.length === 0) return;
  const syntax = goJsonSyntaxError(raw.toString('utf8'), DEFAULT_MAX_DEPTH);
  if (syntax === undefined) return;
  if (kind === 'strategic-merge-patch') throw errors.badRequest(syntax);
  if (mode !== 'Ignore') throw errors.badRequest(`error decoding patch: ${syntax}`);
  throw errors.badRequest(kind === 'merge-patch' ? 'Invalid JSON Patch' : syntax);
}

/**
 * kube decodes a JSON patch strictly into its own operation type before applying it when fields
 * are validated: a list of objects whose op, path and from are strings (or null).
 */
function checkJsonPatchOps(value: unknown): void {
  const fail = (what: string) => errors.badRequest(`error decoding patch: json: cannot unmarshal ${what}`);
  if (value === null) return;
  if (!Array.isArray(value)) throw fail(`${goJsonKind(value)} into Go value of type []handlers.jsonPatchOp`);
  for (const op of value) {
    if (op === null) continue;
    if (!isJsonObject(op)) throw fail(`${goJsonKind(op)} into Go value of type handlers.jsonPatchOp`);
    for (const field of ['op', 'path', 'from'] as const) {
      const v = op[field];
      if (v !== undefined && v !== null && typeof v !== 'string') throw fail(`${goJsonKind(v)} into Go struct field jsonPatchOp.${field} of type string`);
    }
  }
}

/**
 * Decodes a PATCH body. Failures are the decoder's own words (kube reads patches as plain maps,
 * not as objects of a kind); an apply body's are prefixed as kube's apply patcher does.
 */
async function decodePatchBody(target: ServedResource, r: ResourceRequest): Promise<DecodedBody> {
  try {
    return await decodeBody(r.body, r.features.enabled('CBORServingAndStorage'), 'patch', target.rt, '');
  } catch (err) {
    if (err instanceof ApiError && err.code === 400 && err.message.startsWith('error converting YAML to JSON')) {
      throw errors.badRequest(`error decoding YAML: ${err.message}`);
    }
    throw err;
  }
}

/**
 * kube's unstructured converter complaint about a strategic merge patch (or its result). The
 * schema walk knows the converter's cases; the Go type table (goTypeErrorOf) knows named types,
 * so `cannot convert int64 to types.UID` takes its type name from there.
 */
function converterError(value: unknown, rt: ResourceType, patchDirectives: boolean): string | undefined {
  const message = fromUnstructuredError(value, rt.schema, { patchDirectives });
  const prefix = 'cannot convert int64 to ';
  if (message?.startsWith(prefix)) {
    const named = goTypeErrorOf(value, rt, { zeroNulls: false, patchDirectives })?.converterMessage;
    if (named?.startsWith(prefix)) return named;
  }
  return message;
}
