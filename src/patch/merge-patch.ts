/**
 * RFC 7386 JSON merge patch, as kube-apiserver applies it (evanphx/json-patch MergePatch):
 * `null` deletes a member, objects merge recursively, anything else replaces. Nulls inside
 * values that are added whole are pruned from objects (not from arrays).
 */
import { ApiError } from '../api/status-errors.ts';
import { deepCopy, deepEqual, hasOwn, isJsonObject, setOwn, type JsonObject } from './json-value.ts';

/** Removes null members from objects, recursing through objects and arrays; mutates `v`. */
function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (const x of v) pruneNulls(x);
  } else if (isJsonObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else pruneNulls(v[k]);
    }
  }
  return v;
}

/** Merges `patch` into `doc` in place (both already private copies) and returns `doc`. */
function mergeInto(doc: JsonObject, patch: JsonObject): JsonObject {
  for (const k of Object.keys(patch)) {
    const pv = patch[k];
    if (pv === null) {
      delete doc[k];
      continue;
    }
    const cur = hasOwn(doc, k) ? doc[k] : undefined;
    if (isJsonObject(cur) && isJsonObject(pv)) setOwn(doc, k, mergeInto(cur, pv));
    else if (isJsonObject(cur)) setOwn(doc, k, pv);
    else setOwn(doc, k, pruneNulls(pv));
  }
  return doc;
}

/** Merges a merge-patch object into a value without the top-level checks; inputs are not mutated. */
export function mergePatchValue(original: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return pruneNulls(deepCopy(patch));
  const base = isJsonObject(original) ? deepCopy(original) : {};
  return mergeInto(base, deepCopy(patch));
}

/**
 * Applies a JSON merge patch and returns a new value; inputs are not mutated. A patch that is
 * null or a scalar is rejected with 400 `Invalid JSON Patch`, as kube-apiserver does; an array
 * patch replaces the document.
 */
export function applyMergePatch(original: unknown, patch: unknown): unknown {
  if (patch === null || patch === undefined || (typeof patch !== 'object' && !Array.isArray(patch))) {
    throw new ApiError(400, 'BadRequest', 'Invalid JSON Patch');
  }
  return mergePatchValue(original, patch);
}

/**
 * The merge patch that turns `original` into `modified`: changed members, removed members as
 * null, arrays replaced whole. Returns `{}` when they are equal; a non-object side gives `modified`.
 */
export function createMergePatch(original: unknown, modified: unknown): unknown {
  if (!isJsonObject(original) || !isJsonObject(modified)) return deepCopy(modified);
  const out: JsonObject = {};
  for (const k of Object.keys(original)) {
    if (!hasOwn(modified, k)) setOwn(out, k, null);
  }
  for (const k of Object.keys(modified)) {
    const mv = modified[k];
    if (!hasOwn(original, k)) {
      setOwn(out, k, deepCopy(mv));
      continue;
    }
    const ov = original[k];
    if (isJsonObject(ov) && isJsonObject(mv)) {
      const sub = createMergePatch(ov, mv) as JsonObject;
      if (Object.keys(sub).length > 0) setOwn(out, k, sub);
    } else if (!deepEqual(ov, mv)) {
      setOwn(out, k, deepCopy(mv));
    }
  }
  return out;
}
