/**
 * Continue tokens for paged lists, in kube-apiserver's shape: unpadded base64url of
 * `{"v":"meta.k8s.io/v1","rv":<snapshot revision>,"start":"<key after the prefix>"}`.
 * The token carries the snapshot revision, so every page reads the same consistent snapshot.
 * Decoding follows kube's storage.DecodeContinue and its errors (400 "invalid continue token: ...").
 */
import { errors } from '../api/status-errors.ts';

export interface ContinuePosition {
  /** The snapshot revision all pages are read at; 0 means the latest (kube: a negative token revision). */
  readonly revision: number;
  /** The key (relative to the listed prefix) the next page starts at, inclusive. */
  readonly start: string;
}

/** Encodes a position; `start` is relative to the list prefix. */
export function encodeContinue(pos: ContinuePosition): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: pos.revision, start: pos.start })).toString('base64url');
}

const invalidKey = 'continue key is not valid';

function invalid(detail: string): never {
  throw errors.badRequest(`invalid continue token: ${detail}`);
}

/** encoding/json's quoteChar: the byte as a rune, quoted as strconv.Quote does, in single quotes. */
function goQuoteChar(b: number): string {
  if (b === 0x27) return "'\\''";
  if (b === 0x22) return `'"'`;
  const escapes: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (escapes[b]) return `'${escapes[b]}'`;
  if (b < 0x20 || b === 0x7f) return `'\\x${b.toString(16).padStart(2, '0')}'`;
  if (b >= 0x80 && b < 0xa0) return `'\\u${b.toString(16).padStart(4, '0')}'`;
  if (b === 0xad) return `'\\u00ad'`;
  return `'${String.fromCharCode(b)}'`;
}

/** Go's path.Clean of an absolute path. */
function cleanPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

/** Decodes a token; throws 400 BadRequest with kube's text for anything malformed. */
export function decodeContinue(token: string): ContinuePosition {
  // base64.RawURLEncoding: the URL alphabet, no padding.
  const bad = /[^A-Za-z0-9_-]/.exec(token);
  if (bad) invalid(`${invalidKey}: illegal base64 data at input byte ${bad.index}`);
  if (token.length % 4 === 1) invalid(`${invalidKey}: illegal base64 data at input byte ${token.length - 1}`);
  const bytes = Buffer.from(token, 'base64url');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    const at = bytes.findIndex((b) => b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d);
    invalid(at < 0 ? `${invalidKey}: unexpected end of JSON input` : `${invalidKey}: invalid character ${goQuoteChar(bytes[at]!)} looking for beginning of value`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    invalid(`${invalidKey}: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : parsed === null ? 'null' : typeof parsed} into Go value of type storage.continueToken`);
  }
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (p.rv !== undefined && (typeof p.rv !== 'number' || !Number.isInteger(p.rv) || Math.abs(p.rv) > 9223372036854775807)) {
    invalid(`${invalidKey}: json: cannot unmarshal ${typeof p.rv === 'number' ? `number ${String(p.rv)}` : typeof p.rv} into Go struct field continueToken.rv of type int64`);
  }
  const v = typeof p.v === 'string' ? p.v : '';
  if (v !== 'meta.k8s.io/v1') invalid(`${invalidKey}: server does not recognize this encoded version ${v}`);
  const rv = (p.rv as number | undefined) ?? 0;
  if (rv === 0) invalid(`${invalidKey}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  const start = typeof p.start === 'string' ? p.start : '';
  if (start.length === 0) invalid(`${invalidKey}: encoded start key empty (version meta.k8s.io/v1)`);
  // A relative key may not climb out of the listed prefix: kube refuses any key path.Clean changes.
  const key = start.startsWith('/') ? start : `/${start}`;
  if (cleanPath(key) !== key) invalid(`${invalidKey}: ${start}`);
  // A negative revision asks for the latest (kube: "the request is for the latest resource version").
  return { revision: rv < 0 ? 0 : rv, start: key.slice(1) };
}
