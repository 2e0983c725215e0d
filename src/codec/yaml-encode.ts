/**
 * Writes a JSON value as YAML byte-for-byte the way kube-apiserver does (sigs.k8s.io/yaml over
 * go-yaml v2): keys in yaml.v2 order, strings quoted only when they would read back as another
 * type or cannot be plain, 2-space indentation, sequences under a key not indented, empty
 * collections as `{}`/`[]`, long lines folded past column 80.
 */
import { analyzeScalar, canUsePlain, compareKeys, formatNumber, isBreak, isPrintable } from './yaml-scalar.ts';

const BEST_INDENT = 2;
const BEST_WIDTH = 80;

type Style = 'plain' | 'single' | 'double' | 'literal';

class Emitter {
  private readonly out: string[] = [];
  column = 0;
  whitespace = true;
  indention = true;

  text(): string {
    return this.out.join('');
  }

  put(s: string): void {
    this.out.push(s);
    this.column += 1;
  }

  /** Writes one character that counts as one column (a code point). */
  write(ch: string): void {
    this.out.push(ch);
    this.column += 1;
  }

  putBreak(): void {
    this.out.push('\n');
    this.column = 0;
    this.indention = true;
  }

  writeIndent(indent: number): void {
    const target = Math.max(indent, 0);
    if (!this.indention || this.column > target || (this.column === target && !this.whitespace)) this.putBreak();
    if (this.column < target) {
      this.out.push(' '.repeat(target - this.column));
      this.column = target;
    }
    this.whitespace = true;
    this.indention = true;
  }

  writeIndicator(indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.out.push(indicator);
    this.column += indicator.length;
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }
}

/** Encodes a JSON-compatible value as kube-apiserver's YAML (ends with a newline). */
export function encodeYaml(value: unknown): string {
  const e = new Emitter();
  emitNode(e, value, -1, { mappingValue: false, simpleKey: false });
  e.putBreak();
  return e.text();
}

interface NodeContext {
  readonly mappingValue: boolean;
  readonly simpleKey: boolean;
}

function isEmptyCollection(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  return v !== null && typeof v === 'object' && Object.keys(v).length === 0;
}

function emitNode(e: Emitter, value: unknown, indent: number, ctx: NodeContext): void {
  if (value === null || value === undefined) return emitScalar(e, 'null', 'plain', indent, ctx);
  if (typeof value === 'boolean') return emitScalar(e, value ? 'true' : 'false', 'plain', indent, ctx);
  if (typeof value === 'number') return emitScalar(e, formatNumber(value), 'plain', indent, ctx);
  if (typeof value === 'bigint') return emitScalar(e, value.toString(), 'plain', indent, ctx);
  if (typeof value === 'string') {
    const requested: Style = value.includes('\n') ? 'literal' : canUsePlain(value) ? 'plain' : 'double';
    return emitScalar(e, value, requested, indent, ctx);
  }
  if (isEmptyCollection(value)) {
    e.writeIndicator(Array.isArray(value) ? '[' : '{', true, true, false);
    e.writeIndicator(Array.isArray(value) ? ']' : '}', false, false, false);
    return;
  }
  if (Array.isArray(value)) {
    // A sequence that is a mapping value on the key's line stays at the key's indentation.
    const indentless = ctx.mappingValue && !e.indention;
    const seqIndent = indent < 0 ? 0 : indentless ? indent : indent + BEST_INDENT;
    for (const item of value) {
      e.writeIndent(seqIndent);
      e.writeIndicator('-', true, false, true);
      emitNode(e, item, seqIndent, { mappingValue: false, simpleKey: false });
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  const mapIndent = indent < 0 ? 0 : indent + BEST_INDENT;
  const keys = Object.keys(obj).sort(compareKeys);
  for (const key of keys) {
    e.writeIndent(mapIndent);
    const simple = Buffer.byteLength(key) <= 128 && !analyzeScalar(key).multiline;
    if (simple) {
      emitNode(e, key, mapIndent, { mappingValue: false, simpleKey: true });
      e.writeIndicator(':', false, false, false);
    } else {
      e.writeIndicator('?', true, false, true);
      emitNode(e, key, mapIndent, { mappingValue: false, simpleKey: false });
      e.writeIndent(mapIndent);
      e.writeIndicator(':', true, false, true);
    }
    emitNode(e, obj[key], mapIndent, { mappingValue: true, simpleKey: false });
  }
}

function selectStyle(value: string, requested: Style, simpleKey: boolean): Style {
  const a = analyzeScalar(value);
  let style = requested;
  if (style === 'plain') {
    if (!a.blockPlainAllowed) style = 'single';
    if (value.length === 0 && simpleKey) style = 'single';
  }
  if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';
  return style;
}

function emitScalar(e: Emitter, value: string, requested: Style, parentIndent: number, ctx: NodeContext): void {
  const style = requested === 'plain' && /^[a-zA-Z0-9/._-]+$/.test(value) && !/^[-.]/.test(value) ? 'plain' : selectStyle(value, requested, ctx.simpleKey);
  // Scalars are written one indentation step in from their parent (libyaml's increase_indent(flow)).
  const indent = parentIndent < 0 ? BEST_INDENT : parentIndent + BEST_INDENT;
  const allowBreaks = !ctx.simpleKey;
  switch (style) {
    case 'plain':
      return writePlain(e, value, indent, allowBreaks);
    case 'single':
      return writeSingleQuoted(e, value, indent, allowBreaks);
    case 'double':
      return writeDoubleQuoted(e, value, indent, allowBreaks);
    case 'literal':
      return writeLiteral(e, value, indent);
  }
}

function writePlain(e: Emitter, value: string, indent: number, allowBreaks: boolean): void {
  if (!e.whitespace) e.put(' ');
  const chars = Array.from(value);
  let spaces = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === ' ') {
      if (allowBreaks && !spaces && e.column > BEST_WIDTH && chars[i + 1] !== ' ') e.writeIndent(indent);
      else e.write(ch);
      spaces = true;
    } else {
      e.write(ch);
      e.indention = false;
      spaces = false;
    }
  }
  e.whitespace = false;
  e.indention = false;
}

function writeSingleQuoted(e: Emitter, value: string, indent: number, allowBreaks: boolean): void {
  e.writeIndicator("'", true, false, false);
  const chars = Array.from(value);
  let spaces = false;
  let breaks = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === ' ') {
      if (allowBreaks && !spaces && e.column > BEST_WIDTH && i > 0 && i < chars.length - 1 && chars[i + 1] !== ' ') e.writeIndent(indent);
      else e.write(ch);
      spaces = true;
    } else if (isBreak(ch.codePointAt(0)!)) {
      if (!breaks && ch === '\n') e.putBreak();
      // Like go-yaml's write_break: a line feed becomes a line break; any other break character
      // would be copied as itself (analyzeScalar keeps those out of single quotes altogether).
      if (ch === '\n') e.putBreak();
      else e.write(ch);
      breaks = true;
    } else {
      if (breaks) e.writeIndent(indent);
      if (ch === "'") e.put("'");
      e.write(ch);
      e.indention = false;
      spaces = false;
      breaks = false;
    }
  }
  e.writeIndicator("'", false, false, false);
  e.whitespace = false;
  e.indention = false;
}

const ESCAPES: Record<number, string> = {
  0x00: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0b: 'v', 0x0c: 'f', 0x0d: 'r',
  0x1b: 'e', 0x22: '"', 0x5c: '\\', 0x85: 'N', 0xa0: '_', 0x2028: 'L', 0x2029: 'P',
};

function writeDoubleQuoted(e: Emitter, value: string, indent: number, allowBreaks: boolean): void {
  e.writeIndicator('"', true, false, false);
  const chars = Array.from(value);
  let spaces = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const cp = ch.codePointAt(0)!;
    if (!isPrintable(cp) || cp === 0xfeff || isBreak(cp) || cp === 0x22 || cp === 0x5c) {
      e.put('\\');
      const named = ESCAPES[cp];
      if (named !== undefined) e.put(named);
      else {
        const [letter, width] = cp <= 0xff ? ['x', 2] : cp <= 0xffff ? ['u', 4] : ['U', 8];
        e.put(letter);
        for (const d of cp.toString(16).toUpperCase().padStart(width, '0')) e.put(d);
      }
      spaces = false;
    } else if (ch === ' ') {
      if (allowBreaks && !spaces && e.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
        e.writeIndent(indent);
        if (chars[i + 1] === ' ') e.put('\\');
      } else e.write(ch);
      spaces = true;
    } else {
      e.write(ch);
      spaces = false;
    }
  }
  e.writeIndicator('"', false, false, false);
  e.whitespace = false;
  e.indention = false;
}

function writeLiteral(e: Emitter, value: string, indent: number): void {
  e.writeIndicator('|', true, false, false);
  const chars = Array.from(value);
  const first = chars[0]!.codePointAt(0)!;
  if (first === 0x20 || isBreak(first)) e.writeIndicator(String(BEST_INDENT), false, false, false);
  const lastIsBreak = isBreak(chars[chars.length - 1]!.codePointAt(0)!);
  let chomp = '';
  if (!lastIsBreak) chomp = '-';
  else if (chars.length === 1 || isBreak(chars[chars.length - 2]!.codePointAt(0)!)) chomp = '+';
  if (chomp) e.writeIndicator(chomp, false, false, false);
  e.putBreak();
  e.indention = true;
  e.whitespace = true;
  let breaks = true;
  for (const ch of chars) {
    if (isBreak(ch.codePointAt(0)!)) {
      e.putBreak();
      breaks = true;
    } else {
      if (breaks) {
        e.writeIndent(indent);
        breaks = false;
      }
      e.write(ch);
      e.indention = false;
    }
  }
}
