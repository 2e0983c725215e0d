/**
 * Request-body JSON decoding: JSON.parse for the value, plus a small scanner that finds
 * duplicate object keys (reported with kube's field paths, `spec.containers[0].name`) and
 * enforces a nesting limit so that no later recursive walk can overflow the stack.
 */
import { goJsonSyntaxError } from './json-syntax.ts';
import { decodeFailure, MAX_STRICT_ERRORS, toBytes, toText } from './decode-errors.ts';
import { errors } from '../api/status-errors.ts';

export interface DecodeOptions {
  /** The kind the endpoint expects; makes syntax errors read like kube's create/update errors. */
  readonly expectedKind?: string;
  /** Nesting limit (objects and arrays); deeper bodies fail with 400. Default 1000. */
  readonly maxDepth?: number;
  /**
   * A patch document: failures read `<patchPrefix><Go's message>` (kube decodes patches into a map,
   * not through the object decoder: `error decoding patch: ` for JSON and merge patches, nothing
   * for strategic merge patches).
   */
  readonly patchPrefix?: string;
}

export interface DecodeResult {
  readonly value: unknown;
  /** Paths of repeated keys in document order, deduplicated, at most 100 (`metadata.name`). */
  readonly duplicates: readonly string[];
  /** kube's strict-decoding messages for them (`duplicate field "metadata.name"` for JSON). */
  readonly strictErrors: readonly string[];
}

export const DEFAULT_MAX_DEPTH = 1000;

/**
 * Parses a JSON body. Never throws anything but ApiError 400 (syntax error or nesting beyond
 * maxDepth, worded as kube does); the last of repeated keys wins, as in Go.
 */
export function decodeJson(input: Uint8Array | string, opts: DecodeOptions = {}): DecodeResult {
  const text = toText(input);
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const scan = scanDuplicateKeys(text, maxDepth);
  let value: unknown;
  if (scan !== undefined) {
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
      return fail(text, input, maxDepth, opts);
    }
    return { value, duplicates: scan, strictErrors: scan.map((p) => `duplicate field "${p}"`) };
  }
  return fail(text, input, maxDepth, opts);
}

function fail(text: string, input: Uint8Array | string, maxDepth: number, opts: DecodeOptions): never {
  const goMessage = goJsonSyntaxError(text, maxDepth) ?? 'unexpected end of JSON input';
  if (opts.patchPrefix !== undefined) throw errors.badRequest(`${opts.patchPrefix}${goMessage}`);
  throw decodeFailure(`couldn't get version/kind; json parse error: ${goMessage}`, toBytes(input), opts.expectedKind);
}

/** Builds `a.b[0].c` from the open path segments (strings are keys, numbers indexes). */
function pathOf(segments: readonly (string | number)[], depth: number, key: string): string {
  let out = '';
  // Depth 1 is the root container, which has no segment of its own.
  for (let d = 2; d <= depth; d++) {
    const s = segments[d]!;
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out === '' ? key : `${out}.${key}`;
}

/**
 * Walks the text once, tracking only the key set of each open object and the index of each open
 * array. Returns the duplicate paths, or undefined when the nesting limit is exceeded. On
 * malformed input it returns something harmless; JSON.parse decides validity.
 */
export function scanDuplicateKeys(text: string, maxDepth: number): string[] | undefined {
  const len = text.length;
  // Per depth: key set (object) or null (array), the segment leading into it, and the array index.
  const keySets: (Set<string> | null)[] = [null];
  const segments: (string | number)[] = [''];
  const indexes: number[] = [0];
  let depth = 0;
  let found: string[] | undefined;
  let seen: Set<string> | undefined;
  // The key whose value comes next, at the current depth (objects only).
  let pendingKey = '';
  let expectKey = false;

  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: jump quote to quote with indexOf; a quote preceded by an odd run of
      // backslashes is escaped and does not end it.
      const start = i + 1;
      let end = text.indexOf('"', start);
      while (end > 0) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if ((slashes & 1) === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end < 0) return found ?? [];
      i = end;
      if (expectKey) {
        let key = text.slice(start, i);
        if (key.indexOf('\\') >= 0) {
          try {
            key = JSON.parse(text.slice(start - 1, i + 1)) as string;
          } catch {
            /* malformed; JSON.parse of the whole body will say so */
          }
        }
        const set = keySets[depth]!;
        if (set.has(key)) {
          const path = pathOf(segments, depth, key);
          found ??= [];
          seen ??= new Set();
          if (!seen.has(path) && found.length < 100) {
            seen.add(path);
            found.push(path);
          }
        } else set.add(key);
        pendingKey = key;
        expectKey = false;
      }
      continue;
    }
    switch (c) {
      case 0x7b: // {
      case 0x5b: {
        // [
        if (++depth > maxDepth) return undefined;
        const parentSet = keySets[depth - 1];
        segments[depth] = parentSet ? pendingKey : indexes[depth - 1]!;
        keySets[depth] = c === 0x7b ? new Set() : null;
        indexes[depth] = 0;
        expectKey = c === 0x7b;
        break;
      }
      case 0x7d: // }
      case 0x5d: // ]
        if (depth > 0) depth--;
        expectKey = false;
        break;
      case 0x2c: // ,
        if (keySets[depth]) expectKey = true;
        else indexes[depth]!++;
        break;
      default:
        break;
    }
  }
  return found ?? [];
}

export { MAX_STRICT_ERRORS };
