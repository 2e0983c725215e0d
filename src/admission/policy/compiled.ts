/**
 * A ValidatingAdmissionPolicy or binding as the plugin uses it: every expression compiled and
 * every selector parsed once per stored version (the cache below is keyed by name and
 * resourceVersion), never per request.
 *
 * Stored policies compile in the `stored` environment, as kube's runtime does; an expression
 * that no longer compiles stays in the policy as its compile error, which evaluation reports.
 */
import type { KubeObject } from '../../api/types.ts';
import { compileMatch, type CompiledMatch } from './matching.ts';
import { compilePolicyExpression, variableTypeOf, type Compiled, type ExpectedType, type ExpressionOptions, type PolicyVariable } from './expressions.ts';

export interface CompiledExpressionEntry {
  readonly expression: string;
  readonly compiled: Compiled;
}

export interface CompiledValidation extends CompiledExpressionEntry {
  readonly message: string;
  readonly messageExpression?: CompiledExpressionEntry;
  readonly reason: string;
}

export interface CompiledPolicy {
  readonly name: string;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly paramKind?: { readonly apiVersion: string; readonly kind: string };
  /** Undefined when the selectors cannot be parsed: the policy then fails as misconfigured. */
  readonly match?: CompiledMatch;
  readonly matchError?: string;
  readonly matchConditions: readonly (CompiledExpressionEntry & { readonly name: string })[];
  readonly variables: readonly (CompiledExpressionEntry & { readonly name: string })[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly (CompiledExpressionEntry & { readonly key: string })[];
}

export interface CompiledBinding {
  readonly name: string;
  readonly policyName: string;
  readonly validationActions: readonly string[];
  readonly paramRef?: {
    readonly name: string;
    readonly namespace: string;
    readonly selector?: Record<string, unknown>;
    readonly parameterNotFoundAction: string;
  };
  readonly match?: CompiledMatch;
  readonly matchError?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object') : []);
const obj = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

function entry(expression: string, expected: ExpectedType, opts: ExpressionOptions): CompiledExpressionEntry {
  return { expression, compiled: compilePolicyExpression(expression, expected, { ...opts, environment: 'stored' }) };
}

function compileMatchSafely(raw: Record<string, unknown> | undefined): { match?: CompiledMatch; matchError?: string } {
  try {
    return { match: compileMatch(raw) };
  } catch (err) {
    return { matchError: err instanceof Error ? err.message : String(err) };
  }
}

export function compilePolicy(policy: KubeObject): CompiledPolicy {
  const spec = obj(policy.spec) ?? {};
  const paramKind = obj(spec.paramKind);
  const hasParams = paramKind !== undefined;
  const hasVariables = arr(spec.variables).length > 0;
  // Each variable compiles seeing the earlier ones, typed by their expressions (kube's composited compiler).
  const declared: PolicyVariable[] = [];
  const variables = arr(spec.variables).map((v) => {
    const name = str(v.name);
    const compiled = entry(str(v.expression), 'any', { hasParams, hasAuthorizer: true, hasVariables, variables: [...declared] });
    declared.push({ name, type: variableTypeOf(compiled.compiled) });
    return { name, ...compiled };
  });
  const base = { hasParams, hasAuthorizer: true, hasVariables, variables: declared };
  const constraints = compileMatchSafely(obj(spec.matchConstraints) ?? {});
  return {
    name: policy.metadata?.name ?? '',
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    ...(paramKind ? { paramKind: { apiVersion: str(paramKind.apiVersion), kind: str(paramKind.kind) } } : {}),
    ...constraints,
    matchConditions: arr(spec.matchConditions).map((c) => ({ name: str(c.name), ...entry(str(c.expression), 'bool', { ...base, hasVariables: false }) })),
    variables,
    validations: arr(spec.validations).map((v) => {
      const messageExpression = str(v.messageExpression);
      return {
        ...entry(str(v.expression), 'bool', base),
        message: str(v.message),
        reason: str(v.reason),
        ...(messageExpression.trim() !== '' ? { messageExpression: entry(messageExpression, 'string', { ...base, hasAuthorizer: false }) } : {}),
      };
    }),
    auditAnnotations: arr(spec.auditAnnotations).map((a) => ({ key: str(a.key), ...entry(str(a.valueExpression).trim(), 'stringOrNull', base) })),
  };
}

export function compileBinding(binding: KubeObject): CompiledBinding {
  const spec = obj(binding.spec) ?? {};
  const ref = obj(spec.paramRef);
  const match = obj(spec.matchResources);
  return {
    name: binding.metadata?.name ?? '',
    policyName: str(spec.policyName),
    validationActions: Array.isArray(spec.validationActions) ? spec.validationActions.filter((a): a is string => typeof a === 'string') : [],
    ...(ref
      ? {
          paramRef: {
            name: str(ref.name),
            namespace: str(ref.namespace),
            ...(obj(ref.selector) ? { selector: obj(ref.selector) } : {}),
            parameterNotFoundAction: str(ref.parameterNotFoundAction),
          },
        }
      : {}),
    ...(match ? compileMatchSafely(match) : {}),
  };
}

/** Compiled objects by name, recompiled only when the stored version changes. */
export class CompiledCache<T> {
  private readonly byKey = new Map<string, { version: number; value: T }>();

  constructor(private readonly compileOne: (obj: KubeObject) => T) {}

  /** The compiled form of every entry, in the entries' order; forgets objects no longer listed. */
  sync(entries: readonly { readonly key: string; readonly modRevision: number; readonly value: KubeObject }[]): T[] {
    const out: T[] = [];
    const seen = new Set<string>();
    for (const e of entries) {
      seen.add(e.key);
      let hit = this.byKey.get(e.key);
      if (hit === undefined || hit.version !== e.modRevision) {
        hit = { version: e.modRevision, value: this.compileOne(e.value) };
        this.byKey.set(e.key, hit);
      }
      out.push(hit.value);
    }
    if (this.byKey.size > seen.size) for (const k of this.byKey.keys()) if (!seen.has(k)) this.byKey.delete(k);
    return out;
  }
}
