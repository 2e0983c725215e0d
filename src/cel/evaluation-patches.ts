// Corrections applied to a parsed program where the engine's behaviour differs from CEL's and no
// extension point reaches: has() on any operand, map literals (key types, duplicate keys, non-string
// keys), heterogeneous aggregate equality, numeric `in`, int64 overflow, timestamp/duration ranges,
// fixed-offset time zones, ASCII-only case mapping, Go's whitespace set for trim(), and RE2 for the
// engine's own `matches` (plus compile-time checks and compilation of literal regex patterns).
// Each patch wraps one node's handler once at compile time; nodes it does not concern are untouched.
import { Optional, TypeError as CelTypeError } from '@marcbachmann/cel-js';
import { UnsignedInt, Duration } from '@marcbachmann/cel-js/evaluator';
import { celEquals } from './values.ts';
import { SET_FUNCTIONS } from './kube-net-format-sets.ts';
import { addDuration, compareTimestamps, durationFromNanos, timestampDifference } from './timestamps.ts';
import { childNodes, type EngineNode } from './engine-ast.ts';
import { hasListTypeSemantics, listTypeEquals, listTypeConcat } from './list-types.ts';
import { goParseInt, goParseUint, goParseFloat, goParseTimestamp, goParseDuration, uintFromDouble } from './go-conversions.ts';
import { goFormatG } from './strings-ext.ts';
import { compileRegex, literalPatternError, regexFind, regexFindAll, regexMatches, type CompiledRegex } from './regex.ts';

// The engine's evaluator and node internals these patches use.
interface Evaluator {
  run(node: unknown, ctx: unknown): unknown;
  debugType(v: unknown): { fieldLazy(obj: unknown, key: unknown, node: unknown, ev: Evaluator): unknown };
}
type Node = EngineNode & {
  handle?: (...a: never[]) => unknown;
  setMeta(key: string, value: unknown): Node;
  readonly left?: Node;
  readonly right?: Node;
};
type Handle = (...a: unknown[]) => unknown;

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const TWO_63 = 2 ** 63;
// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, CEL's timestamp range.
const MIN_TIMESTAMP_MS = -62135596800000;
const MAX_TIMESTAMP_MS = 253402300799999;
const MAX_DURATION_SECONDS = 315576000000n;
const MAX_TIME_DIFF_SECONDS = 9223372036n;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function fail(message: string): never {
  throw new Error(message);
}

function allNodes(root: EngineNode): Node[] {
  const seen = new Set<EngineNode>();
  const stack = [root];
  const out: Node[] = [];
  while (stack.length > 0) {
    const n = stack.pop() as EngineNode;
    if (seen.has(n)) continue;
    seen.add(n);
    if ((n.meta as unknown) !== undefined) out.push(n as Node);
    stack.push(...childNodes(n));
  }
  return out;
}

function isMapValue(v: unknown): v is Map<unknown, unknown> | Record<string, unknown> {
  return v instanceof Map || (v !== null && typeof v === 'object' && (v as object).constructor === Object);
}

function hasField(ev: Evaluator, obj: unknown, field: unknown, node: unknown): boolean {
  if (obj instanceof Optional) return obj.hasValue() && hasField(ev, obj.value(), field, node);
  if (obj instanceof Map) return obj.has(field);
  if (isMapValue(obj)) return Object.hasOwn(obj, field as string);
  return ev.debugType(obj).fieldLazy(obj, field, node, ev) !== undefined;
}

/** has(e.f) for any operand e: CEL allows has() on map and message expressions, not only variables. */
function hasMacro(arg: Node) {
  // cel-go accepts only a field selection (not an index) as has()'s argument.
  const selects = arg.op === '.' || arg.op === '.?';
  const [operand, field] = (selects ? arg.args : [undefined, undefined]) as [Node | undefined, Node | string | undefined];
  const fieldName = typeof field === 'string' ? field : field?.op === 'value' ? (field.args as unknown) : undefined;
  return {
    args: [arg],
    typeCheck(chk: { check(n: unknown, c: unknown): unknown; getType(n: string): unknown; createError(c: string, m: string, n: unknown): Error }, _m: unknown, ctx: unknown) {
      if (operand === undefined || fieldName === undefined) throw chk.createError('invalid_macro_argument', 'invalid argument to has() macro', arg);
      const t = chk.check(operand, ctx) as { kind?: string; name?: string };
      if (t.kind === 'primitive' || t.kind === 'list') throw chk.createError('no_such_field', `type '${t.name ?? t.kind}' does not support field selection`, arg);
      return chk.getType('bool');
    },
    evaluate(ev: Evaluator, _m: unknown, ctx: unknown) {
      return hasField(ev, ev.run(operand, ctx), fieldName, arg);
    },
  };
}

/** Applies the parse-time patches; call before type-checking. */
export function patchParsed(root: EngineNode): void {
  const nodes = allNodes(root);
  const insideLiteral = new Set<EngineNode>();
  for (const node of nodes) {
    if (node.op === 'list') for (const x of node.args as EngineNode[]) insideLiteral.add(x);
    if (node.op === 'map') for (const e of node.args as EngineNode[][]) for (const x of e) insideLiteral.add(x);
  }
  for (const node of nodes) {
    if ((node.op === 'list' || node.op === 'map') && Array.isArray(node.args) && node.args.length === 0) {
      // An empty literal is a fresh value each time (the engine's shares one). Standing alone it is
      // list(dyn)/map(dyn, dyn) (an unbound element type would not resolve against the operators);
      // inside another literal its element type stays open so that [[1], []] is homogeneous.
      if (!insideLiteral.has(node)) {
        const typeName = node.op === 'list' ? 'list<dyn>' : 'map<dyn, dyn>';
        node.setMeta('check', (chk: { getType(n: string): unknown }) => chk.getType(typeName));
      }
      node.setMeta('evaluate', node.op === 'list' ? () => [] : () => ({}));
      continue;
    }
    if (node.op === 'rcall' && (node.args as [string])[0] === 'format') {
      // cel-go exempts the literal arguments of the strings extension's format from the
      // homogeneous-literal rule.
      for (const arg of (node.args as [string, Node, Node[]])[2]) relaxNested(arg);
    }
    if (ACCESS_OPS.has(node.op)) bindFreeOperandType(node);
    if (node.op !== 'call' || !Array.isArray(node.args)) continue;
    const [name, args] = node.args as [unknown, unknown];
    if (name === 'has' && node.meta.macro !== undefined && Array.isArray(args) && args.length === 1) {
      node.setMeta('macro', hasMacro(args[0] as Node));
    }
    if ((name === '__optList__' || name === '__optMap__') && Array.isArray(args) && (args[0] as Node | undefined)?.op === 'list') {
      // The rewritten optional literal's entries mix optional and plain values; the homogeneity of
      // the literal they stand for is not checked here.
      relaxHomogeneity(args[0] as Node);
      if (name === '__optMap__') for (const pair of (args[0] as Node).args as Node[]) if (pair.op === 'list') relaxHomogeneity(pair);
    }
  }
}

const ACCESS_OPS: ReadonlySet<string> = new Set(['.', '.?', '[]', '[?]']);

interface CheckedType {
  readonly hasPlaceholderType: boolean;
  templated(registry: unknown, binding: { get(name: string): unknown }): CheckedType;
}
interface Checker {
  check(n: unknown, c: unknown): CheckedType;
  readonly registry: unknown;
  readonly dynType: unknown;
}

/**
 * Field and index access on an operand whose type still has a free type parameter (the T of
 * `optional.none()`, an empty literal's element): cel-go's checker binds free parameters to dyn,
 * so `optional.none().?a` is an optional(dyn); the engine would try to index the parameter itself.
 */
function bindFreeOperandType(node: Node): void {
  const check = (node.meta as unknown as { check: (chk: Checker, ast: Node, ctx: unknown) => unknown }).check;
  node.setMeta('check', (chk: Checker, ast: Node, ctx: unknown) => {
    const operand = (ast.args as [Node & { checkedType?: CheckedType }])[0];
    const t = chk.check(operand, ctx);
    if (t.hasPlaceholderType) operand.checkedType = t.templated(chk.registry, { get: () => chk.dynType });
    return check(chk, ast, ctx);
  });
}

/** Exempts a literal and the literals nested in it from the homogeneity rule. */
function relaxNested(node: Node): void {
  if (node.op === 'list') {
    relaxHomogeneity(node);
    for (const x of node.args as Node[]) relaxNested(x);
  } else if (node.op === 'map') {
    relaxMapHomogeneity(node);
    for (const e of node.args as Node[][]) for (const x of e) relaxNested(x);
  }
}

/** Type-checks a map literal's entries without requiring one key and one value type: map(dyn, dyn). */
function relaxMapHomogeneity(map: Node): void {
  if ((map.args as unknown[]).length === 0) return;
  map.setMeta('check', (chk: { check(n: unknown, c: unknown): unknown; getType(n: string): unknown }, ast: Node, ctx: unknown) => {
    for (const e of ast.args as Node[][]) for (const x of e) chk.check(x, ctx);
    return chk.getType('map<dyn, dyn>');
  });
}

/** Type-checks a list literal's elements without requiring one element type: list(dyn). */
function relaxHomogeneity(list: Node): void {
  list.setMeta('check', (chk: { check(n: unknown, c: unknown): unknown; getType(n: string): unknown }, ast: Node, ctx: unknown) => {
    for (const x of ast.args as Node[]) chk.check(x, ctx);
    return chk.getType('list<dyn>');
  });
}

function checkInt(v: unknown): unknown {
  if (typeof v === 'bigint' && (v < INT64_MIN || v > INT64_MAX)) fail('integer overflow');
  return v;
}

function checkTemporal(v: unknown): unknown {
  if (v instanceof Date) {
    const t = v.getTime();
    if (!(t >= MIN_TIMESTAMP_MS && t <= MAX_TIMESTAMP_MS)) fail('timestamp out of range');
  } else if (v instanceof Duration) {
    const s = v.seconds < 0n ? -v.seconds : v.seconds;
    if (s > MAX_DURATION_SECONDS) fail('duration out of range');
  }
  return v;
}

const timeZones = new Map<string, boolean>();

/** Whether an IANA time-zone name is known (Go's time.LoadLocation succeeds). */
function knownTimeZone(zone: string): boolean {
  let known = timeZones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    if (timeZones.size < 1000) timeZones.set(zone, known);
  }
  return known;
}

const ORDER_HOLDS: Readonly<Record<string, (c: number) => boolean>> = {
  '<': (c) => c < 0, '<=': (c) => c <= 0, '>': (c) => c > 0, '>=': (c) => c >= 0,
};

const durationNanos = (d: Duration): bigint => d.seconds * 1_000_000_000n + BigInt(d.nanos);

/**
 * Timestamp and duration `+`/`-` at nanosecond precision (the engine's work in milliseconds);
 * durations are Go's int64 nanoseconds, so their sums overflow as integers do. Undefined for
 * operands that are not temporal.
 */
function temporalArithmetic(l: unknown, r: unknown, sign: 1n | -1n): unknown {
  if (r instanceof Duration) {
    if (l instanceof Date) return addDuration(l, r, sign);
    if (l instanceof Duration) return durationFromNanos(checkIntOverflow(durationNanos(l) + sign * durationNanos(r)));
  } else if (r instanceof Date) {
    if (l instanceof Duration && sign === 1n) return addDuration(r, l);
    if (l instanceof Date && sign === -1n) return timestampDifference(l, r);
  }
  return undefined;
}

function checkIntOverflow(v: bigint): bigint {
  return v < INT64_MIN || v > INT64_MAX ? fail('integer overflow') : v;
}

const isNumber = (v: unknown): boolean => typeof v === 'bigint' || typeof v === 'number' || v instanceof UnsignedInt;

/** The key of a map equal to a number under CEL's cross-type numeric equality (1 == 1u == 1.0). */
function numericKey(m: Map<unknown, unknown>, k: unknown): unknown {
  for (const key of m.keys()) if (isNumber(key) && celEquals(key, k)) return key;
  return undefined;
}

function literalMapEvaluate(ev: Evaluator, node: EngineNode, ctx: unknown): unknown {
  const entries = node.args as Array<[Node, Node]>;
  const keys: unknown[] = [];
  const values: unknown[] = [];
  for (const [kn, vn] of entries) {
    keys.push(ev.run(kn, ctx));
    values.push(ev.run(vn, ctx));
  }
  return buildLiteralMap(keys, values);
}

/**
 * A CEL map from literal entries, as cel-go v0.22 builds it: any key type, and a repeated key keeps
 * its last value. String-keyed maps stay plain objects as the engine builds them.
 */
export function buildLiteralMap(keys: readonly unknown[], values: readonly unknown[]): unknown {
  if (keys.every((k) => typeof k === 'string')) {
    const obj: Record<string, unknown> = {};
    keys.forEach((k, i) => {
      Object.defineProperty(obj, k as string, { value: values[i], enumerable: true, writable: true, configurable: true });
    });
    return obj;
  }
  const out = new Map<unknown, unknown>();
  keys.forEach((k, i) => {
    let key = k;
    for (const existing of out.keys()) if (celEquals(existing, k)) key = existing;
    out.set(key, values[i]);
  });
  return out;
}

/** ext/strings indexOf and lastIndexOf with an offset, counted in code points. */
function indexOfOffset(s: string, sub: string, offset: bigint, last: boolean): bigint {
  if (sub === '') return offset;
  const runes = [...s];
  const subs = [...sub];
  if (offset < 0n) fail(`index out of range: ${offset}`);
  if (offset >= BigInt(runes.length)) return -1n;
  const matchAt = (i: number) => subs.every((c, j) => runes[i + j] === c);
  if (!last) {
    for (let i = Number(offset); i < runes.length - (subs.length - 1); i++) if (matchAt(i)) return BigInt(i);
    return -1n;
  }
  for (let i = Math.min(Number(offset), runes.length - subs.length); i >= 0; i--) if (matchAt(i)) return BigInt(i);
  return -1n;
}

/** Go's strings.SplitN(s, "", n): one piece per code point, the last n-th piece keeping the rest. */
function explode(s: string, n: bigint | undefined): string[] {
  const runes = [...s];
  if (n === 0n) return [];
  if (n === undefined || n < 0n || n >= BigInt(runes.length)) return runes;
  const k = Number(n);
  return [...runes.slice(0, k - 1), runes.slice(k - 1).join('')];
}

/** ext/strings substring, in code points, with cel-go's errors. */
function substring(s: string, start: bigint, end: bigint | undefined): string {
  const runes = [...s];
  const length = BigInt(runes.length);
  const stop = end ?? length;
  // cel-go's order of checks: an inverted range is reported before indexes out of range.
  if (end !== undefined && start === stop) return '';
  if (end !== undefined && start > stop) fail(`invalid substring range. start: ${start}, end: ${stop}`);
  if (start < 0n || start > length) fail(`index out of range: ${start}`);
  if (stop < 0n || stop > length) fail(`index out of range: ${stop}`);
  return runes.slice(Number(start), Number(stop)).join('');
}

const STRING_SEARCH: Readonly<Record<string, (s: string, sub: string, offset: bigint | undefined) => bigint>> = {
  indexOf: (s, sub, offset) => indexOfOffset(s, sub, offset ?? 0n, false),
  lastIndexOf: (s, sub, offset) => {
    if (offset !== undefined) return indexOfOffset(s, sub, offset, true);
    const length = BigInt([...s].length);
    if (sub === '') return length;
    return indexOfOffset(s, sub, length - 1n, true);
  },
};

const ASCII_UPPER = /[A-Z]/g;
const ASCII_LOWER = /[a-z]/g;
// Go's unicode.IsSpace: ASCII whitespace, U+0085, U+00A0 and the Unicode White_Space characters.
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');
const STRING_OVERRIDES: Readonly<Record<string, (s: string) => string>> = {
  lowerAscii: (s) => s.replace(ASCII_UPPER, (c) => c.toLowerCase()),
  upperAscii: (s) => s.replace(ASCII_LOWER, (c) => c.toUpperCase()),
  trim: (s) => s.replace(TRIM, ''),
};

const STRING_CONVERSIONS: Readonly<Record<string, (s: string) => unknown>> = {
  int: goParseInt,
  uint: goParseUint,
  double: goParseFloat,
  timestamp: goParseTimestamp,
  duration: goParseDuration,
};

const REGEX_METHODS: ReadonlySet<string> = new Set(['matches', 'find', 'findAll']);

const OFFSET_ZONE = /^([+-])?(\d{2}):(\d{2})$/;
const TIME_GETTERS: Readonly<Record<string, (d: Date) => number>> = {
  getFullYear: (d) => d.getUTCFullYear(),
  getMonth: (d) => d.getUTCMonth(),
  getDate: (d) => d.getUTCDate(),
  getDayOfMonth: (d) => d.getUTCDate() - 1,
  getDayOfWeek: (d) => d.getUTCDay(),
  getDayOfYear: (d) => Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000),
  getHours: (d) => d.getUTCHours(),
  getMinutes: (d) => d.getUTCMinutes(),
  getSeconds: (d) => d.getUTCSeconds(),
  getMilliseconds: (d) => d.getUTCMilliseconds(),
};

function wrapHandle(node: Node, wrap: (inner: Handle) => Handle): void {
  const inner = node.handle as Handle | undefined;
  if (typeof inner === 'function') node.handle = wrap(inner) as Node['handle'];
}

/** A literal pattern compiled now; an RE2-invalid one is the compile error kube-apiserver gives. */
function literalPattern(name: string, node: Node | undefined): CompiledRegex | undefined {
  // dyn('...') of a literal is folded to the literal when cel-go builds the program.
  const inner = node?.op === 'call' && (node.args as [string, Node[]])[0] === 'dyn' ? (node.args as [string, Node[]])[1][0] : undefined;
  const patternNode = inner?.op === 'value' ? inner : node;
  if (patternNode?.op !== 'value' || typeof patternNode.args !== 'string') return undefined;
  // cel-go's regex-literal validator sees a literal argument only; a dyn-wrapped one fails when folded.
  const message = literalPatternError(inner === undefined ? name : 'folded', patternNode.args);
  if (message !== undefined) throw new CelTypeError({ code: 'invalid_argument', message, node: patternNode as never });
  return compileRegex(patternNode.args);
}

/**
 * `s.matches(re)`, `s.find(re)`, `s.findAll(re[, n])`: the engine's `matches` evaluates with a
 * backtracking JavaScript RegExp and its registry refuses a second `string.matches(string)`, so the
 * call node's handler is replaced here; find/findAll (registered with RE2 already) only gain the
 * literal pattern's precompiled program. Operands of other types still reach the engine's dispatch.
 */
function patchRegexMethod(node: Node, name: string): void {
  const [, , argNodes] = node.args as [string, Node, Node[]];
  if (name === 'matches' && argNodes.length !== 1) return;
  const literal = literalPattern(name, argNodes[0]);
  if (name !== 'matches' && literal === undefined) return;
  wrapHandle(node, (inner) => (a, ...rest) => {
    const [s, re, n] = a as unknown[];
    if (typeof s !== 'string' || typeof re !== 'string') return inner(a, ...rest);
    const pattern = literal ?? re;
    if (name === 'matches') return regexMatches(s, pattern);
    if (name === 'find') return regexFind(s, pattern);
    return n === undefined || typeof n === 'bigint' ? regexFindAll(s, pattern, n ?? -1n) : inner(a, ...rest);
  });
}

/** The global `matches(s, re)` (registered with RE2) gains a literal pattern's precompiled program. */
function patchGlobalMatches(node: Node): void {
  const [, argNodes] = node.args as [string, Node[]];
  // cel-go's regex-literal validator reads a call's first argument as the pattern, which in the
  // global form is the string matched: a literal there must be a valid regex, and the real
  // pattern fails only when the call is folded.
  const [first] = argNodes;
  if (first?.op === 'value' && typeof first.args === 'string' && literalPatternError('matches', first.args) !== undefined) {
    throw new CelTypeError({ code: 'invalid_argument', message: 'invalid matches argument', node: first as never });
  }
  const literal = argNodes.length === 2 ? literalPattern('folded', argNodes[1]) : undefined;
  if (literal === undefined) return;
  wrapHandle(node, (inner) => (a, ...rest) => {
    const [s] = a as unknown[];
    return typeof s === 'string' ? regexMatches(s, literal) : inner(a, ...rest);
  });
}

/** Applies the evaluation patches; call after type-checking (handlers are chosen by the checker). */
/** Evaluates argument or element nodes first to last, as cel-go does (the engine goes last to first). */
function leftToRight(ev: Evaluator, nodes: readonly unknown[], ctx: unknown): unknown[] {
  const out = new Array<unknown>(nodes.length);
  for (let i = 0; i < nodes.length; i++) out[i] = ev.run(nodes[i], ctx);
  return out;
}

const IN_ORDER: Readonly<Record<string, (ev: Evaluator, node: EngineNode, ctx: unknown) => unknown>> = {
  call: (ev, node, ctx) => (node.handle as Handle)(leftToRight(ev, (node.args as [string, unknown[]])[1], ctx), node, ev),
  rcall: (ev, node, ctx) => (node.handle as Handle)(leftToRight(ev, (node as unknown as { receiverWithArgs: unknown[] }).receiverWithArgs, ctx), ev, node),
  list: (ev, node, ctx) => leftToRight(ev, node.args as unknown[], ctx),
};

/**
 * cel-go evaluates a call's arguments and a list's elements in order, so the first failing one
 * decides the error and a cost budget is crossed at the same step; the engine's own evaluation
 * (still in place for macros and specialised nodes) goes last to first.
 */
function evaluateInOrder(node: Node): void {
  const inOrder = IN_ORDER[node.op];
  const meta = node.meta as EngineNode['meta'] & { async?: boolean };
  if (inOrder === undefined || meta.macro !== undefined || meta.alternate !== undefined || meta.evaluate.name !== 'evaluate' || meta.async === true) return;
  node.setMeta('evaluate', inOrder);
}

export function patchChecked(root: EngineNode): void {
  for (const node of allNodes(root)) {
    const op = node.op;
    evaluateInOrder(node);
    if (op === 'map' && Array.isArray(node.args) && node.args.length > 0) {
      node.setMeta('evaluate', literalMapEvaluate);
    } else if (op === '==' || op === '!=') {
      const negate = op === '!=';
      wrapHandle(node, (inner) => (l, r, ...rest) => {
        if (Array.isArray(l) && Array.isArray(r)) return (hasListTypeSemantics(l) ? listTypeEquals(l, r) : celEquals(l, r)) !== negate;
        if (isMapValue(l) && isMapValue(r)) return celEquals(l, r) !== negate;
        // Values of different runtime types (only reachable through dyn: the checker rejects them
        // otherwise) compare by CEL's heterogeneous equality: numbers by value, anything else unequal.
        if (isNumber(l) && isNumber(r)) return celEquals(l, r) !== negate;
        if (l instanceof Date && r instanceof Date) return (compareTimestamps(l, r) === 0) !== negate;
        try {
          return inner(l, r, ...rest);
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'no_such_overload') throw error;
          return celEquals(l, r) !== negate;
        }
      });
    } else if (op === 'in') {
      wrapHandle(node, (inner) => (l, r, ...rest) => {
        const found = inner(l, r, ...rest);
        if (found !== false || !isNumber(l)) return found;
        if (Array.isArray(r)) return r.some((x) => celEquals(x, l));
        return r instanceof Map && numericKey(r, l) !== undefined;
      });
    } else if (op === '[]' || op === '[?]') {
      wrapHandle(node, (inner) => (l, r, ...rest) => {
        if (Array.isArray(l) && r instanceof UnsignedInt) return inner(l, r.value, ...rest);
        if (Array.isArray(l) && typeof r === 'number' && !Number.isInteger(r)) fail(`unsupported index value ${r} in list`);
        if (l instanceof Map && isNumber(r) && !l.has(r)) return inner(l, numericKey(l, r) ?? r, ...rest);
        return inner(l, r, ...rest);
      });
    } else if (op === '+') {
      wrapHandle(node, (inner) => (l, r, ...rest) => {
        const temporal = temporalArithmetic(l, r, 1n);
        if (temporal !== undefined) return checkTemporal(temporal);
        const merged = Array.isArray(r) ? listTypeConcat(l, r) : undefined;
        return merged ?? checkTemporal(checkInt(inner(l, r, ...rest)));
      });
    } else if (op === '<' || op === '<=' || op === '>' || op === '>=') {
      const holds = ORDER_HOLDS[op] as (c: number) => boolean;
      // CEL compares an int or uint with a double as doubles (cel-go compareIntDouble).
      wrapHandle(node, (inner) => (l, r, ...rest) => {
        if (Number.isNaN(l) || Number.isNaN(r)) fail('NaN values cannot be ordered');
        if (l instanceof Date && r instanceof Date) return holds(compareTimestamps(l, r));
        if (typeof r === 'number' && typeof l !== 'number' && isNumber(l)) return inner(Number(l instanceof UnsignedInt ? l.value : l), r, ...rest);
        if (typeof l === 'number' && typeof r !== 'number' && isNumber(r)) return inner(l, Number(r instanceof UnsignedInt ? r.value : r), ...rest);
        return inner(l, r, ...rest);
      });
    } else if (op === '-') {
      wrapHandle(node, (inner) => (l, r, ...rest) => {
        const temporal = temporalArithmetic(l, r, -1n);
        const v = checkTemporal(temporal ?? checkInt(inner(l, r, ...rest)));
        // A timestamp difference is a Go time.Duration in cel-go: int64 nanoseconds.
        if (l instanceof Date && v instanceof Duration && (v.seconds > MAX_TIME_DIFF_SECONDS || v.seconds < -MAX_TIME_DIFF_SECONDS)) fail('integer overflow');
        return v;
      });
    } else if (op === '%') {
      // Go's MinInt64 % -1 overflows in cel-go's modulus (the quotient does not fit).
      wrapHandle(node, (inner) => (l, r, ...rest) => (l === INT64_MIN && r === -1n ? fail('integer overflow') : inner(l, r, ...rest)));
    } else if (op === '*' || op === '/' || op === '-_') {
      wrapHandle(node, (inner) => (...a) => checkTemporal(checkInt(inner(...a))));
    } else if (op === 'call') {
      const [name] = node.args as [string];
      const fromString = STRING_CONVERSIONS[name];
      if (fromString !== undefined) {
        // Go's strconv/time parsing, which the engine's conversions do not follow.
        wrapHandle(node, (inner) => (a, ...rest) => {
          const [v] = a as unknown[];
          if (typeof v === 'string') return checkTemporal(fromString(v));
          if (name === 'uint' && typeof v === 'number') return uintFromDouble(v);
          return inner(a, ...rest);
        });
      }
      if (name === 'int') {
        wrapHandle(node, (inner) => (a, ...rest) => {
          const d = (a as unknown[])[0];
          if (typeof d === 'number' && !(d > -TWO_63 && d < TWO_63)) fail('integer overflow');
          return inner(a, ...rest);
        });
      } else if (name === 'string') {
        wrapHandle(node, (inner) => (a, ...rest) => {
          const b = (a as unknown[])[0];
          if (b instanceof Uint8Array) return UTF8.decode(b);
          if (typeof b === 'number') return goFormatG(b);
          return inner(a, ...rest);
        });
      } else if (name === 'duration' || name === 'timestamp') {
        wrapHandle(node, (inner) => (...a) => checkTemporal(inner(...a)));
      } else if (name === 'matches') {
        patchGlobalMatches(node);
      }
    } else if (op === 'rcall') {
      const [name] = node.args as [string];
      const override = STRING_OVERRIDES[name];
      const getter = TIME_GETTERS[name];
      const search = STRING_SEARCH[name];
      const receiver = (node.args as [string, Node])[1];
      const setFunction = receiver.op === 'id' && receiver.args === 'sets' ? SET_FUNCTIONS[name] : undefined;
      if (setFunction !== undefined) {
        // With a dyn argument the engine matches element types at runtime (list<int> against
        // list<string> fails); cel-go only needs two lists.
        wrapHandle(node, (inner) => (a, ...rest) => {
          const [, l, r] = a as unknown[];
          return Array.isArray(l) && Array.isArray(r) ? setFunction(l, r) : inner(a, ...rest);
        });
      } else if (name === 'split') {
        wrapHandle(node, (inner) => (a, ...rest) => {
          const [s, sep, n] = a as unknown[];
          return typeof s === 'string' && sep === '' && (n === undefined || typeof n === 'bigint') ? explode(s, n) : inner(a, ...rest);
        });
      } else if (name === 'substring') {
        wrapHandle(node, (inner) => (a, ...rest) => {
          const [s, start, end] = a as unknown[];
          if (typeof s !== 'string' || typeof start !== 'bigint' || (end !== undefined && typeof end !== 'bigint')) return inner(a, ...rest);
          return substring(s, start, end as bigint | undefined);
        });
      } else if (search !== undefined) {
        wrapHandle(node, (inner) => (a, ...rest) => {
          const [s, sub, offset] = a as unknown[];
          if (typeof s !== 'string' || typeof sub !== 'string' || (offset !== undefined && typeof offset !== 'bigint')) return inner(a, ...rest);
          return search(s, sub, offset as bigint | undefined);
        });
      } else if (REGEX_METHODS.has(name)) {
        patchRegexMethod(node, name);
      } else if (override !== undefined) {
        wrapHandle(node, (inner) => (a, ...rest) => {
          const [s, ...args] = a as unknown[];
          return typeof s === 'string' && args.length === 0 ? override(s) : inner(a, ...rest);
        });
      } else if (getter !== undefined) {
        wrapHandle(node, (inner) => (a, ...rest) => {
          const [t, zone] = a as unknown[];
          const m = typeof zone === 'string' ? OFFSET_ZONE.exec(zone) : null;
          if (typeof zone === 'string' && m === null && !knownTimeZone(zone)) fail(`unknown time zone ${zone}`);
          if (!(t instanceof Date) || m === null) return inner(a, ...rest);
          const offsetMs = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000;
          return BigInt(getter(new Date(t.getTime() + offsetMs)));
        });
      }
    }
  }
}
