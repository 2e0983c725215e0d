/**
 * kubectl's client-side apply annotation, for the migration to server-side apply: which
 * conflicts kubectl may take over because its last client-side apply set them, and keeping
 * the annotation in step when kubectl applies server-side.
 */
import type { KubeObject } from '../api/types.ts';
import type { FieldSet } from './field-set.ts';
import { encodeGoJson } from './go-json.ts';
import { compareValues, toFieldSet } from './typed-walk.ts';
import { isPlainObject, type TypeNode } from './type-node.ts';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The manager name for which kube performs the migration (kubectl's server-side apply). */
export const KUBECTL_MANAGER = 'kubectl';
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function lastAppliedOf(obj: KubeObject | null): string | undefined {
  const v = obj?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * The fields the annotation says kubectl set and that still hold the annotation's values:
 * conflicts on these are the client-side applier's and may be taken. Undefined when there is
 * no usable annotation.
 */
export function allowedConflictsFromLastApplied(live: KubeObject, liveBody: unknown, root: TypeNode, apiVersion: string): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (!text) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(last) || last['apiVersion'] !== apiVersion) return undefined;
  try {
    const set = toFieldSet(last, root);
    const c = compareValues(last, liveBody, root);
    return set.difference(c.modified).difference(c.added).difference(c.removed);
  } catch {
    return undefined;
  }
}

/** The annotation text for an applied configuration: Go's JSON of it without the annotation, newline-terminated. */
export function buildLastApplied(applied: KubeObject): string {
  const copy: KubeObject = { ...applied };
  if (applied.metadata) {
    copy.metadata = { ...applied.metadata };
    if (applied.metadata.annotations) {
      const ann = { ...applied.metadata.annotations };
      delete ann[LAST_APPLIED_ANNOTATION];
      copy.metadata.annotations = ann;
    }
  }
  return `${encodeGoJson(copy)}\n`;
}

/** Sets the annotation on `obj` (mutating it), or drops it when annotations would grow past kube's limit. */
export function setLastApplied(obj: KubeObject, value: string): void {
  const meta = (obj.metadata ??= {});
  const ann = { ...(meta.annotations ?? {}) };
  ann[LAST_APPLIED_ANNOTATION] = value;
  let total = 0;
  for (const [k, v] of Object.entries(ann)) total += k.length + String(v).length;
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) delete ann[LAST_APPLIED_ANNOTATION];
  meta.annotations = ann;
}
