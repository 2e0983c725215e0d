/**
 * RFC 6902 JSON Patch as kube-apiserver 1.32 applies it with gopkg.in/evanphx/json-patch.v4
 * (v4.12.0, SupportNegativeIndices on), which departs from the RFC in ways clients rely on:
 * - an absent object member reads as null: `replace` of a missing key adds it, `copy` from a
 *   missing key stores null, `test` of a missing key passes against null;
 * - a path is split on `/` and its first segment dropped, so `a/b` means `/b` (a path without
 *   a leading slash is not an error), and `""` addresses nothing except for `replace` (the whole
 *   document, when the value is an object or array) and `test`;
 * - negative array indices count from the end.
 * Failures are the API errors kube-apiserver sends: a body that is not a list of operations is
 * 400, more than 10000 operations is 413, and any operation that does not apply is a 422 whose
 * message is generic (kube drops the library's text; we keep it on `cause` for logs).
 */
import { ApiError } from '../api/status-errors.ts';
import { deepCopy, deepEqual, hasOwn, isJsonObject, setOwn, type JsonObject } from './json-value.ts';

/** kube-apiserver's limit on the operations of one JSON patch (maxJSONPatchOperations). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;
/** kube-apiserver's default limit on bytes added by `copy` operations (JSONPatchMaxCopyBytes). */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

export type JsonPatchOperation = Readonly<JsonObject>;

export interface JsonPatchOptions {
  readonly maxOperations?: number;
  readonly maxCopyBytes?: number;
}

/** Go's name for the JSON kind in `json: cannot unmarshal X into ...` messages. */
function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/**
 * Checks that a decoded body is a list of operations, as jsonpatch.DecodePatch does, and that it
 * is within the operation limit. Throws 400 or 413 ApiErrors; returns the operations unchanged.
 */
export function decodeJsonPatch(body: unknown, opts: JsonPatchOptions = {}): readonly JsonPatchOperation[] {
  if (body === null) return [];
  if (!Array.isArray(body)) {
    throw new ApiError(400, 'BadRequest', `json: cannot unmarshal ${goJsonKind(body)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of body) {
    if (op !== null && !isJsonObject(op)) {
      throw new ApiError(400, 'BadRequest', `json: cannot unmarshal ${goJsonKind(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  const max = opts.maxOperations ?? MAX_JSON_PATCH_OPERATIONS;
  if (body.length > max) {
    throw new ApiError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${max}, got ${body.length}`,
    );
  }
  return body.map((op) => (op ?? {}) as JsonPatchOperation);
}

/** The 422 kube-apiserver answers for a patch that does not apply; `detail` is the library's reason. */
export function jsonPatchNotApplicable(detail: string): ApiError {
  const err = new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
  Object.defineProperty(err, 'cause', { value: detail, enumerable: false });
  return err;
}

class OpFailure extends Error {}

type Container = { readonly kind: 'object'; readonly node: JsonObject } | { readonly kind: 'array'; readonly node: unknown[] };

function decodeToken(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Go's strconv.Atoi: optional sign, decimal digits, within int64. */
function atoi(key: string): number {
  if (!/^[-+]?\d+$/.test(key) || !Number.isSafeInteger(Number(key))) throw new OpFailure(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  return Number(key);
}

function invalidIndex(idx: number): OpFailure {
  return new OpFailure(`Unable to access invalid index: ${idx}: invalid index referenced`);
}

/** An existing element's index (partialArray.get/set/remove); negative counts from the end. */
function existingIndex(arr: readonly unknown[], key: string): number {
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -arr.length) throw invalidIndex(idx);
    idx += arr.length;
  }
  if (idx >= arr.length) throw invalidIndex(idx);
  return idx;
}

/** A JSON null reads as nothing, as a nil *lazyNode does in the library. */
function asContainer(v: unknown): Container | undefined {
  if (Array.isArray(v)) return { kind: 'array', node: v };
  if (isJsonObject(v)) return { kind: 'object', node: v };
  return undefined;
}

/**
 * The library's findObject: the path split on `/`, its first segment dropped (the empty one
 * before a leading slash, or whatever stands there), the middle segments walked, the last one
 * returned as the key. Undefined when the path has fewer than two segments or the walk fails.
 */
function findParent(doc: Container, path: string): { readonly parent: Container; readonly key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let cur: Container | undefined = doc;
  for (let i = 1; i < split.length - 1; i++) {
    const tok = decodeToken(split[i]!);
    if (cur.kind === 'object') {
      cur = asContainer(hasOwn(cur.node, tok) ? cur.node[tok] : undefined);
    } else {
      let idx: number;
      try {
        idx = existingIndex(cur.node, tok);
      } catch {
        return undefined;
      }
      cur = asContainer(cur.node[idx]);
    }
    if (!cur) return undefined;
  }
  return { parent: cur, key: decodeToken(split[split.length - 1]!) };
}

/** partialDoc.get / partialArray.get: an absent member is undefined, a bad index fails. */
function getIn(c: Container, key: string): unknown {
  if (c.kind === 'object') return hasOwn(c.node, key) ? c.node[key] : undefined;
  return c.node[existingIndex(c.node, key)];
}

function addIn(c: Container, key: string, value: unknown): void {
  if (c.kind === 'object') {
    setOwn(c.node, key, value);
    return;
  }
  if (key === '-') {
    c.node.push(value);
    return;
  }
  let idx: number;
  try {
    idx = atoi(key);
  } catch (e) {
    throw new OpFailure(`value was not a proper array index: '${key}': ${(e as Error).message}`);
  }
  const size = c.node.length + 1;
  if (idx >= size) throw invalidIndex(idx);
  if (idx < 0) {
    if (idx < -size) throw invalidIndex(idx);
    idx += size;
  }
  c.node.splice(idx, 0, value);
}

function setIn(c: Container, key: string, value: unknown): void {
  if (c.kind === 'object') setOwn(c.node, key, value);
  else c.node[existingIndex(c.node, key)] = value;
}

function removeIn(c: Container, key: string): void {
  if (c.kind === 'object') {
    if (!hasOwn(c.node, key)) throw new OpFailure(`Unable to remove nonexistent key: ${key}: missing value`);
    delete c.node[key];
    return;
  }
  c.node.splice(existingIndex(c.node, key), 1);
}

/** Operation.Path / Operation.From: a string, or the library's decode failure. */
function stringField(op: JsonPatchOperation, name: 'path' | 'from', what: string): string {
  const v = op[name];
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) {
    throw new OpFailure(`${what} operation failed to decode ${name}: ${name === 'path' ? 'operation missing path field' : 'operation, missing from field'}: missing value`);
  }
  throw new OpFailure(`${what} operation failed to decode ${name}: json: cannot unmarshal ${goJsonKind(v)} into Go value of type string`);
}

/** Prefixes a failure of a container operation as the library wraps it. */
function wrapped<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof OpFailure) throw new OpFailure(`${prefix}: ${e.message}`);
    throw e;
  }
}

/** The value an operation carries: JSON null when the member is absent or null. */
function opValue(op: JsonPatchOperation): unknown {
  return deepCopy(op.value ?? null);
}

/**
 * Applies a JSON patch to a deep copy of `doc` and returns the copy; `doc` and `patch` are not
 * mutated. Throws ApiError 400/413 for a malformed patch and 422 when an operation fails.
 */
export function applyJsonPatch(doc: unknown, patch: unknown, opts: JsonPatchOptions = {}): unknown {
  const ops = decodeJsonPatch(patch, opts);
  const maxCopy = opts.maxCopyBytes ?? MAX_JSON_PATCH_COPY_BYTES;
  let root = asContainer(deepCopy(doc)) ?? { kind: 'object', node: {} };
  let copied = 0;
  for (const op of ops) {
    const kind = typeof op.op === 'string' ? op.op : 'unknown';
    try {
      switch (kind) {
        case 'add': {
          const path = stringField(op, 'path', 'add');
          const found = findParent(root, path);
          if (!found) throw new OpFailure(`add operation does not apply: doc is missing path: "${path}": missing value`);
          wrapped(`error in add for path: '${path}'`, () => addIn(found.parent, found.key, opValue(op)));
          break;
        }
        case 'remove': {
          const path = stringField(op, 'path', 'remove');
          const found = findParent(root, path);
          if (!found) throw new OpFailure(`remove operation does not apply: doc is missing path: "${path}": missing value`);
          wrapped(`error in remove for path: '${path}'`, () => removeIn(found.parent, found.key));
          break;
        }
        case 'replace': {
          const path = stringField(op, 'path', 'replace');
          if (path === '') {
            // The whole document; a value that is neither object nor array is ignored (the library's wrapped nil error).
            const whole = asContainer(opValue(op));
            if (whole) root = whole;
            break;
          }
          const found = findParent(root, path);
          if (!found) throw new OpFailure(`replace operation does not apply: doc is missing path: ${path}: missing value`);
          // An absent object member reads as null without error: replace adds it.
          wrapped(`replace operation does not apply: doc is missing key: ${path}`, () => getIn(found.parent, found.key));
          wrapped(`error in remove for path: '${path}'`, () => setIn(found.parent, found.key, opValue(op)));
          break;
        }
        case 'move': {
          const from = stringField(op, 'from', 'move');
          const src = findParent(root, from);
          if (!src) throw new OpFailure(`move operation does not apply: doc is missing from path: ${from}: missing value`);
          const value = wrapped(`error in move for path: '${src.key}'`, () => getIn(src.parent, src.key));
          wrapped(`error in move for path: '${src.key}'`, () => removeIn(src.parent, src.key));
          const path = stringField(op, 'path', 'move');
          const dst = findParent(root, path);
          if (!dst) throw new OpFailure(`move operation does not apply: doc is missing destination path: ${path}: missing value`);
          wrapped(`error in move for path: '${path}'`, () => addIn(dst.parent, dst.key, value ?? null));
          break;
        }
        case 'copy': {
          const from = stringField(op, 'from', 'copy');
          const src = findParent(root, from);
          if (!src) throw new OpFailure(`copy operation does not apply: doc is missing from path: ${from}: missing value`);
          // An absent member copies as null and adds nothing to the copied size.
          const value = wrapped(`error in copy for from: '${from}'`, () => getIn(src.parent, src.key));
          const path = stringField(op, 'path', 'copy');
          const dst = findParent(root, path);
          if (!dst) throw new OpFailure(`copy operation does not apply: doc is missing destination path: ${path}: missing value`);
          if (value !== undefined) copied += Buffer.byteLength(JSON.stringify(value));
          if (maxCopy > 0 && copied > maxCopy) {
            throw new OpFailure(`Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${maxCopy}`);
          }
          wrapped('error while adding value during copy', () => addIn(dst.parent, dst.key, value === undefined ? null : deepCopy(value)));
          break;
        }
        case 'test': {
          const path = stringField(op, 'path', 'test');
          let actual: unknown;
          if (path === '') actual = root.node;
          else {
            const found = findParent(root, path);
            if (!found) throw new OpFailure(`test operation does not apply: is missing path: ${path}: missing value`);
            actual = wrapped(`error in test for path: '${path}'`, () => getIn(found.parent, found.key));
          }
          const expected = hasOwn(op, 'value') ? op.value : undefined;
          // A null or absent member matches only a null (or absent) value.
          const ok = actual === undefined || actual === null ? expected === null || expected === undefined : expected !== undefined && expected !== null && deepEqual(actual, expected);
          if (!ok) throw new OpFailure(`testing value ${path} failed: test failed`);
          break;
        }
        default:
          throw new OpFailure(`Unexpected kind: ${kind}`);
      }
    } catch (e) {
      if (e instanceof OpFailure) throw jsonPatchNotApplicable(e.message);
      throw e;
    }
  }
  return root.node;
}
