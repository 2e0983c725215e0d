// Applies cel-go's runtime cost model (see cost.ts) to a checked engine program: a static pass decides,
// per node, what cel-go's planner would have made of it (constant, attribute, qualifier, call,
// constructor, comprehension step) and wraps the node's evaluation to charge exactly that.
import { allNodes, currentEvaluate, isNode, type EngineNode, type Evaluate } from './engine-ast.ts';
import { Optional } from '@marcbachmann/cel-js';
import { callCost, charge, withoutCharging, CostLimitExceeded, LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST } from './cost.ts';

type Handle = (...a: unknown[]) => unknown;
type Node = EngineNode & { setMeta?(key: string, value: unknown): Node; checkedType?: { hasDynType?: boolean } };

const SELECTS: ReadonlySet<string> = new Set(['.', '.?', '[]', '[?]']);
const BINARY: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'in']);
/** Identifiers that name types or function namespaces rather than variables: constants to cel-go. */
export const TYPE_NAMES: ReadonlySet<string> = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn', 'optional_type']);
export const NAMESPACES: ReadonlySet<string> = new Set(['strings', 'sets', 'optional', 'ip', 'format', 'cel', 'math', 'base64', 'lists']);
/** Conversions cel-go folds when their argument is constant (interpreter.maybeOptimizeConstUnary). */
const CONVERSIONS: ReadonlySet<string> = new Set(['int', 'uint', 'double', 'string', 'bytes', 'bool', 'dyn', 'type', 'duration', 'timestamp']);
/** Source-rewrite helpers for optional list/map entries: not calls in cel-go. */
const OPTIONAL_LITERAL_HELPERS: ReadonlySet<string> = new Set(['__optList__', '__optMap__']);

/** How cel-go's comprehension expansion of each single-variable macro is charged beyond its own sub-expressions. */
const MACRO_STEPS: Readonly<Record<string, { perStep: number; brokenCondition: number; result: number; continuesAfterError: boolean }>> = {
  all: { perStep: 3, brokenCondition: 2, result: 1, continuesAfterError: false },
  exists: { perStep: 4, brokenCondition: 3, result: 1, continuesAfterError: false },
  exists_one: { perStep: 0, brokenCondition: 0, result: 2, continuesAfterError: true },
  map: { perStep: 0, brokenCondition: 0, result: 1, continuesAfterError: true },
  filter: { perStep: 0, brokenCondition: 0, result: 1, continuesAfterError: true },
};

function isVariable(n: EngineNode): boolean {
  return n.op === 'id' && !TYPE_NAMES.has(n.args as string) && !NAMESPACES.has(n.args as string);
}

function isAttribute(n: EngineNode): boolean {
  let x = n;
  while (SELECTS.has(x.op)) x = (x.args as [EngineNode])[0];
  return x.op === 'id';
}

/** The per-node facts of cel-go's plan. */
interface Plan {
  readonly constant: Set<EngineNode>;
  /** Attributes evaluated inside another attribute (ternary branches, index operands): their root is not observed. */
  readonly embedded: Set<EngineNode>;
  /** Conversion calls of constants, folded when the program is built. */
  readonly folded: Set<EngineNode>;
  /** `x in [constant primitives]`: a set-membership test with no cost of its own. */
  readonly setMembership: Set<EngineNode>;
  /** List literals that are the entry list of an optional map literal, and the entry pairs inside. */
  readonly mapEntryList: Set<EngineNode>;
  readonly free: Set<EngineNode>;
  /** Qualifiers above an optional qualifier in the same chain. */
  readonly afterOptional: Set<EngineNode>;
  /** The cost of each `!`/`-` node after cel-go's parser folds runs of them (see unaryRunCosts). */
  readonly unary: Map<EngineNode, number>;
}

function isPrimitive(n: EngineNode): boolean {
  if (n.op !== 'value') return false;
  const v = n.args;
  return typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || (v !== null && typeof v === 'object' && v.constructor?.name === 'UnsignedInt');
}

function plan(nodes: readonly EngineNode[]): Plan {
  const p: Plan = { constant: new Set(), embedded: new Set(), folded: new Set(), setMembership: new Set(), mapEntryList: new Set(), free: new Set(), afterOptional: new Set(), unary: new Map() };
  // Children before parents: allNodes lists parents first, so walk it backwards.
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i] as EngineNode;
    const a = n.args;
    if (n.op === 'value') p.constant.add(n);
    else if (n.op === 'id' && TYPE_NAMES.has(a as string)) p.constant.add(n);
    else if (n.op === '-_' && isNode(a) && (a.op === 'value' || (a.op === '-_' && p.constant.has(a))) && (a.op !== 'value' || typeof a.args === 'bigint' || typeof a.args === 'number')) p.constant.add(n);
    else if (n.op === 'list' && Array.isArray(a) && a.every((x) => p.constant.has(x as EngineNode))) p.constant.add(n);
    else if (n.op === 'map' && Array.isArray(a) && a.every((e) => Array.isArray(e) && e.every((x) => p.constant.has(x as EngineNode)))) p.constant.add(n);
    else if (n.op === 'call' && n.meta.macro === undefined) {
      const [name, args] = a as [string, EngineNode[]];
      if (CONVERSIONS.has(name) && args.length === 1 && p.constant.has(args[0] as EngineNode)) {
        p.constant.add(n);
        p.folded.add(n);
      }
      if (OPTIONAL_LITERAL_HELPERS.has(name)) {
        p.free.add(n);
        if (name === '__optMap__' && args[0]?.op === 'list') {
          p.mapEntryList.add(args[0]);
          for (const pair of args[0].args as EngineNode[]) p.free.add(pair);
        }
      }
    }
  }
  for (const n of nodes) {
    if (n.op === '?:') {
      const [, t, f] = n.args as EngineNode[];
      for (const b of [t, f]) if (b !== undefined && isAttribute(b)) p.embedded.add(b);
    } else if (n.op === '[]' || n.op === '[?]') {
      const index = (n.args as EngineNode[])[1];
      if (index !== undefined && isAttribute(index)) p.embedded.add(index);
    } else if (n.op === 'in') {
      const list = (n.args as EngineNode[])[1];
      if (list?.op === 'list' && p.constant.has(list) && (list.args as EngineNode[]).every(isPrimitive)) p.setMembership.add(n);
    }
  }
  for (const n of nodes) {
    if (!SELECTS.has(n.op)) continue;
    let x = (n.args as [EngineNode])[0];
    while (SELECTS.has(x.op)) {
      if (x.op === '.?' || x.op === '[?]') {
        p.afterOptional.add(n);
        break;
      }
      x = (x.args as [EngineNode])[0];
    }
  }
  for (const [n, c] of unaryRunCosts(nodes)) p.unary.set(n, c);
  typeNameChains(nodes, p);
  // Embedding reaches down a qualifier chain to its root.
  for (const top of [...p.embedded]) {
    let x = top;
    while (SELECTS.has(x.op)) {
      x = (x.args as [EngineNode])[0];
      p.embedded.add(x);
    }
  }
  return p;
}

type Positioned = EngineNode & { readonly start?: number };

/**
 * cel-go's parser drops an even run of `!` or `-` written back to back and keeps one call for an
 * odd run; a single `-` before a number literal is part of the literal. Runs are recognised by
 * source positions, so `-(-1)` (parenthesised) stays two operations.
 */
export function unaryRunCosts(nodes: readonly EngineNode[]): Map<EngineNode, number> {
  const costs = new Map<EngineNode, number>();
  const inner = new Set<EngineNode>();
  for (const n of nodes as Positioned[]) {
    if (n.op !== '!_' && n.op !== '-_') continue;
    const child = n.args as Positioned;
    if (child.op === n.op && child.start === (n.start ?? -2) + 1) inner.add(child);
  }
  for (const n of nodes as Positioned[]) {
    if ((n.op !== '!_' && n.op !== '-_') || inner.has(n)) continue;
    let length = 1;
    let x = n.args as Positioned;
    const run: EngineNode[] = [n];
    while (inner.has(x)) {
      run.push(x);
      length++;
      x = x.args as Positioned;
    }
    const numeric = x.op === 'value' && (typeof x.args === 'bigint' || typeof x.args === 'number');
    // A single minus written right before a number is part of the literal (not `-(1)`).
    const literal = numeric && length === 1 && (x as Positioned).start === (n.start ?? -2) + 1;
    const cost = length % 2 === 0 || literal ? 0 : 1;
    run.forEach((r, i) => costs.set(r, i === 0 ? cost : 0));
  }
  return costs;
}

/** Type names spelled as qualified identifiers (google.protobuf.Duration): constants to cel-go. */
const QUALIFIED_TYPE_NAMES: ReadonlySet<string> = new Set(['google.protobuf.Timestamp', 'google.protobuf.Duration', 'net.IP', 'net.CIDR', 'kubernetes.Quantity', 'kubernetes.URL', 'kubernetes.NamedFormat']);

function typeNameChains(nodes: readonly EngineNode[], p: Plan): void {
  for (const n of nodes) {
    if (n.op !== '.') continue;
    const parts: string[] = [];
    const chain: EngineNode[] = [];
    let x: EngineNode = n;
    while (x.op === '.') {
      chain.push(x);
      parts.unshift((x.args as [EngineNode, string])[1]);
      x = (x.args as [EngineNode])[0];
    }
    if (x.op !== 'id') continue;
    parts.unshift(x.args as string);
    if (!QUALIFIED_TYPE_NAMES.has(parts.join('.'))) continue;
    for (const c of [...chain, x]) p.free.add(c);
  }
}

/** The fixed cost of an attribute node: the variable, each qualifier, and a relative attribute's own step. */
function attributeCost(n: EngineNode, p: Plan): number {
  if (n.op === 'id') return p.embedded.has(n) || !isVariable(n) ? 0 : 1;
  const operand = (n.args as [EngineNode])[0];
  const relativeBase = !SELECTS.has(operand.op) && operand.op !== 'id';
  return 1 + (relativeBase && !p.embedded.has(n) ? 1 : 0);
}

/**
 * An optional qualifier that finds nothing ends cel-go's attribute resolution: neither it nor the
 * qualifiers after it are charged. The engine evaluates those on the empty optional, so the charge
 * follows the result.
 */
function chargeUnlessAbsent(node: EngineNode, cost: number): void {
  const inner = currentEvaluate(node);
  // A relative attribute's own step (cost beyond the qualifier's 1) is charged either way.
  const always = cost - 1;
  node.evaluate = function charged(ev, ast, ctx) {
    const r = inner.call(node, ev, ast, ctx);
    charge(!(r instanceof Optional) || r.hasValue() ? cost : always);
    return r;
  };
}

/**
 * A plain qualifier that may meet an empty optional (see mayQualifyOptional) or that qualifies a
 * relative attribute (cost 2: the operand's step and the qualifier). When the operand fails, cel-go
 * never reaches the qualifier and charges only the step.
 */
function chargeQualifier(node: EngineNode, cost: number, absentStops: boolean): void {
  const inner = currentEvaluate(node);
  const relative = cost > 1;
  let reached = false;
  if (relative) {
    wrapHandle(node, (h) => (...a) => {
      reached = true;
      return h(...a);
    });
  }
  node.evaluate = function charged(ev, ast, ctx) {
    reached = false;
    let r: unknown;
    try {
      r = inner.call(node, ev, ast, ctx);
    } catch (error) {
      if (!(error instanceof CostLimitExceeded)) charge(relative && !reached ? cost - 1 : cost);
      throw error;
    }
    charge(absentStops && r instanceof Optional && !r.hasValue() ? cost - 1 : cost);
    return r;
  };
}

/**
 * Whether a plain qualifier may be applied to an optional: its operand is typed optional or dyn.
 * cel-go's attribute resolution stops at an empty optional as it does after an optional qualifier
 * (`optional.none().a.b` charges the call and one step).
 */
function mayQualifyOptional(node: EngineNode): boolean {
  const operand = (node.args as [EngineNode & { checkedType?: { kind?: string } }])[0];
  const kind = operand.checkedType?.kind;
  return kind === 'optional' || kind === 'dyn';
}

function wrapHandle(node: EngineNode, wrap: (inner: Handle) => Handle): boolean {
  const inner = node.handle as Handle | undefined;
  if (typeof inner !== 'function') return false;
  node.handle = wrap(inner) as EngineNode['handle'];
  return true;
}

/**
 * Charges a node's cost after its operands, as cel-go's observer does (it sees a node when its
 * value is known, also when that value is an error), so a budget is crossed at the same step.
 */
function chargeAround(node: EngineNode, cost: number, before = 0, then = 0): void {
  if (cost === 0 && before === 0 && then === 0) return;
  const inner = currentEvaluate(node);
  if (before === 0 && then === 0) {
    // The common case (attributes, literals, unary operators), kept minimal: it runs on every node.
    node.evaluate = function charged(ev, ast, ctx) {
      let r: unknown;
      try {
        r = inner.call(node, ev, ast, ctx);
      } catch (error) {
        if (!(error instanceof CostLimitExceeded)) charge(cost);
        throw error;
      }
      charge(cost);
      return r;
    };
    return;
  }
  node.evaluate = function charged(ev, ast, ctx) {
    if (before !== 0) charge(before);
    let r: unknown;
    try {
      r = inner.call(node, ev, ast, ctx);
    } catch (error) {
      if (!(error instanceof CostLimitExceeded)) {
        charge(cost);
        charge(then);
      }
      throw error;
    }
    charge(cost);
    charge(then);
    return r;
  };
}

/**
 * Stands for an argument whose evaluation failed: cel-go passes the error value on to the call,
 * whose cost functions size it as 1 (an error is not a Sizer).
 */
class FailedArgument {}
const FAILED = new FailedArgument();

/**
 * After an argument failed, cel-go still evaluates the call's remaining arguments (an error is a
 * value, not an exception) and then observes the call itself. Replays that: the arguments before
 * the failed one (already evaluated and charged) are re-evaluated without charge (CEL is pure, so
 * this gives the values they had), the ones after it are evaluated and charged, and the call is
 * charged with the error standing in.
 */
function chargeAfterFailedArgument(name: string, receiverStyle: boolean, argNodes: readonly EngineNode[], ev: unknown, ctx: unknown): void {
  const values: unknown[] = [];
  let failed = false;
  for (const arg of argNodes) {
    const run = currentEvaluate(arg);
    if (!failed) {
      try {
        values.push(withoutCharging(() => run.call(arg, ev, arg, ctx)));
      } catch {
        failed = true;
        values.push(FAILED);
      }
      continue;
    }
    try {
      values.push(run.call(arg, ev, arg, ctx));
    } catch (error) {
      if (error instanceof CostLimitExceeded) throw error;
      values.push(FAILED);
    }
  }
  charge(callCost(name, receiverStyle, values, FAILED));
}

/**
 * Charges a call node's cost from its argument values and result (also when the call fails). cel-go
 * charges a call even when an argument failed (see chargeAfterFailedArgument).
 */
function instrumentCall(node: EngineNode, name: string, receiverStyle: boolean, argsOf: (a: unknown[]) => unknown[], argNodes: readonly EngineNode[]): void {
  let reached = false;
  const ok = wrapHandle(node, (inner) => function costed(this: unknown, ...a: unknown[]) {
    reached = true;
    let result: unknown;
    try {
      result = inner.apply(this, a);
    } catch (error) {
      if (!(error instanceof CostLimitExceeded)) charge(callCost(name, receiverStyle, argsOf(a), undefined));
      throw error;
    }
    charge(callCost(name, receiverStyle, argsOf(a), result));
    return result;
  });
  if (!ok) {
    chargeAround(node, 1);
    return;
  }
  const evaluate = currentEvaluate(node);
  node.evaluate = function call(ev, ast, ctx) {
    const outer = reached;
    reached = false;
    try {
      return evaluate.call(node, ev, ast, ctx);
    } catch (error) {
      if (!reached && !(error instanceof CostLimitExceeded)) chargeAfterFailedArgument(name, receiverStyle, argNodes, ev, ctx);
      throw error;
    } finally {
      reached = outer;
    }
  };
}

/** Evaluates a constant sub-expression once, standalone; used to fold when the program is built. */
export type ConstantEvaluator = (node: EngineNode) => { readonly value: unknown } | { readonly error: string };

/**
 * Evaluates a folded conversion when the program is built, as cel-go's OptOptimize does; its
 * failure is the compile error kube-apiserver reports ("program instantiation failed: ...").
 * Without an evaluator (while evaluating such a constant itself) it folds at first evaluation.
 */
function foldConversion(node: EngineNode, evaluateConstant: ConstantEvaluator | undefined): void {
  let folded: { value: unknown } | undefined;
  if (evaluateConstant !== undefined) {
    const out = evaluateConstant(node);
    if ('error' in out) throw Object.assign(new Error(`program instantiation failed: ${out.error}`), { node });
    folded = out;
  }
  const inner = currentEvaluate(node);
  node.evaluate = function constant(ev, ast, ctx) {
    folded ??= { value: withoutCharging(() => inner.call(node, ev, ast, ctx)) };
    return folded.value;
  };
}

function instrumentComprehension(macro: EngineNode, name: string): void {
  const steps = MACRO_STEPS[name];
  const comprehension = macro.meta.alternate;
  if (steps === undefined || comprehension === undefined || comprehension.op !== 'comprehension') return;
  const args = comprehension.args as { step?: EngineNode };
  const step = args.step;
  let count = 0;
  if (step !== undefined) {
    const inner = currentEvaluate(step);
    step.evaluate = function iteration(ev, ast, ctx) {
      count++;
      charge(steps.perStep, true);
      return inner.call(step, ev, ast, ctx);
    };
  }
  wrapHandle(comprehension, (inner) => function loop(this: unknown, items: unknown, ...rest: unknown[]) {
    const outer = count;
    count = 0;
    try {
      let result: unknown;
      try {
        result = inner.call(this, items, ...rest);
      } catch (error) {
        if (error instanceof CostLimitExceeded) throw error;
        if (step !== undefined && steps.continuesAfterError) finishAfterError(items, count, rest as [ComprehensionArgs, LoopEvaluator, unknown], step);
        charge(steps.result);
        throw error;
      }
      const size = Array.isArray(items) ? items.length : items instanceof Map ? items.size : items !== null && typeof items === 'object' ? Object.keys(items).length : 0;
      if (count < size) charge(steps.brokenCondition, true);
      charge(steps.result);
      return result;
    } finally {
      count = outer;
    }
  });
}

// The engine's comprehension arguments, evaluator and iteration context, as far as finishAfterError uses them.
interface ComprehensionArgs {
  readonly init: EngineNode;
  readonly iterCtx: { reuse(ctx: unknown): LoopContext };
}
interface LoopContext {
  accuValue: unknown;
  setIterValue(v: unknown, ev: LoopEvaluator): LoopContext;
}
interface LoopEvaluator {
  run(node: EngineNode, ctx: unknown): unknown;
}

/**
 * In cel-go a failed step makes the error the accumulator, and map, filter and exists_one loop on
 * (their condition is constant true): the remaining elements' steps are evaluated and charged. The
 * engine stops at the first error, so the remaining steps are run here for their cost only, on a
 * fresh accumulator; their values and errors are discarded (the first error is the result).
 */
function finishAfterError(items: unknown, done: number, [args, ev, ctx]: [ComprehensionArgs, LoopEvaluator, unknown], step: EngineNode): void {
  const elements = Array.isArray(items) ? items : items instanceof Map ? [...items.keys()] : items !== null && typeof items === 'object' ? Object.keys(items) : [];
  const loop = args.iterCtx.reuse(ctx);
  loop.accuValue = withoutCharging(() => ev.run(args.init, loop));
  for (let i = done; i < elements.length; i++) {
    try {
      ev.run(step, loop.setIterValue(elements[i], ev));
    } catch (error) {
      if (error instanceof CostLimitExceeded) throw error;
    }
  }
}

/** Wraps every node of a checked program so evaluation charges the active tracker as cel-go would. */
export function instrument(root: EngineNode, evaluateConstant?: ConstantEvaluator): void {
  const nodes = allNodes(root);
  const p = plan(nodes);
  for (const node of nodes) {
    const op = node.op;
    if (p.folded.has(node)) {
      foldConversion(node, evaluateConstant);
      continue;
    }
    if (p.free.has(node)) continue;
    if (op === 'value' || op === '&&' || op === '||' || op === '?:' || op === 'comprehension' || op === 'accuValue') continue;
    if (op === '.?' || op === '[?]' || (SELECTS.has(op) && p.afterOptional.has(node))) {
      chargeUnlessAbsent(node, attributeCost(node, p));
    } else if (op !== 'id' && SELECTS.has(op) && (mayQualifyOptional(node) || attributeCost(node, p) > 1)) {
      chargeQualifier(node, attributeCost(node, p), mayQualifyOptional(node));
    } else if (op === 'id' || SELECTS.has(op)) {
      chargeAround(node, attributeCost(node, p));
    } else if (op === 'list') {
      if (!p.constant.has(node)) chargeAround(node, p.mapEntryList.has(node) ? MAP_CREATE_BASE_COST : LIST_CREATE_BASE_COST);
    } else if (op === 'map') {
      if (!p.constant.has(node)) chargeAround(node, MAP_CREATE_BASE_COST);
    } else if (op === 'accuInc') {
      chargeAround(node, 2);
    } else if (op === 'accuPush') {
      // cel-go's `accu + [item]`: the accumulator first, then the item, its list and the `+` call.
      chargeAround(node, p.constant.has(node.args as EngineNode) ? 0 : LIST_CREATE_BASE_COST, 1, 1);
    } else if (op === '!_' || op === '-_') {
      chargeAround(node, p.unary.get(node) ?? 1);
    } else if (BINARY.has(op)) {
      if (p.setMembership.has(node)) continue;
      instrumentCall(node, op, false, (a) => [a[0], a[1]], node.args as EngineNode[]);
    } else if (op === 'call') {
      if (node.meta.macro !== undefined || node.meta.alternate !== undefined) {
        // has() on a select from something other than a variable: the relative attribute's step.
        const [name, args] = node.args as [string, EngineNode[]];
        const sel = args[0];
        if (name === 'has' && sel !== undefined && SELECTS.has(sel.op) && !isAttribute(sel)) chargeAround(node, 1);
        continue;
      }
      const [name, args] = node.args as [string, EngineNode[]];
      instrumentCall(node, name, false, (a) => a[0] as unknown[], args);
    } else if (op === 'rcall') {
      const [name, receiver, args] = node.args as [string, EngineNode, EngineNode[]];
      if (node.meta.macro !== undefined || node.meta.alternate !== undefined) {
        instrumentComprehension(node, name);
        continue;
      }
      if (receiver.op === 'id' && NAMESPACES.has(receiver.args as string)) {
        instrumentCall(node, `${receiver.args as string}.${name}`, false, (a) => (a[0] as unknown[]).slice(1), args);
      } else {
        instrumentCall(node, name, true, (a) => a[0] as unknown[], [receiver, ...args]);
      }
    }
  }
}

export type { Evaluate };
