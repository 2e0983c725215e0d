/**
 * Continue tokens for paged lists, in kube-apiserver's shape: base64 of
 * `{"v":"meta.k8s.io/v1","rv":<snapshot revision>,"start":"<key after the prefix>"}`.
 * The token carries the snapshot revision, so every page reads the same consistent snapshot.
 */
import { errors } from '../api/status-errors.ts';

export interface ContinuePosition {
  /** The snapshot revision all pages are read at. */
  readonly revision: number;
  /** The key (relative to the listed prefix) the next page starts at, inclusive. */
  readonly start: string;
}

/** Encodes a position; `start` is relative to the list prefix. */
export function encodeContinue(pos: ContinuePosition): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: pos.revision, start: pos.start })).toString('base64url');
}

/** Decodes a token; throws 400 BadRequest for anything malformed. */
export function decodeContinue(token: string): ContinuePosition {
  const bad = (why: string) => errors.badRequest(`continue key is not valid: ${why}`);
  let parsed: unknown;
  try {
    const text = Buffer.from(token.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    parsed = JSON.parse(text);
  } catch {
    throw bad('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof parsed !== 'object' || parsed === null) throw bad('invalid continue token');
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (p.v !== 'meta.k8s.io/v1') throw bad('server does not recognize this encoded key');
  if (typeof p.rv !== 'number' || !Number.isInteger(p.rv) || p.rv <= 0) throw bad('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof p.start !== 'string' || p.start.length === 0) throw bad('encoded start key is empty');
  // A relative key may not climb out of the listed prefix.
  if (p.start.split('/').some((seg) => seg === '..' || seg === '.')) throw bad('continue key is not valid: invalid path');
  return { revision: p.rv, start: p.start };
}
