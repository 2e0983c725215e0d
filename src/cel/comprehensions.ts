// Macros the engine lacks, registered through its macro API (overloads taking `ast` arguments):
// cel-go's two-variable comprehensions (ext/comprehensions: all, exists, existsOne, transformList,
// transformMap, transformMapEntry) and the optional library's optMap/optFlatMap.
// Each macro keeps its sub-expressions in `args` so cost instrumentation reaches them.
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { charge, CostLimitExceeded, LIST_CREATE_BASE_COST } from './cost.ts';

// The engine's checker, evaluator, context and type objects, as far as these macros use them.
interface CelType {
  readonly kind: string;
  readonly valueType?: CelType;
  readonly keyType?: CelType;
}
interface Checker {
  check(node: unknown, ctx: Ctx): CelType;
  getType(name: string): CelType;
  createError(code: string, message: string, node?: unknown): Error;
  readonly registry: { getListType(t: CelType): CelType; getMapType(k: CelType, v: CelType): CelType };
}
interface Evaluator {
  run(node: unknown, ctx: Ctx): unknown;
}
interface Ctx {
  forkWithVariable(name: string, type: CelType): Ctx;
  setIterValue(v: unknown, ev: Evaluator): Ctx;
}
interface AstNode {
  readonly op: string;
  readonly args: unknown;
}

function fail(message: string): never {
  throw new Error(message);
}

function identifier(node: AstNode, what: string): string {
  if (node.op === 'id' && typeof node.args === 'string') return node.args;
  return fail(`${what} must be a simple name`);
}

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

interface TwoVarMacro {
  readonly kind: Kind;
  readonly first: string;
  readonly second: string;
  /** [receiver, filter?, body]: the body is the predicate or the transform. */
  readonly args: readonly AstNode[];
  readonly hasFilter: boolean;
  firstType?: CelType;
  secondType?: CelType;
  typeCheck(chk: Checker, m: TwoVarMacro, ctx: Ctx): CelType;
  evaluate(ev: Evaluator, m: TwoVarMacro, ctx: Ctx): unknown;
}

function concrete(chk: Checker, t: CelType | undefined): CelType {
  // An empty literal's element type is an unbound parameter; iterate it as dyn.
  return t === undefined || t.kind === 'param' ? chk.getType('dyn') : t;
}

function iterationTypes(chk: Checker, t: CelType): [CelType, CelType] {
  if (t.kind === 'list') return [chk.getType('int'), concrete(chk, t.valueType)];
  if (t.kind === 'map') return [concrete(chk, t.keyType), concrete(chk, t.valueType)];
  if (t.kind === 'dyn') return [chk.getType('dyn'), chk.getType('dyn')];
  throw chk.createError('invalid_comprehension_range', `Expression of type '${String(t)}' cannot be range of a comprehension (must be list, map, or dynamic).`);
}

function requireBool(chk: Checker, node: AstNode, ctx: Ctx, what: string): void {
  const t = chk.check(node, ctx);
  if (String(t) !== 'bool' && t.kind !== 'dyn') throw chk.createError('invalid_macro_argument', `${what} must return bool, got '${String(t)}'`, node);
}

function typeCheckTwoVar(chk: Checker, m: TwoVarMacro, ctx: Ctx): CelType {
  const [receiver, ...rest] = m.args as [AstNode, ...AstNode[]];
  const [t1, t2] = iterationTypes(chk, chk.check(receiver, ctx));
  m.firstType = t1;
  m.secondType = t2;
  const inner = ctx.forkWithVariable(m.first, t1).forkWithVariable(m.second, t2);
  const body = rest[rest.length - 1] as AstNode;
  if (m.hasFilter) requireBool(chk, rest[0] as AstNode, inner, `${m.kind} filter`);
  if (m.kind === 'all' || m.kind === 'exists' || m.kind === 'existsOne') {
    requireBool(chk, body, inner, `${m.kind} predicate`);
    return chk.getType('bool');
  }
  const out = chk.check(body, inner);
  if (m.kind === 'transformList') return chk.registry.getListType(out);
  if (m.kind === 'transformMap') return chk.registry.getMapType(t1, out);
  return chk.getType('map<dyn, dyn>');
}

function pairsOf(v: unknown): Array<[unknown, unknown]> {
  if (Array.isArray(v)) return v.map((x, i) => [BigInt(i), x]);
  if (v instanceof Map) return [...v.entries()];
  if (v !== null && typeof v === 'object' && v.constructor === Object) return Object.entries(v);
  return fail(`no such overload: comprehension over ${typeof v}`);
}

function entriesOf(v: unknown): Array<[unknown, unknown]> {
  if (v instanceof Map) return [...v.entries()];
  if (v !== null && typeof v === 'object' && v.constructor === Object) return Object.entries(v);
  return fail('transformMapEntry must return a map');
}

function asBool(v: unknown): boolean {
  return typeof v === 'boolean' ? v : fail('no such overload: predicate result is not bool');
}

/**
 * Evaluates a two-variable comprehension, charging what cel-go's expansion of it costs beyond its
 * sub-expressions (ext/comprehensions.go): all/exists pay the accumulator and loop condition per
 * element, existsOne an increment per match, transforms the accumulator update.
 */
function evaluateTwoVar(ev: Evaluator, m: TwoVarMacro, ctx: Ctx): unknown {
  const [receiver, ...rest] = m.args as [AstNode, ...AstNode[]];
  const pairs = pairsOf(ev.run(receiver, ctx));
  const outer = ctx.forkWithVariable(m.first, m.firstType as CelType);
  const inner = outer.forkWithVariable(m.second, m.secondType as CelType);
  const body = rest[rest.length - 1] as AstNode;
  const bind = (k: unknown, v: unknown): Ctx => {
    outer.setIterValue(k, ev);
    return inner.setIterValue(v, ev);
  };
  switch (m.kind) {
    case 'all':
    case 'exists': {
      // Errors are absorbed when another element decides the result, as CEL's && and || do.
      const decisive = m.kind === 'exists';
      const condition = decisive ? 3 : 2;
      let error: unknown;
      for (let i = 0; i < pairs.length; i++) {
        const [k, v] = pairs[i] as [unknown, unknown];
        charge(condition + 1, true);
        try {
          if (asBool(ev.run(body, bind(k, v))) === decisive) {
            if (i + 1 < pairs.length) charge(condition, true);
            charge(1);
            return decisive;
          }
        } catch (e) {
          error ??= e;
        }
      }
      if (error !== undefined) throw error;
      charge(1);
      return !decisive;
    }
    case 'existsOne': {
      // An error is cel-go's accumulator from then on: later elements are still evaluated and
      // charged, and the first error is the result.
      let count = 0;
      let error: unknown;
      for (const [k, v] of pairs) {
        try {
          if (!asBool(ev.run(body, bind(k, v)))) continue;
        } catch (e) {
          error ??= rethrowCostLimit(e);
          continue;
        }
        count++;
        charge(2);
      }
      charge(2);
      if (error !== undefined) throw error;
      return count === 1;
    }
    case 'transformList': {
      const out: unknown[] = [];
      let error: unknown;
      for (const [k, v] of pairs) {
        const c = bind(k, v);
        try {
          if (m.hasFilter && !asBool(ev.run(rest[0], c))) continue;
        } catch (e) {
          error ??= rethrowCostLimit(e);
          continue;
        }
        try {
          out.push(ev.run(body, c));
        } catch (e) {
          error ??= rethrowCostLimit(e);
        }
        charge(2 + (body.op === 'value' ? 0 : LIST_CREATE_BASE_COST));
      }
      charge(1);
      if (error !== undefined) throw error;
      return out;
    }
    default: {
      const out = new Map<unknown, unknown>();
      let error: unknown;
      for (const [k, v] of pairs) {
        const c = bind(k, v);
        try {
          if (m.hasFilter && !asBool(ev.run(rest[0], c))) continue;
        } catch (e) {
          error ??= rethrowCostLimit(e);
          continue;
        }
        let r: unknown;
        try {
          r = ev.run(body, c);
        } catch (e) {
          error ??= rethrowCostLimit(e);
        }
        charge(m.kind === 'transformMap' ? 3 : 2);
        if (error !== undefined) continue;
        if (m.kind === 'transformMap') out.set(k, r);
        else {
          try {
            for (const [k2, v2] of entriesOf(r)) {
              if (out.has(k2)) fail(`insert failed: key ${String(k2)} already exists`);
              out.set(k2, v2);
            }
          } catch (e) {
            error = e;
          }
        }
      }
      charge(1);
      if (error !== undefined) throw error;
      return out;
    }
  }
}

/** Returns a non-budget error to be carried as the accumulator; the budget error ends evaluation. */
function rethrowCostLimit(error: unknown): unknown {
  if (error instanceof CostLimitExceeded) throw error;
  return error;
}

function twoVarMacro(kind: Kind, hasFilter: boolean) {
  return ({ args, receiver }: { args: AstNode[]; receiver: AstNode }): TwoVarMacro => ({
    kind,
    first: identifier(args[0] as AstNode, `${kind} first variable`),
    second: identifier(args[1] as AstNode, `${kind} second variable`),
    args: [receiver, ...args.slice(2)],
    hasFilter,
    typeCheck: typeCheckTwoVar,
    evaluate: evaluateTwoVar,
  });
}

interface OptMapMacro {
  readonly flat: boolean;
  readonly name: string;
  /** [receiver, body] */
  readonly args: readonly AstNode[];
  valueType?: CelType;
  typeCheck(chk: Checker, m: OptMapMacro, ctx: Ctx): CelType;
  evaluate(ev: Evaluator, m: OptMapMacro, ctx: Ctx): unknown;
}

function typeCheckOptMap(chk: Checker, m: OptMapMacro, ctx: Ctx): CelType {
  const [receiver, body] = m.args as [AstNode, AstNode];
  const t = chk.check(receiver, ctx);
  if (t.kind !== 'optional' && t.kind !== 'dyn') throw chk.createError('optional_expected', `optMap receiver must be optional, got '${String(t)}'`, receiver);
  m.valueType = concrete(chk, t.valueType);
  const out = chk.check(body, ctx.forkWithVariable(m.name, m.valueType));
  if (m.flat) {
    if (out.kind !== 'optional' && out.kind !== 'dyn') throw chk.createError('optional_expected', `optFlatMap function must return optional, got '${String(out)}'`, body);
    return out.kind === 'dyn' ? chk.getType('optional<dyn>') : out;
  }
  // The engine names optional types by their value type; dyn keeps the checker permissive.
  return chk.getType('optional<dyn>');
}

/**
 * optMap/optFlatMap, charged as cel-go's expansion of them:
 * `t.hasValue() ? optional.of(cel.bind(v, t.value(), body)) : optional.none()` (no optional.of for
 * optFlatMap), in which the target `t` is evaluated a second time when it has a value.
 */
function evaluateOptMap(ev: Evaluator, m: OptMapMacro, ctx: Ctx): unknown {
  const [receiver, body] = m.args as [AstNode, AstNode];
  const opt = ev.run(receiver, ctx);
  if (!(opt instanceof Optional)) return fail('optMap receiver must be optional');
  charge(1);
  if (!opt.hasValue()) {
    charge(1);
    return Optional.none();
  }
  ev.run(receiver, ctx);
  charge(1);
  const r = ev.run(body, ctx.forkWithVariable(m.name, m.valueType as CelType).setIterValue(opt.value(), ev));
  if (!m.flat) {
    charge(1);
    return Optional.of(r);
  }
  return r instanceof Optional ? r : fail('optFlatMap function must return optional');
}

function optMapMacro(flat: boolean) {
  return ({ args, receiver }: { args: AstNode[]; receiver: AstNode }): OptMapMacro => ({
    flat,
    name: identifier(args[0] as AstNode, flat ? 'optFlatMap variable' : 'optMap variable'),
    args: [receiver, args[1] as AstNode],
    typeCheck: typeCheckOptMap,
    evaluate: evaluateOptMap,
  });
}

/**
 * Registers optMap/optFlatMap and, when asked, the two-variable comprehension macros (kube 1.32 has
 * them only in its stored-expressions environment: they came with 1.32 and the compatibility
 * version for new expressions is 1.31).
 */
export function registerComprehensionMacros(env: Environment, twoVariable: boolean): void {
  const reg = (signature: string, handler: unknown): void => {
    env.registerFunction(signature, handler as (...a: unknown[]) => unknown);
  };
  reg('optional.optMap(ast, ast): optional<dyn>', optMapMacro(false));
  reg('optional.optFlatMap(ast, ast): optional<dyn>', optMapMacro(true));
  if (!twoVariable) return;
  reg('list.all(ast, ast, ast): bool', twoVarMacro('all', false));
  reg('list.exists(ast, ast, ast): bool', twoVarMacro('exists', false));
  reg('list.existsOne(ast, ast, ast): bool', twoVarMacro('existsOne', false));
  reg('list.exists_one(ast, ast, ast): bool', twoVarMacro('existsOne', false));
  reg('list.transformList(ast, ast, ast): list<dyn>', twoVarMacro('transformList', false));
  reg('list.transformList(ast, ast, ast, ast): list<dyn>', twoVarMacro('transformList', true));
  reg('map.transformMap(ast, ast, ast): map<dyn, dyn>', twoVarMacro('transformMap', false));
  reg('map.transformMap(ast, ast, ast, ast): map<dyn, dyn>', twoVarMacro('transformMap', true));
  reg('map.transformMapEntry(ast, ast, ast): map<dyn, dyn>', twoVarMacro('transformMapEntry', false));
  reg('map.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>', twoVarMacro('transformMapEntry', true));
}
