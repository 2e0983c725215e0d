/**
 * Set operations that need the schema: removing the fields of a set from a value (for pruning
 * what an applier dropped), naming declared struct fields as members so value sets compare
 * with ownership sets, and reconciling old ownership with a schema that made a field atomic.
 */
import { FieldSet } from './field-set.ts';
import { serializeElement, type PathElement } from './path.ts';
import { listItemElement } from './typed-walk.ts';
import { isPlainObject, resolve, type TypeNode } from './type-node.ts';

/**
 * The value without the paths in `set`, as structured-merge-diff's RemoveItems: a removed
 * member goes; descending into an atomic value, or a map or list that ends up empty, leaves
 * null in its place (the key stays, so the field reads as set to null, which typing and Go
 * decoding then drop). Returns undefined for "nothing left" (null to the caller's parent).
 */
export function removeItems(value: unknown, set: FieldSet, t0: TypeNode): unknown {
  if (set.isEmpty()) return value;
  const t = resolve(t0, value);
  if (t.kind === 'map' && isPlainObject(value)) {
    if (t.atomic) return undefined;
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const [k, v] of Object.entries(value)) {
      const key = `f:${k}`;
      if (set.hasMember(key)) continue;
      const sub = set.child(key);
      const nv = sub ? removeItems(v, sub, t.field(k) ?? t.elem) : v;
      out[k] = nv === undefined ? null : nv;
      n++;
    }
    return n > 0 ? out : undefined;
  }
  if (t.kind === 'list' && Array.isArray(value)) {
    if (t.listType === 'atomic') return undefined;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const key = serializeElement(listItemElement(t, item, [], i));
      if (set.hasMember(key)) return;
      const sub = set.child(key);
      const nv = sub ? removeItems(item, sub, t.item) : item;
      out.push(nv === undefined ? null : nv);
    });
    return out.length > 0 ? out : undefined;
  }
  return value;
}

/** The set plus every declared struct field that has paths below it, as a member. */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: TypeNode): FieldSet {
  if (set.children.size === 0) return set;
  const out = new FieldSet();
  for (const [k, pe] of set.members) out.members.set(k, pe);
  for (const [k, c] of set.children) {
    let childType: TypeNode = { kind: 'untyped' };
    if (t.kind === 'map' && c.pe.kind === 'field') {
      const declared = t.field(c.pe.name);
      if (declared) out.members.set(k, c.pe);
      childType = declared ?? t.elem;
    } else if (t.kind === 'list') {
      childType = t.item;
    }
    out.children.set(k, { pe: c.pe, set: ensureNamedFieldsAreMembers(c.set, childType) });
  }
  return out;
}

/**
 * A manager's set after a schema change: where the schema now says atomic but the set owns
 * paths below, ownership collapses to the atomic field itself (rule 9). Atomic-to-granular
 * needs nothing: the owner keeps the field and owns none of its new parts.
 */
export function reconcileWithSchema(set: FieldSet, t: TypeNode): FieldSet {
  let changed = false;
  const out = new FieldSet();
  for (const [k, pe] of set.members) out.members.set(k, pe);
  for (const [k, c] of set.children) {
    const childType = childTypeOf(t, c.pe);
    if (childType && isAtomic(childType)) {
      out.members.set(k, c.pe);
      changed = true;
      continue;
    }
    const sub = childType && childType.kind !== 'untyped' ? reconcileWithSchema(c.set, childType) : c.set;
    if (sub !== c.set) changed = true;
    out.children.set(k, { pe: c.pe, set: sub });
  }
  return changed ? out : set;
}

function isAtomic(t: TypeNode): boolean {
  return (t.kind === 'map' && t.atomic) || (t.kind === 'list' && t.listType === 'atomic') || t.kind === 'scalar';
}

function childTypeOf(t: TypeNode, pe: PathElement): TypeNode | undefined {
  if (t.kind === 'map' && pe.kind === 'field') return t.field(pe.name) ?? (t.elem.kind === 'untyped' ? undefined : t.elem);
  if (t.kind === 'list' && pe.kind !== 'field' && pe.kind !== 'index') return t.item;
  return undefined;
}
