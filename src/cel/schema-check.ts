// Compile-time checks against declared variable types, schema-derived ones above all, which the
// engine's checker cannot make because schema objects are dyn to it. cel-go type-checks kube's
// expressions against the schema's DeclTypes (apiserver/pkg/cel/common.SchemaDeclType), so it
// rejects when the expression is created: selecting a field an object type does not declare
// ("undefined field 'nope'", also inside has() and `.?`), selecting a field of a scalar or a list,
// operators applied to operand types with no overload (`self.replicas == 3.0`, `self.name + 1`,
// `self.tags + [1]`), and list functions whose element type has no overload (`self.tags.sum()`).
//
// Types are followed only where they are certain: declared variables, their fields, list elements
// and map values, comprehension variables over typed ranges, and literals. Anything else is dyn
// here and checked at evaluation, as before.
import { TypeError as CelTypeError } from '@marcbachmann/cel-js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import type { EngineNode } from './engine-ast.ts';
import type { CelType } from './schema-types.ts';

/** A known static type, with the cel-go name of object types (kube's MaybeAssignTypeName paths). */
interface Known {
  readonly t: CelType;
  readonly name: string;
}

/** CEL words kube escapes in field names (`__namespace__`); cel-go also resolves the bare word after a dot. */
const ESCAPED_WORDS: ReadonlySet<string> = new Set(['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
/** Type names that are values of type `type` when written as identifiers. */
const TYPE_IDENTIFIERS: ReadonlySet<string> = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type']);
const MACROS: ReadonlySet<string> = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry']);
/** Macros that take two variables when called with three arguments (ext/comprehensions). */
const TWO_VARIABLE: ReadonlySet<string> = new Set(['all', 'exists', 'exists_one', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);

function isMacro(node: EngineNode, name: string, args: readonly EngineNode[]): boolean {
  return MACROS.has(name) && (node.meta.alternate !== undefined || node.meta.macro !== undefined) && args[0]?.op === 'id';
}

function reject(node: EngineNode, message: string, code: string): never {
  throw new CelTypeError({ code, message, node: node as never });
}

const simple = (kind: CelType['kind']): Known => ({ t: { kind } as CelType, name: kind });

/** cel-go's spelling of a type in its messages. */
function typeText(k: Known): string {
  return k.name;
}

function child(t: CelType, name: string): Known {
  switch (t.kind) {
    case 'timestamp': return { t, name: 'google.protobuf.Timestamp' };
    case 'duration': return { t, name: 'google.protobuf.Duration' };
    case 'list': {
      const e = child(t.element, `${name}.@idx`);
      return { t, name: `list(${e.name})` };
    }
    case 'map': {
      const v = child(t.value, `${name}.@elem`);
      return { t, name: `map(${t.key === undefined ? 'string' : child(t.key, name).name}, ${v.name})` };
    }
    case 'object': return { t, name };
    case 'intOrString': return { t: { kind: 'dyn' }, name: 'dyn' };
    default: return { t, name: t.kind };
  }
}

function elementOf(k: Known): Known | undefined {
  const t = k.t;
  if (t.kind !== 'list') return undefined;
  const inner = /^list\((.*)\)$/.exec(k.name)?.[1] ?? 'dyn';
  return { t: t.element.kind === 'intOrString' ? { kind: 'dyn' } : t.element, name: inner };
}

function keyOf(k: Known): Known | undefined {
  const t = k.t;
  if (t.kind !== 'map') return undefined;
  return t.key === undefined ? simple('string') : child(t.key, '');
}

function valueOf(k: Known): Known | undefined {
  const t = k.t;
  if (t.kind !== 'map') return undefined;
  const inner = /^map\((?:[^,(]|\([^)]*\))*, (.*)\)$/.exec(k.name)?.[1] ?? 'dyn';
  return { t: t.value.kind === 'intOrString' ? { kind: 'dyn' } : t.value, name: inner };
}

/** The declared name of a field: itself, or for a CEL word the escaped name kube declares it under. */
function declaredField(k: Known, field: string): string | undefined {
  if (k.t.kind !== 'object') return undefined;
  const fields = k.t.fields;
  if (Object.hasOwn(fields, field)) return field;
  return ESCAPED_WORDS.has(field) && Object.hasOwn(fields, `__${field}__`) ? `__${field}__` : undefined;
}

/** Points a selection of `namespace` at the escaped field the value carries (`__namespace__`). */
function renameField(node: EngineNode, name: string): void {
  (node.args as unknown[])[1] = name;
  const n = node as EngineNode & { right?: unknown };
  if (typeof n.right === 'string') n.right = name;
}

const NO_FIELDS: ReadonlySet<string> = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list']);

/** The type of a field selection `operand.field`, rejecting what cel-go's checker rejects. */
function select(node: EngineNode, operand: Known | undefined, field: string): Known | undefined {
  if (operand === undefined) return undefined;
  const kind = operand.t.kind;
  if (kind === 'object') {
    const name = declaredField(operand, field) ?? reject(node, `undefined field '${field}'`, 'undefined_field');
    if (name !== field) renameField(node, name);
    return child((operand.t as { fields: Readonly<Record<string, CelType>> }).fields[name] as CelType, `${operand.name}.${name}`);
  }
  if (kind === 'map') return valueOf(operand);
  if (NO_FIELDS.has(kind)) reject(node, `type '${typeText(operand)}' does not support field selection`, 'no_field_selection');
  return undefined;
}

function literalType(v: unknown): Known | undefined {
  if (typeof v === 'bigint') return simple('int');
  if (typeof v === 'number') return simple('double');
  if (typeof v === 'string') return simple('string');
  if (typeof v === 'boolean') return simple('bool');
  if (v instanceof UnsignedInt) return simple('uint');
  if (v instanceof Uint8Array) return simple('bytes');
  return undefined;
}

const NUMERIC: ReadonlySet<string> = new Set(['int', 'uint', 'double']);
const ORDERED: ReadonlySet<string> = new Set(['int', 'uint', 'double', 'string', 'bytes', 'bool', 'timestamp', 'duration']);

/** Whether two known types are the same CEL type (objects by name, lists by element). */
function sameType(a: Known, b: Known): boolean {
  return a.name === b.name;
}

/** Whether cel-go has an overload of a binary operator for these operand types. */
function hasBinaryOverload(op: string, l: Known, r: Known): boolean {
  const a = l.t.kind;
  const b = r.t.kind;
  switch (op) {
    case '==': case '!=':
      return sameType(l, r);
    case '<': case '<=': case '>': case '>=':
      return (ORDERED.has(a) && a === b) || (NUMERIC.has(a) && NUMERIC.has(b));
    case '+':
      if (a === 'timestamp') return b === 'duration';
      if (a === 'duration') return b === 'duration' || b === 'timestamp';
      return ['int', 'uint', 'double', 'string', 'bytes', 'list'].includes(a) && sameType(l, r);
    case '-':
      if (a === 'timestamp') return b === 'duration' || b === 'timestamp';
      if (a === 'duration') return b === 'duration';
      return NUMERIC.has(a) && a === b;
    case '*': case '/':
      return NUMERIC.has(a) && a === b;
    case '%':
      return (a === 'int' || a === 'uint') && a === b;
    default:
      return true;
  }
}

/** Whether a type is fully known (no dyn inside), so a missing overload is certain. */
function concrete(k: Known): boolean {
  return !/\bdyn\b/.test(k.name) && k.t.kind !== 'dyn';
}

const LIST_FUNCTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  sum: new Set(['int', 'uint', 'double', 'duration']),
  min: ORDERED,
  max: ORDERED,
  isSorted: ORDERED,
};

type Scope = ReadonlyMap<string, Known | undefined>;

/**
 * Whether the environment has an overload of a function for operands of these types (receiver
 * first for a member call), given as CelTypes of scalars, lists and maps; the engine's checker
 * answers it for concrete types (see index.ts).
 */
export type OverloadProbe = (name: string, member: boolean, operands: readonly CelType[]) => boolean;

/** The probe of the checkDeclaredTypes call in progress (the check is synchronous). */
let overloadProbe: OverloadProbe | undefined;

const SCALARS: ReadonlySet<string> = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'timestamp', 'duration']);

/** A type the engine can be asked about: scalars and lists or maps of them, nothing dyn or object. */
function probeable(k: Known | undefined): k is Known {
  if (k === undefined || !concrete(k)) return false;
  const plain = (t: CelType): boolean => SCALARS.has(t.kind) || (t.kind === 'list' && plain(t.element)) || (t.kind === 'map' && (t.key === undefined || plain(t.key)) && plain(t.value));
  return plain(k.t);
}

/** cel-go's name of a type in an overload error (well-known types by their short names). */
function overloadTypeName(k: Known): string {
  return k.name.replace(/google\.protobuf\.Timestamp/g, 'timestamp').replace(/google\.protobuf\.Duration/g, 'duration');
}

/** Rejects a call whose operands all have known types none of the function's overloads takes. */
function checkCall(node: EngineNode, name: string, receiver: Known | undefined, args: ReadonlyArray<Known | undefined>, member: boolean): void {
  const operands = member ? [receiver, ...args] : [...args];
  if (overloadProbe === undefined || !operands.every(probeable)) return;
  const known = operands as Known[];
  if (overloadProbe(name, member, known.map((k) => k.t))) return;
  const names = known.map(overloadTypeName);
  const signature = member ? `${names[0]}.(${names.slice(1).join(', ')})` : `(${names.join(', ')})`;
  reject(node, `found no matching overload for '${name}' applied to '${signature}'`, 'no_matching_overload');
}

function check(node: EngineNode, scope: Scope): Known | undefined {
  const a = node.args;
  switch (node.op) {
    case 'value':
      return literalType(a);
    case 'id':
      return scope.get(a as string);
    case '.': case '.?': {
      const [operand, field] = a as [EngineNode, string];
      if (operand.op === 'id' && TYPE_IDENTIFIERS.has(operand.args as string) && !scope.has(operand.args as string)) {
        reject(node, `type 'type(${operand.args as string})' does not support field selection`, 'no_field_selection');
      }
      const t = select(node, check(operand, scope), field);
      return node.op === '.?' || t === undefined ? undefined : t;
    }
    case '[]': case '[?]': {
      const [operand, index] = a as [EngineNode, EngineNode];
      const base = check(operand, scope);
      const key = check(index, scope);
      if (base !== undefined && SCALARS.has(base.t.kind)) {
        reject(node, `found no matching overload for '_[_]' applied to '(${overloadTypeName(base)}, ${key === undefined ? 'dyn' : overloadTypeName(key)})'`, 'no_matching_overload');
      }
      if (base?.t.kind === 'map' && key !== undefined && concrete(key)) {
        const keyName = base.t.key === undefined ? 'string' : child(base.t.key, '').name;
        if (keyName !== 'dyn' && keyName !== key.name) reject(node, `found no matching overload for '_[_]' applied to '(${base.name}, ${key.name})'`, 'no_matching_overload');
      }
      if (base === undefined || node.op === '[?]') return undefined;
      return elementOf(base) ?? valueOf(base);
    }
    case 'list': {
      const items = (a as EngineNode[]).map((x) => check(x, scope));
      const first = items[0];
      if (first === undefined || !items.every((x) => x !== undefined && sameType(x, first))) return undefined;
      return { t: { kind: 'list', element: first.t, listType: 'atomic' }, name: `list(${first.name})` };
    }
    case 'map': {
      const entries = a as Array<[EngineNode, EngineNode]>;
      const keys = entries.map(([k]) => check(k, scope));
      const values = entries.map(([, v]) => check(v, scope));
      const k0 = keys[0];
      const v0 = values[0];
      if (k0 === undefined || v0 === undefined || !keys.every((k) => k?.name === k0.name) || !values.every((v) => v !== undefined && sameType(v, v0))) return undefined;
      return { t: { kind: 'map', key: k0.t, value: v0.t }, name: `map(${k0.name}, ${v0.name})` };
    }
    case 'call': {
      const [name, args] = a as [string, EngineNode[]];
      if (name === 'has' && node.meta.macro !== undefined) {
        const sel = args[0];
        if (sel !== undefined && sel.op === '.') {
          const [operand, field] = sel.args as [EngineNode, string];
          select(sel, check(operand, scope), field);
        }
        return simple('bool');
      }
      const argTypes = args.map((x) => check(x, scope));
      if (node.meta.macro === undefined && node.meta.alternate === undefined) checkCall(node, name, undefined, argTypes, false);
      return undefined;
    }
    case 'rcall': {
      const [name, receiver, args] = a as [string, EngineNode, EngineNode[]];
      const recv = check(receiver, scope);
      if (isMacro(node, name, args)) {
        // One variable ranges over list elements or map keys; with two, the first is the index
        // or key and the second the element or value.
        const twoVariables = TWO_VARIABLE.has(name) && args.length >= 3 && args[1]?.op === 'id';
        const key = recv === undefined ? undefined : recv.t.kind === 'list' ? simple('int') : recv.t.kind === 'map' ? keyOf(recv) : undefined;
        const element = recv === undefined ? undefined : elementOf(recv) ?? valueOf(recv);
        const inner = new Map(scope);
        inner.set(args[0]?.args as string, twoVariables ? key : elementOf(recv ?? simple('dyn')) ?? key);
        if (twoVariables) inner.set(args[1]?.args as string, element);
        for (const x of args.slice(twoVariables ? 2 : 1)) check(x, inner);
        return undefined;
      }
      const argTypes = args.map((x) => check(x, scope));
      if (node.meta.macro === undefined && node.meta.alternate === undefined) checkCall(node, name, recv, argTypes, true);
      const allowed = LIST_FUNCTIONS[name];
      const element = recv === undefined ? undefined : elementOf(recv);
      if (allowed !== undefined && args.length === 0 && element !== undefined && concrete(element) && !allowed.has(element.t.kind)) {
        reject(node, `found no matching overload for '${name}' applied to '${recv?.name}.()'`, 'no_matching_overload');
      }
      if (name === 'size' && args.length === 0) return simple('int');
      return undefined;
    }
    case '&&': case '||': {
      // cel-go's logical operators take bool operands only; a known other type is refused at the operand.
      for (const operand of a as EngineNode[]) {
        const t = check(operand, scope);
        if (t !== undefined && concrete(t) && t.t.kind !== 'bool') reject(operand, `expected type 'bool' but found '${overloadTypeName(t)}'`, 'type_mismatch');
      }
      return simple('bool');
    }
    case '==': case '!=': case '<': case '<=': case '>': case '>=': case '+': case '-': case '*': case '/': case '%': {
      const [l, r] = a as [EngineNode, EngineNode];
      const lt = check(l, scope);
      const rt = check(r, scope);
      if (lt === undefined || rt === undefined || !concrete(lt) || !concrete(rt)) return undefined;
      if (!hasBinaryOverload(node.op, lt, rt)) {
        reject(node, `found no matching overload for '_${node.op}_' applied to '(${lt.name}, ${rt.name})'`, 'no_matching_overload');
      }
      if (['==', '!=', '<', '<=', '>', '>='].includes(node.op)) return simple('bool');
      if (node.op === '-' && lt.t.kind === 'timestamp' && rt.t.kind === 'timestamp') return child({ kind: 'duration' }, '');
      if (lt.t.kind === 'duration' && rt.t.kind === 'timestamp') return rt;
      return lt;
    }
    default:
      visitChildren(node, scope);
      return undefined;
  }
}

function visitChildren(node: EngineNode, scope: Scope): void {
  const visit = (x: unknown): void => {
    if (x !== null && typeof x === 'object' && typeof (x as EngineNode).op === 'string') check(x as EngineNode, scope);
    else if (Array.isArray(x)) x.forEach(visit);
  };
  visit(node.args);
}

/**
 * Rejects what cel-go's checker rejects given the declared types of the variables (dyn ones are
 * skipped). Returns the expression's type where the declarations make it certain and it is not an
 * object (`variables.ok` of a bool variable), in cel-go's spelling; undefined otherwise.
 */
export function checkDeclaredTypes(root: EngineNode, variables: Readonly<Record<string, { readonly type: 'dyn' | CelType }>>, probe?: OverloadProbe): string | undefined {
  const scope = new Map<string, Known | undefined>();
  for (const [name, decl] of Object.entries(variables)) {
    if (decl.type === 'dyn' || decl.type.kind === 'dyn') continue;
    scope.set(name, child(decl.type, name === 'self' || name === 'oldSelf' ? 'selfType0' : name));
  }
  overloadProbe = probe;
  try {
    const known = check(root, scope);
    return known === undefined || known.t.kind === 'object' || known.t.kind === 'dyn' ? undefined : typeText(known);
  } finally {
    overloadProbe = undefined;
  }
}
