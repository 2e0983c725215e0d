/**
 * x-kubernetes-validations at run time: every rule of the schema is evaluated against the node it
 * stands on (`self`), and transition rules (those naming `oldSelf`) against the stored object's
 * correlated node too; all under kube's per-call and per-object runtime cost budgets.
 */
import { fieldErr, type FieldError } from '../api/field-errors.ts';
import { compile, evaluate, isCompileError, optionalOf, toCelValue, PER_CALL_COST_LIMIT, type CompiledExpression, type CelType } from '../cel/index.ts';
import type { Schema, ValidationRule } from '../schema/types.ts';
import { isPlainObject } from '../schema/walk.ts';
import { ruleVariables, usesOldSelf } from './validation.ts';
import { correlatedItem } from './correlation.ts';
import { jsonEqual } from '../registry/object-meta.ts';

/** kube's RuntimeCELCostBudget: the total for one object's rules. */
export const PER_OBJECT_COST_BUDGET = 10_000_000;

interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program?: CompiledExpression;
  readonly messageProgram?: CompiledExpression;
  readonly transition: boolean;
}

interface NodeRules {
  readonly type: CelType;
  readonly rules: readonly CompiledRule[];
}

const compiledBySchema = new WeakMap<Schema, NodeRules>();

/** `root`: `s` is the resource's root schema (its rules see apiVersion, kind and metadata's names). */
function rulesOf(s: Schema, root: boolean): NodeRules | undefined {
  const list = s['x-kubernetes-validations'];
  if (!list || list.length === 0) return undefined;
  let nr = compiledBySchema.get(s);
  if (!nr) {
    // Stored rules compile in the `stored` environment: a CRD accepted once keeps validating.
    const rules = list.map((rule): CompiledRule => {
      const transition = usesOldSelf(rule.rule);
      const p = compile(rule.rule, { variables: ruleVariables(s, transition, root, rule.optionalOldSelf === true), expressions: 'stored' });
      const m = rule.messageExpression ? compile(rule.messageExpression, { variables: ruleVariables(s, false, root), expressions: 'stored' }) : undefined;
      return { rule, transition, program: isCompileError(p) ? undefined : p, messageProgram: m && !isCompileError(m) ? m : undefined };
    });
    nr = { type: ruleVariables(s, false, root).self!.type, rules };
    compiledBySchema.set(s, nr);
  }
  return nr;
}

/** Whether any node of the schema carries rules (custom resources without any skip the walk). */
export function hasRules(s: Schema | undefined): boolean {
  if (!s) return false;
  if (s['x-kubernetes-validations']?.length) return true;
  return Object.values(s.properties ?? {}).some(hasRules) || hasRules(s.items) || (typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties));
}

interface Budget {
  remaining: number;
  exhausted: boolean;
  /** CRDValidationRatcheting: values an update leaves unchanged are not validated again. */
  readonly ratcheting: boolean;
}

/** Runs every rule of `schema` over `obj` (and `old` for transition rules); the field errors found. */
export function validateRules(obj: unknown, old: unknown, schema: Schema, ratcheting = true): FieldError[] {
  const errs: FieldError[] = [];
  walk(obj, old, schema, '', errs, { remaining: PER_OBJECT_COST_BUDGET, exhausted: false, ratcheting }, true);
  return errs;
}

function typeName(s: Schema): string {
  return s.type ?? (s['x-kubernetes-int-or-string'] ? 'string' : 'object');
}

/** Whether a node or any below it has a transition rule (one that reads oldSelf). */
function hasTransitionRules(s: Schema): boolean {
  let known = transitionBelow.get(s);
  if (known === undefined) {
    known =
      (s['x-kubernetes-validations'] ?? []).some((r) => usesOldSelf(r.rule)) ||
      Object.values(s.properties ?? {}).some(hasTransitionRules) ||
      (s.items !== undefined && hasTransitionRules(s.items)) ||
      (typeof s.additionalProperties === 'object' && hasTransitionRules(s.additionalProperties));
    transitionBelow.set(s, known);
  }
  return known;
}
const transitionBelow = new WeakMap<Schema, boolean>();

/**
 * `unchanged`: ratcheting found this value (or one above it) as the update found it, correlated
 * with the old object: only its transition rules run (kube never ratchets those).
 */
function walk(v: unknown, old: unknown, s: Schema, path: string, errs: FieldError[], budget: Budget, root = false, unchanged = false): void {
  if (budget.exhausted || v === undefined || v === null) return;
  if (!unchanged && budget.ratcheting && old !== undefined && jsonEqual(v, old)) unchanged = true;
  if (unchanged && !hasTransitionRules(s)) return;
  const nr = rulesOf(s, root);
  if (nr) runRules(v, old, s, nr, path, errs, budget, unchanged);
  if (isPlainObject(v)) {
    const oldObj = isPlainObject(old) ? old : undefined;
    for (const [k, child] of Object.entries(v)) {
      const field = s.properties?.[k];
      const cs = field ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      // A map's values are named by key, as kube's field paths write them (`labels[app]`).
      const childPath = field === undefined ? `${path}[${k}]` : path ? `${path}.${k}` : k;
      if (cs) walk(child, oldObj?.[k], cs, childPath, errs, budget, false, unchanged);
    }
  } else if (Array.isArray(v) && s.items) {
    // Items correlate with the old list's only through list-map keys (kube's ratcheting rule).
    v.forEach((item, i) => {
      const match = correlatedItem(item, old, s);
      walk(item, match, s.items!, `${path}[${i}]`, errs, budget, false, unchanged && match !== undefined);
    });
  }
}

function runRules(v: unknown, old: unknown, s: Schema, nr: NodeRules, path: string, errs: FieldError[], budget: Budget, unchanged: boolean): void {
  const self = toCelValue(v, nr.type);
  const oldSelf = old === undefined || old === null ? undefined : toCelValue(old, nr.type);
  const field = path || '<nil>';
  for (const cr of nr.rules) {
    if (!cr.program) continue;
    if (unchanged && !cr.transition) continue;
    // A transition rule needs the old value, unless it opts into an optional oldSelf.
    if (cr.transition && oldSelf === undefined && !cr.rule.optionalOldSelf) continue;
    const activation: Record<string, unknown> = { self };
    if (cr.transition) activation.oldSelf = cr.rule.optionalOldSelf ? optionalOf(oldSelf) : (oldSelf ?? null);
    const out = evaluate(cr.program, activation, { costBudget: Math.min(PER_CALL_COST_LIMIT, budget.remaining) });
    // kube's order: the cost against what is left of the object's budget first, then the error.
    if (out.cost > budget.remaining) {
      budget.exhausted = true;
      errs.push(fieldErr.invalid(field, typeName(s), 'validation failed due to running out of cost budget, no further validation rules will be run'));
      return;
    }
    budget.remaining -= out.cost;
    if (out.kind === 'error') {
      if (out.reason === 'CostLimitExceeded') {
        // Over the limit of one call: nothing more is validated (kube cannot trust the budget left).
        budget.exhausted = true;
        errs.push(fieldErr.invalid(field, typeName(s), `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(cr.rule)}`));
        return;
      } else if (out.message.startsWith('no such overload')) {
        // Only dynamic values (int-or-string) get past the type checker to fail like this.
        errs.push(fieldErr.invalid(field, typeName(s), `'${out.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(cr.rule)}`));
      } else errs.push(fieldErr.invalid(field, typeName(s), `${out.message} evaluating rule: ${ruleErrorString(cr.rule)}`));
      continue;
    }
    if (out.value === true) continue;
    errs.push(ruleError(cr, s, path, self, budget));
  }
}

/** How kube names a rule in an evaluation error: its message, else its expression. */
function ruleErrorString(rule: CompiledRule['rule']): string {
  const message = typeof rule.message === 'string' ? rule.message.trim() : '';
  return message !== '' ? message : rule.rule.trim();
}

function ruleError(cr: CompiledRule, s: Schema, path: string, self: unknown, budget: Budget): FieldError {
  const rule = cr.rule;
  let message = rule.message || `failed rule: ${rule.rule}`;
  if (cr.messageProgram) {
    const m = evaluate(cr.messageProgram, { self }, { costBudget: Math.min(PER_CALL_COST_LIMIT, budget.remaining) });
    budget.remaining -= m.cost;
    if (m.kind === 'value' && typeof m.value === 'string' && m.value.trim() !== '' && !/[\r\n]/.test(m.value)) message = m.value;
  }
  const base = rule.fieldPath ? `${path}${rule.fieldPath}`.replace(/^\./, '') : path;
  const field = base || '<nil>';
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return fieldErr.forbidden(field, message);
    case 'FieldValueRequired':
      return fieldErr.required(field, message);
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field, badValue: typeName(s), detail: message };
    default:
      return fieldErr.invalid(field, typeName(s), message);
  }
}
