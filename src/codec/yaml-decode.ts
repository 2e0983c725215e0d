/**
 * Request-body YAML decoding with the `yaml` package (YAML 1.1 rules, like the go-yaml v2 that
 * kube-apiserver uses): first document only, duplicate keys reported (last wins) in kube's words,
 * alias expansion bounded (billion laughs) and nesting bounded, all failures ApiError 400.
 */
import { Composer, Parser, isAlias, isMap, isPair, isScalar, isSeq, LineCounter } from 'yaml';
import type { Document, DocumentOptions, Node as YamlNode, ParseOptions, SchemaOptions, Tags } from 'yaml';
import { decodeFailure, MAX_STRICT_ERRORS, toBytes, toText } from './decode-errors.ts';
import { DEFAULT_MAX_DEPTH, type DecodeOptions, type DecodeResult } from './json-decode.ts';

/** Alias resolutions allowed per document; the `yaml` package weighs each by the size it expands to. */
export const MAX_ALIAS_COUNT = 100;

const parseOptions: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  uniqueKeys: false,
  // go-yaml v2 leaves timestamps and base-60 numbers as strings when decoding to JSON.
  customTags: (tags: Tags) =>
    tags.filter((t) => {
      const tag = t as { tag?: string; format?: string };
      return tag.tag !== 'tag:yaml.org,2002:timestamp' && tag.format !== 'TIME';
    }),
};

/**
 * Parses the first YAML document of a body into a JSON-compatible value. Never throws anything
 * but ApiError 400; `strictErrors` reads `line 5: key "name" already set in map` as kube's do.
 */
export function decodeYaml(input: Uint8Array | string, opts: DecodeOptions = {}): DecodeResult {
  const text = toText(input);
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const fail = (detail: string): never => {
    throw decodeFailure(`error converting YAML to JSON: yaml: ${detail}`, toBytes(input), opts.expectedKind);
  };
  if (flowNestingExceeds(text, maxDepth)) fail('exceeded max depth');

  const lines = new LineCounter();
  let doc: Document.Parsed | undefined;
  try {
    doc = firstDocument(text, lines);
  } catch (e) {
    if (e instanceof RangeError) fail('exceeded max depth');
    throw e;
  }
  if (!doc) return { value: null, duplicates: [], strictErrors: [] };
  const firstError = doc.errors[0];
  if (firstError) {
    if (/call stack/i.test(firstError.message)) fail('exceeded max depth');
    const line = lines.linePos(firstError.pos[0]).line;
    fail(`line ${line}: ${firstError.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '')}`);
  }
  const walk = inspect(doc.contents, lines, maxDepth);
  if (walk === 'too-deep') return fail('exceeded max depth');
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    if (e instanceof ReferenceError && /alias/i.test(e.message)) fail('document contains excessive aliasing');
    if (e instanceof RangeError || /call stack/i.test(String(e))) fail('exceeded max depth');
    fail((e as Error).message);
  }
  return { value: value ?? null, duplicates: walk.paths, strictErrors: walk.messages };
}

function firstDocument(text: string, lines: LineCounter): Document.Parsed | undefined {
  const composer = new Composer(parseOptions);
  const parser = new Parser(lines.addNewLine);
  for (const token of parser.parse(text)) {
    for (const doc of composer.next(token)) return doc as Document.Parsed;
  }
  for (const doc of composer.end()) return doc as Document.Parsed;
  return undefined;
}

/**
 * Flow collections (`[`, `{`) are nested recursively by the parser, and a few hundred thousand of
 * them exhaust it; count their depth on the raw text before parsing. Quoted scalars and comments
 * are skipped; a bracket inside a plain scalar may be over-counted, which only errs towards 400.
 */
export function flowNestingExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  const len = text.length;
  let lineStart = true;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    if (lineStart) {
      // Compact block sequences (`- - - x`) nest one level per dash on a single line.
      lineStart = false;
      let dashes = 0;
      let j = i;
      for (;;) {
        while (j < len && text.charCodeAt(j) === 0x20) j++;
        if (text.charCodeAt(j) === 0x2d && (text.charCodeAt(j + 1) === 0x20 || text.charCodeAt(j + 1) === 0x0a)) {
          dashes++;
          j += 2;
        } else break;
      }
      if (dashes > maxDepth) return true;
    }
    if (c === 0x0a) lineStart = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x22) {
      for (i++; i < len && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x27) {
      const prev = text.charCodeAt(i - 1);
      // A quote inside a plain word (don't) does not open a quoted scalar.
      if (i === 0 || prev === 0x20 || prev === 0x0a || prev === 0x5b || prev === 0x7b || prev === 0x2c || prev === 0x3a) {
        for (i++; i < len; i++) if (text.charCodeAt(i) === 0x27) break;
      }
    } else if (c === 0x23 && (i === 0 || text.charCodeAt(i - 1) === 0x20 || text.charCodeAt(i - 1) === 0x0a)) {
      while (i < len && text.charCodeAt(i) !== 0x0a) i++;
    }
  }
  return false;
}

interface Inspection {
  readonly paths: string[];
  readonly messages: string[];
}

/**
 * Walks the document tree without recursion: measures nesting depth, and collects duplicate keys
 * with their field paths and go-yaml's line messages (line of the repeated key).
 */
function inspect(root: unknown, lines: LineCounter, maxDepth: number): Inspection | 'too-deep' {
  const found: { offset: number; path: string; message: string }[] = [];
  const stack: { node: unknown; path: string; depth: number }[] = [{ node: root, path: '', depth: 1 }];
  while (stack.length > 0) {
    const { node, path, depth } = stack.pop()!;
    if (isMap(node)) {
      if (depth > maxDepth) return 'too-deep';
      const seen = new Set<string>();
      for (const item of node.items) {
        if (!isPair(item)) continue;
        const keyNode = item.key as YamlNode | null;
        const key = isScalar(keyNode) ? keyNode.value : keyNode === null ? null : String(keyNode);
        const id = `${typeof key}:${String(key)}`;
        const name = String(key);
        const childPath = path ? `${path}.${name}` : name;
        if (seen.has(id)) {
          const offset = keyNode?.range?.[0] ?? 0;
          const quoted = typeof key === 'string' ? JSON.stringify(key) : String(key);
          found.push({ offset, path: childPath, message: `line ${lines.linePos(offset).line}: key ${quoted} already set in map` });
        } else seen.add(id);
        stack.push({ node: item.value, path: childPath, depth: depth + 1 });
      }
    } else if (isSeq(node)) {
      if (depth > maxDepth) return 'too-deep';
      node.items.forEach((item, i) => stack.push({ node: item, path: `${path}[${i}]`, depth: depth + 1 }));
    } else if (isAlias(node)) {
      // Alias targets are walked where they are defined; expansion is bounded by toJS.
    }
  }
  // The walk is depth-first from the end; report in document order as go-yaml does.
  found.sort((a, b) => a.offset - b.offset);
  const kept = found.slice(0, MAX_STRICT_ERRORS);
  return { paths: kept.map((f) => f.path), messages: kept.map((f) => f.message) };
}
