/**
 * The patched document as kube-apiserver's patch libraries print it into a strict field
 * validation failure (`patch: Invalid value: "<text>": strict decoding error: ...`).
 *
 * evanphx/json-patch decodes a document lazily: only the levels a patch walks into become Go
 * maps (written back with sorted keys); every other subtree keeps the bytes it was read with
 * (the stored object's field order), and inserted patch values keep the patch's bytes. So the
 * text depends on which nodes the patch touched, which is what these functions reproduce.
 * Strings are escaped as Go's encoding/json does.
 */
import { encodeGoJson } from '../apply/go-json.ts';
import { hasOwn, isJsonObject, type JsonObject } from './json-value.ts';

/** A value written in its own key order (raw bytes in the library), escaped as Go does. */
function rawText(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(rawText).join(',')}]`;
  if (isJsonObject(v)) {
    const parts: string[] = [];
    for (const k of Object.keys(v)) if (v[k] !== undefined) parts.push(`${encodeGoJson(k)}:${rawText(v[k])}`);
    return `{${parts.join(',')}}`;
  }
  return encodeGoJson(v);
}

/** A value fully decoded by the library (pruneNulls decodes every level): sorted keys throughout. */
function decodedText(v: unknown): string {
  return encodeGoJson(v);
}

/**
 * The text jsonpatch.MergePatch writes for `patch` merged into `doc` (both as decoded JSON, `doc`
 * in its stored key order). Mirrors mergeDocs/merge/pruneNulls: the top level and every level
 * where both sides are objects are decoded; values the patch brings in are decoded too, unless
 * they replace an object with a non-object (then they stay as the patch wrote them).
 */
export function mergePatchedText(doc: unknown, patch: unknown): string {
  if (!isJsonObject(doc) || !isJsonObject(patch)) return decodedText(patch);
  return mergeLevel(doc, patch);
}

function mergeLevel(doc: JsonObject, patch: JsonObject): string {
  const out = new Map<string, string>();
  for (const k of Object.keys(doc)) if (doc[k] !== undefined) out.set(k, rawText(doc[k]));
  for (const k of Object.keys(patch)) {
    const pv = patch[k];
    if (pv === null) {
      out.delete(k);
      continue;
    }
    const cur = hasOwn(doc, k) ? doc[k] : undefined;
    if (cur === undefined || cur === null || !isJsonObject(cur)) out.set(k, decodedText(pv));
    else if (isJsonObject(pv)) out.set(k, mergeLevel(cur, pv));
    else out.set(k, rawText(pv));
  }
  const keys = [...out.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${encodeGoJson(k)}:${out.get(k)!}`).join(',')}}`;
}

/**
 * The text jsonpatch.Patch.Apply writes for `result`: the containers the operations walked
 * through (`touched`, as JSON pointers into the result, the root always) are decoded and sorted;
 * the rest keeps its order. Array positions shifted by later operations are not tracked.
 */
export function jsonPatchedText(result: unknown, ops: readonly unknown[]): string {
  const touched = new Set<string>(['']);
  for (const op of ops) {
    if (!isJsonObject(op)) continue;
    for (const p of [op.path, op.from]) {
      if (typeof p !== 'string') continue;
      const split = p.split('/');
      // The containers findObject decodes: the prefixes before the last segment (the first dropped).
      for (let i = 2; i < split.length; i++) touched.add(split.slice(1, i).join('/'));
    }
  }
  return touchedText(result, '', touched);
}

function touchedText(v: unknown, at: string, touched: ReadonlySet<string>): string {
  if (!touched.has(at)) return rawText(v);
  const child = (k: string) => (at === '' ? k.replace(/~/g, '~0').replace(/\//g, '~1') : `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  if (Array.isArray(v)) return `[${v.map((x, i) => touchedText(x, child(String(i)), touched)).join(',')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${encodeGoJson(k)}:${touchedText(v[k], child(k), touched)}`).join(',')}}`;
  }
  return encodeGoJson(v);
}
