// Compile-time rejections kube-apiserver's cel-go makes that the engine's parser and checker do not:
// literal ranges, what kube 1.32's environment lacks (cel.bind), duplicate comprehension variables,
// equality of optionals of different types, and format strings with constant
// arguments (cel-go's strings extension validates them at compile time).
import { TypeError as CelTypeError } from '@marcbachmann/cel-js';
import { allNodes, childNodes, type EngineNode } from './engine-ast.ts';
import { formatVerbs } from './strings-ext.ts';

const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

function reject(node: EngineNode, message: string, code = 'invalid_argument'): never {
  throw new CelTypeError({ code, message, node: node as never });
}

interface CheckedType {
  readonly kind?: string;
  readonly name?: string;
  readonly hasDynType?: boolean;
  readonly valueType?: CheckedType;
}
type Node = EngineNode & { checkedType?: CheckedType };

/** cel-go's spelling of a type in overload errors: list(int), map(string, int), optional_type(int). */
function celTypeText(t: CheckedType | undefined): string {
  const name = t?.name ?? 'dyn';
  return name.replace(/^optional<(.*)>$/, 'optional_type($1)').replace(/</g, '(').replace(/>/g, ')').replace(/^google\.protobuf\.Timestamp$/, 'google.protobuf.Timestamp');
}

const BINARY_OPERATORS: ReadonlySet<string> = new Set(['+', '-', '*', '/', '%', '<', '<=', '>', '>=', '==', '!=', 'in']);
/** cel-go's parser visitor depth limit (its default MaxRecursionDepth, which kube keeps). */
const MAX_OPERATOR_DEPTH = 250;

/**
 * cel-go's grammar makes a chain of binary operators a left-deep parse tree that its visitor
 * descends recursively, failing past 250 levels; the engine parses chains iteratively.
 */
function checkOperatorDepth(root: EngineNode): void {
  const depth = new Map<EngineNode, number>();
  const nodes = allNodes(root);
  // Children before parents: allNodes lists parents first.
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i] as EngineNode;
    let d = 0;
    for (const c of childNodes(n)) d = Math.max(d, depth.get(c) ?? 0);
    if (BINARY_OPERATORS.has(n.op)) d++;
    if (d > MAX_OPERATOR_DEPTH) reject(root, 'max recursion depth exceeded', 'recursion_limit');
    depth.set(n, d);
  }
}

/** Checks on the parsed program, before type-checking. */
export function checkParsed(root: EngineNode): void {
  checkOperatorDepth(root);
  const nodes = allNodes(root);
  const negated = new Set<EngineNode>();
  for (const n of nodes) if (n.op === '-_') negated.add(n.args as EngineNode);
  for (const n of nodes) {
    const a = n.args;
    if (n.op === 'value' && typeof a === 'bigint' && a > INT64_MAX && !(a === INT64_MAX + 1n && negated.has(n))) reject(n, 'invalid int literal');
    if (n.op === 'value' && a !== null && typeof a === 'object' && (a as object).constructor?.name === 'UnsignedInt' && (a as { value: bigint }).value > UINT64_MAX) reject(n, 'invalid uint literal');
    if (n.op === 'rcall') {
      const [name, receiver, args] = a as [string, EngineNode, EngineNode[]];
      if (receiver.op === 'id' && receiver.args === 'cel' && name === 'bind') reject(receiver, "undeclared reference to 'cel' (in container '')", 'undeclared_reference');
      if (args.length >= 3 && args[0]?.op === 'id' && args[1]?.op === 'id' && args[0].args === args[1].args && ['all', 'exists', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry'].includes(name)) {
        reject(args[1], `duplicate variable name: ${String(args[0].args)}`);
      }
    }
  }
}

/** A type with nothing left open (no dyn, no unbound parameter). */
function concrete(t: CheckedType | undefined): boolean {
  return t !== undefined && t.hasDynType !== true && t.kind !== 'param' && !/\b[A-Z]\b/.test(t.name ?? '');
}

/**
 * `[?x]` and `{?k: x}` (rewritten to __optList__/__optMap__ calls, see source-rewrite.ts) need x to
 * be optional: cel-go rejects a value of any other known type when the expression is compiled.
 */
function checkOptionalEntries(n: Node): void {
  const [name, args] = n.args as [string, Node[]];
  if ((name !== '__optList__' && name !== '__optMap__') || args[0]?.op !== 'list' || args[1]?.op !== 'list') return;
  const items = args[0].args as Node[];
  for (const index of args[1].args as Node[]) {
    const item = items[Number(index.args)];
    const value = name === '__optList__' ? item : (item?.args as Node[] | undefined)?.[1];
    const t = value?.checkedType;
    if (value === undefined || t === undefined || t.hasDynType === true || t.kind === 'optional' || t.kind === 'param') continue;
    reject(value, `expected type 'optional_type(${celTypeText(t)})' but found '${celTypeText(t)}'`, 'type_mismatch');
  }
}

/** cel-go's name of a checked type in format errors (TypeName of its kind). */
function kindName(t: CheckedType): string {
  if (t.kind === 'list' || t.kind === 'map') return t.kind;
  if (t.kind === 'optional') return 'optional_type';
  return t.name === 'null' ? 'null_type' : t.name ?? 'dyn';
}

/** The argument types each format verb accepts (cel-go's stringFormatChecker). */
const FORMAT_ARGUMENTS: Readonly<Record<string, { readonly types: ReadonlySet<string>; readonly clause: string }>> = {
  d: { types: new Set(['int', 'uint']), clause: 'decimal clause can only be used on integers' },
  o: { types: new Set(['int', 'uint']), clause: 'octal clause can only be used on integers' },
  b: { types: new Set(['int', 'uint', 'bool']), clause: 'only integers and bools can be formatted as binary' },
  x: { types: new Set(['int', 'uint', 'string', 'bytes']), clause: 'only integers, byte buffers, and strings can be formatted as hex' },
  X: { types: new Set(['int', 'uint', 'string', 'bytes']), clause: 'only integers, byte buffers, and strings can be formatted as hex' },
  f: { types: new Set(['double', 'string']), clause: 'fixed-point clause can only be used on doubles' },
  e: { types: new Set(['double', 'string']), clause: 'scientific clause can only be used on doubles' },
};
const STRING_ARGUMENTS: ReadonlySet<string> = new Set(['list', 'map', 'int', 'uint', 'double', 'bool', 'string', 'google.protobuf.Timestamp', 'bytes', 'google.protobuf.Duration', 'type', 'null_type']);

/** A %s argument that cel-go's checker refuses: its type, or a member of a list or map literal. */
function badStringArgument(n: Node): Node | undefined {
  const t = n.checkedType;
  if (t === undefined || t.hasDynType === true || t.kind === 'dyn') return undefined;
  if (!STRING_ARGUMENTS.has(kindName(t))) return n;
  if (n.op === 'list') for (const x of n.args as Node[]) { const bad = badStringArgument(x); if (bad !== undefined) return bad; }
  if (n.op === 'map') for (const [k, v] of n.args as Array<[Node, Node]>) { const bad = badStringArgument(k) ?? badStringArgument(v); if (bad !== undefined) return bad; }
  return undefined;
}

/**
 * cel-go's strings extension validates a constant format string against the static types of a
 * literal argument list when the expression is compiled (values are checked when it runs).
 */
function checkFormatArguments(n: Node, template: string, items: readonly Node[]): void {
  let verbs: string[];
  try {
    verbs = formatVerbs(template);
  } catch (error) {
    return reject(n, (error as Error).message);
  }
  verbs.forEach((verb, i) => {
    const arg = items[i];
    if (arg === undefined) return reject(n, `index ${i} out of range`);
    if (verb === 's') {
      const bad = badStringArgument(arg);
      if (bad !== undefined) reject(bad, `error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${kindName(bad.checkedType as CheckedType)}`);
      return undefined;
    }
    const t = arg.checkedType;
    const rule = FORMAT_ARGUMENTS[verb];
    if (rule === undefined || t === undefined || t.hasDynType === true || t.kind === 'dyn' || rule.types.has(kindName(t))) return undefined;
    return reject(arg, `error during formatting: ${rule.clause}, was given ${kindName(t)}`);
  });
  if (items.length > verbs.length) reject(n, `too many arguments supplied to string.format (expected ${verbs.length}, got ${items.length})`);
}

/** Checks on the type-checked program. */
export function checkTyped(root: EngineNode): void {
  for (const n of allNodes(root) as Node[]) {
    if (n.op === '==' || n.op === '!=') {
      const [l, r] = n.args as [Node, Node];
      const lt = l.checkedType;
      const rt = r.checkedType;
      if (lt === undefined || rt === undefined || lt.hasDynType === true || rt.hasDynType === true) continue;
      const fn = `_${n.op}_`;
      const mismatch = lt.kind === 'optional' && rt.kind === 'optional' && lt.name !== rt.name && concrete(lt.valueType) && concrete(rt.valueType);
      if (mismatch) reject(n, `found no matching overload for '${fn}' applied to '(${celTypeText(lt)}, ${celTypeText(rt)})'`, 'no_matching_overload');
    } else if (n.op === 'call') {
      checkOptionalEntries(n);
    } else if (n.op === 'rcall') {
      const [name, receiver, args] = n.args as [string, Node, Node[]];
      if (name === 'format' && receiver.op === 'value' && typeof receiver.args === 'string' && args.length === 1 && args[0]?.op === 'list') {
        checkFormatArguments(n, receiver.args, args[0].args as Node[]);
      }
    }
  }
}
