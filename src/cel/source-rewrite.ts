// Source-level rewrites for CEL syntax the engine's parser does not accept (backquoted field names
// are left alone: kube 1.32's parser rejects them as a syntax error, and so does the engine), applied before parsing
// and only when an expression uses such syntax (other expressions keep their exact error positions):
//   br'..' raw bytes and non-ASCII text in bytes literals  -> b"\xHH..." escapes of the UTF-8 bytes
//   .5 (a double literal with no integer part)             -> 0.5
//   .x (an identifier in the root scope)                    -> x
//   [a, ?b] optional list elements                          -> __optList__([a, b], [1])
//   {k: v, ?k2: v2} optional map entries                    -> __optMap__([[k, v], [k2, v2]], [1])
//   google.protobuf.Timestamp{seconds: s} and the other      -> __pb_Timestamp__(s, 0)
//     well-known messages kube's environment can construct     (fields in declaration order, defaults for the rest)
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { buildLiteralMap } from './evaluation-patches.ts';
import { makeTimestamp, durationFromNanos } from './timestamps.ts';

interface Token {
  readonly kind: 'ws' | 'string' | 'bytes' | 'quoted' | 'ident' | 'number' | 'punct';
  readonly text: string;
  /** For string/bytes tokens: the body between the quotes, whether it is raw, and the quote used. */
  readonly body?: string;
  readonly raw?: boolean;
  readonly quote?: string;
}

const OPTIONAL_LIST = '__optList__';
const OPTIONAL_MAP = '__optMap__';

function readQuoted(src: string, start: number, raw: boolean): { end: number; body: string; quote: string } | undefined {
  const q = src[start] as string;
  const quote = src.startsWith(q.repeat(3), start) ? q.repeat(3) : q;
  let i = start + quote.length;
  while (i < src.length) {
    if (src.startsWith(quote, i)) return { end: i + quote.length, body: src.slice(start + quote.length, i), quote };
    if (src[i] === '\\' && !raw) i++;
    else if (src[i] === '\\' && raw && src[i + 1] === q) i++;
    i++;
  }
  return undefined;
}

function tokenize(src: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const rest = src.slice(i);
    const prefix = /^([rRbB]{1,2})?(['"])/.exec(rest);
    if (prefix !== null && (prefix[1] === undefined || /^(?:[rR]?[bB]|[bB]?[rR])$/.test(prefix[1]))) {
      const p = prefix[1] ?? '';
      const raw = /[rR]/.test(p);
      const q = readQuoted(src, i + p.length, raw);
      if (q === undefined) return undefined;
      out.push({ kind: /[bB]/.test(p) ? 'bytes' : 'string', text: src.slice(i, q.end), body: q.body, raw, quote: q.quote });
      i = q.end;
      continue;
    }
    const m = /^\s+/.exec(rest) ?? /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest) ?? /^(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)[uU]?/.exec(rest);
    if (m !== null) {
      out.push({ kind: /^\s/.test(m[0]) ? 'ws' : /^\d/.test(m[0]) ? 'number' : 'ident', text: m[0] });
      i += m[0].length;
      continue;
    }
    if (src[i] === '`') {
      const end = src.indexOf('`', i + 1);
      if (end < 0) return undefined;
      out.push({ kind: 'quoted', text: src.slice(i, end + 1), body: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    const punct = /^(?:==|!=|<=|>=|&&|\|\||.)/s.exec(rest) as RegExpExecArray;
    out.push({ kind: 'punct', text: punct[0] });
    i += punct[0].length;
  }
  return out;
}

function hexBytes(bytes: Uint8Array | Buffer): string {
  return [...bytes].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
}

function endsOperand(t: Token | undefined): boolean {
  if (t === undefined) return false;
  if (t.kind === 'punct') return t.text === ')' || t.text === ']' || t.text === '}';
  return t.kind !== 'ws';
}

const OPEN: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

/** Index of the bracket closing the one at `open`, or -1. */
function matching(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind !== 'punct') continue;
    if (OPEN[t.text] !== undefined) depth++;
    else if (t.text === ')' || t.text === ']' || t.text === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Splits a token range at top-level occurrences of `sep` (only the first when `once`). */
function splitTop(tokens: readonly Token[], sep: string, once = false): Token[][] {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === 'punct' && OPEN[t.text] !== undefined) depth++;
    else if (t.kind === 'punct' && (t.text === ')' || t.text === ']' || t.text === '}')) depth--;
    if (depth === 0 && t.kind === 'punct' && t.text === sep && !(once && parts.length > 1)) parts.push([]);
    else (parts[parts.length - 1] as Token[]).push(t);
  }
  return parts;
}

/** Removes a leading `?` (after whitespace) from an element; reports whether it was there. */
function stripOptional(tokens: Token[]): [Token[], boolean] {
  const i = tokens.findIndex((t) => t.kind !== 'ws');
  if (i >= 0 && tokens[i]?.kind === 'punct' && tokens[i]?.text === '?') return [[...tokens.slice(0, i), ...tokens.slice(i + 1)], true];
  return [tokens, false];
}

function lastSignificant(out: readonly Token[]): Token | undefined {
  for (let i = out.length - 1; i >= 0; i--) if (out[i]?.kind !== 'ws') return out[i];
  return undefined;
}

/** The well-known messages an expression may construct, with their fields' defaults in declaration order. */
const MESSAGES: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = {
  Timestamp: [['seconds', '0'], ['nanos', '0']],
  Duration: [['seconds', '0'], ['nanos', '0']],
  Int64Value: [['value', '0']], Int32Value: [['value', '0']], UInt64Value: [['value', '0u']], UInt32Value: [['value', '0u']],
  DoubleValue: [['value', '0.0']], FloatValue: [['value', '0.0']], BoolValue: [['value', 'false']], StringValue: [['value', "''"]], BytesValue: [['value', "b''"]],
  Value: [],
};

/** `google.protobuf.Name{field: v, ...}` starting at token i: the helper call it becomes and the index of its `}`. */
function messageConstruction(tokens: readonly Token[], i: number): { text: string; end: number } | undefined {
  const sig = tokens.slice(i).filter((t) => t.kind !== 'ws');
  const [g, d1, p, d2, name, brace] = sig;
  if (g?.text !== 'google' || d1?.text !== '.' || p?.text !== 'protobuf' || d2?.text !== '.' || name?.kind !== 'ident' || brace?.text !== '{') return undefined;
  const fields = MESSAGES[name.text];
  if (fields === undefined) return undefined;
  const open = tokens.indexOf(brace, i);
  const close = matching(tokens, open);
  if (close < 0) return undefined;
  const inner = tokens.slice(open + 1, close);
  const given = new Map<string, string>();
  if (inner.some((t) => t.kind !== 'ws')) {
    for (const entry of splitTop(inner, ',')) {
      const [field, ...value] = splitTop(entry, ':', true);
      const fieldName = (field ?? []).filter((t) => t.kind !== 'ws').map((t) => t.text).join('');
      if (value.length !== 1 || !fields.some(([f]) => f === fieldName) || given.has(fieldName)) return undefined;
      given.set(fieldName, render(value[0] as Token[]));
    }
  }
  return { text: `__pb_${name.text}__(${fields.map(([f, dflt]) => given.get(f) ?? dflt).join(', ')})`, end: close };
}

function render(tokens: readonly Token[]): string {
  const out: Token[] = [];
  let text = '';
  const emit = (t: Token, s = t.text): void => {
    out.push(t);
    text += s;
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    const prev = lastSignificant(out);
    if (t.kind === 'bytes' && (t.raw === true || /[^\x00-\x7f]/.test(t.body ?? ''))) {
      const body = t.body ?? '';
      const escaped = t.raw === true ? hexBytes(Buffer.from(body, 'utf8')) : body.replace(/[^\x00-\x7f]/gu, (c) => hexBytes(Buffer.from(c, 'utf8')));
      emit(t, t.raw === true ? `b"${escaped}"` : `b${t.quote}${escaped}${t.quote}`);
      continue;
    }
    if (t.kind === 'ident' && t.text === 'google' && !(prev?.kind === 'punct' && prev.text === '.')) {
      const message = messageConstruction(tokens, i);
      if (message !== undefined) {
        emit({ kind: 'punct', text: ')' }, message.text);
        i = message.end;
        continue;
      }
    }
    if (t.kind === 'punct' && t.text === '.' && tokens[i + 1]?.kind === 'ident' && !endsOperand(prev)) {
      // A leading dot names an identifier in the root scope: the same variable here.
      continue;
    }
    if (t.kind === 'punct' && t.text === '.' && tokens[i + 1]?.kind === 'number' && !endsOperand(prev)) {
      emit(t, '0.');
      continue;
    }
    if (t.kind === 'punct' && (t.text === '[' || t.text === '{') && !endsOperand(prev)) {
      const close = matching(tokens, i);
      if (close > i) {
        const inner = tokens.slice(i + 1, close);
        const entries = splitTop(inner, ',').map(stripOptional);
        const optionalAt = entries.flatMap(([, opt], k) => (opt ? [k] : []));
        if (optionalAt.length > 0) {
          const list = `[${optionalAt.join(', ')}]`;
          const parts = entries.map(([e]) => e);
          const body = t.text === '['
            ? parts.map(render).join(',')
            : parts.map((e) => `[${splitTop(e, ':', true).map(render).join(',')}]`).join(',');
          emit({ kind: 'punct', text: ')' }, `${t.text === '[' ? OPTIONAL_LIST : OPTIONAL_MAP}([${body}], ${list})`);
          i = close;
          continue;
        }
      }
    }
    emit(t);
  }
  return text;
}

const TRIGGER = /[`?]|[bB][rR]?['"]|[rR][bB]['"]|(?:^|[^\w\s)\]}])\s*\.\d|google\.protobuf\.\w+\s*\{|(?:^|[^\w\s)\]}])\s*\.[A-Za-z_]/;

/** Rewrites syntax the engine cannot parse into equivalent supported syntax; returns the input when nothing applies. */
export function rewriteSource(expression: string): string {
  if (!TRIGGER.test(expression)) return expression;
  const tokens = tokenize(expression);
  return tokens === undefined ? expression : render(tokens);
}

/**
 * Lexical errors cel-go's grammar reports and the engine's lexer does not: a hex literal's prefix
 * is lowercase `0x` only, so `0X1F` is the number 0 followed by stray input.
 */
export function checkSource(expression: string): void {
  // google.protobuf.Any is not among the types kube's environment declares.
  if (/google\.protobuf\.Any\b/.test(expression) && (tokenize(expression) ?? []).some((t) => t.kind === 'ident' && t.text === 'Any')) {
    throw new Error('program instantiation failed: reference to undefined type: google.protobuf.Any');
  }
  if (!/0X/.test(expression)) return;
  let offset = 0;
  const tokens = (tokenize(expression) ?? []).map((t) => ({ t, at: (offset += t.text.length) - t.text.length })).filter(({ t }) => t.kind !== 'ws');
  tokens.forEach(({ t }, i) => {
    const next = tokens[i + 1];
    if (t.kind === 'number' && t.text === '0' && next?.t.kind === 'ident' && next.t.text.startsWith('X')) {
      // Located like a node, so the error is displayed at the stray input as cel-go does.
      throw Object.assign(new Error(`Syntax error: extraneous input '${next.t.text}' expecting <EOF>`), { node: { pos: next.at } });
    }
  });
}

/** Registers the helper functions rewritten optional list elements, map entries and message constructions call. */
export function registerRewriteHelpers(env: Environment): void {
  const nanos = (s: bigint, n: bigint): bigint => s * 1_000_000_000n + n;
  env.registerFunction('__pb_Timestamp__(int, int): google.protobuf.Timestamp', (s: bigint, n: bigint) => makeTimestamp(nanos(s, n)));
  env.registerFunction('__pb_Duration__(int, int): google.protobuf.Duration', (s: bigint, n: bigint) => durationFromNanos(nanos(s, n)));
  for (const [name, type] of [['Int64Value', 'int'], ['Int32Value', 'int'], ['UInt64Value', 'uint'], ['UInt32Value', 'uint'], ['DoubleValue', 'double'], ['FloatValue', 'double'], ['BoolValue', 'bool'], ['StringValue', 'string'], ['BytesValue', 'bytes']]) {
    env.registerFunction(`__pb_${name}__(${type}): ${type}`, (v: unknown) => v);
  }
  env.registerFunction('__pb_Value__(): dyn', () => null);
  env.registerFunction(`${OPTIONAL_LIST}(list, list): list<dyn>`, (items: unknown[], optional: bigint[]) => {
    const skip = new Set(optional.map(Number));
    const out: unknown[] = [];
    items.forEach((x, k) => {
      if (!skip.has(k)) out.push(x);
      else if (!(x instanceof Optional)) throw new Error('optional list element must be optional');
      else if (x.hasValue()) out.push(x.value());
    });
    return out;
  });
  env.registerFunction(`${OPTIONAL_MAP}(list, list): map<dyn, dyn>`, (entries: unknown[][], optional: bigint[]) => {
    const skip = new Set(optional.map(Number));
    const keys: unknown[] = [];
    const values: unknown[] = [];
    entries.forEach(([k, v], n) => {
      if (!skip.has(n)) {
        keys.push(k);
        values.push(v);
      } else if (!(v instanceof Optional)) throw new Error('optional map entry value must be optional');
      else if (v.hasValue()) {
        keys.push(k);
        values.push(v.value());
      }
    });
    return buildLiteralMap(keys, values);
  });
}
