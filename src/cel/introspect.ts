// What callers outside src/cel may learn about a compiled expression without reading the engine's
// AST: its checked output type in cel-go's spelling, and the field paths it selects from its
// variables (for checks against schemas, such as the admission policy type checker's).
import type { EngineNode } from './engine-ast.ts';

/** The engine's checked type, as far as naming it needs. */
export interface CheckedType {
  readonly kind?: string;
  readonly name?: string;
  readonly keyType?: CheckedType;
  readonly valueType?: CheckedType;
}

/**
 * cel-go's name for a checked type: `bool`, `list(int)`, `map(string, dyn)`, `optional_type(int)`.
 * `output` spells types as kube's "must evaluate to" text does (`null_type`, well-known types by
 * message name); `overload` as the checker's errors do (FormatCELType: `null`, `duration`, `timestamp`).
 */
export function celGoTypeName(t: CheckedType | undefined, style: 'output' | 'overload' = 'output'): string {
  if (t === undefined) return 'dyn';
  const name = (x: CheckedType | undefined): string => celGoTypeName(x, style);
  switch (t.kind) {
    case 'dyn':
      // The engine marks a statically known type reached through dyn as dyn<T>; cel-go names T.
      return t.valueType === undefined ? 'dyn' : name(t.valueType);
    case 'param':
      return 'dyn';
    case 'list':
      return `list(${name(t.valueType)})`;
    case 'map':
      return `map(${name(t.keyType)}, ${name(t.valueType)})`;
    case 'optional':
      return `optional_type(${name(t.valueType)})`;
    default:
      if (t.name === 'null') return style === 'output' ? 'null_type' : 'null';
      if (style === 'overload' && t.name === 'google.protobuf.Duration') return 'duration';
      if (style === 'overload' && t.name === 'google.protobuf.Timestamp') return 'timestamp';
      return typeof t.name === 'string' ? t.name : 'dyn';
  }
}

/** The checked type of an expression's result in cel-go's spelling (`dyn` when not known statically). */
export function outputTypeName(root: EngineNode): string {
  return celGoTypeName((root as unknown as { checkedType?: CheckedType }).checkedType);
}

/** One step of a field path: a field selection (`.f`, `.?f`) or an index (`[i]`, `[?i]`). */
export type PathStep =
  | { readonly kind: 'field'; readonly name: string; readonly optional: boolean; /** 0-based offset of the `.` (or `.?`) in the expression, where cel-go reports a problem with the field. */ readonly offset: number }
  | { readonly kind: 'index' };

/** A chain of selections starting at a variable, as written: `object.spec.containers[0].name`. */
export interface FieldPath {
  readonly variable: string;
  readonly steps: readonly PathStep[];
}

const ACCESS: ReadonlySet<string> = new Set(['.', '.?', '[]', '[?]']);

function isNode(x: unknown): x is EngineNode {
  return x !== null && typeof x === 'object' && typeof (x as { op?: unknown }).op === 'string';
}

/**
 * Every maximal selection chain (one step or more) rooted at a variable, comprehension variables
 * included, as written (macro arguments, not their expansions); callers order them by offset.
 */
export function fieldPathsOf(root: EngineNode): FieldPath[] {
  const paths: FieldPath[] = [];
  const visit = (node: EngineNode): void => {
    if (!ACCESS.has(node.op)) {
      const each = (x: unknown): void => {
        if (isNode(x)) visit(x);
        else if (Array.isArray(x)) x.forEach(each);
      };
      each(node.args);
      return;
    }
    // Resolve the whole chain from its outermost access; index expressions are visited on their own.
    const steps: PathStep[] = [];
    let x: unknown = node;
    while (isNode(x) && ACCESS.has(x.op)) {
      const [inner, selector] = x.args as [unknown, unknown];
      if (x.op === '.' || x.op === '.?') {
        // The engine's position is just after the `.` or `.?`; cel-go points at the operator.
        const pos = (x as unknown as { pos: number }).pos;
        steps.unshift({ kind: 'field', name: selector as string, optional: x.op === '.?', offset: pos - (x.op === '.?' ? 2 : 1) });
      } else {
        steps.unshift({ kind: 'index' });
        if (isNode(selector)) visit(selector);
      }
      x = inner;
    }
    if (isNode(x) && x.op === 'id' && typeof x.args === 'string') paths.push({ variable: x.args, steps });
    else if (isNode(x)) visit(x);
  };
  visit(root);
  return paths;
}
