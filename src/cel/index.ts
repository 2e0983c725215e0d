// The one module every caller uses for the expression language: compile once (cached by
// expression and environment), evaluate many times under a cost budget, estimate worst-case cost.
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { createKubernetesEngine } from './libraries.ts';
import { withCostBudget, CostLimitExceeded, COST_LIMIT_MESSAGE } from './cost.ts';
import { instrument } from './cost-plan.ts';
import type { EngineNode } from './engine-ast.ts';
import { AuthorizerValue, type Authorizer, type ResourceFields } from './authorizer.ts';
import { patchParsed, patchChecked } from './evaluation-patches.ts';
import { checkParsed, checkTyped } from './static-checks.ts';
import { checkDeclaredTypes, type OverloadProbe } from './schema-check.ts';
import { checkDynMemberCalls, type MemberOverload } from './member-calls.ts';
import { rewriteSource, checkSource } from './source-rewrite.ts';
import { estimateChecked, type CostEstimate } from './estimate.ts';
import type { CelType } from './schema-types.ts';
import { engineTypeName, type VariableDeclaration } from './declarations.ts';
import { outputTypeName, fieldPathsOf, type FieldPath } from './introspect.ts';
import { celGoEvalMessage } from './messages.ts';
import { celGoCompileText, foldedNoSuchOverload, type CompileErrorContext } from './compile-messages.ts';

export type { Authorizer, AuthorizationAttributes, AuthorizationDecision } from './authorizer.ts';
export { celTypeFromSchema, MAX_REQUEST_BYTES, toCelValue, escapePropertyName, unescapePropertyName, type CelType } from './schema-types.ts';
export { ADMISSION_REQUEST_TYPE, NAMESPACE_OBJECT_TYPE } from './admission-request-type.ts';
export type { CostEstimate } from './estimate.ts';
export { parseTypeName, type VariableDeclaration } from './declarations.ts';
export { parseQuantity, Quantity } from './quantity.ts';
export { COST_LIMIT_MESSAGE } from './cost.ts';

/** A CEL optional value: of `v`, or none when `v` is undefined (a rule's optional oldSelf). */
export function optionalOf(v: unknown): unknown {
  return v === undefined ? Optional.none() : Optional.of(v);
}
export type { FieldPath, PathStep } from './introspect.ts';

/** kube-apiserver's per-expression runtime budget for CRD rules and admission expressions. */
export const PER_CALL_COST_LIMIT = 1_000_000;

/**
 * kube-apiserver's two environments: `new` for expressions being created or changed (libraries up
 * to the compatibility version, 1.31 for 1.32), `stored` for expressions already persisted (every
 * library of 1.32, so a stored object never stops validating after a rollback or upgrade).
 */
export type ExpressionsEnvironment = 'new' | 'stored';

/** The variables an expression may name, with their types; values are bound at evaluation. */
export interface CelEnvironment {
  readonly variables: Readonly<Record<string, VariableDeclaration>>;
  /** Defaults to `new`. */
  readonly expressions?: ExpressionsEnvironment;
}

export interface CompiledExpression {
  readonly kind: 'compiled';
  readonly expression: string;
  /** @internal the engine's evaluator for this program. */
  readonly run: (activation: Record<string, unknown>) => unknown;
  /** @internal the checked program, for the cost estimate. */
  readonly ast: EngineNode;
  /** @internal the output type the declared (schema) types make certain where the engine sees dyn. */
  readonly declaredOutput?: string;
}

export interface CompileError {
  readonly kind: 'compileError';
  readonly expression: string;
  /** A message naming the problem, with a caret line under the offending position. */
  readonly message: string;
  /**
   * cel-go's display of the error as kube-apiserver prints it after `compilation failed: `
   * (`ERROR: <input>:1:5: found no matching overload for ...`, the source line, a caret line).
   */
  readonly celGoText: string;
  /** 1-based line and column of the problem, when the engine reports one. */
  readonly line?: number;
  readonly column?: number;
}

export type EvalResult =
  | { readonly kind: 'value'; readonly value: unknown; readonly cost: number }
  | { readonly kind: 'error'; readonly reason: 'CostLimitExceeded' | 'EvaluationError'; readonly message: string; readonly cost: number };

export interface EvaluateOptions {
  /** Maximum runtime cost; defaults to PER_CALL_COST_LIMIT. */
  readonly costBudget?: number;
}

const engines = new Map<string, Environment>();
const programs = new Map<string, CompiledExpression | CompileError>();
const MAX_CACHED_PROGRAMS = 10_000;
const bases = new Map<ExpressionsEnvironment, Environment>();

function declaredTypeName(decl: VariableDeclaration): string {
  return decl.type === 'dyn' ? 'dyn' : engineTypeName(decl.type);
}

function environmentKey(env: CelEnvironment): string {
  const vars = Object.keys(env.variables).sort().map((name) => `${name}:${declaredTypeName(env.variables[name] as VariableDeclaration)}`);
  return `${env.expressions ?? 'new'};${vars.join(',')}`;
}

/**
 * What a compiled program depends on: the engine's environment and the declared types in full.
 * Two schemas whose types the engine names alike (objects, maps) check the same expression
 * differently, so the program cache tells them apart by the types' structure.
 */
function programEnvironmentKey(env: CelEnvironment): string {
  const vars = Object.keys(env.variables).sort().map((name) => `${name}:${typeFingerprint(env.variables[name] as VariableDeclaration)}`);
  return `${env.expressions ?? 'new'};${vars.join(',')}`;
}

const fingerprints = new WeakMap<object, string>();

function typeFingerprint(decl: VariableDeclaration): string {
  if (decl.type === 'dyn' || typeof decl.type !== 'object') return declaredTypeName(decl);
  let f = fingerprints.get(decl.type);
  if (f === undefined) fingerprints.set(decl.type, (f = JSON.stringify(decl.type)));
  return f;
}

function engineFor(env: CelEnvironment): Environment {
  const key = environmentKey(env);
  let engine = engines.get(key);
  if (engine === undefined) {
    const kind = env.expressions ?? 'new';
    let base = bases.get(kind);
    if (base === undefined) {
      base = createKubernetesEngine(kind);
      bases.set(kind, base);
    }
    engine = base.clone({ unlistedVariablesAreDyn: false });
    for (const [name, decl] of Object.entries(env.variables)) {
      engine.registerVariable(name, name === 'authorizer' ? 'kubernetes.authorization.Authorizer' : declaredTypeName(decl));
    }
    engines.set(key, engine);
  }
  return engine;
}

interface Declarations {
  readonly functions: ReadonlySet<string>;
  readonly variables: ReadonlySet<string>;
  /** Member overloads by function name, namespaces' functions left out. */
  readonly members: ReadonlyMap<string, readonly MemberOverload[]>;
}

const declaredNames = new WeakMap<Environment, Declarations>();

/** What an engine declares: functions (member or global, any overload), variables and constants. */
function declarationsOf(engine: Environment): Declarations {
  let names = declaredNames.get(engine);
  if (names === undefined) {
    const definitions = engine.getDefinitions();
    // A namespace's functions (`strings.quote`) are no member functions of other receivers.
    const namespaced = (f: { receiverType: string | null }): boolean => f.receiverType?.endsWith('Namespace') === true;
    const functions = definitions.functions.map((f) => (namespaced(f) ? `${f.receiverType}.${f.name}` : f.name));
    const members = new Map<string, MemberOverload[]>();
    for (const f of definitions.functions) {
      if (f.receiverType === null || namespaced(f)) continue;
      members.set(f.name, [...(members.get(f.name) ?? []), { name: f.name, receiverType: f.receiverType, params: f.params.map((p) => p.type) }]);
    }
    // `cel` is the engine's namespace for cel.bind, which kube's environments do not declare.
    names = { functions: new Set(functions), variables: new Set(definitions.variables.map((v) => v.name).filter((n) => n !== 'cel')), members };
    declaredNames.set(engine, names);
  }
  return names;
}

function functionNames(engine: Environment): ReadonlySet<string> {
  return declarationsOf(engine).functions;
}

function compileError(expression: string, error: unknown, context: CompileErrorContext = {}): CompileError {
  const message = error instanceof Error ? error.message : String(error);
  const celGoText = celGoCompileText(expression, error, context);
  const node = (error as { node?: { pos?: number } }).node;
  const offset = typeof node?.pos === 'number' ? node.pos : undefined;
  if (offset === undefined) return { kind: 'compileError', expression, message, celGoText };
  const before = expression.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return { kind: 'compileError', expression, message, celGoText, line, column };
}

/** Compiles (parses and type-checks) an expression, or returns the cached result for the same expression and environment. */
export function compile(expression: string, env: CelEnvironment): CompiledExpression | CompileError {
  const key = `${programEnvironmentKey(env)}\u0000${expression}`;
  const cached = programs.get(key);
  if (cached !== undefined) return cached;
  const result = compileUncached(expression, env, true);
  if (programs.size >= MAX_CACHED_PROGRAMS) programs.clear();
  programs.set(key, result);
  return result;
}

/**
 * Parses, checks and plans a program. With `fold`, constant conversions are evaluated now (each
 * as a standalone program of its source text, which has no variables), as cel-go does when kube
 * builds the program; their errors are compile errors.
 */
function compileUncached(expression: string, env: CelEnvironment, fold: boolean): CompiledExpression | CompileError {
  let engine: Environment | undefined;
  let root: EngineNode | undefined;
  let source = expression;
  try {
    engine = engineFor(env);
    checkSource(expression);
    source = rewriteSource(expression);
    const program = engine.parse(source);
    root = program.ast as unknown as EngineNode;
    checkParsed(program.ast as unknown as EngineNode);
    patchParsed(program.ast as unknown as EngineNode);
    const checked = program.check();
    const probe: OverloadProbe = (name, member, operands) => hasOverload(env.expressions ?? 'new', name, member, operands);
    if (!checked.valid) {
      // The declared (schema) types are checked first: an operand the engine sees as dyn can be
      // the error cel-go reports (`self.replicas + 'a'`), where the engine only fails further out.
      checkDeclaredTypes(program.ast as unknown as EngineNode, env.variables, probe);
      throw checked.error;
    }
    checkTyped(program.ast as unknown as EngineNode);
    // Declared (schema) types first: they name the receiver a dyn-receiver check could only call dyn.
    const declaredOutput = checkDeclaredTypes(program.ast as unknown as EngineNode, env.variables, probe);
    checkDynMemberCalls(program.ast as unknown as EngineNode, declarationsOf(engine).members);
    patchChecked(program.ast as unknown as EngineNode);
    instrument(program.ast as unknown as EngineNode, fold ? (node) => evaluateConstant(source, node, env) : undefined);
    return { kind: 'compiled', expression, run: (activation) => program(activation), ast: program.ast as unknown as EngineNode, ...(declaredOutput !== undefined ? { declaredOutput } : {}) };
  } catch (error) {
    const declared = engine === undefined ? undefined : declarationsOf(engine);
    return compileError(expression, error, {
      root: expression === source ? root : undefined,
      functionDeclared: declared === undefined ? undefined : (name) => declared.functions.has(name),
      variableDeclared: declared === undefined ? undefined : (name) => declared.variables.has(name) || Object.hasOwn(env.variables, name),
    });
  }
}

const overloadAnswers = new Map<string, boolean>();

/**
 * Whether the environment has an overload of a function for operands of these concrete types:
 * the engine checks a call of it on variables of those types (answers cached by signature).
 */
function hasOverload(expressions: ExpressionsEnvironment, name: string, member: boolean, operands: readonly CelType[]): boolean {
  const variables: Record<string, VariableDeclaration> = {};
  operands.forEach((type, i) => (variables[`a${i}`] = { type }));
  const names = operands.map((_, i) => `a${i}`);
  const call = member ? `a0.${name}(${names.slice(1).join(', ')})` : `${name}(${names.join(', ')})`;
  const key = `${environmentKey({ variables, expressions })}\u0000${call}`;
  let answer = overloadAnswers.get(key);
  if (answer === undefined) {
    try {
      const engine = engineFor({ variables, expressions });
      // An unknown function is the engine's error to report (cel-go's "undeclared reference").
      answer = !functionNames(engine).has(name) || engine.parse(call).check().valid;
    } catch {
      answer = true;
    }
    overloadAnswers.set(key, answer);
  }
  return answer;
}

function evaluateConstant(source: string, node: EngineNode, env: CelEnvironment): { value: unknown } | { error: string } {
  const out = evaluateSourceOf(source, node, env);
  if ('error' in out && out.error === `no such overload: ${String((node.args as unknown[])[0])}` && node.op === 'call') {
    // Folding names the argument's runtime type too; the argument is a constant as well.
    const [argument] = (node.args as unknown[])[1] as EngineNode[];
    const value = argument === undefined ? undefined : evaluateSourceOf(source, argument, env);
    if (value !== undefined && 'value' in value) return { error: foldedNoSuchOverload(String((node.args as unknown[])[0]), value.value) };
  }
  return out;
}

/** Evaluates a constant node's source text as a standalone program (it has no variables). */
function evaluateSourceOf(source: string, node: EngineNode, env: CelEnvironment): { value: unknown } | { error: string } {
  const { start, end } = node as unknown as { start: number; end: number };
  const constant = compileUncached(source.slice(start, end), { variables: {}, expressions: env.expressions }, false);
  if (isCompileError(constant)) return { error: constant.message.split('\n')[0] ?? '' };
  const out = withCostBudget(Number.MAX_SAFE_INTEGER, () => constant.run({}));
  if (out.error !== undefined) return { error: celGoEvalMessage(out.error instanceof Error ? out.error.message.split('\n')[0] ?? '' : String(out.error)) };
  return { value: out.result };
}

/**
 * The checked type of a compiled expression's result in cel-go's spelling (`bool`, `string`,
 * `list(int)`, `map(string, dyn)`, `null_type`; `dyn` when not known statically), as kube names it
 * in "must evaluate to bool but got int".
 */
export function outputType(compiled: CompiledExpression): string {
  const engine = outputTypeName(compiled.ast);
  return engine === 'dyn' && compiled.declaredOutput !== undefined ? compiled.declaredOutput : engine;
}

/** The selection chains the expression starts at its variables (`object.spec.replicas`), as written. */
export function fieldPaths(compiled: CompiledExpression): FieldPath[] {
  return fieldPathsOf(compiled.ast);
}

export function isCompileError(c: CompiledExpression | CompileError): c is CompileError {
  return c.kind === 'compileError';
}

/**
 * Wraps an Authorizer as the value of the `authorizer` variable; with `requestResource`, the
 * admitted request's resource, `authorizer.requestResource` checks it (kube's admission CEL).
 */
export function authorizerValue(authz: Authorizer, requestResource?: ResourceFields): unknown {
  return new AuthorizerValue(authz, requestResource);
}

/** Evaluates a compiled expression against an activation (values already in CEL form, see toCelValue); never throws. */
export function evaluate(compiled: CompiledExpression, activation: Record<string, unknown>, options: EvaluateOptions = {}): EvalResult {
  const out = withCostBudget(options.costBudget ?? PER_CALL_COST_LIMIT, () => compiled.run(activation));
  if (out.exceeded || out.error instanceof CostLimitExceeded) {
    return { kind: 'error', reason: 'CostLimitExceeded', message: COST_LIMIT_MESSAGE, cost: out.cost };
  }
  if (out.error !== undefined) {
    const message = celGoEvalMessage(out.error instanceof Error ? out.error.message.split('\n')[0] ?? '' : String(out.error));
    return { kind: 'error', reason: 'EvaluationError', message, cost: out.cost };
  }
  return { kind: 'value', value: out.result, cost: out.cost };
}

/**
 * kube-apiserver's static cost estimate of an expression whose variables have the given types
 * (schema-derived types bound sizes through maxLength, maxItems and maxProperties); a compile error
 * when the expression does not compile in that environment.
 */
export function estimateCost(
  expression: string,
  variables: Readonly<Record<string, CelType>>,
  env: { readonly expressions?: ExpressionsEnvironment } = {},
): CostEstimate | { kind: 'compileError'; message: string } {
  const declared: Record<string, VariableDeclaration> = {};
  for (const [name, type] of Object.entries(variables)) declared[name] = { type };
  const compiled = compile(expression, { variables: declared, expressions: env.expressions });
  if (isCompileError(compiled)) return { kind: 'compileError', message: compiled.message };
  return estimateChecked(compiled.ast, variables);
}
