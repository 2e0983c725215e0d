// Compile errors in cel-go's words. kube-apiserver refuses a CRD rule or an admission expression
// that does not compile with cel-go's display text inside its field error
// (`compilation failed: ERROR: <input>:1:5: found no matching overload for '_%_' applied to
// '(double, double)'` then the source line and a caret line), so the engine's errors are mapped
// here to cel-go's message and to the source position cel-go reports (its parser gives an operator
// call the position of the operator token, a call the position of its `(`, a selection its `.`).
import type { EngineNode } from './engine-ast.ts';
import { celGoTypeName, type CheckedType } from './introspect.ts';
import { canonicalValue } from './canonical.ts';

type Node = EngineNode & { readonly pos?: number; readonly start?: number; readonly end?: number; readonly checkedType?: CheckedType };

/** cel-go's function names for the operators the engine keeps as node ops. */
const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = {
  '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', '==': '_==_', '!=': '_!=_', '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_',
  in: '@in', '-_': '-_', '!_': '!_', '[]': '_[_]', '[?]': '_[?_]', '?:': '_?_:_', '&&': '_&&_', '||': '_||_',
};

/** The token cel-go places a binary operator's call at, as written between its operands. */
const OPERATOR_TOKENS: Readonly<Record<string, string>> = {
  '<': '<', '<=': '<=', '>': '>', '>=': '>=', '==': '==', '!=': '!=', '+': '+', '-': '-', '*': '*', '/': '/', '%': '%',
  in: 'in', '[]': '[', '[?]': '[', '?:': '?', '&&': '&&', '||': '||', '.': '.', '.?': '.',
};

function isNode(x: unknown): x is Node {
  return x !== null && typeof x === 'object' && typeof (x as { op?: unknown }).op === 'string';
}

/** The operands of an operator or call node, receiver first (cel-go's argument order). */
function operands(node: Node): Node[] {
  const args = node.args as unknown;
  if (node.op === 'call') return ((args as unknown[])[1] as unknown[]).filter(isNode);
  if (node.op === 'rcall') return [(args as unknown[])[1], ...((args as unknown[])[2] as unknown[])].filter(isNode);
  if (Array.isArray(args)) return args.filter(isNode);
  return isNode(args) ? [args] : [];
}

/** The name a call node calls (`size`, `matches`), or cel-go's operator function name. */
function functionName(node: Node): string | undefined {
  if (node.op === 'call' || node.op === 'rcall') return String((node.args as unknown[])[0]);
  return OPERATOR_FUNCTIONS[node.op];
}

const TYPE_IDENTIFIERS: ReadonlySet<string> = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn']);

/**
 * An operand's checked type as cel-go formats it in an overload error; a type value names the type
 * it denotes (`type(int)`), which the engine's checked type leaves out.
 */
function operandTypeName(node: Node): string {
  const t = node.checkedType;
  // A literal the engine's checker stopped before reaching.
  if (t === undefined && node.op === 'value') return literalTypeName(node.args);
  if (t?.name === 'type' && t.kind !== 'dyn') {
    if (node.op === 'id' && TYPE_IDENTIFIERS.has(String(node.args))) return `type(${String(node.args) === 'list' ? 'list(dyn)' : String(node.args) === 'map' ? 'map(dyn, dyn)' : String(node.args)})`;
    if (node.op === 'call' && (node.args as unknown[])[0] === 'type') {
      const [inner] = operands(node);
      if (inner !== undefined) return `type(${operandTypeName(inner)})`;
    }
    return 'type';
  }
  return celGoTypeName(t, 'overload');
}

function literalTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Uint8Array) return 'bytes';
  return (v as object).constructor?.name === 'UnsignedInt' ? 'uint' : 'dyn';
}

/** The source offset of `token` at or after `from`, skipping what lies between (closing parentheses, blanks). */
function tokenAfter(source: string, token: string, from: number): number | undefined {
  const at = source.indexOf(token, from);
  return at < 0 ? undefined : at;
}

/** The offset cel-go reports for a node: its operator token, its call's `(`, or where it starts. */
export function celGoOffset(source: string, node: Node): number | undefined {
  const args = node.args as unknown[];
  const left = Array.isArray(args) ? args.find(isNode) : undefined;
  switch (node.op) {
    case 'call': {
      if (typeof node.start !== 'number') return node.pos;
      return tokenAfter(source, '(', node.start + String(args[0]).length) ?? node.pos;
    }
    case 'rcall': {
      const receiver = args[1] as Node;
      if (typeof receiver.end !== 'number') return node.pos;
      const dot = tokenAfter(source, '.', receiver.end);
      return dot === undefined ? node.pos : tokenAfter(source, '(', dot + 1 + String(args[0]).length) ?? node.pos;
    }
    default: {
      const token = OPERATOR_TOKENS[node.op];
      if (token !== undefined && left !== undefined && typeof left.end === 'number') return tokenAfter(source, token, left.end) ?? node.pos;
      return node.pos;
    }
  }
}

/** cel-go's text for an overload the checker finds no match for, or undefined when the node is no call. */
export function noMatchingOverload(node: Node): string | undefined {
  const name = functionName(node);
  if (name === undefined) return undefined;
  const types = operands(node).map(operandTypeName);
  const signature = node.op === 'rcall' ? `${types[0]}.(${types.slice(1).join(', ')})` : `(${types.join(', ')})`;
  return `found no matching overload for '${name}' applied to '${signature}'`;
}

/**
 * cel-go's display of one error (common.Error.ToDisplayString): `ERROR: <input>:line:col: message`,
 * then the source line (tabs as spaces) and a line of dots up to a caret; columns count code
 * points, and a character outside ASCII is marked with a full-width dot or caret.
 */
export function celGoDisplay(source: string, offset: number | undefined, message: string): string {
  if (offset === undefined || offset < 0) return `ERROR: <input>:-1:0: ${message}`;
  const before = source.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.split('\n').length;
  const lineEnd = source.indexOf('\n', lineStart);
  const snippet = source.slice(lineStart, lineEnd < 0 ? source.length : lineEnd);
  const leading = [...source.slice(lineStart, offset)];
  let out = `ERROR: <input>:${line}:${leading.length + 1}: ${message}\n | ${snippet.replaceAll('\t', ' ')}\n | `;
  for (const ch of leading) out += ch.charCodeAt(0) > 0x7f ? '\uff0e' : '.';
  const at = source.codePointAt(offset);
  out += at !== undefined && at > 0x7f && offset < lineStart + snippet.length ? '\uff3e' : '^';
  return out;
}

/** What the compile step knows beyond the error: the parsed program, the environment's declarations. */
export interface CompileErrorContext {
  /** The program's root node, when parsing got that far. */
  readonly root?: EngineNode;
  /**
   * Whether the environment declares a function of this name (any overload, global or member); a
   * namespace's function (`strings.quote`) by its namespace type (`StringsNamespace.quote`).
   */
  readonly functionDeclared?: (name: string) => boolean;
  /** Whether the environment declares a variable or constant of this name. */
  readonly variableDeclared?: (name: string) => boolean;
}

const UNDECLARED = /^undeclared reference to '(.*)' \(in container ''\)$/;

/** Macro names: functions to the engine, no declaration to cel-go when the call is not the macro. */
const MACRO_NAMES: ReadonlySet<string> = new Set(['has', 'all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry', 'bind', 'optMap', 'optFlatMap']);

/**
 * Every undeclared name in the program, as cel-go's checker reports them all (it goes on after
 * the first): identifiers no declaration or comprehension variable binds, and functions no
 * overload of which exists, each at its position. A macro the environment lacks (`transformMap`
 * of kube's new-expressions environment) is a call of an unknown function whose arguments are
 * names as undeclared as any other.
 */
function undeclaredReferences(expression: string, root: EngineNode, context: CompileErrorContext): Array<{ offset: number; message: string }> {
  const out: Array<{ offset: number; message: string }> = [];
  const report = (node: Node, name: string): void => {
    const offset = celGoOffset(expression, node);
    if (offset !== undefined) out.push({ offset, message: `undeclared reference to '${name}' (in container '')` });
  };
  const visit = (x: unknown, bound: ReadonlySet<string>): void => {
    if (Array.isArray(x)) {
      for (const y of x) visit(y, bound);
      return;
    }
    if (!isNode(x)) return;
    const args = x.args as unknown[];
    switch (x.op) {
      case 'id':
        if (!bound.has(String(x.args)) && context.variableDeclared?.(String(x.args)) === false) report(x, String(x.args));
        return;
      case 'value':
        return;
      case 'call': case 'rcall': {
        const name = String(args[0]);
        const callArgs = (x.op === 'call' ? args[1] : args[2]) as unknown[];
        if (x.op === 'rcall') visit(args[1], bound);
        // `cel.bind(...)` is a macro only where `cel` is declared (not in kube's environments).
        const receiver = x.op === 'rcall' && isNode(args[1]) ? args[1] : undefined;
        const undeclaredNamespace = receiver?.op === 'id' && context.variableDeclared?.(String(receiver.args)) === false;
        if ((x.meta.macro !== undefined || x.meta.alternate !== undefined) && !undeclaredNamespace) {
          // A macro binds its variables (the leading identifiers) in the arguments after them.
          const inner = new Set(bound);
          const names = callArgs.filter((a, i) => isNode(a) && a.op === 'id' && i < callArgs.length - 1);
          for (const n of names.slice(0, callArgs.length >= 3 ? 2 : 1)) inner.add(String((n as Node).args));
          visit(callArgs.slice(names.length > 0 ? Math.min(names.length, callArgs.length >= 3 ? 2 : 1) : 0), name === 'has' ? bound : inner);
          return;
        }
        visit(callArgs, bound);
        if (context.functionDeclared?.(declaredName(x, name)) === false || MACRO_NAMES.has(name)) report(x, name);
        return;
      }
      default:
        visit(args, bound);
    }
  };
  visit(root, new Set());
  return out.sort((a, b) => a.offset - b.offset);
}

/** The engine's spelling of a type in its messages (`list<int>`, `google.protobuf.Duration`) in cel-go's. */
function celGoTypeText(engineText: string): string {
  return engineText
    .replace(/\boptional</g, 'optional_type<')
    .replace(/google\.protobuf\.Duration/g, 'duration')
    .replace(/google\.protobuf\.Timestamp/g, 'timestamp')
    .replace(/</g, '(')
    .replace(/>/g, ')');
}

/** A namespace receiver (`sets` in `sets.contains(...)`): cel-go names the function `sets.contains`. */
function namespaceOf(node: Node): string | undefined {
  if (node.op !== 'rcall') return undefined;
  const receiver = (node.args as unknown[])[1];
  if (!isNode(receiver) || receiver.op !== 'id' || !/Namespace$/.test(receiver.checkedType?.name ?? '')) return undefined;
  return String(receiver.args);
}

/** The name a call's function is declared under (see CompileErrorContext.functionDeclared). */
function declaredName(node: Node, name: string): string {
  const receiver = node.op === 'rcall' ? (node.args as unknown[])[1] : undefined;
  const type = isNode(receiver) && receiver.op === 'id' ? receiver.checkedType?.name ?? '' : '';
  return /Namespace$/.test(type) ? `${type}.${name}` : name;
}

/** cel-go's text for a call the checker cannot resolve: an unknown function, or no overload for the operand types. */
function unresolvedCall(node: Node, context: CompileErrorContext): string | undefined {
  const name = functionName(node);
  if (name === undefined) return undefined;
  // cel-go's checker lets null through int() and string() (null converts to their wrapper
  // types); the call fails only when folded.
  const args = operands(node);
  if (node.op === 'call' && (name === 'int' || name === 'string') && args.length === 1 && args[0]?.checkedType?.name === 'null') {
    return `program instantiation failed: no such overload: ${name}(null_type)`;
  }
  const namespace = namespaceOf(node);
  if ((node.op === 'call' || node.op === 'rcall') && context.functionDeclared?.(declaredName(node, name)) === false) {
    return `undeclared reference to '${namespace === undefined ? name : `${namespace}.${name}`}' (in container '')`;
  }
  if (namespace === undefined) return noMatchingOverload(node);
  return `found no matching overload for '${namespace}.${name}' applied to '(${operands(node).slice(1).map(operandTypeName).join(', ')})'`;
}

/** The node `node` is an operand of (as written, macro expansions aside). */
function parentOf(root: EngineNode | undefined, node: Node): Node | undefined {
  if (root === undefined) return undefined;
  const stack: Array<[unknown, Node | undefined]> = [[root, undefined]];
  while (stack.length > 0) {
    const [n, parent] = stack.pop() as [unknown, Node | undefined];
    if (n === node) return parent;
    if (Array.isArray(n)) for (const x of n) stack.push([x, parent]);
    else if (isNode(n)) stack.push([n.args, n]);
  }
  return undefined;
}

/** The `has()` call whose argument `node` is (cel-go places errors inside it at the `(`). */
function hasMacroOf(root: EngineNode | undefined, node: Node): Node | undefined {
  const parent = parentOf(root, node);
  return parent?.op === 'call' && (parent.args as unknown[])[0] === 'has' ? parent : undefined;
}

/** The conversions cel-go's literal validators check when the program is checked, and their errors. */
const LITERAL_VALIDATORS: Readonly<Record<string, string>> = { duration: 'invalid duration argument', timestamp: 'invalid timestamp argument' };

/**
 * cel-go validates `duration('...')` and `timestamp('...')` of a literal after checking (its
 * checker also takes `duration(int)`, which the engine's does not, so that call reaches the
 * validator too; other argument types fail in the checker first): a literal
 * the conversion refuses is reported at the literal, before any folding.
 */
function literalValidatorError(node: Node | undefined, kind: string | undefined): { message: string; at: Node } | undefined {
  if (node?.op !== 'call') return undefined;
  const [name, args] = node.args as [string, unknown[]];
  const message = LITERAL_VALIDATORS[name];
  const [literal] = args;
  // cel-go's parser reads `-1` as one literal, where the engine negates `1`.
  const isLiteral = isNode(literal) && (literal.op === 'value' || (literal.op === '-_' && isNode(literal.args) && literal.args.op === 'value'));
  if (message !== undefined && (kind === undefined || kind === name) && args.length === 1 && isLiteral) return { message, at: literal as Node };
  // A folded conversion of a conversion (`string(timestamp('bad'))`) fails at the inner one.
  for (const arg of args) {
    const inner = isNode(arg) ? literalValidatorError(arg, kind) : undefined;
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** The conversion a folding failure's text names, or undefined when it names none. */
function foldedConversionKind(text: string): string | undefined {
  if (/to 'google\.protobuf\.Timestamp'$|timestamp overflow$|^program instantiation failed: timestamp\(\) /.test(text)) return 'timestamp';
  if (/to 'google\.protobuf\.Duration'$/.test(text)) return 'duration';
  return undefined;
}

/** Engine summaries that name a problem cel-go words differently, and cel-go's words for them. */
const SUMMARY_RULES: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray, node: Node | undefined, context: CompileErrorContext) => string | undefined]> = [
  [/^no such overload: /, (_m, node, context) => (node === undefined ? undefined : unresolvedCall(node, context))],
  // Already cel-go's text (src/cel's own checks), or the engine's (`'string.reverse()'`).
  [/^found no matching overload for /, (m, node, context) => (node === undefined || / applied to '.*'$/.test(m.input) ? m.input : unresolvedCall(node, context) ?? m.input)],
  [/^Unknown variable: (\S+)$/, (m) => `undeclared reference to '${m[1]}' (in container '')`],
  [/^(?:List elements must have the same type|Map key uses wrong type|Map value uses wrong type), (expected type .*)$/, (m) => celGoTypeText(m[1] as string)],
  [/^expected type .*$/, (m) => celGoTypeText(m[0])],
  [/^Expression of type '(.*)' cannot be range of a comprehension \(must be list, map, or dynamic\)\.$/, (m) => `expression of type '${celGoTypeText(m[1] as string)}' cannot be range of a comprehension (must be list, map, or dynamic)`],
  [/^Invalid integer: /, () => 'invalid uint literal'],
  // cel-go types the conditional as the function _?_:_(bool, A, A).
  [/^Ternary (?:branches must have the same type|condition must be bool), got /, (_m, node, context) => {
    const conditional = node?.op === '?:' ? node : node === undefined ? undefined : parentOf(context.root, node);
    return conditional?.op === '?:' ? noMatchingOverload(conditional) : undefined;
  }],
  [/^Logical operator requires bool operands, got '(.*)'$/, (m) => `expected type 'bool' but found '${celGoTypeText(m[1] as string)}'`],
  [/^Invalid number: /, () => 'invalid double literal'],
  [/^could not parse formatting clause: (unexpected end of string)$/, (m) => m[1]],
  [/^(?:\w+ predicate must return bool|all\(var, predicate\) predicate must return bool), got '(.*)'$/, (m) => `expected type 'bool' but found '${celGoTypeText(m[1] as string)}'`],
  [/^Cannot index type '(.*)'$/, (m, node) => {
    if (node?.op === '.' || node?.op === '.?') return `type '${celGoTypeText(m[1] as string)}' does not support field selection`;
    return node === undefined ? undefined : noMatchingOverload(node);
  }],
];

/** What cel-go's grammar accepts where an expression starts (ANTLR's expected-token set). */
const EXPRESSION_START = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/** The text of the token at an offset as ANTLR's lexer cuts it (an identifier or number, else one character). */
function tokenText(expression: string, offset: number | undefined): string {
  if (offset === undefined || offset >= expression.length) return '<EOF>';
  const rest = expression.slice(offset);
  return (/^[A-Za-z_][A-Za-z0-9_]*/.exec(rest) ?? /^\d+(?:\.\d+)?/.exec(rest) ?? [String.fromCodePoint(rest.codePointAt(0) as number)])[0];
}

/** cel-go's reserved identifiers (parser/parser.go reservedIds, less the keywords the grammar owns). */
const CEL_RESERVED: ReadonlySet<string> = new Set(['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

const CLOSERS: Readonly<Record<string, string>> = { RPAREN: ')', RBRACKET: ']', RBRACE: '}' };

/**
 * The engine parser's errors in the words of cel-go's ANTLR parser, for the frequent shapes: input
 * left over after a whole expression, a missing operand or closing bracket, a keyword where a
 * field name belongs, a character no token starts with.
 */
function syntaxError(message: string, expression: string, offset: number | undefined): string | undefined {
  let m: RegExpExecArray | null;
  if ((m = /^Reserved identifier: (.*)$/.exec(message)) !== null) {
    // The engine reserves JavaScript's special names too; to cel-go they are ordinary identifiers.
    return CEL_RESERVED.has(m[1] as string) ? `reserved identifier: ${m[1]}` : `undeclared reference to '${m[1]}' (in container '')`;
  }
  if ((m = /^Unexpected character: '?(.)'?$/.exec(message)) !== null) {
    if (offset === undefined) return undefined;
    // The lexer's partial `==` swallows the next character too.
    if (m[1] === '=' && expression[offset] === '=') return `Syntax error: token recognition error at: '${expression.slice(offset, offset + 2)}'`;
    if (/^[A-Za-z0-9_)\]}]/.test(expression.slice(offset).replace(/^_/, 'a'))) return `Syntax error: extraneous input '${tokenText(expression, offset)}' expecting <EOF>`;
    return undefined;
  }
  if ((m = /^Unexpected token: (\w+)$/.exec(message)) !== null) return `Syntax error: mismatched input '${tokenText(expression, offset)}' expecting ${EXPRESSION_START}`;
  if ((m = /^Expected IDENTIFIER, got (\w+)$/.exec(message)) !== null) {
    if (m[1] === 'EOF') return offset !== undefined && expression[offset - 1] === '.' ? "Syntax error: no viable alternative at input '.'" : undefined;
    return `Syntax error: mismatched input '${tokenText(expression, offset)}' expecting IDENTIFIER`;
  }
  if ((m = /^Expected (RPAREN|RBRACKET|RBRACE), got EOF$/.exec(message)) !== null) return `Syntax error: missing '${CLOSERS[m[1] as string]}' at '<EOF>'`;
  return undefined;
}

/** cel-go's display text for an error the compile step raised (see CompileError.celGoText). */
export function celGoCompileText(expression: string, error: unknown, context: CompileErrorContext = {}): string {
  const e = error as { summary?: unknown; message?: unknown; node?: unknown };
  const text = typeof e.summary === 'string' ? e.summary : error instanceof Error ? error.message : String(error);
  const node = isNode(e.node) ? e.node : undefined;
  const literal = text.startsWith('program instantiation failed: ')
    ? literalValidatorError(node, foldedConversionKind(text) ?? 'none')
    : /^found no matching overload for '(duration|timestamp)(?:\(int\)'|' applied to '\(int\)')$/.test(text) ? literalValidatorError(node, undefined) : undefined;
  if (literal !== undefined) return celGoDisplay(expression, literal.at.pos, literal.message);
  // Errors of building the program (folding constants) are not located: kube prints them bare.
  if (text.startsWith('ERROR: <input>:') || text.startsWith('program instantiation failed: ')) return text;
  let message = text.split('\n')[0] ?? text;
  for (const [pattern, rewrite] of SUMMARY_RULES) {
    const m = pattern.exec(message);
    if (m === null) continue;
    message = rewrite(m, node, context) ?? message;
    break;
  }
  if (UNDECLARED.test(message) && context.root !== undefined) {
    const all = undeclaredReferences(expression, context.root, context);
    if (all.length > 1) return all.map((r) => celGoDisplay(expression, r.offset, r.message)).join('\n');
  }
  const has = node === undefined ? undefined : hasMacroOf(context.root, node);
  // has() reports a bad argument at the argument itself, other errors inside it at its `(`.
  let at = message === 'invalid argument to has() macro' ? node : has ?? node;
  // The conditional's error is placed at its `?`.
  if (message.startsWith("found no matching overload for '_?_:_'") && node?.op !== '?:' && node !== undefined) at = parentOf(context.root, node) ?? node;
  // A logical operator's operand that is not bool is reported at the operand.
  if ((node?.op === '&&' || node?.op === '||') && message.startsWith("expected type 'bool'")) {
    at = operands(node).find((x) => x.checkedType !== undefined && x.checkedType.name !== 'bool' && x.checkedType.kind !== 'dyn') ?? node;
  }
  if (message.startsWith('program instantiation failed: ')) return message;
  // cel-go's parser limits carry no position (`<input>:-1:0`).
  const limit = /^Exceeded maxDepth \((\d+)\)$/.exec(message);
  if (limit !== null) return celGoDisplay(expression, undefined, `expression recursion limit exceeded: ${limit[1]}`);
  if (message === 'max recursion depth exceeded') return celGoDisplay(expression, undefined, message);
  let offset: number | undefined = at === undefined ? (e.node as { pos?: number } | undefined)?.pos : celGoOffset(expression, at);
  // A literal out of range is reported at its sign when negated (cel-go parses `-9223372036854775809` as one literal).
  if (offset !== undefined && /^invalid (int|double) literal$/.test(message) && expression[offset - 1] === '-') offset--;
  message = syntaxError(message, expression, offset) ?? message;
  return celGoDisplay(expression, offset, message);
}

/** cel-go's runtime type names (a value's type as its dispatcher prints it). */
const RUNTIME_TYPE_NAMES: Readonly<Record<string, string>> = { null: 'null_type', duration: 'google.protobuf.Duration', timestamp: 'google.protobuf.Timestamp' };

/**
 * cel-go's text when folding a one-argument call (a conversion such as `int(dyn(true))`) finds no
 * overload for the argument's runtime type: `no such overload: int(bool)`, where evaluation says
 * only `no such overload: int`.
 */
export function foldedNoSuchOverload(functionName: string, argument: unknown): string {
  let tag: string;
  try {
    tag = canonicalValue(argument).t;
  } catch {
    tag = 'dyn';
  }
  return `no such overload: ${functionName}(${RUNTIME_TYPE_NAMES[tag] ?? tag})`;
}
