/**
 * Server-set metadata: names from generateName, uids, timestamps, generation. Pure helpers the
 * generic store calls at fixed points of create and update.
 */
import { randomUUID, randomInt } from 'node:crypto';
import type { KubeObject, ObjectMeta } from '../api/types.ts';
import { objectMetaFieldOrder } from '../api/object-meta-fields.ts';
import { cloneJson } from '../schema/walk.ts';

// The alphabet kube-apiserver uses for generated name suffixes: no vowels, no confusable digits.
const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
const maxGeneratedNameLength = 63;

/** `prefix` + 5 random characters, the prefix trimmed so the result fits in 63 characters. */
export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += nameAlphabet[randomInt(nameAlphabet.length)];
  const room = maxGeneratedNameLength - suffix.length;
  return (prefix.length > room ? prefix.slice(0, room) : prefix) + suffix;
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function nowRfc3339(now: Date = new Date()): string {
  // Every write stamps a time or two, and the text changes once a second: kept for that second.
  const second = Math.floor(now.getTime() / 1000);
  if (second !== lastSecond) {
    lastText = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
}
let lastSecond = Number.NaN;
let lastText = '';

/** Fields clients may not set on create; the server owns them. */
export function resetServerOwnedMetaForCreate(meta: ObjectMeta, now: Date, tracksGeneration: boolean): void {
  meta.uid = randomUUID();
  meta.creationTimestamp = nowRfc3339(now);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  delete meta.selfLink;
  if (tracksGeneration) meta.generation = 1;
  else delete meta.generation;
}

const metaFieldRank = new Map(objectMetaFieldOrder.map((k, i) => [k, i]));

/** A copy of `meta` with its fields in kube's order (unknown ones last), plus `extra` fields placed likewise. */
export function orderedMeta(meta: ObjectMeta, extra?: Partial<ObjectMeta>): ObjectMeta {
  const all = extra ? { ...meta, ...extra } : meta;
  // kube's fields by rank, then the others as they come: a stable sort by rank, without one.
  const out: ObjectMeta = {};
  for (const k of objectMetaFieldOrder) if (Object.hasOwn(all, k)) out[k] = all[k];
  for (const k in all) if (Object.hasOwn(all, k) && !metaFieldRank.has(k)) out[k] = all[k];
  return out;
}

const HEAD_KEYS = ['kind', 'apiVersion', 'metadata'] as const;

/** Puts kind, apiVersion and metadata first, as kube-apiserver serializes objects. Mutates and returns `obj`. */
export function canonicalKeyOrder<T extends Record<string, unknown>>(obj: T): T {
  // Most objects are in order already (clients write kind and apiVersion first): nothing to move.
  const keys = Object.keys(obj);
  let at = 0;
  let ordered = true;
  for (const h of HEAD_KEYS) {
    if (!(h in obj)) continue;
    if (keys[at] !== h) {
      ordered = false;
      break;
    }
    at++;
  }
  if (ordered) return obj;
  const values: Record<string, unknown> = { ...obj };
  for (const k of keys) delete obj[k];
  const out = obj as Record<string, unknown>;
  for (const k of HEAD_KEYS) if (k in values) out[k] = values[k];
  for (const k of keys) if (k !== 'kind' && k !== 'apiVersion' && k !== 'metadata') out[k] = values[k];
  return obj;
}

/**
 * What kube's rest.BeforeUpdate carries from the stored object onto an update: the uid when none
 * is given, the creation time, a deletion time already set, a grace period the update omits, and
 * the generation. Anything else the update changes (another uid, a new deletion time or grace
 * period) stays for validation to refuse as immutable.
 */
export function carryServerOwnedMetaOnUpdate(meta: ObjectMeta, old: ObjectMeta, tracksGeneration: boolean): void {
  // null decodes to Go's nil pointer: the same as absent.
  for (const f of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'creationTimestamp'] as const) if (meta[f] === null) delete meta[f];
  if (!meta.uid) meta.uid = old.uid;
  if (old.creationTimestamp) meta.creationTimestamp = old.creationTimestamp;
  if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
  if (old.deletionGracePeriodSeconds !== undefined && old.deletionGracePeriodSeconds !== null && (meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === null)) {
    meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  }
  if (tracksGeneration) meta.generation = old.generation ?? 1;
  else delete meta.generation;
  delete meta.selfLink;
}

/**
 * Drops owner references equal to an earlier one (kube's dedupOwnerReferences: same uid and
 * semantically equal; same uid with other content stays). Returns the uids of those dropped.
 */
export function dedupOwnerReferences(meta: ObjectMeta): string[] {
  const refs = meta.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return [];
  const kept: Record<string, unknown>[] = [];
  const duplicates: string[] = [];
  for (const ref of refs) {
    if (kept.some((k) => jsonEqual(k, ref))) duplicates.push(String((ref as { uid?: unknown }).uid ?? ''));
    else kept.push(ref);
  }
  if (duplicates.length > 0) meta.ownerReferences = kept;
  return duplicates;
}

/** Removes empty label/annotation/finalizer collections as Go's omitempty would on the wire. */
export function normalizeEmptyMeta(meta: ObjectMeta): void {
  for (const f of ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'] as const) {
    const v = meta[f] as unknown;
    if (v === null || (Array.isArray(v) && v.length === 0) || (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0)) {
      delete meta[f];
    }
  }
  if (meta.generateName === '') delete meta.generateName;
  if (meta.namespace === '') delete meta.namespace;
}

export function metaOf(obj: KubeObject): ObjectMeta {
  if (!obj.metadata || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata;
}

/** Deep copy of a JSON tree (objects from the cache are shared and must never be mutated). */
export function cloneObject<T>(v: T): T {
  return cloneJson(v);
}

/** Compares two JSON trees for equality, ignoring key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a as object);
  const bk = Object.keys(b as object);
  if (ak.length !== bk.length) return false;
  for (const k of ak) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
