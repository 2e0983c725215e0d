// Static cost estimate, as kube-apiserver computes it to refuse CRD rules and policies that could
// exceed the runtime budget: a port of cel-go v0.22's checker/cost.go over the checked program, with
// kube's library EstimateCallCost and its schema size estimator (maxLength, maxItems, maxProperties,
// or the largest request body when unbounded). cel-go's macros are costed as their comprehension
// expansions; unlike the runtime, nothing is folded. Arithmetic saturates at 2^64-1 as Go's does.
import type { CelType } from './schema-types.ts';
import type { EngineNode } from './engine-ast.ts';
import { TYPE_NAMES, NAMESPACES, unaryRunCosts, qualifiedTypeChain } from './cost-plan.ts';
import { allNodes } from './engine-ast.ts';

export interface CostEstimate {
  readonly kind: 'estimate';
  /** Best-case runtime cost. */
  readonly min: number;
  /** Worst-case runtime cost over every object the schemas admit. */
  readonly max: number;
}

const MAX = (1n << 64n) - 1n;
const TWO_64 = 2 ** 64;

interface Range {
  readonly min: bigint;
  readonly max: bigint;
}

const r = (min: bigint | number, max: bigint | number = min): Range => ({ min: BigInt(min), max: BigInt(max) });
const ZERO = r(0);
const ONE = r(1);
const UNBOUNDED = r(0, MAX);

function addU(x: bigint, y: bigint): bigint {
  return x + y > MAX ? MAX : x + y;
}
function mulU(x: bigint, y: bigint): bigint {
  return x * y > MAX ? MAX : x * y;
}
function factorU(x: bigint, f: number): bigint {
  const xf = Number(x);
  if (xf > 0 && f > 0 && xf > Number(MAX) / f) return MAX;
  const c = Math.ceil(xf * f);
  return c >= TWO_64 ? MAX : BigInt(c);
}
const add = (a: Range, b: Range): Range => ({ min: addU(a.min, b.min), max: addU(a.max, b.max) });
const mul = (a: Range, b: Range): Range => ({ min: mulU(a.min, b.min), max: mulU(a.max, b.max) });
const factor = (a: Range, f: number): Range => ({ min: factorU(a.min, f), max: factorU(a.max, f) });
const union = (a: Range, b: Range): Range => ({ min: a.min < b.min ? a.min : b.min, max: a.max > b.max ? a.max : b.max });
const sum = (xs: readonly Range[]): Range => xs.reduce(add, ZERO);

/** The estimator's view of a type: cel-go's kind, and for schema-derived types kube's DeclType sizes. */
interface EType {
  readonly kind: 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'type' | 'timestamp' | 'duration' | 'list' | 'map' | 'struct' | 'opaque' | 'optional' | 'dyn' | 'param';
  readonly name?: string;
  readonly elem?: EType;
  readonly key?: EType;
  readonly fields?: Readonly<Record<string, CelType>>;
  readonly decl?: CelType;
}

const DYN: EType = { kind: 'dyn' };

/**
 * The one type a literal's elements or a conditional's branches share, as cel-go's checker joins
 * them (schema objects keep their declared fields); undefined when they differ or there are none.
 */
function commonType(types: readonly EType[]): EType | undefined {
  const [first, ...rest] = types;
  if (first === undefined) return undefined;
  const key = (t: EType): string => `${t.kind}:${t.name ?? ''}`;
  return rest.every((t) => key(t) === key(first) && (t.kind !== 'struct' || t.fields === first.fields)) ? first : undefined;
}
const SCALARS: ReadonlySet<EType['kind']> = new Set(['bool', 'double', 'duration', 'int', 'timestamp', 'uint']);

function fromCel(t: CelType | undefined): EType {
  if (t === undefined) return DYN;
  switch (t.kind) {
    case 'object': return { kind: 'struct', fields: t.fields, decl: t };
    case 'map': return { kind: 'map', key: t.key === undefined ? { kind: 'string' } : fromCel(t.key), elem: fromCel(t.value), decl: t };
    case 'list': return { kind: 'list', elem: fromCel(t.element), decl: t };
    case 'optional': return { kind: 'optional', elem: fromCel(t.element) };
    case 'intOrString': return { kind: 'dyn', decl: t };
    default: return { kind: t.kind, decl: t };
  }
}

interface EngineType {
  readonly kind?: string;
  readonly name?: string;
  readonly valueType?: EngineType;
  readonly keyType?: EngineType;
}

function fromEngine(t: EngineType | undefined): EType {
  if (t === undefined) return DYN;
  switch (t.kind) {
    case 'list': return { kind: 'list', elem: fromEngine(t.valueType) };
    case 'map': return { kind: 'map', key: fromEngine(t.keyType), elem: fromEngine(t.valueType) };
    case 'optional': return { kind: 'optional', elem: fromEngine(t.valueType) };
    case 'dyn': return DYN;
    case 'param': return { kind: 'param' };
    case 'message':
      if (t.name === 'google.protobuf.Timestamp') return { kind: 'timestamp' };
      if (t.name === 'google.protobuf.Duration') return { kind: 'duration' };
      return { kind: 'struct', name: t.name };
    case 'primitive':
      if (t.name === 'null') return { kind: 'null' };
      if (t.name !== undefined && ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'type'].includes(t.name)) return { kind: t.name as EType['kind'] };
      return DYN;
    default:
      if (t.name === 'net.IP' || t.name === 'net.CIDR') return { kind: 'opaque', name: t.name };
      if (t.name !== undefined && t.name.startsWith('kubernetes.')) return { kind: 'struct', name: t.name };
      return DYN;
  }
}

/** One node's estimate: its cost, type, field path (for schema sizes) and, when known, its size. */
interface Est {
  readonly cost: Range;
  readonly type: EType;
  readonly path?: readonly string[];
  readonly size?: Range;
  /** The node, for literal arguments (split's limit). */
  readonly literal?: unknown;
}

type Node = EngineNode & { checkedType?: EngineType };

interface Scope {
  readonly roots: ReadonlyMap<string, CelType>;
  /** Iteration variables: the range's estimate, and whether the variable is the first (cel-go tracks only that one). */
  readonly iter: ReadonlyMap<string, { range: Est; first: boolean; type: EType }>;
}

/** kube's sizeEstimator: walk the schema along the path. */
function schemaSize(scope: Scope, path: readonly string[] | undefined): Range | undefined {
  if (path === undefined || path.length === 0) return undefined;
  let t = scope.roots.get(path[0] as string);
  if (t === undefined) return undefined;
  for (const step of path.slice(1)) {
    if (step === '@items' || step === '@values') t = t.kind === 'list' ? t.element : t.kind === 'map' ? t.value : undefined;
    else if (step === '@keys') t = t.kind === 'map' ? (t.key ?? { kind: 'string', maxElements: undefined }) : undefined;
    else t = t.kind === 'object' ? t.fields[step] : undefined;
    if (t === undefined) return undefined;
  }
  return r(0, t.maxElements ?? 0);
}

/** cel-go coster.sizeEstimate: computed size, schema size, 1 for scalars, else unbounded. */
function sizeOf(e: Est, scope: Scope): Range {
  if (e.size !== undefined) return e.size;
  const s = schemaSize(scope, e.path);
  if (s !== undefined) return s;
  return SCALARS.has(e.type.kind) ? ONE : UNBOUNDED;
}

/** kube's library sizeEstimate: as above without the scalar rule. */
function libSizeOf(e: Est, scope: Scope): Range {
  return e.size ?? schemaSize(scope, e.path) ?? UNBOUNDED;
}

function literalSize(v: unknown): Range | undefined {
  if (typeof v === 'string') return r([...v].length);
  if (v instanceof Uint8Array) return r(v.length);
  if (v === null || typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'number' || (typeof v === 'object' && (v as object).constructor?.name === 'UnsignedInt')) return ONE;
  return undefined;
}

function literalType(v: unknown): EType {
  if (typeof v === 'string') return { kind: 'string' };
  if (v instanceof Uint8Array) return { kind: 'bytes' };
  if (typeof v === 'boolean') return { kind: 'bool' };
  if (typeof v === 'bigint') return { kind: 'int' };
  if (typeof v === 'number') return { kind: 'double' };
  if (v === null) return { kind: 'null' };
  return { kind: 'uint' };
}

/** cel-go's parser folds a minus sign into the numeric literal it precedes. */
function negativeLiteral(n: Node): bigint | number | undefined {
  if (n.op !== '-_') return undefined;
  const x = n.args as Node;
  const v = x.op === 'value' ? x.args : negativeLiteral(x);
  if (typeof v === 'bigint' || typeof v === 'number') return -v;
  return undefined;
}

/**
 * cel-go hands estimators a pointer to an empty node as the target of a global call, so kube's
 * `target != nil` tests hold for global functions too (isIP, quantity, cidr...).
 */
const NO_TARGET: Est = { cost: ZERO, type: DYN };

const MACRO_NAMES: ReadonlySet<string> = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

class Coster {
  /** The cost of each `!`/`-` after cel-go's parser folds runs of them, as the runtime charges. */
  private unary = new Map<EngineNode, number>();

  constructor(private readonly roots: ReadonlyMap<string, CelType>) {}

  run(root: Node): Range {
    this.unary = unaryRunCosts(allNodes(root));
    return this.cost(root, { roots: this.roots, iter: new Map() }).cost;
  }

  private typeOf(n: Node): EType {
    return fromEngine(n.checkedType);
  }

  cost(n: Node, scope: Scope): Est {
    const a = n.args;
    switch (n.op) {
      case 'value':
        return { cost: ZERO, type: literalType(a), size: literalSize(a), literal: a };
      case 'id':
        return this.ident(n, a as string, scope);
      case '.': {
        // A qualified type name is one identifier to cel-go's checker.
        if (qualifiedTypeChain(n) !== undefined) return { cost: ONE, type: { kind: 'type' } };
        const [operand, field] = a as [Node, string];
        const o = this.cost(operand, scope);
        const selectCost = o.type.kind === 'map' || o.type.kind === 'struct' || o.type.kind === 'param' ? ONE : ZERO;
        const type = o.type.kind === 'struct' && o.type.fields !== undefined ? fromCel(o.type.fields[field]) : o.type.kind === 'map' ? (o.type.elem ?? DYN) : this.typeOf(n);
        return { cost: add(o.cost, selectCost), type, path: o.path === undefined ? undefined : [...o.path, field] };
      }
      case '.?': {
        const [operand] = a as [Node, string];
        const o = this.cost(operand, scope);
        return { cost: add(o.cost, ONE), type: this.typeOf(n) };
      }
      case '[]': case '[?]': {
        const [operand, index] = a as [Node, Node];
        const o = this.cost(operand, scope);
        const i = this.cost(index, scope);
        const kind = o.type.kind;
        const path = o.path === undefined ? undefined : [...o.path, kind === 'list' ? '@items' : '@values'];
        const type = n.op === '[]' && (kind === 'list' || kind === 'map') ? (o.type.elem ?? DYN) : this.typeOf(n);
        return { cost: add(add(o.cost, i.cost), ONE), type, path };
      }
      case 'list': {
        const items = (a as Node[]).map((x) => this.cost(x, scope));
        const elem = commonType(items.map((x) => x.type));
        return { cost: add(sum(items.map((x) => x.cost)), r(10)), type: elem === undefined ? this.typeOf(n) : { kind: 'list', elem }, size: r(items.length) };
      }
      case 'map': {
        const entries = (a as Array<[Node, Node]>).map(([k, v]) => [this.cost(k, scope), this.cost(v, scope)] as const);
        const costs = entries.flatMap(([k, v]) => [k.cost, v.cost]);
        const key = commonType(entries.map(([k]) => k.type));
        const elem = commonType(entries.map(([, v]) => v.type));
        const type: EType = key === undefined || elem === undefined ? this.typeOf(n) : { kind: 'map', key, elem };
        return { cost: add(sum(costs), r(30)), type, size: r(entries.length) };
      }
      case '&&': case '||': {
        const [l, rr] = (a as Node[]).map((x) => this.cost(x, scope)) as [Est, Est];
        return { cost: { min: l.cost.min, max: addU(l.cost.max, rr.cost.max) }, type: { kind: 'bool' } };
      }
      case '?:': {
        const [c, t, f] = (a as Node[]).map((x) => this.cost(x, scope)) as [Est, Est, Est];
        return { cost: add(c.cost, union(t.cost, f.cost)), type: commonType([t.type, f.type]) ?? this.typeOf(n), size: union(sizeOf(t, scope), sizeOf(f, scope)) };
      }
      case '!_': case '-_': {
        const own = r(this.unary.get(n) ?? 1);
        const negated = negativeLiteral(n);
        if (negated !== undefined) return { cost: own, type: literalType(negated), size: ONE, literal: negated };
        const x = this.cost(a as Node, scope);
        return { cost: add(x.cost, own), type: this.typeOf(n) };
      }
      case 'call':
        return this.call(n, scope);
      case 'rcall':
        return this.receiverCall(n, scope);
      default: {
        if (Array.isArray(a) && a.length === 2) return this.binary(n, n.op, a as [Node, Node], scope);
        return { cost: ONE, type: this.typeOf(n) };
      }
    }
  }

  private ident(n: Node, name: string, scope: Scope): Est {
    const it = scope.iter.get(name);
    if (it !== undefined) {
      const kind = it.range.type.kind;
      const path = it.first && it.range.path !== undefined && (kind === 'list' || kind === 'map') ? [...it.range.path, kind === 'list' ? '@items' : '@keys'] : it.first ? undefined : [name];
      return { cost: ONE, type: it.type, path };
    }
    const root = scope.roots.get(name);
    return { cost: ONE, type: root !== undefined ? fromCel(root) : TYPE_NAMES.has(name) ? { kind: 'type' } : this.typeOf(n), path: [name] };
  }

  private binary(n: Node, op: string, [ln, rn]: [Node, Node], scope: Scope): Est {
    const l = this.cost(ln, scope);
    const rr = this.cost(rn, scope);
    const args = add(l.cost, rr.cost);
    const type = this.typeOf(n);
    const lk = l.type.kind;
    const rk = rr.type.kind;
    const open = (k: string) => k === 'dyn' || k === 'param';
    // With one operand dyn, the other's known type narrows cel-go's candidate overloads: only a
    // string or bytes operand (or two dyn ones) leaves the sized string overloads in play.
    const dynamic = (open(lk) || open(rk)) && [lk, rk].every((k) => open(k) || k === 'string' || k === 'bytes');
    const sizedCompare = (): Range => {
      const ls = sizeOf(l, scope);
      const rs = sizeOf(rr, scope);
      const smallestMax = ls.max < rs.max ? ls.max : rs.max;
      return add(factor(r(smallestMax > 0n ? 1 : 0, smallestMax), 0.1), args);
    };
    switch (op) {
      case '==': case '!=': {
        if (op === '==' && lk === rk && (lk === 'opaque' || (lk === 'struct' && l.type.name !== undefined && l.type.name !== 'kubernetes.NamedFormat' && l.type.name !== 'kubernetes.URL'))) return { cost: add(ONE, args), type };
        // kube's estimator: named formats compare in at most MaxFormatSize (64) characters.
        if (op === '==' && lk === 'struct' && rk === 'struct' && l.type.name === 'kubernetes.NamedFormat' && rr.type.name === 'kubernetes.NamedFormat') return { cost: add(factor(r(1, 64), 0.1), args), type };
        return { cost: sizedCompare(), type };
      }
      case '<': case '<=': case '>': case '>=': {
        const stringy = (k: string) => k === 'string' || k === 'bytes';
        if (stringy(lk) && stringy(rk)) return { cost: sizedCompare(), type };
        if (dynamic) return { cost: union(add(ONE, args), sizedCompare()), type };
        return { cost: add(ONE, args), type };
      }
      case '+': {
        const resultSize = add(sizeOf(l, scope), sizeOf(rr, scope));
        if (lk === 'list' || rk === 'list') return { cost: add(ONE, args), type, size: resultSize };
        if (lk === 'string' || lk === 'bytes' || rk === 'string' || rk === 'bytes') return { cost: add(factor(resultSize, 0.1), args), type, size: resultSize };
        if (dynamic) return { cost: union(add(ONE, args), add(factor(resultSize, 0.1), args)), type, size: resultSize };
        return { cost: add(ONE, args), type };
      }
      case 'in': {
        if (rk === 'list') return { cost: add(factor(sizeOf(rr, scope), 1), args), type };
        if (rk === 'map') return { cost: add(ONE, args), type };
        return { cost: union(add(ONE, args), add(factor(sizeOf(rr, scope), 1), args)), type };
      }
      default:
        return { cost: add(ONE, args), type };
    }
  }

  private call(n: Node, scope: Scope): Est {
    const [name, argNodes] = n.args as [string, Node[]];
    if (name === 'has' && argNodes.length === 1) {
      const sel = argNodes[0] as Node;
      const operand = (sel.op === '.' || sel.op === '.?' ? (sel.args as [Node])[0] : sel) as Node;
      return { cost: this.cost(operand, scope).cost, type: { kind: 'bool' } };
    }
    if (name === '__optList__' || name === '__optMap__') {
      const [items] = argNodes as [Node];
      if (name === '__optList__') return this.cost(items, scope);
      const pairs = (items.args as Node[]).flatMap((p) => (p.args as Node[]).map((x) => this.cost(x, scope).cost));
      return { cost: add(sum(pairs), r(30)), type: this.typeOf(n), size: r((items.args as Node[]).length) };
    }
    const args = argNodes.map((x) => this.cost(x, scope));
    if (name.startsWith('__pb_')) return { cost: add(sum(args.map((x) => x.cost)), r(40)), type: this.typeOf(n) };
    // The global form matches(s, re) has no size-based estimate in cel-go (only the receiver form does).
    if (name === 'matches') return { cost: add(sum(args.map((x) => x.cost)), ONE), type: { kind: 'bool' } };
    return this.functionCost(n, name, NO_TARGET, args, scope);
  }

  private receiverCall(n: Node, scope: Scope): Est {
    const [name, receiver, argNodes] = n.args as [string, Node, Node[]];
    if (receiver.op === 'id' && NAMESPACES.has(receiver.args as string) && !scope.iter.has(receiver.args as string)) {
      const args = argNodes.map((x) => this.cost(x, scope));
      return this.functionCost(n, `${receiver.args as string}.${name}`, NO_TARGET, args, scope);
    }
    if (n.meta.alternate !== undefined && MACRO_NAMES.has(name)) return this.macro(n, name, receiver, argNodes, scope);
    const macro = n.meta.macro as { kind?: string; first?: string; second?: string; args?: Node[]; hasFilter?: boolean } | undefined;
    if (macro?.kind !== undefined && macro.first !== undefined && macro.second !== undefined) return this.twoVariableMacro(n, macro as Required<typeof macro>, scope);
    if (macro !== undefined && (name === 'or' || name === 'orValue') && argNodes.length === 1) {
      // The engine evaluates these lazily as macros; cel-go estimates them as calls: both operands and the call.
      const operands = add(this.cost(receiver, scope).cost, this.cost(argNodes[0] as Node, scope).cost);
      return { cost: add(operands, ONE), type: this.typeOf(n) };
    }
    const optMap = n.meta.macro as { flat?: boolean; name?: string; args?: Node[] } | undefined;
    if ((name === 'optMap' || name === 'optFlatMap') && optMap?.name !== undefined && optMap.args?.length === 2) {
      // cel-go's expansion: t.hasValue() ? [optional.of(]cel.bind(v, t.value(), body)[)] : optional.none(),
      // the bind a comprehension over an empty list literal.
      const target = this.cost(optMap.args[0] as Node, scope);
      const elem = target.type.kind === 'optional' ? (target.type.elem ?? DYN) : DYN;
      const body = this.cost(optMap.args[1] as Node, this.scoped(scope, [[optMap.name, false, elem]], target)).cost;
      const present = add(add(add(target.cost, ONE), r(10)), add(body, optMap.flat === true ? ZERO : ONE));
      return { cost: add(add(target.cost, ONE), union(present, ONE)), type: this.typeOf(n) };
    }
    if (macro !== undefined) return { cost: ONE, type: this.typeOf(n) };
    const target = this.cost(receiver, scope);
    const args = argNodes.map((x) => this.cost(x, scope));
    return this.functionCost(n, name, target, args, scope);
  }

  /** cel-go's comprehension cost: range + init + result + rangeCount x (loop condition + step). */
  private comprehension(range: Est, init: Range, loop: Range, step: Range, result: Range, scope: Scope): Range {
    const count = sizeOf(range, scope);
    return add(add(add(range.cost, init), result), mul(count, add(step, loop)));
  }

  private scoped(scope: Scope, vars: Array<[string, boolean, EType]>, range: Est): Scope {
    const iter = new Map(scope.iter);
    for (const [v, first, type] of vars) iter.set(v, { range, first, type });
    return { roots: scope.roots, iter };
  }

  private macro(n: Node, name: string, receiver: Node, argNodes: Node[], scope: Scope): Est {
    const range = this.cost(receiver, scope);
    const v = argNodes[0]?.args as string;
    const elem = range.type.kind === 'list' ? (range.type.elem ?? DYN) : range.type.kind === 'map' ? (range.type.key ?? DYN) : DYN;
    const inner = this.scoped(scope, [[v, true, elem]], range);
    const bodyEst = (i: number): Est => this.cost(argNodes[i] as Node, inner);
    const body = (i: number): Range => bodyEst(i).cost;
    const type = this.typeOf(n);
    const rangeSize = sizeOf(range, scope);
    switch (name) {
      case 'all': case 'exists': {
        const p = body(1);
        const step = { min: 1n, max: addU(1n, p.max) };
        return { cost: this.comprehension(range, ZERO, r(name === 'all' ? 2 : 3), step, ONE, scope), type };
      }
      case 'exists_one':
        return { cost: this.comprehension(range, ZERO, ZERO, add(body(1), r(1, 2)), r(2), scope), type };
      case 'map': {
        const transform = argNodes.length === 3 ? bodyEst(2) : bodyEst(1);
        let step = add(r(12), transform.cost);
        if (argNodes.length === 3) step = add(body(1), union(step, ONE));
        // The result's elements have the transform's type (a schema object stays one).
        return { cost: this.comprehension(range, r(10), ZERO, step, ONE, scope), type: { kind: 'list', elem: transform.type }, size: rangeSize };
      }
      default: {
        const step = add(body(1), union(r(13), ONE));
        // filter keeps the range's elements (a map's keys), with their declared types.
        const kept: EType = range.type.kind === 'list' ? range.type : range.type.kind === 'map' ? { kind: 'list', elem: range.type.key ?? DYN } : type;
        return { cost: this.comprehension(range, r(10), ZERO, step, ONE, scope), type: kept, size: rangeSize };
      }
    }
  }

  private twoVariableMacro(n: Node, m: { kind: string; first: string; second: string; args: Node[]; hasFilter: boolean }, scope: Scope): Est {
    const [receiver, ...rest] = m.args as [Node, ...Node[]];
    const range = this.cost(receiver, scope);
    const listRange = range.type.kind === 'list';
    const firstType: EType = listRange ? { kind: 'int' } : range.type.kind === 'map' ? (range.type.key ?? DYN) : DYN;
    const secondType: EType = range.type.kind === 'list' || range.type.kind === 'map' ? (range.type.elem ?? DYN) : DYN;
    const inner = this.scoped(scope, [[m.first, true, firstType], [m.second, false, secondType]], range);
    const body = this.cost(rest[rest.length - 1] as Node, inner);
    const bodyCost = body.cost;
    const filter = m.hasFilter ? this.cost(rest[0] as Node, inner).cost : undefined;
    const withFilter = (step: Range): Range => (filter === undefined ? step : add(filter, union(step, ONE)));
    const type = this.typeOf(n);
    switch (m.kind) {
      case 'all': case 'exists':
        return { cost: this.comprehension(range, ZERO, r(m.kind === 'all' ? 2 : 3), { min: 1n, max: addU(1n, bodyCost.max) }, ONE, scope), type };
      case 'existsOne':
        return { cost: this.comprehension(range, ZERO, ZERO, add(bodyCost, r(1, 2)), r(2), scope), type };
      case 'transformList':
        return { cost: this.comprehension(range, r(10), ZERO, withFilter(add(r(12), bodyCost)), ONE, scope), type: { kind: 'list', elem: body.type }, size: sizeOf(range, scope) };
      case 'transformMap':
        return { cost: this.comprehension(range, r(30), ZERO, withFilter(add(r(3), bodyCost)), ONE, scope), type: { kind: 'map', key: firstType, elem: body.type }, size: sizeOf(range, scope) };
      default:
        return { cost: this.comprehension(range, r(30), ZERO, withFilter(add(r(2), bodyCost)), ONE, scope), type, size: sizeOf(range, scope) };
    }
  }

  /** cel-go coster.functionCost: kube's EstimateCallCost first, then cel-go's overload defaults. */
  private functionCost(n: Node, name: string, target: Est, args: Est[], scope: Scope): Est {
    const type = this.typeOf(n);
    const argSum = add(sum(args.map((x) => x.cost)), target.cost);
    const done = (c: Range, size?: Range): Est => ({ cost: add(c, argSum), type, size });
    const a0 = args[0];
    const lib = (e: Est | undefined): Range => (e === undefined ? UNBOUNDED : libSizeOf(e, scope));
    switch (name) {
      case 'check': return done(r(350000));
      case 'fieldSelector': case 'labelSelector': {
        const size = lib(a0);
        // kube's selectorCostEstimate (see selectorCost in cost.ts), saturating as Go's arithmetic does.
        const cost = (n: bigint): bigint => {
          const c = 10n + (n + 9n) / 10n + ((n + 1n) / 2n) * 50n;
          return c > MAX ? MAX : c;
        };
        return done({ min: cost(size.min), max: cost(size.max) });
      }
      case 'serviceAccount': case 'path': case 'group': case 'resource': case 'subresource': case 'namespace': case 'name':
      case 'allowed': case 'reason': case 'error': case 'errored':
        return done(ONE);
      case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf':
        {
          if (target.type.kind === 'list') {
            let el = ONE;
            const ek = target.type.elem?.kind;
            if (ek === 'string' || ek === 'bytes') el = add(el, factor(lib({ cost: ZERO, type: target.type.elem as EType, path: target.path === undefined ? undefined : [...target.path, '@items'] }), 0.1));
            // sum, min and max answer an element (the checker leaves the call dyn: one overload per element type).
            if ((name === 'sum' || name === 'min' || name === 'max') && target.type.elem !== undefined && type.kind === 'dyn') {
              return { cost: add(mul(lib(target), el), argSum), type: target.type.elem };
            }
            return done(mul(lib(target), el));
          }
          return done(factor(lib(target), 0.1));
        }
        break;
      case 'url':
        if (args.length === 1) {
          const sz = lib(a0);
          return done(factor(sz, 0.1), sz);
        }
        break;
      case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
        {
          const sz = lib(target);
          return done(factor(sz, 0.1), sz);
        }
        break;
      case 'replace':
        if (args.length >= 2) return done(factor(lib(target), 0.2), this.replaceSize(lib(target), lib(a0), lib(args[1])));
        break;
      case 'split':
        {
          const sz = lib(target);
          const limit = args[1]?.literal;
          return done(factor(sz, 0.2), r(0, typeof limit === 'bigint' ? BigInt.asUintN(64, limit) : sz.max));
        }
        break;
      case 'join':
        {
          const list = lib(target);
          let sz = ZERO;
          if (target.type.kind === 'list') sz = mul(list, lib({ cost: ZERO, type: target.type.elem ?? DYN, path: target.path === undefined ? undefined : [...target.path, '@items'] }));
          if (args.length > 0) sz = add(sz, mul(lib(a0), r(list.min > 0n ? list.min - 1n : 0n, list.max > 0n ? list.max - 1n : 0n)));
          return done(factor(sz, 0.1), sz);
        }
        break;
      case 'find': case 'findAll':
        if (args.length >= 1) {
          const sz = lib(target);
          return done(mul(factor(add(sz, ONE), 0.1), factor(lib(a0), 0.25)), r(0, sz.max));
        }
        break;
      case 'masked': case 'prefixLength': case 'family': case 'isUnspecified': case 'isLoopback': case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast': case 'isGlobalUnicast': case 'format.named': case 'sign': case 'asInteger': case 'isInteger':
      case 'asApproximateFloat': case 'isGreaterThan': case 'isLessThan': case 'compareTo': case 'add': case 'sub':
      case 'getScheme': case 'getHostname': case 'getHost': case 'getPort': case 'getEscapedPath': case 'getQuery':
        return done(ONE);
      case 'cidr': case 'isIP': case 'isCIDR': case 'quantity': case 'isQuantity':
        return done(factor(lib(a0), 0.1));
      case 'ip':
        if (args.length >= 1) return done(factor(lib(a0), 0.1));
        return done(ONE);
      case 'ip.isCanonical':
        if (args.length >= 1) return done(factor(lib(a0), 0.2));
        break;
      case 'containsIP': case 'containsCIDR':
        if (args.length >= 1) {
          const ipSize = r(4, 16);
          let c = factor(add(ipSize, ipSize), 0.1);
          if (name === 'containsCIDR') c = add(add(c, factor(ipSize, 0.1)), ONE);
          if (a0?.type.kind === 'string') c = add(c, factor(lib(a0), 0.1));
          return done(c);
        }
        break;
      case 'validate':
        return done(factor(factor(lib(a0), 0.1), 128 * 0.25));
        break;
      // cel-go's defaults by overload.
      case 'format':
        if (target.type.kind === 'string') return done(factor(sizeOf(target, scope), 0.1));
        break;
      case 'bytes': case 'string': {
        // string_to_bytes / bytes_to_string traverse their argument; through dyn every overload of
        // the conversion is a candidate and the estimate covers them all.
        const from = name === 'bytes' ? 'string' : 'bytes';
        if (target === NO_TARGET && a0 !== undefined && (a0.type.kind === from || a0.type.kind === 'dyn')) {
          const sz = sizeOf(a0, scope);
          const traversal = done(factor(sz, 0.1), name === 'bytes' ? r(sz.min, mulU(sz.max, 4n)) : r(sz.min / 4n, sz.max));
          return a0.type.kind === 'dyn' ? { ...traversal, cost: union(traversal.cost, add(ONE, argSum)) } : traversal;
        }
        break;
      }
      case 'strings.quote':
        if (a0 !== undefined) {
          const sz = sizeOf(a0, scope);
          return done(factor(sz, 0.1), r(addU(sz.min, 2n), addU(mulU(sz.max, 2n), 2n)));
        }
        break;
      case 'startsWith': case 'endsWith':
        if (target.type.kind === 'string' && a0 !== undefined) return done(factor(sizeOf(a0, scope), 0.1));
        break;
      case 'matches':
        if (a0 !== undefined) return done(mul(factor(add(sizeOf(target, scope), ONE), 0.1), factor(sizeOf(a0, scope), 0.25)));
        break;
      case 'contains':
        if (target.type.kind === 'string' && a0 !== undefined) return done(mul(factor(sizeOf(target, scope), 0.1), factor(sizeOf(a0, scope), 0.1)));
        break;
      case 'sets.contains': case 'sets.intersects': case 'sets.equivalent': {
        const f = name === 'sets.equivalent' ? 2 : 1;
        const l = sizeOf(a0 as Est, scope);
        const rr = sizeOf(args[1] as Est, scope);
        return done(add(ONE, factor(mul(l, rr), f)));
      }
    }
    return done(ONE);
  }

  private replaceSize(sz: Range, toReplace: Range, replaceWith: Range): Range {
    let countMax: bigint;
    let retainedMax = 0n;
    if (toReplace.min === 0n) {
      countMax = sz.max < MAX ? sz.max + 1n : sz.max;
      retainedMax = sz.max;
    } else if (replaceWith.max <= toReplace.min) {
      countMax = 0n;
      retainedMax = sz.max;
    } else {
      countMax = BigInt(Math.ceil(Number(sz.max) / Number(toReplace.min)));
    }
    let countMin: bigint;
    let retainedMin = 0n;
    if (toReplace.max === 0n) {
      countMin = sz.min < MAX ? sz.min + 1n : sz.min;
      retainedMin = sz.min;
    } else if (toReplace.max <= replaceWith.min) {
      countMin = 0n;
      retainedMin = sz.min;
    } else {
      countMin = BigInt(Math.ceil(Number(sz.min) / Number(toReplace.max)));
    }
    return add(mul(r(countMin, countMax), replaceWith), r(retainedMin, retainedMax));
  }
}

const toNumber = (x: bigint): number => Number(x);

/** The estimate of a checked program whose schema-typed variables have the given types. */
export function estimateChecked(root: EngineNode, variables: Readonly<Record<string, CelType>>): CostEstimate {
  // Only schema-derived types carry sizes: kube's size estimator knows the rule's self and oldSelf.
  const c = new Coster(new Map(Object.entries(variables).filter(([, t]) => t.maxElements !== undefined)));
  const est = c.run(root as Node);
  return { kind: 'estimate', min: toNumber(est.min), max: toNumber(est.max) };
}
