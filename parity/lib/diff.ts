/**
 * A structural diff of two normalized values, as one line per differing leaf path. Key order in
 * objects is ignored (JSON clients do not see it); array order is not.
 */

export interface DiffLine {
  readonly path: string;
  readonly kube: unknown;
  readonly ours: unknown;
}

const ABSENT = Symbol('absent');

/** Lists every path where the two values differ; empty when they are equal. */
export function diffValues(kube: unknown, ours: unknown, path = ''): DiffLine[] {
  const out: DiffLine[] = [];
  walk(kube, ours, path, out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: DiffLine[]): void {
  if (Object.is(a, b)) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) walk(i < a.length ? a[i] : ABSENT, i < b.length ? b[i] : ABSENT, `${path}[${i}]`, out);
    return;
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) {
      walk(k in a ? a[k] : ABSENT, k in b ? b[k] : ABSENT, path === '' ? k : `${path}.${k}`, out);
    }
    return;
  }
  out.push({ path: path || '.', kube: a === ABSENT ? undefined : a, ours: b === ABSENT ? undefined : b });
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Renders a diff line for the terminal: absent sides are shown as `(absent)`. */
export function formatDiffLine(d: DiffLine, max = 200): string {
  return `${d.path}: kube=${show(d.kube, max)} ours=${show(d.ours, max)}`;
}

function show(v: unknown, max: number): string {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
