/**
 * Evaluates one compiled policy against one request (and one parameter object): the match
 * conditions, then the validations with their messages, then the audit annotations, with kube's
 * runtime cost budget and its error texts. The result is a list of decisions the dispatcher turns
 * into denials, warnings and audit annotations per the binding's validationActions.
 */
import { evaluate, PER_CALL_COST_LIMIT, type CompiledExpression, type EvalResult } from '../../cel/index.ts';
import type { CompiledExpressionEntry, CompiledPolicy } from './compiled.ts';
import type { PolicyErrorType } from '../metrics.ts';

/** kube's RuntimeCELCostBudget: what all the expressions of one policy evaluation may spend together. */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** kube's MaxEvaluatedMessageExpressionSizeBytes and the longest audit annotation value it publishes. */
const MAX_MESSAGE_BYTES = 5 * 1024;
const MAX_AUDIT_VALUE_BYTES = 10 * 1024;
const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** The variables of one evaluation, already in CEL form (see toCelValue). */
export interface PolicyActivation {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly request: unknown;
  readonly namespaceObject: unknown;
  readonly params: unknown;
  readonly authorizer: unknown;
}

export interface PolicyDecision {
  readonly action: 'admit' | 'deny';
  /** Set for a failed validation or an error; absent when admitted. */
  readonly message: string;
  /** The validation's reason (Invalid unless it says otherwise). */
  readonly reason: string;
  /** The index of the validation, for the audit annotation; -1 for whole-policy errors. */
  readonly index: number;
  readonly evaluationError: boolean;
  /** An audit annotation's failure: kube denies it whatever the binding's validationActions say. */
  readonly denyAlways?: boolean;
  /** Seconds the decision took to evaluate (kube's PolicyDecision.Elapsed, for the check metrics). */
  readonly elapsed: number;
}

export interface PolicyResult {
  /** False when a match condition was false (or, under Ignore, failed): the policy does not apply. */
  readonly matched: boolean;
  readonly decisions: readonly PolicyDecision[];
  readonly auditAnnotations: readonly { readonly key: string; readonly value: string }[];
}

/** kube's "expression 'x' resulted in error: ..." failure of one expression, or its value. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: string; outOfBudget: boolean };

class Budget {
  remaining = RUNTIME_COST_BUDGET;

  /** Runs one expression under the per-call limit and what is left of the policy's budget. */
  run(entry: CompiledExpressionEntry, activation: Record<string, unknown>): Outcome {
    if (!entry.compiled.ok) return { ok: false, error: `compilation error: ${entry.compiled.detail}`, outOfBudget: false };
    const result: EvalResult = evaluate(entry.compiled.program as CompiledExpression, activation, { costBudget: Math.min(PER_CALL_COST_LIMIT, Math.max(0, this.remaining)) });
    // cel-go checks the policy budget before reporting the expression's own error.
    if (result.cost > this.remaining || (result.kind === 'error' && result.reason === 'CostLimitExceeded' && this.remaining < PER_CALL_COST_LIMIT)) {
      this.remaining = -1;
      return { ok: false, error: OUT_OF_BUDGET, outOfBudget: true };
    }
    this.remaining -= result.cost;
    if (result.kind === 'error') return { ok: false, error: `expression '${entry.expression}' resulted in error: ${result.message}`, outOfBudget: false };
    return { ok: true, value: result.value };
  }
}

/** A variables object whose fields evaluate on first use (kube's lazy composition), each once. */
function lazyVariables(policy: CompiledPolicy, base: Record<string, unknown>, budget: Budget): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  const activation = { ...base, variables };
  for (const v of policy.variables) {
    let memo: Outcome | undefined;
    Object.defineProperty(variables, v.name, {
      enumerable: true,
      configurable: true,
      get() {
        memo ??= budget.run(v, activation);
        if (memo.ok) return memo.value;
        // kube's composited variable error; the inner text without the expression's own prefix.
        const inner = memo.error.replace(/^expression '[\s\S]*' resulted in error: /, '');
        throw new Error(`composited variable "${v.name}" fails to evaluate: ${inner}`);
      },
    });
  }
  return activation;
}

function activationOf(policy: CompiledPolicy, input: PolicyActivation, budget: Budget): Record<string, unknown> {
  const base: Record<string, unknown> = {
    object: input.object,
    oldObject: input.oldObject,
    request: input.request,
    namespaceObject: input.namespaceObject,
    authorizer: input.authorizer,
  };
  if (policy.paramKind !== undefined) base.params = input.params;
  return policy.variables.length > 0 ? lazyVariables(policy, base, budget) : base;
}

function errorAction(policy: CompiledPolicy): 'admit' | 'deny' {
  return policy.failurePolicy === 'Ignore' ? 'admit' : 'deny';
}

/** Go's utilerrors.NewAggregate text: one error alone, several in brackets. */
function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

export function evaluatePolicy(policy: CompiledPolicy, input: PolicyActivation): PolicyResult {
  // Match conditions have a budget of their own (kube's RuntimeCELCostBudgetMatchConditions).
  const conditionsStarted = performance.now();
  const conditionBudget = new Budget();
  const conditionActivation = activationOf({ ...policy, variables: [] }, input, conditionBudget);
  const conditionErrors: string[] = [];
  for (const c of policy.matchConditions) {
    const out = conditionBudget.run(c, conditionActivation);
    if (!out.ok) {
      if (out.outOfBudget) {
        conditionErrors.push(out.error);
        break;
      }
      conditionErrors.push(out.error);
      continue;
    }
    if (out.value === false) return { matched: false, decisions: [], auditAnnotations: [] };
  }
  if (conditionErrors.length > 0) {
    if (policy.failurePolicy === 'Ignore') return { matched: false, decisions: [], auditAnnotations: [] };
    return { matched: true, decisions: [{ action: 'deny', message: aggregate(conditionErrors), reason: 'Invalid', index: -1, evaluationError: true, elapsed: secondsSince(conditionsStarted) }], auditAnnotations: [] };
  }

  const budget = new Budget();
  const activation = activationOf(policy, input, budget);
  const decisions: PolicyDecision[] = [];
  for (let i = 0; i < policy.validations.length; i++) {
    const v = policy.validations[i]!;
    const started = performance.now();
    const out = budget.run(v, activation);
    if (!out.ok) {
      // Out of budget: kube stops and reports that one error for the whole policy.
      if (out.outOfBudget) return { matched: true, decisions: [{ action: errorAction(policy), message: out.error, reason: 'Invalid', index: -1, evaluationError: true, elapsed: secondsSince(started) }], auditAnnotations: [] };
      decisions.push({ action: errorAction(policy), message: out.error, reason: 'Invalid', index: i, evaluationError: true, elapsed: secondsSince(started) });
      continue;
    }
    if (out.value === true) {
      decisions.push({ action: 'admit', message: '', reason: '', index: i, evaluationError: false, elapsed: secondsSince(started) });
      continue;
    }
    const message = failureMessage(v, budget, activation);
    decisions.push({ action: 'deny', message, reason: v.reason || 'Invalid', index: i, evaluationError: false, elapsed: secondsSince(started) });
  }

  const auditAnnotations: { key: string; value: string }[] = [];
  for (const a of policy.auditAnnotations) {
    const started = performance.now();
    const out = budget.run(a, activation);
    if (!out.ok) {
      if (policy.failurePolicy === 'Fail') decisions.push({ action: 'deny', message: out.error, reason: 'Invalid', index: -1, evaluationError: true, denyAlways: true, elapsed: secondsSince(started) });
      if (out.outOfBudget) break;
      continue;
    }
    if (typeof out.value === 'string') {
      const value = out.value.trim();
      if (value !== '' && Buffer.byteLength(value) <= MAX_AUDIT_VALUE_BYTES) auditAnnotations.push({ key: `${policy.name}/${a.key}`, value });
    } else if (out.value !== null && policy.failurePolicy === 'Fail') {
      decisions.push({
        action: 'deny',
        message: `valueExpression '${a.expression}' resulted in unsupported return type. Return type must be either string or null.`,
        reason: 'Invalid',
        index: -1,
        evaluationError: true,
        denyAlways: true,
        elapsed: secondsSince(started),
      });
    }
  }
  return { matched: true, decisions, auditAnnotations };
}

function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}

/** kube's ErrorType of a decision, the `error_type` label of the check metrics. */
export function decisionErrorType(d: PolicyDecision): PolicyErrorType {
  if (!d.evaluationError) return 'no_error';
  if (d.message.startsWith('compilation')) return 'compile_error';
  if (d.message.startsWith(OUT_OF_BUDGET)) return 'out_of_budget';
  return 'invalid_error';
}

/**
 * The message of a failed validation: its messageExpression's value when that evaluates to a
 * usable string (non-empty, one line, at most 5 KiB), else `message`, else `failed expression: <expr>`.
 */
function failureMessage(v: CompiledPolicy['validations'][number], budget: Budget, activation: Record<string, unknown>): string {
  if (v.messageExpression !== undefined) {
    const out = budget.run(v.messageExpression, activation);
    if (out.ok && typeof out.value === 'string') {
      const text = out.value.trim();
      if (text !== '' && Buffer.byteLength(text) <= MAX_MESSAGE_BYTES && !/[\n\r]/.test(text)) return text;
    }
  }
  return v.message !== '' ? v.message : `failed expression: ${v.expression.trim()}`;
}
