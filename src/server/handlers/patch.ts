/**
 * PATCH: JSON patch, merge patch, strategic merge patch, and server-side apply, applied to the
 * current object inside the store's guaranteed-update loop (so a concurrent write re-runs the patch).
 */
import { queryBool } from '../../registry/list-options.ts';
import { errors } from '../../api/status-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { applyJsonPatch } from '../../patch/json-patch.ts';
import { applyMergePatch } from '../../patch/merge-patch.ts';
import { applyStrategicMergePatch } from '../../patch/strategic-merge-patch.ts';
import { serverSideApply } from '../../apply/index.ts';
import type { WriteContext } from '../../registry/resource-store.ts';
import { cloneObject } from '../../registry/object-meta.ts';
import { applyTypeError, asObject, checkObjectBody, checkTypeMeta, decodeBody, fieldValidationMode, goTypeErrorOf, patchTypeError, strategicPatchTypeError, type DecodedBody, type FieldValidation } from './body.ts';
import { ApiError } from '../../api/status-errors.ts';
import { formatStrictDecodingError, formatUnknownFieldWarning, goQuote, pruneUnknownFields } from '../../schema/prune.ts';
import { jsonPatchedText, mergePatchedText } from '../../patch/patched-text.ts';
import { goFormat, isJsonObject } from '../../patch/json-value.ts';
import { mergeSubresource, type VerbContext } from './resource.ts';
import { applyContextFor } from '../../registry/apply-context.ts';
import { fieldErr } from '../../api/field-errors.ts';
import { managerFor } from './field-manager.ts';

/** Applies the PATCH body in `c` and writes the result; returns the stored object. */
export async function applyPatchBody(c: VerbContext, ctx: WriteContext): Promise<{ object: KubeObject; created: boolean }> {
  const { rt, store } = c.served;
  const mode = fieldValidationMode(c.query);
  const body = await decodeBody(c.req, 'patch', rt);
  const sub = c.info.subresource;
  const isApply = body.kind === 'apply-patch';
  let applied: KubeObject | null = null;
  if (isApply) {
    const manager = c.query.get('fieldManager') ?? '';
    if (manager === '') {
      throw errors.invalid('PatchOptions.meta.k8s.io', 'meta.k8s.io', 'PatchOptions', '', [fieldErr.required('fieldManager', 'is required for apply patch')]);
    }
    const raw = asObject(body.value);
    // The typed conversion of the apply body, before any apply code walks it.
    const typeErr = goTypeErrorOf(raw, rt);
    if (typeErr) throw applyTypeError(typeErr, raw, rt);
    if (raw.metadata && 'managedFields' in raw.metadata && raw.metadata.managedFields != null) {
      throw errors.badRequest('metadata.managedFields must be nil');
    }
    applied = checkObjectBody(body, { rt, namespace: c.info.namespace, name: c.info.name }, mode, ctx.warnings);
  }
  // A strategic merge patch is typed like the object it patches (null deletes, `$` keys are
  // directives), and kube converts it to the Go type before merging; checking it first keeps
  // ill-typed values away from the schema-driven merge code. Merge and JSON patches are generic
  // JSON operations: their result is checked below, as kube decodes it.
  if (body.kind === 'strategic-merge-patch') {
    const typeErr = goTypeErrorOf(body.value, rt, { zeroNulls: false, patchDirectives: true });
    if (typeErr) throw strategicPatchTypeError(typeErr, body.value);
  }
  // PatchOptions.force converts as kube's query booleans: any value but 0/false is true.
  const force = queryBool(c.query.getAll('force')[0]) ?? false;
  if (!isApply && c.query.get('force') !== null) throw errors.badRequest('force may not be set on non-apply patch requests');
  const applyCtx = applyContextFor(rt, isApply ? c.query.get('fieldManager')! : managerFor(c), sub, ctx.now);
  const writeCtx: WriteContext = { ...ctx, manager: applyCtx.manager, subresource: sub, skipManagedFields: isApply };
  const patchStrictErrors = isApply ? [] : patchDecodeStrictErrors(body, mode);
  let warned = false;

  return store.update(
    c.info.namespace,
    c.info.name,
    (current) => {
      if (isApply) {
        let merged: KubeObject;
        try {
          merged = serverSideApply(current, cloneObject(applied!), { ...applyCtx, force });
        } catch (err) {
          // The body was typed above, so a type error here is the live object's: kube's
          // "failed to create typed live object", which it returns unwrapped (a 500).
          if (err instanceof Error && err.name === 'ApplyTypeError') {
            throw new ApiError(500, '', `failed to create typed live object (${c.info.namespace}/${c.info.name}; ${rt.group}/${rt.version}, Kind=${rt.kind}): ${err.message}`);
          }
          throw err;
        }
        if (current) {
          mergeSubresource(merged, current, sub, rt);
          unpinResourceVersion(merged, current);
        } else {
          delete merged.metadata?.resourceVersion;
        }
        return merged;
      }
      if (!current) throw errors.notFound(store.gr, c.info.name);
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
      // The patched JSON is decoded into the kind's Go type in kube: a mismatch is 422 on `patch`.
      const typeErr = goTypeErrorOf(obj, rt);
      if (typeErr) throw patchTypeError(typeErr, obj);
      checkTypeMeta(obj, rt);
      const meta = (obj.metadata ??= {});
      if (meta.name !== c.info.name) throw errors.badRequest('metadata.name: Invalid value: the name of an object may not be changed by a patch');
      if (rt.namespaced && (meta.namespace ?? '') !== c.info.namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      const unknown = pruneUnknownFields(obj, rt.schema).map(formatUnknownFieldWarning);
      if (mode !== 'Ignore') {
        const violations = [...patchStrictErrors, ...unknown];
        if (violations.length > 0 && mode === 'Strict') throw strictPatchError(body, current, patched, violations);
        // The update may be retried: warn once.
        if (violations.length > 0 && !warned) ctx.warnings.push(...violations);
        warned = true;
      }
      mergeSubresource(obj, current, sub, rt);
      unpinResourceVersion(obj, current);
      return obj;
    },
    writeCtx,
    { allowCreate: isApply, subresource: sub },
  );
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
 * kube's Strict failure of a patch: 422 Invalid with no kind or name, one `patch` cause whose
 * value is the patched document (JSON and merge patch) or the patch map printed with `%+v`
 * (strategic merge patch).
 */
function strictPatchError(body: DecodedBody, current: KubeObject, patched: unknown, violations: readonly string[]): ApiError {
  let text: string;
  if (body.kind === 'merge-patch') text = mergePatchedText(current, body.value);
  else if (body.kind === 'json-patch') text = jsonPatchedText(patched, Array.isArray(body.value) ? body.value : []);
  else text = goFormat(body.value);
  const detail = `Invalid value: ${goQuote(text)}: ${formatStrictDecodingError(violations)}`;
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${detail}`, { causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }] });
}
