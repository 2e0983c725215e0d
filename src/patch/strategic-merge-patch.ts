/**
 * Strategic merge patch, applied the way kube-apiserver's strategicpatch.StrategicMergeMapPatch
 * does, with the list strategies and merge keys read from the structural schema:
 *
 * - maps merge recursively; `null` deletes; `$patch: replace` / `$patch: delete` in a map that
 *   exists in the original (elsewhere anything carrying `$patch` is dropped, as kube's
 *   removeDirectives does, whatever the directive);
 * - lists whose field says `x-kubernetes-patch-strategy: merge` merge: objects by the
 *   `x-kubernetes-patch-merge-key` (entries may carry `$patch: delete` or `$patch: replace`),
 *   primitives as sets; every other list is replaced;
 * - `$retainKeys`, `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`;
 * - patch items keep the patch's order, items only on the server keep their relative place.
 *
 * Where there is no schema (unknown fields, preserve-unknown-fields) lists are replaced, which is
 * JSON merge patch behaviour. Errors carry kube's texts and codes: malformed directives are 400,
 * lists of lists 422, and the remaining merge failures 500 with the bare message, as kube's
 * handler leaves them.
 */
import { ApiError } from '../api/status-errors.ts';
import type { Schema } from '../schema/types.ts';
import { deepCopy, goFormat, goTypeName, hasOwn, isJsonObject, jsonKind, setOwn, type JsonKind, type JsonObject } from './json-value.ts';
import { itemsSchema, patchMeta, propertySchema } from './schema-walk.ts';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

const badRequest = (msg: string) => new ApiError(400, 'BadRequest', msg);
/** A failure kube-apiserver returns unconverted: code 500, reason unknown, the bare text. */
const unconverted = (msg: string) => new ApiError(500, '', msg);

const errBadPrimitiveList = () => badRequest('invalid patch format of primitive list');
const errBadRetainKeys = () => badRequest('invalid patch format of retainKeys');
const errBadSetElementOrder = () => badRequest('invalid patch format of setElementOrder list');
const errNoListOfLists = () =>
  Object.defineProperty(new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {}), 'cause', {
    value: 'lists of lists are not supported',
  });
const errNoMergeKey = (m: JsonObject, key: string) => unconverted(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);
const errBadArgType = (expected: string, actual: unknown) => unconverted(`expected a ${expected}, but received a ${goTypeName(actual)}`);
const errBadPatchType = (t: unknown, m: JsonObject) => unconverted(`unknown patch type: ${goFormat(t)} in map: ${goFormat(m)}`);

/**
 * Applies a strategic merge patch to `original` guided by `schema` (the kind's root schema, or
 * undefined for none) and returns a new value; inputs are not mutated. Throws ApiError.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: Schema | undefined): unknown {
  if (patch === null || patch === undefined) return deepCopy(original);
  if (!isJsonObject(patch)) {
    const kind = Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch;
    throw badRequest(`json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
  }
  const base = isJsonObject(original) ? deepCopy(original) : {};
  return mergeMap(base, deepCopy(patch), schema);
}

/** Strips the prefix of a `$directive/<field>` key, or throws the directive's format error. */
function extractKey(key: string, prefix: string, formatError: () => ApiError): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw formatError();
  return key.slice(slash + 1);
}

/** Merges `patch` into `original`; both are private copies and may be mutated. */
function mergeMap(original: JsonObject, patch: JsonObject, schema: Schema | undefined): JsonObject {
  if (hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    // kube's handleDirectiveInMergeMap: the rest of a replacing map is taken as written.
    if (directive === 'replace') {
      delete patch[DIRECTIVE];
      return patch;
    }
    if (directive === 'delete') return {};
    throw errBadPatchType(directive, patch);
  }
  applyRetainKeys(original, patch);
  applySetElementOrders(original, patch, schema);

  for (const rawKey of Object.keys(patch)) {
    let key = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = extractKey(rawKey, DELETE_FROM_PRIMITIVE_LIST, errBadPrimitiveList);
      isDeleteList = true;
    }
    const pv = patch[rawKey];
    const fieldSchema = propertySchema(schema, key);
    if (pv === null) {
      delete original[key];
      continue;
    }
    if (!hasOwn(original, key) || jsonKind(original[key]) !== jsonKind(pv)) {
      if (!isDeleteList) takeWithoutDirectives(original, key, discardNulls(pv));
      continue;
    }
    const ov = original[key];
    const meta = patchMeta(fieldSchema);
    if (isJsonObject(ov) && isJsonObject(pv)) {
      // A map whose field says `replace` is taken as written (kube's mergeMapHandler).
      setOwn(original, key, meta.strategy === 'replace' ? pv : mergeMap(ov, pv, fieldSchema));
    } else if (Array.isArray(ov) && Array.isArray(pv)) {
      setOwn(original, key, mergeListField(ov, pv, fieldSchema, isDeleteList, key));
    } else {
      takeWithoutDirectives(original, key, pv);
    }
  }
  return original;
}

/** kube's discardNullValuesFromPatch (IgnoreUnmatchedNulls): null members go, at every depth. */
function discardNulls(v: unknown): unknown {
  if (isJsonObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNulls(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const el of v) discardNulls(el);
  }
  return v;
}

/**
 * kube's removeDirectives: a patch value taken where the original has nothing to merge with.
 * Any map carrying `$patch` (whatever its value: an unknown one is not an error here) is
 * dropped, with the list entries and members that hold one; other directive keys stay as
 * written (decoding then treats them as unknown fields). Undefined means "drop the member".
 */
function withoutDirectives(v: unknown): unknown {
  if (isJsonObject(v)) {
    if (hasOwn(v, DIRECTIVE)) return undefined;
    for (const k of Object.keys(v)) {
      const kept = withoutDirectives(v[k]);
      if (kept === undefined) delete v[k];
      else v[k] = kept;
    }
    return v;
  }
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const el of v) {
      const kept = withoutDirectives(el);
      if (kept !== undefined) out.push(kept);
    }
    return out;
  }
  return v;
}

function takeWithoutDirectives(original: JsonObject, key: string, pv: unknown): void {
  const kept = withoutDirectives(pv);
  if (kept === undefined) delete original[key];
  else setOwn(original, key, kept);
}

/**
 * The list field rule: merge when the schema says so (or for a delete list), else the patch's
 * list replaces the original as written; directives inside it are then just unknown fields.
 */
function mergeListField(ov: unknown[], pv: unknown[], schema: Schema | undefined, isDeleteList: boolean, name: string): unknown[] {
  const meta = patchMeta(schema);
  if (meta.strategy === 'merge' || isDeleteList) return mergeList(ov, pv, itemsSchema(schema), meta.mergeKey, isDeleteList, name);
  return pv;
}

/** The single element kind of the given lists; lists of lists are refused (422). */
function elementKind(...lists: readonly (readonly unknown[])[]): JsonKind {
  let kind: JsonKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = jsonKind(v);
      if (kind === undefined) {
        if (k === 'array') throw errNoListOfLists();
        kind = k;
      } else if (k !== kind) {
        throw unconverted(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (kind === undefined) throw unconverted('no elements in any of the given slices');
  return kind;
}

function sameScalar(a: unknown, b: unknown): boolean {
  return a === b;
}

/** What identifies an entry: its merge-key value for objects, the value itself for primitives. */
function identity(item: unknown, mergeKey: string): unknown {
  if (!mergeKey) return item;
  return isJsonObject(item) && hasOwn(item, mergeKey) ? item[mergeKey] : undefined;
}

/** Position lookup of entries of `list` by identity (first occurrence wins), built once per list. */
function positions(list: readonly unknown[], mergeKey: string): (item: unknown) => number {
  const at = new Map<unknown, number>();
  list.forEach((el, i) => {
    const id = identity(el, mergeKey);
    if (id !== undefined && !at.has(id)) at.set(id, i);
  });
  return (item) => {
    const id = identity(item, mergeKey);
    return id === undefined ? -1 : (at.get(id) ?? -1);
  };
}

function mergeList(
  original: unknown[],
  patch: unknown[],
  items: Schema | undefined,
  mergeKey: string,
  isDeleteList: boolean,
  name: string,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  let merged: unknown[];
  let orderPatch = patch;
  let orderOriginal = original;
  if (kind !== 'object') {
    if (isDeleteList) {
      const doomed = new Set(patch);
      return original.filter((v) => !doomed.has(v));
    }
    merged = [...new Set([...original, ...patch])];
    mergeKey = '';
  } else {
    if (!mergeKey) throw unconverted(`cannot merge lists without merge key for ${name}`);
    const special = applySpecialElements(original, patch, mergeKey);
    orderOriginal = special.original;
    orderPatch = special.patch;
    merged = [...special.original];
    const byKey = new Map<unknown, number>();
    merged.forEach((el, i) => {
      const id = identity(el, mergeKey);
      if (id !== undefined && !byKey.has(id)) byKey.set(id, i);
    });
    for (const pv of special.patch) {
      const el = pv as JsonObject;
      if (!hasOwn(el, mergeKey)) throw errNoMergeKey(el, mergeKey);
      const at = byKey.get(el[mergeKey]);
      if (at !== undefined) merged[at] = mergeMap(merged[at] as JsonObject, el, items);
      else {
        // A new entry is appended as written (kube's mergeSliceWithoutSpecialElements).
        byKey.set(el[mergeKey], merged.length);
        merged.push(el);
      }
    }
  }
  const { inPatch, serverOnly } = partition(merged, orderPatch, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, orderPatch, orderOriginal, mergeKey);
}

/** Handles `$patch` entries of a merged list of objects: deletions by key, and `replace`. */
function applySpecialElements(original: unknown[], patch: unknown[], mergeKey: string): { original: unknown[]; patch: unknown[] } {
  const plain: unknown[] = [];
  let replace = false;
  const doomed = new Set<unknown>();
  for (const v of patch) {
    const el = v as JsonObject;
    if (!hasOwn(el, DIRECTIVE)) {
      plain.push(el);
      continue;
    }
    switch (el[DIRECTIVE]) {
      case 'delete':
        if (!hasOwn(el, mergeKey)) throw errNoMergeKey(el, mergeKey);
        doomed.add(el[mergeKey]);
        break;
      case 'replace':
        replace = true;
        break;
      case 'merge':
        throw unconverted('merging lists cannot yet be specified in the patch');
      default:
        throw errBadPatchType(el[DIRECTIVE], el);
    }
  }
  if (replace) return { original: plain, patch: [] };
  const remaining = doomed.size === 0 ? original : original.filter((o) => !(isJsonObject(o) && hasOwn(o, mergeKey) && doomed.has(o[mergeKey])));
  return { original: remaining, patch: plain };
}

function partition(list: readonly unknown[], by: readonly unknown[], mergeKey: string): { inPatch: unknown[]; serverOnly: unknown[] } {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  const indexIn = positions(by, mergeKey);
  for (const v of list) {
    if (mergeKey) {
      if (!isJsonObject(v)) throw errBadArgType('map[string]interface {}', v);
      if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    }
    (indexIn(v) >= 0 ? inPatch : serverOnly).push(v);
  }
  return { inPatch, serverOnly };
}

/** Stable sort of `list` by position in `order`; items not in `order` keep their place after those that are. */
function sortByOrder(list: readonly unknown[], order: readonly unknown[], mergeKey: string): unknown[] {
  if (mergeKey) {
    for (const v of [...list, ...order]) {
      if (!isJsonObject(v)) throw errBadArgType('map[string]interface {}', v);
      if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    }
  }
  const indexIn = positions(order, mergeKey);
  const ranked = list.map((v, i) => ({ v, i, at: indexIn(v) }));
  ranked.sort((a, b) => {
    if (a.at >= 0 && b.at >= 0) return a.at - b.at || a.i - b.i;
    if (a.at >= 0) return -1;
    if (b.at >= 0) return 1;
    return a.i - b.i;
  });
  return ranked.map((r) => r.v);
}

/**
 * Orders patch items by `patchOrder` and server-only items by `serverOrder`, then interleaves the
 * two keeping each one's relative order (server-only items go where the live list had them).
 */
function normalizeElementOrder(
  patchItems: readonly unknown[],
  serverOnly: readonly unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey);
  const serverIndex = positions(serverOrder, mergeKey);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = serverIndex(left[i]);
      const ri = serverIndex(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** `$retainKeys`: drops members of `original` not listed; every patched member must be listed (400). */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw errBadRetainKeys();
  const keep = new Set<unknown>(list);
  for (const k of Object.keys(patch)) {
    if (patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw errBadRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** Checks the patch list's items appear in `$setElementOrder` in the same relative order. */
function validateSetOrder(patchList: readonly unknown[], order: readonly unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey ? patchList.filter((v) => !(isJsonObject(v) && v[DIRECTIVE] === 'delete')) : patchList;
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < order.length) {
    const pv = nonDelete[p];
    if (isJsonObject(pv) && hasOwn(pv, DIRECTIVE)) {
      p++;
      continue;
    }
    let equal: boolean;
    if (mergeKey) {
      const ov = order[s];
      if (!isJsonObject(pv)) throw errBadArgType('map[string]interface {}', pv);
      if (!isJsonObject(ov)) throw errBadArgType('map[string]interface {}', ov);
      if (!hasOwn(pv, mergeKey)) throw errNoMergeKey(pv, mergeKey);
      if (!hasOwn(ov, mergeKey)) throw errNoMergeKey(ov, mergeKey);
      equal = sameScalar(pv[mergeKey], ov[mergeKey]);
    } else {
      equal = sameScalar(pv, order[s]);
    }
    if (equal) p++;
    s++;
  }
  if (p < nonDelete.length && s >= order.length) {
    throw unconverted(`The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormat(order)}\n`);
  }
}

/** `$setElementOrder/<field>`: merges that field's list (if patched) and orders it as listed. */
function applySetElementOrders(original: JsonObject, patch: JsonObject, schema: Schema | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType('[]interface {}', order);
    const field = extractKey(key, SET_ELEMENT_ORDER, errBadSetElementOrder);
    const foundOriginal = hasOwn(original, field);
    const foundPatch = hasOwn(patch, field);
    const originalList = foundOriginal ? original[field] : [];
    const patchList = foundPatch ? patch[field] : [];
    if (!Array.isArray(originalList)) throw errBadArgType('[]interface {}', originalList);
    if (!Array.isArray(patchList)) throw errBadArgType('[]interface {}', patchList);
    const fieldSchema = propertySchema(schema, field);
    const meta = patchMeta(fieldSchema);
    validateSetOrder(patchList, order, meta.mergeKey);
    if (!foundOriginal && !foundPatch) continue;
    let merged: unknown[];
    if (!foundPatch) merged = originalList;
    else if (!foundOriginal) merged = withoutDirectives(patchList) as unknown[];
    else merged = mergeListField(originalList, patchList, fieldSchema, false, field);
    delete patch[field];
    if (originalList.length === 0 && patchList.length === 0) {
      setOwn(original, field, merged);
      continue;
    }
    const kind = elementKind(originalList, patchList);
    const mergeKey = kind === 'object' ? meta.mergeKey : '';
    const { inPatch, serverOnly } = partition(merged, order, mergeKey);
    setOwn(original, field, normalizeElementOrder(inPatch, serverOnly, order, originalList, mergeKey));
  }
}
