/**
 * A set of field paths as a tree, with the set algebra structured-merge-diff uses for
 * ownership (union, difference, intersection, recursive difference). A set is built with
 * `insert` and treated as immutable afterwards: the operations return new sets that may share
 * subtrees with their inputs.
 */
import { compareElements, serializeElement, type Path, type PathElement } from './path.ts';

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

export class FieldSet {
  /** Paths that end here, by serialized element. */
  readonly members = new Map<string, PathElement>();
  /** Sub-sets of paths that continue below an element, by serialized element; never empty. */
  readonly children = new Map<string, Child>();

  static of(paths: readonly Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (only while building a set). */
  insert(path: Path): void {
    if (path.length === 0) return;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.childOrCreate(path[i]!);
    const last = path[path.length - 1]!;
    node.members.set(serializeElement(last), last);
  }

  /** The child set under `pe`, created when missing (only while building a set). */
  childOrCreate(pe: PathElement): FieldSet {
    const key = serializeElement(pe);
    let c = this.children.get(key);
    if (!c) {
      c = { pe, set: new FieldSet() };
      this.children.set(key, c);
    }
    return c.set;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  /** Number of member paths in the whole tree. */
  size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size();
    return n;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(serializeElement(path[i]!))?.set;
    return !!node && node.members.has(serializeElement(path[path.length - 1]!));
  }

  hasMember(key: string): boolean {
    return this.members.has(key);
  }

  /** The paths below `key` (a serialized element), without it. */
  child(key: string): FieldSet | undefined {
    return this.children.get(key)?.set;
  }

  union(other: FieldSet): FieldSet {
    if (other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, pe] of other.members) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      out.children.set(k, o ? { pe: c.pe, set: c.set.union(o.set) } : c);
    }
    for (const [k, c] of other.children) if (!this.children.has(k)) out.children.set(k, c);
    return out;
  }

  /** Members of this set that are not members of `other` (children of other's members stay). */
  difference(other: FieldSet): FieldSet {
    if (other.isEmpty() || this.isEmpty()) return this;
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      if (!o) {
        out.children.set(k, c);
        continue;
      }
      const d = c.set.difference(o.set);
      if (!d.isEmpty()) out.children.set(k, { pe: c.pe, set: d });
    }
    return out;
  }

  /** Like difference, and also drops everything below a member of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    if (other.isEmpty() || this.isEmpty()) return this;
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (other.members.has(k)) continue;
      const o = other.children.get(k);
      if (!o) {
        out.children.set(k, c);
        continue;
      }
      const d = c.set.recursiveDifference(o.set);
      if (!d.isEmpty()) out.children.set(k, { pe: c.pe, set: d });
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    if (this.isEmpty() || other.isEmpty()) return out;
    for (const [k, pe] of this.members) if (other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      if (!o) continue;
      const i = c.set.intersection(o.set);
      if (!i.isEmpty()) out.children.set(k, { pe: c.pe, set: i });
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this === other) return true;
    if (this.members.size !== other.members.size || this.children.size !== other.children.size) return false;
    for (const k of this.members.keys()) if (!other.members.has(k)) return false;
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      if (!o || !c.set.equals(o.set)) return false;
    }
    return true;
  }

  /** Members sorted in structured-merge-diff's element order. */
  sortedMembers(): PathElement[] {
    return [...this.members.values()].sort(compareElements);
  }

  /** Children sorted in structured-merge-diff's element order. */
  sortedChildren(): Child[] {
    return [...this.children.values()].sort((a, b) => compareElements(a.pe, b.pe));
  }

  /** Every member path: this level's members first, then each child's, in element order. */
  paths(prefix: Path = []): Path[] {
    const out: Path[] = [];
    for (const pe of this.sortedMembers()) out.push([...prefix, pe]);
    for (const c of this.sortedChildren()) out.push(...c.set.paths([...prefix, c.pe]));
    return out;
  }
}
