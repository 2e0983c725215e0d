/**
 * The FieldsV1 encoding of a field set, as kube-apiserver writes `managedFields[].fieldsV1`:
 * nested objects keyed by `f:`/`k:`/`v:`/`i:` elements, `{}` for a member with nothing below,
 * and `".": {}` first when a path is itself a member and also has members below it. Keys are
 * in structured-merge-diff's element order, so the JSON text matches kube byte for byte.
 */
import { FieldSet } from './field-set.ts';
import { compareElements, parseElement, serializeElement } from './path.ts';

export type FieldsV1 = { [key: string]: FieldsV1 };

/** Encodes a set as a FieldsV1 object whose key order is kube's. */
export function fieldSetToFieldsV1(set: FieldSet): FieldsV1 {
  return emit(set, false);
}

function emit(set: FieldSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (includeSelf && !set.isEmpty()) out['.'] = {};
  const members = set.sortedMembers();
  const children = set.sortedChildren();
  let mi = 0;
  let ci = 0;
  while (mi < members.length || ci < children.length) {
    const m = members[mi];
    const c = children[ci];
    const cmp = m === undefined ? 1 : c === undefined ? -1 : compareElements(m, c.pe);
    if (cmp < 0) {
      out[serializeElement(m!)] = {};
      mi++;
    } else {
      out[serializeElement(c!.pe)] = emit(c!.set, cmp === 0);
      if (cmp === 0) mi++;
      ci++;
    }
  }
  return out;
}

/**
 * Sets decoded lately, by their FieldsV1 text. Every apply and update decodes the stored object's
 * managed fields, which mostly are what an earlier write encoded; sets are immutable once built,
 * so one decoded set serves them all. Bounded in entries and in the text length kept.
 */
const decodedSets = new Map<string, FieldSet>();
const MAX_DECODED_SETS = 2048;
const MAX_CACHED_TEXT = 16 * 1024;

/** Decodes a FieldsV1 object; throws an Error naming the bad key when it is malformed. */
export function fieldsV1ToFieldSet(fields: unknown): FieldSet {
  const text = fields !== null && typeof fields === 'object' && !Array.isArray(fields) ? JSON.stringify(fields) : undefined;
  const cacheable = text !== undefined && text.length <= MAX_CACHED_TEXT;
  if (cacheable) {
    const hit = decodedSets.get(text);
    if (hit) {
      // Most recently used last: the oldest entry is the first to go.
      decodedSets.delete(text);
      decodedSets.set(text, hit);
      return hit;
    }
  }
  const set = new FieldSet();
  read(fields, set);
  if (cacheable) {
    decodedSets.set(text, set);
    if (decodedSets.size > MAX_DECODED_SETS) decodedSets.delete(decodedSets.keys().next().value!);
  }
  return set;
}

function read(fields: unknown, into: FieldSet): boolean {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) throw new Error('FieldsV1 must be a JSON object');
  let isMember = false;
  for (const [k, v] of Object.entries(fields as Record<string, unknown>)) {
    if (k === '.') {
      isMember = true;
      continue;
    }
    const pe = parseElement(k);
    const key = serializeElement(pe);
    const sub = new FieldSet();
    const subIsMember = read(v, sub);
    if (sub.isEmpty() || subIsMember) into.members.set(key, pe);
    if (!sub.isEmpty()) into.children.set(key, { pe, set: sub });
  }
  return isMember;
}

/** Whether a set, once encoded, is exactly the given FieldsV1 text (order included). */
export function fieldsV1Text(set: FieldSet): string {
  return JSON.stringify(fieldSetToFieldsV1(set));
}
