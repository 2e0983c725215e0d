// Lists whose schema says x-kubernetes-list-type=set or =map keep that meaning in expressions, as in
// kube-apiserver (apiserver/pkg/cel/common/values.go): they compare ignoring order, and `X + Y`
// is a union (set) or a keyed merge (map) that keeps X's positions and appends Y's new elements.
// They are plain arrays to the engine, so every other list operation behaves as for an atomic list.
import { celEquals } from './values.ts';

// The engine dispatches on `constructor === Array`, so the list type is remembered beside the array.
const setLists = new WeakSet<readonly unknown[]>();
const mapListKeys = new WeakMap<readonly unknown[], readonly string[]>();

/** Marks elements as a set-semantics list (x-kubernetes-list-type=set) and returns them. */
export function setList(elements: unknown[]): unknown[] {
  setLists.add(elements);
  return elements;
}

/** Marks elements as a map-semantics list (x-kubernetes-list-type=map) keyed by the given (escaped) fields. */
export function mapList(elements: unknown[], keys: readonly string[]): unknown[] {
  mapListKeys.set(elements, keys);
  return elements;
}

function isSetList(v: unknown): v is unknown[] {
  return Array.isArray(v) && setLists.has(v);
}

function keysOf(v: unknown): readonly string[] | undefined {
  return Array.isArray(v) ? mapListKeys.get(v) : undefined;
}

function field(element: unknown, name: string): unknown {
  if (element instanceof Map) return element.get(name);
  return element !== null && typeof element === 'object' ? (element as Record<string, unknown>)[name] : undefined;
}

function sameKey(keys: readonly string[], a: unknown, b: unknown): boolean {
  return keys.every((k) => celEquals(field(a, k) ?? null, field(b, k) ?? null));
}

/** True when the left operand is a set or map list: as in kube-apiserver, its type decides `==` and `+`. */
export function hasListTypeSemantics(l: unknown): boolean {
  return isSetList(l) || keysOf(l) !== undefined;
}

/** Equality where the left list is a set or map list: order is ignored. */
export function listTypeEquals(l: readonly unknown[], r: readonly unknown[]): boolean {
  if (l.length !== r.length) return false;
  const keys = keysOf(l);
  if (keys !== undefined) {
    return r.every((o) => {
      const mine = l.find((e) => sameKey(keys, e, o));
      return mine !== undefined && celEquals(mine, o);
    });
  }
  return r.every((o) => l.some((e) => celEquals(e, o)));
}

/** `l + r` where l is a set or map list; otherwise undefined (plain concatenation applies). */
export function listTypeConcat(l: unknown, r: readonly unknown[]): unknown[] | undefined {
  if (isSetList(l)) {
    const out = setList([...l]);
    for (const x of r) if (!out.some((e) => celEquals(e, x))) out.push(x);
    return out;
  }
  const keys = keysOf(l);
  if (keys !== undefined && Array.isArray(l)) {
    const out = mapList([...l], keys);
    for (const x of r) {
      const at = out.findIndex((e) => sameKey(keys, e, x));
      if (at >= 0) out[at] = x;
      else out.push(x);
    }
    return out;
  }
  return undefined;
}
