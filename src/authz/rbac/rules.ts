/**
 * RBAC policy rules and how one rule matches a request: kube's RuleAllows and the rbacv1helpers
 * matchers, to the letter (`*` everywhere but nonResourceURLs, where it is only a suffix;
 * `*\/subresource`; empty resourceNames is no restriction).
 */
import type { Attributes } from '../authorizer.ts';

export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs) if (v === '*' || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === '*' || g === group) return true;
  return false;
}

/** Whether `r` is `resource` or, with a subresource, `resource/subresource` (compared without building it). */
function namesResource(r: string, resource: string, subresource: string): boolean {
  if (subresource === '') return r === resource;
  return r.length === resource.length + 1 + subresource.length && r.charCodeAt(resource.length) === 47 /* / */ && r.startsWith(resource) && r.endsWith(subresource);
}

/** Whether the rule names the resource (`resource`, `resource/subresource`, `*` or `*\/subresource`). */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || namesResource(r, resource, subresource)) return true;
    if (subresource === '') continue;
    // `*/subresource` grants that subresource of every resource.
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  return names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    // Go's strings.TrimRight(u, "*"): every trailing star goes.
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** kube's RuleAllows. */
export function ruleAllows(attrs: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.isResourceRequest) return nonResourceURLMatches(rule, attrs.path);
  return apiGroupMatches(rule, attrs.apiGroup) && resourceMatches(rule, attrs.resource, attrs.subresource) && resourceNameMatches(rule, attrs.name);
}

/** The rules of a stored Role or ClusterRole, tolerating any shape (a bad object grants nothing). */
export function rulesOf(obj: unknown): PolicyRule[] {
  const rules = (obj as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) return [];
  const out: PolicyRule[] = [];
  for (const r of rules) {
    if (typeof r !== 'object' || r === null) continue;
    const rr = r as Record<string, unknown>;
    out.push({
      verbs: strings(rr.verbs),
      apiGroups: strings(rr.apiGroups),
      resources: strings(rr.resources),
      resourceNames: strings(rr.resourceNames),
      nonResourceURLs: strings(rr.nonResourceURLs),
    });
  }
  return out;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}
