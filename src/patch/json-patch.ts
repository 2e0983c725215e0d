/**
 * RFC 6902 JSON Patch, with the behaviour kube-apiserver gets from evanphx/json-patch (v4):
 * negative array indices count from the end, `test` against an absent member passes only for a
 * null value, and the whole document (path "") cannot be addressed. Failures are the API errors
 * kube-apiserver sends: a body that is not a list of operations is 400, more than 10000
 * operations is 413, and any operation that does not apply is a 422 whose message is generic
 * (kube drops the library's text; we keep it on `cause` for logs).
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

function parseIndex(key: string): number | undefined {
  return /^[-+]?\d+$/.test(key) ? Number(key) : undefined;
}

/** Index for reading/replacing/removing an existing element; negative counts from the end. */
function existingIndex(arr: readonly unknown[], key: string): number {
  const idx = parseIndex(key);
  if (idx === undefined) throw new OpFailure(`strconv.Atoi: parsing "${key}": invalid syntax`);
  if (idx >= arr.length || idx < -arr.length) throw new OpFailure(`Unable to access invalid index: ${idx}: invalid index referenced`);
  return idx < 0 ? idx + arr.length : idx;
}

function asContainer(v: unknown): Container | undefined {
  if (Array.isArray(v)) return { kind: 'array', node: v };
  if (isJsonObject(v)) return { kind: 'object', node: v };
  return undefined;
}

/** Finds the parent container of `path` and the last (decoded) token, or undefined when absent. */
function findParent(doc: unknown, path: string): { readonly parent: Container; readonly key: string } | undefined {
  if (!path.startsWith('/')) return undefined;
  const tokens = path.slice(1).split('/').map(decodeToken);
  let cur = asContainer(doc);
  for (let i = 0; i < tokens.length - 1 && cur; i++) {
    const tok = tokens[i]!;
    if (cur.kind === 'object') {
      cur = hasOwn(cur.node, tok) ? asContainer(cur.node[tok]) : undefined;
    } else {
      const idx = parseIndex(tok);
      if (idx === undefined || idx >= cur.node.length || idx < -cur.node.length) return undefined;
      cur = asContainer(cur.node[idx < 0 ? idx + cur.node.length : idx]);
    }
  }
  return cur ? { parent: cur, key: tokens[tokens.length - 1]! } : undefined;
}

function getIn(c: Container, key: string): unknown {
  if (c.kind === 'object') {
    if (!hasOwn(c.node, key)) throw new OpFailure(`unable to get nonexistent key: ${key}: missing value`);
    return c.node[key];
  }
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
  const idx = parseIndex(key);
  if (idx === undefined) throw new OpFailure(`value was not a proper array index: '${key}'`);
  const size = c.node.length + 1;
  if (idx >= size || idx < -size) throw new OpFailure(`Unable to access invalid index: ${idx}: invalid index referenced`);
  c.node.splice(idx < 0 ? idx + size : idx, 0, value);
}

function removeIn(c: Container, key: string): void {
  if (c.kind === 'object') {
    if (!hasOwn(c.node, key)) throw new OpFailure(`Unable to remove nonexistent key: ${key}: missing value`);
    delete c.node[key];
    return;
  }
  c.node.splice(existingIndex(c.node, key), 1);
}

function stringField(op: JsonPatchOperation, name: 'path' | 'from'): string {
  const v = op[name];
  if (typeof v !== 'string') throw new OpFailure(`operation missing ${name} field: missing value`);
  return v;
}

function requireParent(doc: unknown, path: string, what: string): { parent: Container; key: string } {
  const found = findParent(doc, path);
  if (!found) throw new OpFailure(`${what} operation does not apply: doc is missing path: "${path}": missing value`);
  return found;
}

/**
 * Applies a JSON patch to a deep copy of `doc` and returns the copy; `doc` and `patch` are not
 * mutated. Throws ApiError 400/413 for a malformed patch and 422 when an operation fails.
 */
export function applyJsonPatch(doc: unknown, patch: unknown, opts: JsonPatchOptions = {}): unknown {
  const ops = decodeJsonPatch(patch, opts);
  const maxCopy = opts.maxCopyBytes ?? MAX_JSON_PATCH_COPY_BYTES;
  const result = deepCopy(doc);
  let copied = 0;
  for (const op of ops) {
    const kind = typeof op.op === 'string' ? op.op : 'unknown';
    try {
      switch (kind) {
        case 'add': {
          const path = stringField(op, 'path');
          const { parent, key } = requireParent(result, path, 'add');
          addIn(parent, key, deepCopy(op.value ?? null));
          break;
        }
        case 'remove': {
          const path = stringField(op, 'path');
          const { parent, key } = requireParent(result, path, 'remove');
          removeIn(parent, key);
          break;
        }
        case 'replace': {
          const path = stringField(op, 'path');
          const { parent, key } = requireParent(result, path, 'replace');
          if (parent.kind === 'object') {
            getIn(parent, key);
            setOwn(parent.node, key, deepCopy(op.value ?? null));
          } else {
            parent.node[existingIndex(parent.node, key)] = deepCopy(op.value ?? null);
          }
          break;
        }
        case 'move': {
          const from = stringField(op, 'from');
          const src = requireParent(result, from, 'move');
          const value = getIn(src.parent, src.key);
          removeIn(src.parent, src.key);
          const path = stringField(op, 'path');
          const dst = requireParent(result, path, 'move');
          addIn(dst.parent, dst.key, value);
          break;
        }
        case 'copy': {
          const from = stringField(op, 'from');
          const src = requireParent(result, from, 'copy');
          const value = getIn(src.parent, src.key);
          const path = stringField(op, 'path');
          const dst = requireParent(result, path, 'copy');
          copied += JSON.stringify(value ?? null).length;
          if (maxCopy > 0 && copied > maxCopy) {
            throw new OpFailure(
              `Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${maxCopy}`,
            );
          }
          addIn(dst.parent, dst.key, deepCopy(value));
          break;
        }
        case 'test': {
          const path = stringField(op, 'path');
          const { parent, key } = requireParent(result, path, 'test');
          const actual = parent.kind === 'object' ? (hasOwn(parent.node, key) ? parent.node[key] : null) : getIn(parent, key);
          const expected = hasOwn(op, 'value') ? op.value : undefined;
          const ok = actual === null ? expected === null || expected === undefined : expected !== undefined && deepEqual(actual, expected);
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
  return result;
}
