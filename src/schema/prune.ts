/**
 * Structural pruning as apiextensions does it: fields a schema does not declare are dropped,
 * except under `x-kubernetes-preserve-unknown-fields`, and embedded resources (the object root
 * included) keep apiVersion, kind and metadata. Also the exact texts kube-apiserver uses to
 * report unknown and duplicate fields (Warning headers and Strict 400 messages).
 */
import type { Schema } from './types.ts';
import { isPlainObject } from './walk.ts';
import { objectMetaFieldOrder } from '../api/object-meta-fields.ts';

export interface PruneOptions {
  /** Treat the top node as a resource root (embedded resource): apiVersion, kind and metadata are kept. Default true. */
  readonly isResourceRoot?: boolean;
}

const META_FIELDS: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);

/** The fields of ObjectMeta; other keys under an embedded resource's metadata are dropped. */
const OBJECT_META_FIELDS: ReadonlySet<string> = new Set(objectMetaFieldOrder);

/**
 * Removes (mutating `obj`) every field the schema does not declare and returns the dropped
 * paths, sorted, in kube's form (`spec.foo`, `spec.items[0].bar`, `metadata.foo`).
 */
export function pruneUnknownFields(obj: unknown, schema: Schema | undefined, options: PruneOptions = {}): string[] {
  const dropped: string[] = [];
  let root = schema;
  if (options.isResourceRoot ?? true) root = { ...(schema ?? {}), 'x-kubernetes-embedded-resource': true };
  prune(obj, root, '', dropped);
  return dropped.sort();
}

function join(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

function prune(x: unknown, s: Schema | undefined, path: string, dropped: string[]): void {
  if (s?.['x-kubernetes-preserve-unknown-fields']) {
    skipPrune(x, s, path, dropped);
    return;
  }
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) prune(x[i], s?.items, `${path}[${i}]`, dropped);
    return;
  }
  if (!isPlainObject(x)) return;
  if (!s) {
    for (const k of Object.keys(x)) {
      dropped.push(join(path, k));
      delete x[k];
    }
    return;
  }
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const props = s.properties;
  const extra = s.additionalProperties;
  for (const k of Object.keys(x)) {
    if (embedded && META_FIELDS.has(k)) {
      if (k === 'metadata') pruneObjectMeta(x[k], join(path, k), dropped);
      continue;
    }
    if (props && Object.prototype.hasOwnProperty.call(props, k)) {
      prune(x[k], props[k], join(path, k), dropped);
    } else if (extra === true) {
      // additionalProperties: true keeps any value as it is.
    } else if (extra && typeof extra === 'object') {
      prune(x[k], extra, join(path, k), dropped);
    } else {
      // kube does not report apiVersion/kind/metadata dropped at the very top.
      if (!META_FIELDS.has(k) || path !== '') dropped.push(join(path, k));
      delete x[k];
    }
  }
}

/** Under preserve-unknown-fields: keep unknown fields, but still prune inside the ones the schema declares. */
function skipPrune(x: unknown, s: Schema | undefined, path: string, dropped: string[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) skipPrune(x[i], s.items, `${path}[${i}]`, dropped);
    return;
  }
  if (!isPlainObject(x)) return;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const props = s.properties;
  const extra = s.additionalProperties;
  for (const k of Object.keys(x)) {
    if (embedded && META_FIELDS.has(k)) {
      if (k === 'metadata') pruneObjectMeta(x[k], join(path, k), dropped);
      continue;
    }
    if (props && Object.prototype.hasOwnProperty.call(props, k)) prune(x[k], props[k], join(path, k), dropped);
    else if (extra && typeof extra === 'object') prune(x[k], extra, join(path, k), dropped);
  }
}

function pruneObjectMeta(meta: unknown, path: string, dropped: string[]): void {
  if (!isPlainObject(meta)) return;
  for (const k of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(k)) {
      dropped.push(join(path, k));
      delete meta[k];
    }
  }
}

/** Quotes a string as Go's %q does (printable Unicode kept, control characters escaped). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if ((c >= 0x80 && c <= 0x9f) || c === 0xad || c === 0x2028 || c === 0x2029 || c === 0xfeff) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return `${out}"`;
}

/** The text of one unknown-field violation: `unknown field "spec.foo"` (one Warning header each in Warn mode). */
export function formatUnknownFieldWarning(path: string): string {
  return `unknown field ${goQuote(path)}`;
}

/** The text of one duplicate-field violation: `duplicate field "spec.foo"`. */
export function formatDuplicateFieldWarning(path: string): string {
  return `duplicate field ${goQuote(path)}`;
}

/** The message of the 400 BadRequest in Strict mode: `strict decoding error: unknown field "a", duplicate field "b"`. */
export function formatStrictDecodingError(violations: readonly string[]): string {
  return `strict decoding error: ${violations.join(', ')}`;
}
