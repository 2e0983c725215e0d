/**
 * Reading values through their apply types: the path element of a list entry, the field set
 * of a value (structured-merge-diff's ToFieldSet) and the comparison of two values into
 * added, modified and removed paths (its Compare).
 */
import { FieldSet } from './field-set.ts';
import { fieldElement, keyElement, pathToString, serializeElement, type Path, type PathElement } from './path.ts';
import { isPlainObject, resolve, type ListNode, type TypeNode } from './type-node.ts';

/** A value that cannot be read through its schema (a list-map entry without its key, duplicates). */
export class ApplyTypeError extends Error {
  constructor(path: Path, detail: string) {
    super(`${pathToString(path) || '.'}: ${detail}`);
    this.name = 'ApplyTypeError';
  }
}

/** The element naming one entry of a set or map list. */
export function listItemElement(t: ListNode, item: unknown, path: Path, index: number): PathElement {
  if (t.listType === 'set') {
    if (isPlainObject(item) || Array.isArray(item)) {
      throw new ApplyTypeError(path, `element ${index}: only scalar elements are supported in set lists`);
    }
    return { kind: 'value', value: item };
  }
  if (!isPlainObject(item)) throw new ApplyTypeError(path, `element ${index}: associative list with keys may only contain objects`);
  const fields: [string, unknown][] = [];
  for (const k of t.keys) {
    let v = item[k];
    if (v === undefined) {
      v = t.keyDefaults.get(k);
      if (v === undefined) {
        throw new ApplyTypeError(path, `element ${index}: associative list with keys has an element that omits key field "${k}" (and doesn't have default value)`);
      }
    }
    fields.push([k, v]);
  }
  return keyElement(fields);
}

/** The entries of a granular list with their elements; rejects duplicate entries when asked. */
export function indexList(t: ListNode, list: readonly unknown[], path: Path, rejectDuplicates: boolean): { pe: PathElement; key: string; item: unknown }[] {
  const out: { pe: PathElement; key: string; item: unknown }[] = [];
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const pe = listItemElement(t, item, path, i);
    const key = serializeElement(pe);
    if (seen.has(key)) {
      if (rejectDuplicates) throw new ApplyTypeError([...path, pe], 'duplicate entries in list');
    }
    seen.add(key);
    out.push({ pe, key, item });
  });
  return out;
}

/** Every path the value sets, as ownership of an applied configuration is recorded. */
export function toFieldSet(value: unknown, t: TypeNode): FieldSet {
  const set = new FieldSet();
  walkToSet(value, t, [], set);
  return set;
}

function walkToSet(value: unknown, t0: TypeNode, path: PathElement[], set: FieldSet): void {
  const t = resolve(t0, value);
  if (t.kind === 'map' && isPlainObject(value)) {
    if (t.atomic) {
      set.insert(path);
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const declared = t.field(k);
      const child = [...path, fieldElement(k)];
      walkToSet(v, declared ?? t.elem, child, set);
      // Declared struct fields are implied by their children; only empty or null ones are recorded.
      if (!declared || v === null || (isPlainObject(v) && Object.keys(v).length === 0)) set.insert(child);
    }
    return;
  }
  if (t.kind === 'list' && Array.isArray(value)) {
    if (t.listType === 'atomic') {
      set.insert(path);
      return;
    }
    for (const e of indexList(t, value, path, true)) {
      const child = [...path, e.pe];
      walkToSet(e.item, t.item, child, set);
      set.insert(child);
    }
    return;
  }
  set.insert(path);
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/** The paths added, changed (leaves and atomics) and removed from `lhs` to `rhs`. */
export function compareValues(lhs: unknown, rhs: unknown, t: TypeNode): Comparison {
  const c = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(lhs, rhs, t, [], c);
  return c;
}

/** Absent, null, or an empty map or list: structured-merge-diff compares two of these as leaves. */
function isNilOrEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

function walkCompare(lhs: unknown, rhs: unknown, t0: TypeNode, path: PathElement[], c: Comparison): void {
  const tl = resolve(t0, lhs ?? rhs);
  // A null container reads as an empty one beside a non-empty one (its entries are what change);
  // two nil-or-empty sides compare as a leaf, which keeps the empty/null distinction.
  const bothEmpty = isNilOrEmpty(lhs) && isNilOrEmpty(rhs);
  const mapSide = (v: unknown) => v === undefined || v === null || isPlainObject(v);
  const listSide = (v: unknown) => v === undefined || v === null || Array.isArray(v);
  const asMap = tl.kind === 'map' && !tl.atomic && !bothEmpty && mapSide(lhs) && mapSide(rhs);
  const asList = tl.kind === 'list' && tl.listType !== 'atomic' && !bothEmpty && listSide(lhs) && listSide(rhs);
  if (asMap) {
    const l = (lhs ?? {}) as Record<string, unknown>;
    const r = (rhs ?? {}) as Record<string, unknown>;
    for (const k of Object.keys(l)) {
      if (l[k] === undefined) continue;
      walkCompare(l[k], r[k], tl.field(k) ?? tl.elem, [...path, fieldElement(k)], c);
    }
    for (const k of Object.keys(r)) {
      if (r[k] === undefined || (k in l && l[k] !== undefined)) continue;
      walkCompare(undefined, r[k], tl.field(k) ?? tl.elem, [...path, fieldElement(k)], c);
    }
  } else if (asList) {
    const ll = indexList(tl, (lhs ?? []) as unknown[], path, false);
    const rl = indexList(tl, (rhs ?? []) as unknown[], path, false);
    const rByKey = new Map(rl.map((e) => [e.key, e]));
    const lKeys = new Set<string>();
    for (const e of ll) {
      if (lKeys.has(e.key)) continue;
      lKeys.add(e.key);
      walkCompare(e.item, rByKey.get(e.key)?.item, tl.item, [...path, e.pe], c);
    }
    const rKeys = new Set<string>();
    for (const e of rl) {
      if (lKeys.has(e.key) || rKeys.has(e.key)) continue;
      rKeys.add(e.key);
      walkCompare(undefined, e.item, tl.item, [...path, e.pe], c);
    }
  } else {
    if (lhs !== undefined && rhs !== undefined && !deepEqual(lhs, rhs)) (c.modified as FieldSet).insert(path);
  }
  if (lhs === undefined && rhs !== undefined) c.added.insert(path);
  else if (rhs === undefined && lhs !== undefined) c.removed.insert(path);
}

/** Structural equality of JSON values (object key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let n = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    n++;
    if (!deepEqual(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) n--;
  return n === 0;
}
