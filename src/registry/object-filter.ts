/**
 * Label and field selectors of a list or watch, combined into one predicate over served objects.
 */
import type { KubeObject, ResourceType } from '../api/types.ts';
import { parseLabelSelector } from './label-selector.ts';
import { parseFieldSelector, validateFieldSelector } from './field-selector.ts';

export interface ObjectFilter {
  /** True when the filter selects everything (no selectors): lets lists skip evaluation. */
  readonly always: boolean;
  /** Whether any selector was given (remainingItemCount is omitted then). */
  matches(obj: KubeObject): boolean;
}

export const selectEverything: ObjectFilter = { always: true, matches: () => true };

/** The field getter for a resource type: metadata.name, metadata.namespace and the kind's own fields. */
export function fieldGetter(rt: ResourceType): (obj: KubeObject, field: string) => string | undefined {
  return (obj, field) => {
    if (field === 'metadata.name') return obj.metadata?.name ?? '';
    if (field === 'metadata.namespace') return obj.metadata?.namespace ?? '';
    const get = rt.fieldSelectors[field];
    return get ? get(obj) : undefined;
  };
}

/**
 * Filters built, per resource type and selectors: the watchers of one selector (every kubelet's
 * informer of its node's pods is one selector per node; an operator's many watches often one) share
 * one filter rather than each holding its own parse. Bounded; a type replaced (a CRD's new
 * version) drops its own with it.
 */
const builtFilters = new WeakMap<ResourceType, Map<string, ObjectFilter>>();
const BUILT_FILTERS_PER_TYPE = 512;

/** Builds the filter, or finds the one built before; throws 400 for unparsable selectors or unsupported field labels. */
export function buildObjectFilter(rt: ResourceType, labelSelector: string, fieldSelector: string): ObjectFilter {
  if (labelSelector === '' && fieldSelector === '') return selectEverything;
  let built = builtFilters.get(rt);
  if (built === undefined) builtFilters.set(rt, (built = new Map()));
  const key = `${labelSelector}\n${fieldSelector}`;
  let filter = built.get(key);
  if (filter === undefined) {
    filter = newObjectFilter(rt, labelSelector, fieldSelector);
    if (built.size >= BUILT_FILTERS_PER_TYPE) built.clear();
    built.set(key, filter);
  }
  return filter;
}

function newObjectFilter(rt: ResourceType, labelSelector: string, fieldSelector: string): ObjectFilter {
  const labels = labelSelector.trim() === '' ? null : parseLabelSelector(labelSelector);
  const fields = fieldSelector.trim() === '' ? null : parseFieldSelector(fieldSelector);
  const own = Object.keys(rt.fieldSelectors);
  // Custom resources (apiextensions' own conversion function) and kinds with fields of their own
  // word it `field label not supported`; kinds with only the metadata fields otherwise.
  if (fields) validateFieldSelector(fields, ['metadata.name', 'metadata.namespace', ...own], own.length > 0 || rt.unstructured ? 'field-label-not-supported' : 'not-a-known-field-selector');
  if ((!labels || labels.empty) && (!fields || fields.requirements.length === 0)) return selectEverything;
  const get = fieldGetter(rt);
  return {
    always: false,
    matches(obj) {
      if (labels && !labels.matches(obj.metadata?.labels)) return false;
      if (fields && !fields.matches((f) => get(obj, f))) return false;
      return true;
    },
  };
}
