/**
 * Structure-aware generators for the fuzz suite: JSON-like values shaped like Kubernetes objects
 * (metadata, labels, lists of maps), texts derived from them by mutation, YAML documents that use
 * the constructs JSON cannot express (anchors, aliases, merge keys, tags, complex keys), and patch
 * documents of every patch type. All driven by one seeded PRNG so a failure replays from its seed.
 */
export type Rand = () => number;

export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rand, n: number) => Math.floor(r() * n);

const KEYS = ['metadata', 'name', 'namespace', 'labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields', 'data', 'binaryData', 'spec', 'status', 'rules', 'subjects', 'uid', 'kind', 'apiVersion', 'generation', 'a', 'b', '', '$patch', '$retainKeys', '$setElementOrder/finalizers', '$deleteFromPrimitiveList/finalizers', 'k', 'x.y/z'];
const STRINGS = ['', 'a', 'x', 'default', 'kube-system', 'v1', 'ConfigMap', 'delete', 'replace', 'merge', '2024-01-01T00:00:00Z', 'not a date', '\u2028', '\u0000', '🎉', 'a'.repeat(300), '../..', '%2e', 'true', '1e400', '-0', '0x1F'];
const NUMBERS = [0, -1, 1, 1.5, -0, 2 ** 53 + 1, 1e300, -1e-300, 2 ** 31, 2 ** 63, 55];

/** A scalar of any JSON type. */
export function scalar(r: Rand): unknown {
  switch (int(r, 5)) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return pick(r, NUMBERS);
    default:
      return pick(r, STRINGS);
  }
}

/** A JSON value of bounded depth and width, biased towards Kubernetes-shaped keys. */
export function value(r: Rand, depth = 4): unknown {
  if (depth <= 0 || r() < 0.3) return scalar(r);
  if (r() < 0.45) return Array.from({ length: int(r, 4) }, () => value(r, depth - 1));
  const o: Record<string, unknown> = {};
  for (let i = int(r, 5); i > 0; i--) o[pick(r, KEYS)] = value(r, depth - 1);
  return o;
}

/** An object body for `kind` whose metadata and fields are sometimes well typed, sometimes not. */
export function objectBody(r: Rand, apiVersion: string, kind: string, name: string): Record<string, unknown> {
  const meta: Record<string, unknown> = r() < 0.9 ? { name } : (value(r, 2) as Record<string, unknown>);
  if (r() < 0.5 && typeof meta === 'object' && meta !== null && !Array.isArray(meta)) {
    for (let i = int(r, 3) + 1; i > 0; i--) meta[pick(r, ['labels', 'annotations', 'finalizers', 'ownerReferences', 'generation', 'uid', 'generateName', 'managedFields'])] = value(r, 3);
  }
  const body: Record<string, unknown> = { apiVersion: r() < 0.9 ? apiVersion : scalar(r), kind: r() < 0.9 ? kind : scalar(r), metadata: meta };
  for (let i = int(r, 3); i > 0; i--) body[pick(r, KEYS)] = value(r, 3);
  return body;
}

/** A JSON patch: mostly well-formed operations on plausible paths, with bad ones mixed in. */
export function jsonPatch(r: Rand): unknown {
  if (r() < 0.05) return value(r, 2);
  const ops = ['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'];
  const paths = ['/metadata/labels/a', '/metadata/finalizers/-', '/metadata/finalizers/0', '/metadata/name', '/data/k', '/metadata', '', '/', '/a~1b', '/metadata/ownerReferences/0/uid', '/data/-', '/x/y/z', '/metadata/labels/~2'];
  return Array.from({ length: int(r, 4) + 1 }, () => {
    const op: Record<string, unknown> = { op: r() < 0.95 ? pick(r, ops) : scalar(r), path: r() < 0.95 ? pick(r, paths) : scalar(r) };
    if (r() < 0.7) op.value = value(r, 3);
    if (r() < 0.3) op.from = r() < 0.9 ? pick(r, paths) : scalar(r);
    return op;
  });
}

/** Turns a value into text, then sometimes damages it (truncation, byte flips, insertions). */
export function mutateText(r: Rand, text: string): string {
  let t = text;
  for (let i = int(r, 3); i > 0; i--) {
    const at = int(r, t.length + 1);
    switch (int(r, 4)) {
      case 0:
        t = t.slice(0, at);
        break;
      case 1:
        t = t.slice(0, at) + pick(r, ['{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', '\ufeff', '-', '&a', '*a', '<<', '!!binary', '? ', '\n', '\t']) + t.slice(at);
        break;
      case 2:
        t = t.slice(0, at) + t.slice(at + 1);
        break;
      default:
        t = t.slice(0, at) + t.slice(at, at + 20) + t.slice(at);
    }
  }
  return t;
}

/** YAML documents built from constructs JSON has no word for. */
export function yamlDocument(r: Rand): string {
  const scalars = ['.', '-.', '0_', '1e400', '.inf', '-.inf', '.nan', '0o17', '0X1F', '0B1', '0b1', '017', '1_000', '1:20', 'yes', 'No', 'on', '~', 'null', '2001-12-14', '+1', '-0', '0x_1', '"\\u2028"', "'it''s'", '!!binary aGVsbG8=', '!!str 5', '!!int "5"', '!!float 1', '!!null ""', '!!bool yes', '!custom x', '|\n  a\n  b', '>-\n  folded'];
  const lines: string[] = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: n'];
  const body: string[] = [];
  for (let i = int(r, 5) + 1; i > 0; i--) {
    switch (int(r, 8)) {
      case 0:
        body.push(`  k${i}: ${pick(r, scalars)}`);
        break;
      case 1:
        body.push(`  a${i}: &x${i} {p: 1, q: [1, 2]}`, `  b${i}: *x${i}`);
        break;
      case 2:
        body.push(`  m${i}:`, `    <<: {p: 1}`, `    q: 2`);
        break;
      case 3:
        body.push(`  ? [a, b]`, `  : v`);
        break;
      case 4:
        body.push(`  ? {<<: {a: 1}}`, `  : v`);
        break;
      case 5:
        body.push(`  s${i}: !!set {a, b}`, `  o${i}: !!omap [a: 1, b: 2]`);
        break;
      case 6:
        body.push(`  r${i}: &r${i} [*r${i}]`);
        break;
      default:
        body.push(`  d${i}: ${JSON.stringify(value(r, 2))}`);
    }
  }
  return [...lines, 'data:', ...body].join('\n') + '\n';
}
