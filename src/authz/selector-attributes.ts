/**
 * The field and label selectors of authorization attributes (kube's AuthorizeWithSelectors):
 * a list, watch or deletecollection is authorized together with the selectors it asks for, so
 * that a webhook can allow "list pods with spec.nodeName=me" without allowing every pod.
 *
 * Attributes carry a selector in one of two forms:
 * - the raw text of a request's query (or of a review's rawSelector, or of a CEL
 *   `.fieldSelector(s)` check), parsed only by the one mode that reads selectors, Webhook;
 * - requirements an access review gave, already converted as kube's ResourceAttributesFrom does.
 *
 * The webhook sends requirements only, never the raw text, and drops what it cannot express
 * (requirements only narrow a request, so dropping one asks about something broader).
 */
import { fieldErr, type FieldError } from '../api/field-errors.ts';
import { isLabelValue, isQualifiedName } from '../api/validation/names.ts';
import { parseFieldSelector } from '../registry/field-selector.ts';
import { parseLabelSelector } from '../registry/label-selector.ts';

/** metav1.FieldSelectorRequirement and metav1.LabelSelectorRequirement, as the review APIs write them. */
export interface SelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** A selector of the attributes: raw text, or requirements already converted. */
export type SelectorAttribute = string | readonly SelectorRequirement[];

/** The field selector's requirements a webhook is sent (none when it does not parse, or none is left). */
export function fieldRequirements(sel: SelectorAttribute | undefined): SelectorRequirement[] | undefined {
  if (sel === undefined || sel === '') return undefined;
  let reqs: SelectorRequirement[];
  if (typeof sel === 'string') {
    try {
      reqs = parseFieldSelector(sel).requirements.map((r) => ({ key: r.field, operator: r.op === '!=' ? 'NotIn' : 'In', values: [r.value] }));
    } catch {
      return undefined;
    }
  } else reqs = sel.filter((r) => r.operator === 'In' || r.operator === 'NotIn');
  return reqs.length > 0 ? reqs : undefined;
}

/** Parsed label operators as the webhook names them; `gt` and `lt` have no name there and are dropped. */
const LABEL_OPERATORS: Readonly<Record<string, string>> = { in: 'In', '=': 'In', '==': 'In', notin: 'NotIn', '!=': 'NotIn', exists: 'Exists', '!': 'DoesNotExist' };
const LABEL_API_OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** The label selector's requirements a webhook is sent (none when it does not parse, or none is left). */
export function labelRequirements(sel: SelectorAttribute | undefined): SelectorRequirement[] | undefined {
  if (sel === undefined || sel === '') return undefined;
  let reqs: SelectorRequirement[] = [];
  if (typeof sel === 'string') {
    try {
      for (const r of parseLabelSelector(sel).requirements) {
        const operator = LABEL_OPERATORS[r.operator];
        if (operator !== undefined) reqs.push({ key: r.key, operator, ...(r.values.length > 0 ? { values: [...r.values] } : {}) });
      }
    } catch {
      return undefined;
    }
  } else reqs = sel.filter((r) => LABEL_API_OPERATORS.has(r.operator));
  return reqs.length > 0 ? reqs : undefined;
}

type Obj = Record<string, unknown>;

/** The requirements of a review's selector as given: objects with a string key and operator, string values. */
function requirementsOf(sel: Obj): SelectorRequirement[] {
  const list = Array.isArray(sel.requirements) ? sel.requirements : [];
  return list.map((r: unknown) => {
    const o = (typeof r === 'object' && r !== null ? r : {}) as Obj;
    const values = Array.isArray(o.values) ? o.values.filter((v): v is string => typeof v === 'string') : [];
    return { key: typeof o.key === 'string' ? o.key : '', operator: typeof o.operator === 'string' ? o.operator : '', values };
  });
}

const rawOf = (sel: Obj): string => (typeof sel.rawSelector === 'string' ? sel.rawSelector : '');

/**
 * kube's validateFieldSelectorAttributes and validateLabelSelectorAttributes for an access
 * review's `spec.resourceAttributes` (unknown operators allowed: a newer client may know more).
 */
export function validateReviewSelectors(resourceAttributes: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const base = 'spec.resourceAttributes';
  for (const which of ['fieldSelector', 'labelSelector'] as const) {
    const sel = resourceAttributes[which];
    if (typeof sel !== 'object' || sel === null) continue;
    const path = `${base}.${which}`;
    const raw = rawOf(sel as Obj);
    const reqs = requirementsOf(sel as Obj);
    if (raw !== '' && reqs.length > 0) errs.push(fieldErr.invalid(`${path}.rawSelector`, raw, 'may not specified at the same time as requirements'));
    if (raw === '' && reqs.length === 0) errs.push(fieldErr.required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
    reqs.forEach((r, i) => {
      const at = `${path}.requirements[${i}]`;
      if (which === 'fieldSelector' && r.key === '') errs.push(fieldErr.required(`${at}.key`, 'must be specified'));
      const values = r.values ?? [];
      if (r.operator === 'In' || r.operator === 'NotIn') {
        if (values.length === 0) errs.push(fieldErr.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
        if (values.length > 0) errs.push(fieldErr.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      if (which === 'labelSelector') {
        for (const msg of isQualifiedName(r.key)) errs.push(fieldErr.invalid(`${at}.key`, r.key, msg));
        values.forEach((v, j) => {
          for (const msg of isLabelValue(v)) errs.push(fieldErr.invalid(`${at}.values[${j}]`, v, msg));
        });
      }
    });
  }
  return errs;
}

/** What an access review's selector becomes in the attributes, and whether part of it could not be used. */
export interface ReviewSelector {
  readonly selector: SelectorAttribute | undefined;
  /** kube's BuildEvaluationError wording for the selector: nothing, partly or wholly ignored. */
  readonly ignored: 'partially' | 'wholly' | undefined;
}

/**
 * kube's ResourceAttributesFrom for one (validated) selector: a raw selector is used when it
 * parses and ignored when it does not; requirements are converted one by one, and those that
 * cannot be (an unknown operator; Exists, DoesNotExist or several values in a field selector)
 * are left out.
 */
export function reviewSelector(which: 'fieldSelector' | 'labelSelector', sel: unknown): ReviewSelector {
  if (typeof sel !== 'object' || sel === null) return { selector: undefined, ignored: undefined };
  const raw = rawOf(sel as Obj);
  if (raw !== '') {
    try {
      if (which === 'fieldSelector') parseFieldSelector(raw);
      else parseLabelSelector(raw);
      return { selector: raw, ignored: undefined };
    } catch {
      return { selector: undefined, ignored: 'wholly' };
    }
  }
  const given = requirementsOf(sel as Obj);
  const converted: SelectorRequirement[] = [];
  let failed = false;
  for (const r of given) {
    const values = r.values ?? [];
    const ok =
      which === 'fieldSelector'
        ? (r.operator === 'In' || r.operator === 'NotIn') && values.length === 1
        : LABEL_API_OPERATORS.has(r.operator);
    if (!ok) {
      failed = true;
      continue;
    }
    converted.push(values.length > 0 ? { key: r.key, operator: r.operator, values } : { key: r.key, operator: r.operator });
  }
  if (converted.length === 0) return { selector: undefined, ignored: failed ? 'wholly' : undefined };
  return { selector: converted, ignored: failed ? 'partially' : undefined };
}

/** The evaluation error of a review whose selectors were not (wholly) used, after the authorizer's own. */
export function selectorEvaluationErrors(field: ReviewSelector, label: ReviewSelector): string[] {
  const out: string[] = [];
  if (field.ignored) out.push(`spec.resourceAttributes.fieldSelector ${field.ignored === 'partially' ? 'partially ' : ''}ignored due to parse error`);
  if (label.ignored) out.push(`spec.resourceAttributes.labelSelector ${label.ignored === 'partially' ? 'partially ' : ''}ignored due to parse error`);
  return out;
}
