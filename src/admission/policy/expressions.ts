/**
 * The expression environments of a ValidatingAdmissionPolicy, and compilation with kube's error
 * texts. Validation of the kinds and the runtime compile through here, so a policy that was
 * accepted compiles the same way when it is enforced.
 *
 * kube declares `object`, `oldObject`, `request` and `namespaceObject` always; `params` only when
 * the policy has a paramKind; `authorizer` everywhere but in messageExpression; `variables` only
 * when the policy defines variables (its composited compiler).
 */
import { ADMISSION_REQUEST_TYPE, NAMESPACE_OBJECT_TYPE, compile, isCompileError, outputType, parseTypeName, type CelType, type CompiledExpression, type CelEnvironment, type ExpressionsEnvironment, type VariableDeclaration } from '../../cel/index.ts';

export interface ExpressionOptions {
  readonly hasParams: boolean;
  readonly hasAuthorizer: boolean;
  readonly hasVariables: boolean;
  /** `stored` for expressions an update leaves unchanged (kube's preexisting expressions). */
  readonly environment?: ExpressionsEnvironment;
  /**
   * The variables declared so far, each typed by its expression's output (kube's composited
   * compiler declares a variable once compiled: all of them for validations, the earlier ones for
   * a variable); `variables.<other>` is an undefined field. Only with hasVariables.
   */
  readonly variables?: readonly PolicyVariable[];
}

/** A policy variable as later expressions see it: `variables.<name>` of its expression's type. */
export interface PolicyVariable {
  readonly name: string;
  readonly type: CelType;
}

const DYN_TYPE: CelType = { kind: 'dyn' };

/**
 * The type kube declares for a variable compiled to `compiled` (composition's AddField): its
 * output type when scalars, lists and maps of them make it up, dyn otherwise or when it failed.
 */
export function variableTypeOf(compiled: Compiled): CelType {
  if (!compiled.ok) return DYN_TYPE;
  const name = outputType(compiled.program);
  try {
    return parseTypeName(name === 'null_type' ? 'null' : name);
  } catch {
    return DYN_TYPE;
  }
}

const DYN: VariableDeclaration = { type: 'dyn' };
const REQUEST: VariableDeclaration = { type: ADMISSION_REQUEST_TYPE };
const NAMESPACE: VariableDeclaration = { type: NAMESPACE_OBJECT_TYPE };
const VARIABLES: VariableDeclaration = { type: { kind: 'map', key: { kind: 'string' }, value: { kind: 'dyn' } } };

const environments = new Map<string, CelEnvironment>();

function environmentFor(opts: ExpressionOptions): CelEnvironment {
  const declared = opts.hasVariables && opts.variables !== undefined ? opts.variables : undefined;
  const key = `${opts.hasParams}/${opts.hasAuthorizer}/${opts.hasVariables}/${opts.environment ?? 'new'}/${declared === undefined ? '' : JSON.stringify(declared)}`;
  let env = environments.get(key);
  if (env === undefined) {
    const variables: Record<string, VariableDeclaration> = { object: DYN, oldObject: DYN, request: REQUEST, namespaceObject: NAMESPACE };
    if (opts.hasParams) variables.params = DYN;
    if (opts.hasAuthorizer) variables.authorizer = DYN;
    // kube's kubernetes.variables object type: one field per variable compiled so far.
    if (declared !== undefined) variables.variables = { type: { kind: 'object', fields: Object.fromEntries(declared.map((v) => [v.name, v.type])) } };
    else if (opts.hasVariables) variables.variables = VARIABLES;
    env = { variables, expressions: opts.environment ?? 'new' };
    environments.set(key, env);
  }
  return env;
}

/** What an expression must evaluate to; `any` for variables. */
export type ExpectedType = 'bool' | 'string' | 'stringOrNull' | 'any';

/** `internal`: building the program failed (a folded constant), which kube reports as an internal error of the field. */
export type Compiled = { readonly ok: true; readonly program: CompiledExpression } | { readonly ok: false; readonly detail: string; readonly internal?: boolean };

/** cel-go compares the checked output type exactly: a `dyn` result is refused where a bool is expected. */
function acceptsType(expected: ExpectedType, name: string): boolean {
  if (expected === 'any') return true;
  if (expected === 'stringOrNull') return name === 'string' || name === 'null_type';
  return name === expected;
}

/** Compiles one expression of a policy and checks its output type; `detail` is kube's message after `Invalid value: "expr": `. */
export function compilePolicyExpression(expression: string, expected: ExpectedType, opts: ExpressionOptions): Compiled {
  const program = compile(expression, environmentFor(opts));
  if (isCompileError(program)) {
    if (program.celGoText.startsWith('program instantiation failed: ')) return { ok: false, detail: program.celGoText, internal: true };
    return { ok: false, detail: `compilation failed: ${program.celGoText}` };
  }
  const type = outputType(program);
  if (!acceptsType(expected, type)) {
    const want = expected === 'stringOrNull' ? 'one of [string null_type]' : expected;
    return { ok: false, detail: `must evaluate to ${want} but got ${type}` };
  }
  return { ok: true, program };
}

/** kube's CEL identifier rule for variable names: an identifier that is not a reserved word. */
const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

export function isCelIdentifier(name: string): boolean {
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !CEL_RESERVED.has(name);
}
