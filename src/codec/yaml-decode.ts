/**
 * Request-body YAML decoding as kube-apiserver does it (go-yaml v2 under sigs.k8s.io/yaml): the
 * `yaml` package parses (YAML 1.1, every scalar kept as text), and our own walk turns the tree
 * into JSON with go-yaml v2's scalar rules (yaml-resolve.ts), its merge keys, its alias checks
 * (self-reference, excessive aliasing) and sigs.k8s.io/yaml's key conversion. First document
 * only; duplicate keys reported (last wins) in kube's words; nesting bounded; every failure is
 * ApiError 400.
 */
import { Composer, Parser, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, visit } from 'yaml';
import type { Alias, Document, DocumentOptions, Node as YamlNode, ParseOptions, Scalar, SchemaOptions, YAMLError } from 'yaml';
import { decodeFailure, MAX_STRICT_ERRORS, toBytes, toText } from './decode-errors.ts';
import { DEFAULT_MAX_DEPTH, type DecodeOptions, type DecodeResult } from './json-decode.ts';
import { errors } from '../api/status-errors.ts';

export interface YamlDecodeOptions extends DecodeOptions {
  /** An apply body (application/apply-patch+yaml): errors read as kube's apply patcher words them. */
  readonly applyPatch?: boolean;
}
import { isMergeKey, jsonKeyOf, resolveScalar, resolveTagged, YamlValueError, type Resolved } from './yaml-resolve.ts';
import { decodeJsonShapedYaml } from './yaml-json-fast-path.ts';

/** Alias expansions go-yaml v2 allows before it checks the ratio of aliased to decoded nodes. */
export const MAX_ALIAS_COUNT = 100;

const parseOptions: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  uniqueKeys: false,
  // Scalars stay text; yaml-resolve.ts gives them go-yaml v2's meaning.
  schema: 'failsafe',
};

/**
 * Parses the first YAML document of a body into a JSON-compatible value. Never throws anything
 * but ApiError 400; `strictErrors` reads `line 5: key "name" already set in map` as kube's do.
 */
export function decodeYaml(input: Uint8Array | string, opts: YamlDecodeOptions = {}): DecodeResult {
  const text = toText(input);
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const jsonShaped = decodeJsonShapedYaml(text, maxDepth);
  if (jsonShaped !== undefined) return { value: jsonShaped, duplicates: [], strictErrors: [] };
  return decodeYamlByParser(input, text, opts);
}

/** decodeYaml without the JSON-shaped shortcut: the YAML parser's reading of every body. */
export function decodeYamlByParser(input: Uint8Array | string, text: string, opts: YamlDecodeOptions = {}): DecodeResult {
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  // Worded per path, as kube words it: a create/update body goes through sigs.k8s.io/yaml's
  // YAMLToJSON (no prefix); an apply body through its Unmarshal, inside the apply patcher's words.
  const failWith = (detail: string): never => {
    if (opts.applyPatch) throw errors.badRequest(`error decoding YAML: error converting YAML to JSON: ${detail}`);
    throw decodeFailure(detail, toBytes(input), opts.expectedKind);
  };
  const fail = (detail: string): never => failWith(`yaml: ${detail}`);
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
    fail(goYamlSyntaxError(firstError, lines, text));
  }
  let value: unknown;
  try {
    value = new GoYamlConverter(doc, maxDepth).convert(doc.contents);
  } catch (e) {
    if (e instanceof ConversionError) failWith(e.message);
    if (e instanceof RangeError) fail('exceeded max depth');
    throw e;
  }
  const walk = inspect(doc.contents, lines, maxDepth);
  if (walk === 'too-deep') return fail('exceeded max depth');
  return { value: value ?? null, duplicates: walk.paths, strictErrors: walk.messages };
}

/** A failure of the YAML-to-JSON conversion, worded as go-yaml (`yaml: ...`) or sigs.k8s.io/yaml words it. */
class ConversionError extends Error {}

const ALIAS_RATIO_LOW = 400_000;
const ALIAS_RATIO_HIGH = 4_000_000;

/** go-yaml v2's allowedAliasRatio: tolerated share of alias-produced nodes for a document size. */
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= ALIAS_RATIO_LOW) return 0.99;
  if (decodeCount >= ALIAS_RATIO_HIGH) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - ALIAS_RATIO_LOW) / (ALIAS_RATIO_HIGH - ALIAS_RATIO_LOW));
}

/**
 * Walks a parsed document as go-yaml v2's decoder walks its node tree into interface{} values,
 * then applies sigs.k8s.io/yaml's JSON conversion; the output is what JSON can carry.
 */
class GoYamlConverter {
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  private readonly expanding = new Set<Alias>();
  /** Each alias's target, found in one pass (the package's own lookup walks the document per alias). */
  private readonly targets = new Map<Alias, unknown>();

  constructor(
    doc: Document.Parsed,
    private readonly maxDepth: number,
  ) {
    // An alias names the latest node with that anchor before it in document order; a collection's
    // anchor is defined before its children, so an alias inside it refers to it (and is refused).
    const anchors = new Map<string, unknown>();
    visit(doc, (_key, node) => {
      if (isAlias(node)) this.targets.set(node, anchors.get(node.source));
      else if ((isScalar(node) || isMap(node) || isSeq(node)) && node.anchor) anchors.set(node.anchor, node);
    });
  }

  private resolve(alias: Alias): unknown {
    return this.targets.get(alias);
  }

  convert(node: unknown): unknown {
    return this.node(node, 1);
  }

  private yamlFail(detail: string): never {
    throw new ConversionError(`yaml: ${detail}`);
  }

  private count(): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) this.aliasCount++;
    if (this.aliasCount > MAX_ALIAS_COUNT && this.decodeCount > 1000 && this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)) {
      this.yamlFail('document contains excessive aliasing');
    }
  }

  private node(node: unknown, depth: number): unknown {
    this.count();
    if (depth > this.maxDepth) this.yamlFail('exceeded max depth');
    if (node === null || node === undefined) return null;
    if (isScalar(node)) {
      const v = this.scalar(node);
      // encoding/json cannot write these, so sigs.k8s.io/yaml fails on them.
      if (typeof v === 'number' && !Number.isFinite(v)) throw new ConversionError(`json: unsupported value: ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}`);
      return v;
    }
    if (isAlias(node)) return this.alias(node, (target) => this.node(target, depth));
    if (isSeq(node)) {
      const out: unknown[] = [];
      for (const item of node.items) out.push(isPair(item) ? this.pairsToObject([item], depth + 1) : this.node(item, depth + 1));
      return out;
    }
    if (isMap(node)) return this.pairsToObject(node.items, depth);
    if (isPair(node)) return this.pairsToObject([node], depth);
    return null;
  }

  private scalar(node: Scalar): Resolved {
    const text = node.value === null || node.value === undefined ? '' : String(node.value);
    try {
      return resolveScalar(text, { tag: node.tag, plain: node.type === 'PLAIN' || node.type === undefined });
    } catch (e) {
      if (e instanceof YamlValueError) this.yamlFail(e.message);
      throw e;
    }
  }

  private alias<T>(node: Alias, use: (target: unknown) => T): T {
    if (this.expanding.has(node)) this.yamlFail(`anchor '${node.source}' value contains itself`);
    const target = this.resolve(node);
    if (!target) this.yamlFail(`unknown anchor '${node.source}' referenced`);
    this.expanding.add(node);
    this.aliasDepth++;
    try {
      return use(target);
    } finally {
      this.aliasDepth--;
      this.expanding.delete(node);
    }
  }

  private pairsToObject(items: readonly unknown[], depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const item of items) {
      if (!isPair(item)) continue;
      const keyNode = item.key as YamlNode | null;
      if (isScalar(keyNode) && isMergeKey(String(keyNode.value ?? ''), { tag: keyNode.tag, plain: keyNode.type === 'PLAIN' })) {
        this.count();
        this.merge(item.value, out, depth);
        continue;
      }
      const key = this.key(keyNode, item.value);
      setOwn(out, key, this.node(item.value, depth + 1));
    }
    // sigs.k8s.io/yaml goes through a Go map, and encoding/json writes map keys sorted.
    return sortKeys(out);
  }

  /** A map key: a scalar (or an alias of one) printed as sigs.k8s.io/yaml prints it. */
  private key(keyNode: unknown, valueNode?: unknown): string {
    this.count();
    if (isAlias(keyNode)) return this.alias(keyNode, (target) => this.key(target, valueNode));
    if (keyNode === null || keyNode === undefined) return this.sigsKey(['', null], valueNode);
    if (isScalar(keyNode)) {
      const text = keyNode.value === null || keyNode.value === undefined ? '' : String(keyNode.value);
      let tagged: [string, Resolved];
      try {
        tagged = resolveTagged(text, { tag: keyNode.tag, plain: keyNode.type === 'PLAIN' || keyNode.type === undefined });
      } catch (e) {
        if (e instanceof YamlValueError) this.yamlFail(e.message);
        throw e;
      }
      return this.sigsKey(tagged, valueNode);
    }
    // go-yaml v2 refuses collections as keys of an interface{} map, printing the key with %#v.
    return this.yamlFail(`invalid map key: ${goSyntax(this.node(keyNode, 1))}`);
  }

  private sigsKey(key: [string, Resolved], valueNode?: unknown): string {
    try {
      return jsonKeyOf(key);
    } catch (e) {
      if (e instanceof YamlValueError) {
        const value = valueNode === undefined ? '' : `, value: ${goSyntax(this.node(valueNode, 1))}`;
        throw new ConversionError(`${e.message}${value}`);
      }
      throw e;
    }
  }

  /** go-yaml v2's merge: a map, an alias of one, or a sequence of those (earlier ones win). */
  private merge(value: unknown, out: Record<string, unknown>, depth: number): void {
    const wantMap = () => this.yamlFail('map merge requires map or sequence of maps as the value');
    const mergeOne = (n: unknown) => {
      let target = n;
      if (isAlias(n)) target = this.resolve(n);
      if (!isMap(target)) wantMap();
      const m = this.node(n, depth) as Record<string, unknown>;
      for (const k of Object.keys(m)) setOwn(out, k, m[k]);
    };
    if (isMap(value) || isAlias(value)) return mergeOne(value);
    if (isSeq(value)) {
      for (let i = value.items.length - 1; i >= 0; i--) mergeOne(value.items[i]);
      return;
    }
    wantMap();
  }
}

/** The object with its keys in Go's sorted order (integer-like keys still come first in JS). */
function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(o);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) if (keys[i - 1]! > keys[i]!) sorted = false;
  if (sorted) return o;
  const out: Record<string, unknown> = {};
  for (const k of keys.sort()) setOwn(out, k, o[k]);
  return out;
}

/** A decoded YAML value as Go's %#v prints go-yaml's interface{} form. */
function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[interface {}]interface {}{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goSyntax(o[k])}`)
      .join(', ')}}`;
  }
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

/** Sets an own enumerable property, even `__proto__`, as JSON.parse would. */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/**
 * go-yaml's words for the syntax errors the `yaml` package reports in its own (clients and tests
 * read kube's). Scanner errors name the 1-based line of the problem, parser errors the 0-based
 * one (as go-yaml prints them); either is left out when it is 0 (first line). Errors without a
 * counterpart keep the package's message.
 */
function goYamlSyntaxError(err: YAMLError, lines: LineCounter, text: string): string {
  const line = lines.linePos(err.pos[0]).line;
  const own = `line ${line}: ${err.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '')}`;
  const scanner = (msg: string, at = line) => (at > 1 ? `line ${at}: ${msg}` : msg);
  const at = (n: number, msg: string) => (n > 0 ? `line ${n}: ${msg}` : msg);
  const parser = (msg: string) => at(line - 1, msg);
  switch (err.code) {
    case 'TAB_AS_INDENT':
      return scanner('found character that cannot start any token');
    case 'BLOCK_AS_IMPLICIT_KEY':
      return scanner('mapping values are not allowed in this context', lines.linePos(err.pos[1]).line);
    case 'BAD_DQ_ESCAPE':
      return scanner('found unknown escape character');
    case 'BAD_ALIAS':
      return scanner('did not find expected alphabetic or numeric character');
    case 'MISSING_CHAR':
      return /quote/.test(err.message) ? scanner('found unexpected end of stream') : own;
    case 'BAD_INDENT': {
      // A flow collection cut off by the end of the input right after `[`, `{` or `,`.
      const before = text.slice(0, err.pos[0]).trimEnd();
      if (/^\s*$/.test(text.slice(err.pos[0])) && /[[{,]$/.test(before)) {
        return `line ${lines.linePos(before.length - 1).line}: did not find expected node content`;
      }
      // An unclosed flow collection at the end of the input: go-yaml's problem is the stream
      // end, whose mark moves to a new line when the last line is not empty.
      const atEnd = /^\s*$/.test(text.slice(err.pos[0]));
      const flowEnd = (msg: string) => (atEnd ? at(streamEndLine(text), msg) : parser(msg));
      if (/Flow sequence/.test(err.message)) return flowEnd("did not find expected ',' or ']'");
      if (/Flow map/.test(err.message)) return flowEnd("did not find expected ',' or '}'");
      if (/same column/.test(err.message)) return parser('did not find expected key');
      return own;
    }
    case 'MULTILINE_IMPLICIT_KEY':
      return parser('did not find expected key');
    default:
      return own;
  }
}

/** The 0-based line of go-yaml's STREAM-END mark: past the last line break, or one more when the text does not end with one. */
function streamEndLine(text: string): number {
  const breaks = text.split('\n').length - 1;
  return text.length > 0 && !text.endsWith('\n') ? breaks + 1 : breaks;
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
        // Keys are scalars here: the conversion has already refused collections as keys.
        const key = isScalar(keyNode) ? keyNode.value : keyNode === null ? null : isAlias(keyNode) ? `*${keyNode.source}` : '';
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
