/**
 * Static type checking of a policy's expressions against the schemas of the kinds its
 * matchConstraints name (kube's validatingadmissionpolicy TypeChecker, whose results the status
 * controller writes to `status.typeChecking`).
 *
 * Each validation and message expression is compiled again with `object` (and `params`) typed
 * from the schemas, and cel-go's issues are reported: fields the kind does not have, operands of
 * the wrong types, in cel-go's error format.
 */
import type { Schema } from '../../schema/types.ts';
import { ADMISSION_REQUEST_TYPE, NAMESPACE_OBJECT_TYPE, celTypeFromSchema, compile, isCompileError, type VariableDeclaration } from '../../cel/index.ts';
import type { CompiledPolicy } from './compiled.ts';

/** A kind a policy's rules name, with its schema. */
export interface CheckedKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly schema: Schema;
}

export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

/** kube checks at most this many kinds per policy. */
const MAX_TYPES_TO_CHECK = 10;

/** kube's typesToCheck: every group × version × resource of the rules, none when any names a wildcard. */
export function kindsToCheck(resourceRules: readonly Record<string, unknown>[], resolve: (group: string, version: string, resource: string) => CheckedKind | undefined): CheckedKind[] {
  const found = new Map<string, CheckedKind>();
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  for (const rule of resourceRules) {
    const groups = strings(rule.apiGroups);
    const versions = strings(rule.apiVersions);
    const resources = strings(rule.resources).filter((r) => !r.includes('/'));
    if ([...groups, ...versions, ...resources].some((x) => x.includes('*'))) continue;
    for (const g of [...groups].sort()) {
      for (const v of [...versions].sort()) {
        for (const r of [...resources].sort()) {
          const k = resolve(g, v, r);
          if (k === undefined) continue;
          found.set(`${k.group}/${k.version}/${k.kind}`, k);
          if (found.size === MAX_TYPES_TO_CHECK) return sortKinds([...found.values()]);
        }
      }
    }
  }
  return sortKinds([...found.values()]);
}

function sortKinds(kinds: CheckedKind[]): CheckedKind[] {
  return kinds.sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : 1));
}

function gvkString(k: CheckedKind): string {
  return `${k.group}/${k.version}, Kind=${k.kind}`;
}

/**
 * The warnings kube's type checker writes for a policy: per validation expression and message
 * expression, the issues against each kind (`<gvk>: <issues>` lines).
 */
export function typeCheckPolicy(policy: CompiledPolicy, kinds: readonly CheckedKind[], paramSchema: Schema | undefined): ExpressionWarning[] {
  if (kinds.length === 0) return [];
  const warnings: ExpressionWarning[] = [];
  // One environment per kind, made once for all the policy's expressions.
  const environments = kinds.map((k) => ({ kind: k, variables: typedVariables(k.schema, paramSchema, policy.variables.length > 0) }));
  const check = (fieldRef: string, entry: CompiledPolicy['validations'][number] | undefined) => {
    if (entry === undefined || !entry.compiled.ok) return;
    const results: string[] = [];
    for (const { kind, variables } of environments) {
      const issues = typedIssues(entry.expression, variables);
      if (issues !== undefined) results.push(`${gvkString(kind)}: ${issues}\n`);
    }
    if (results.length > 0) warnings.push({ fieldRef, warning: results.join('\n') });
  };
  policy.validations.forEach((v, i) => {
    check(`spec.validations[${i}].expression`, v);
    if (v.messageExpression !== undefined) check(`spec.validations[${i}].messageExpression`, { ...v, ...v.messageExpression });
  });
  return warnings;
}

const DYN: VariableDeclaration = { type: 'dyn' };
const VARIABLES: VariableDeclaration = { type: { kind: 'map', key: { kind: 'string' }, value: { kind: 'dyn' } } };

/**
 * The variables kube's type checker declares for one kind: `object` and `oldObject` of the kind's
 * type, `params` of the paramKind's (undeclared when it cannot be resolved, as in kube), `request`
 * and `namespaceObject` of kube's declared types. (Variables stay dyn here: their own types are
 * not derived.)
 */
function typedVariables(schema: Schema, paramSchema: Schema | undefined, hasVariables: boolean): Record<string, VariableDeclaration> {
  const object: VariableDeclaration = { type: celTypeFromSchema(schema, { resourceRoot: true }) };
  const variables: Record<string, VariableDeclaration> = { object, oldObject: object, request: { type: ADMISSION_REQUEST_TYPE }, namespaceObject: { type: NAMESPACE_OBJECT_TYPE }, authorizer: DYN };
  if (paramSchema !== undefined) variables.params = { type: celTypeFromSchema(paramSchema, { resourceRoot: true }) };
  if (hasVariables) variables.variables = VARIABLES;
  return variables;
}

/** An expression compiled as kube's type checker compiles it: cel-go's issues text, or undefined when it checks. */
function typedIssues(expression: string, variables: Record<string, VariableDeclaration>): string | undefined {
  const compiled = compile(expression, { variables, expressions: 'stored' });
  if (!isCompileError(compiled) || compiled.celGoText.startsWith('program instantiation failed: ')) return undefined;
  return compiled.celGoText;
}
