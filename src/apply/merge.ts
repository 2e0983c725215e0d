/**
 * structured-merge-diff's merge of an applied configuration into the live object: maps merge
 * key by key, atomic values and scalars are replaced, set and map lists merge entry by entry,
 * keeping the applied order for the entries it names and the live place for the others.
 * Inputs are not modified; the result may share unchanged subtrees with them.
 */
import { fieldElement, type PathElement } from './path.ts';
import { indexList } from './typed-walk.ts';
import { isPlainObject, resolve, type ListNode, type TypeNode } from './type-node.ts';

/** `lhs` with `rhs` merged over it. */
export function mergeValues(lhs: unknown, rhs: unknown, t: TypeNode, path: PathElement[] = []): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const tr = resolve(t, rhs);
  if (tr.kind === 'map' && isPlainObject(lhs) && isPlainObject(rhs) && !tr.atomic) {
    if (isEmptyObject(lhs) && isEmptyObject(rhs)) return rhs;
    const out: Record<string, unknown> = { ...lhs };
    for (const [k, v] of Object.entries(rhs)) {
      if (v === undefined) continue;
      out[k] = mergeValues(lhs[k], v, tr.field(k) ?? tr.elem, [...path, fieldElement(k)]);
    }
    return out;
  }
  if (tr.kind === 'list' && tr.listType !== 'atomic' && Array.isArray(lhs) && Array.isArray(rhs)) {
    if (lhs.length === 0 && rhs.length === 0) return rhs;
    return mergeList(lhs, rhs, tr, path);
  }
  return rhs;
}

function isEmptyObject(v: Record<string, unknown>): boolean {
  for (const _ in v) return false;
  return true;
}

function mergeList(lhs: readonly unknown[], rhs: readonly unknown[], t: ListNode, path: PathElement[]): unknown[] {
  const ls = indexList(t, lhs, path, false);
  const rs = indexList(t, rhs, path, true);
  const lByKey = new Map<string, unknown>();
  for (const e of ls) if (!lByKey.has(e.key)) lByKey.set(e.key, e.item);
  const rByKey = new Map<string, unknown>();
  for (const e of rs) rByKey.set(e.key, e.item);

  // Entries in both lists are emitted in the applied order; live-only entries keep their
  // position relative to the shared entry that follows them.
  const shared = rs.filter((e) => lByKey.has(e.key)).map((e) => e.key);
  let sharedIdx = 0;
  let nextShared: string | undefined = shared[sharedIdx++];
  const merged = new Set<string>();
  const out: unknown[] = [];
  const emit = (key: string, pe: PathElement) => {
    merged.add(key);
    out.push(mergeValues(lByKey.get(key), rByKey.get(key), t.item, [...path, pe]));
  };
  let li = 0;
  let ri = 0;
  while (li < ls.length || ri < rs.length) {
    if (li < ls.length && ri < rs.length) {
      const l = ls[li]!;
      if (l.key === rs[ri]!.key) {
        emit(l.key, l.pe);
        li++;
        ri++;
        nextShared = shared[sharedIdx++];
        continue;
      }
      if (rByKey.has(l.key) && nextShared !== undefined && nextShared !== l.key) {
        li++;
        continue;
      }
    }
    if (li < ls.length) {
      const l = ls[li]!;
      if (!rByKey.has(l.key)) {
        out.push(l.item);
        li++;
        continue;
      }
      if (merged.has(l.key)) {
        li++;
        continue;
      }
    }
    if (ri < rs.length) {
      const r = rs[ri]!;
      emit(r.key, r.pe);
      ri++;
      if (nextShared !== undefined && nextShared === r.key) nextShared = shared[sharedIdx++];
    }
  }
  return out;
}
