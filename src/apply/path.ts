/**
 * Path elements of structured-merge-diff field paths: `f:<field>`, `k:{<keys>}` for list-map
 * entries, `v:<value>` for set members, `i:<index>`. Their order, serialized form and display
 * form (`.spec.containers[name="app"].image`) follow kubernetes-sigs/structured-merge-diff.
 */
import { encodeGoJson } from './go-json.ts';

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  /** Key fields sorted by name. */
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, unknown])[] }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'index'; readonly index: number };

export type Path = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

/** A key element from unsorted key fields; sorts them by name as structured-merge-diff does. */
export function keyElement(fields: readonly (readonly [string, unknown])[]): PathElement {
  const sorted = [...fields].sort((a, b) => compareStrings(a[0], b[0]));
  return { kind: 'key', fields: sorted };
}

const serialized = new WeakMap<PathElement, string>();

/** The FieldsV1 key of one element: `f:name`, `k:{"name":"a"}`, `v:"x"`, `i:0`. */
export function serializeElement(pe: PathElement): string {
  if (pe.kind === 'field') return `f:${pe.name}`;
  let s = serialized.get(pe);
  if (s === undefined) {
    s = serializeUncached(pe);
    serialized.set(pe, s);
  }
  return s;
}

function serializeUncached(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key': {
      const parts = pe.fields.map(([k, v]) => `${encodeGoJson(k)}:${encodeGoJson(v)}`);
      return `k:{${parts.join(',')}}`;
    }
    case 'value':
      return `v:${encodeGoJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** Parses a FieldsV1 key (other than `.`); throws on anything malformed. */
export function parseElement(s: string): PathElement {
  const prefix = s.slice(0, 2);
  const rest = s.slice(2);
  switch (prefix) {
    case 'f:':
      return { kind: 'field', name: rest };
    case 'k:': {
      const obj: unknown = JSON.parse(rest);
      if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new Error(`invalid key path element ${s}`);
      return keyElement(Object.entries(obj as Record<string, unknown>));
    }
    case 'v:':
      return { kind: 'value', value: JSON.parse(rest) };
    case 'i:': {
      const n = Number(rest);
      if (!Number.isInteger(n)) throw new Error(`invalid index path element ${s}`);
      return { kind: 'index', index: n };
    }
    default:
      throw new Error(`unknown path element prefix in ${JSON.stringify(s)}`);
  }
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** Total order of path elements: fields by name, then keys, then values, then indexes. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeyFields(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index':
      return a.index - (b as typeof a).index;
  }
}

function compareKeyFields(a: readonly (readonly [string, unknown])[], b: readonly (readonly [string, unknown])[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const c = compareStrings(a[i]![0], b[i]![0]);
    if (c !== 0) return c;
    const v = compareValues(a[i]![1], b[i]![1]);
    if (v !== 0) return v;
  }
  return 0;
}

function valueRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

/** structured-merge-diff's value order: numbers, strings, booleans, lists, maps, null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= la.length && i >= lb.length) return 0;
        if (i >= la.length) return -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
    }
    case 4: {
      const ea = Object.entries(a as Record<string, unknown>).sort((x, y) => compareStrings(x[0], y[0]));
      const eb = Object.entries(b as Record<string, unknown>).sort((x, y) => compareStrings(x[0], y[0]));
      for (let i = 0; ; i++) {
        if (i >= ea.length && i >= eb.length) return 0;
        if (i >= ea.length) return -1;
        if (i >= eb.length) return 1;
        const k = compareStrings(ea[i]![0], eb[i]![0]);
        if (k !== 0) return k;
        const c = compareValues(ea[i]![1], eb[i]![1]);
        if (c !== 0) return c;
      }
    }
    default:
      return 0;
  }
}

/** Display form of a value inside a path, as structured-merge-diff's value.ToString prints it. */
function valueToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(', ')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort((x, y) => compareStrings(x[0], y[0]));
    return `{${entries.map(([k, x]) => `${k}=${valueToString(x)}`).join(', ')}}`;
  }
  return String(v);
}

/** Display form of one element: `.name`, `[k=v,k2=v2]`, `[=value]`, `[3]`. */
export function elementToString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([k, v]) => `${k}=${valueToString(v)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

/** Display form of a path, as kube-apiserver prints it in conflict errors (`.data.key`). */
export function pathToString(path: Path): string {
  return path.map(elementToString).join('');
}
