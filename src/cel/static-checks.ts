// Compile-time rejections kube-apiserver's cel-go makes that the engine's parser and checker do not:
// literal ranges, what kube 1.32's environment lacks (cel.bind), duplicate comprehension variables,
// equality of optionals of different types, and format strings with constant
// arguments (cel-go's strings extension validates them at compile time).
import { TypeError as CelTypeError } from '@marcbachmann/cel-js';
import { allNodes, childNodes, type EngineNode } from './engine-ast.ts';
import { formatString } from './strings-ext.ts';

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
    } else if (n.op === 'rcall') {
      const [name, receiver, args] = n.args as [string, Node, Node[]];
      if (name === 'format' && receiver.op === 'value' && typeof receiver.args === 'string' && args.length === 1 && args[0]?.op === 'list') {
        const items = args[0].args as Node[];
        if (!items.every((x) => x.op === 'value')) continue;
        try {
          formatString(receiver.args, items.map((x) => x.args));
        } catch (error) {
          reject(n, (error as Error).message);
        }
        const clauses = (receiver.args.replace(/%%/g, '').match(/%/g) ?? []).length;
        if (items.length > clauses) reject(n, `too many arguments supplied to string.format (expected ${clauses}, got ${items.length})`);
      }
    }
  }
}
