/**
 * kube's MatchResources for policies and bindings: resource rules and exclusions (operations,
 * groups, versions, resources with subresources, scope, resource names), the namespace and
 * object selectors, and matchPolicy Equivalent.
 */
import type { KubeObject } from '../../api/types.ts';
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../../registry/label-selector.ts';
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from '../types.ts';

export interface NamedRule {
  readonly resourceNames: readonly string[];
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  readonly scope: string;
}

/** A MatchResources with its selectors parsed once (per policy or binding generation). */
export interface CompiledMatch {
  readonly namespaceSelector: LabelSelector;
  readonly objectSelector: LabelSelector;
  readonly namespaceSelectorEmpty: boolean;
  readonly objectSelectorEmpty: boolean;
  readonly resourceRules: readonly NamedRule[];
  readonly excludeResourceRules: readonly NamedRule[];
  readonly matchPolicy: 'Exact' | 'Equivalent';
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function namedRule(raw: unknown): NamedRule {
  const r = (raw ?? {}) as Record<string, unknown>;
  return {
    resourceNames: strings(r.resourceNames),
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: typeof r.scope === 'string' ? r.scope : '*',
  };
}

function selector(raw: unknown): { selector: LabelSelector; empty: boolean } {
  if (raw === null || raw === undefined || typeof raw !== 'object') return { selector: labelSelectorFromObject({}), empty: true };
  const sel = raw as LabelSelectorObject;
  const empty = Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0;
  return { selector: labelSelectorFromObject(sel), empty };
}

/** Parses a stored MatchResources (undefined: the binding matches whatever its policy matches). Throws ApiError on a bad selector. */
export function compileMatch(raw: Record<string, unknown> | undefined): CompiledMatch | undefined {
  if (raw === undefined) return undefined;
  const ns = selector(raw.namespaceSelector);
  const obj = selector(raw.objectSelector);
  return {
    namespaceSelector: ns.selector,
    namespaceSelectorEmpty: ns.empty,
    objectSelector: obj.selector,
    objectSelectorEmpty: obj.empty,
    resourceRules: (Array.isArray(raw.resourceRules) ? raw.resourceRules : []).map(namedRule),
    excludeResourceRules: (Array.isArray(raw.excludeResourceRules) ? raw.excludeResourceRules : []).map(namedRule),
    matchPolicy: raw.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
  };
}

/** What the matcher needs to know about the request beyond its attributes. */
export interface MatchContext {
  /** Whether the request's resource is namespaced (a rule's `scope`). */
  readonly namespaced: boolean;
  /** Labels of the request's namespace, or undefined when it has none or it does not exist. */
  namespaceLabels(): Readonly<Record<string, string>> | undefined;
  /**
   * Other group/versions serving the same objects as the request's resource (matchPolicy
   * Equivalent: events in core/v1 and events.k8s.io/v1), each with its kind.
   */
  equivalents(): readonly { resource: GroupVersionResource; kind: GroupVersionKind }[];
}

/** The resource and kind a policy saw the request as: the request's own, or an equivalent one. */
export interface MatchedAs {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
}

const has = (list: readonly string[], value: string) => list.includes('*') || list.includes(value);

function resourceMatches(patterns: readonly string[], resource: string, subresource: string): boolean {
  const full = subresource === '' ? resource : `${resource}/${subresource}`;
  for (const p of patterns) {
    if (p === '*/*' || p === full) return true;
    if (p === '*' && subresource === '') return true;
    const slash = p.indexOf('/');
    if (slash < 0) continue;
    const res = p.slice(0, slash);
    const sub = p.slice(slash + 1);
    if (subresource === '') continue;
    if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true;
  }
  return false;
}

function ruleMatches(rule: NamedRule, attrs: AdmissionAttributes, resource: GroupVersionResource, namespaced: boolean): boolean {
  if (!has(rule.operations, attrs.operation)) return false;
  if (!has(rule.apiGroups, resource.group)) return false;
  if (!has(rule.apiVersions, resource.version)) return false;
  if (!resourceMatches(rule.resources, resource.resource, attrs.subresource)) return false;
  if (rule.scope === 'Cluster' && namespaced) return false;
  if (rule.scope === 'Namespaced' && !namespaced) return false;
  if (rule.resourceNames.length > 0 && !rule.resourceNames.includes(requestName(attrs))) return false;
  return true;
}

/** The name the request is about (a create's object carries it once generated). */
export function requestName(attrs: AdmissionAttributes): string {
  if (attrs.name !== '') return attrs.name;
  return attrs.object?.metadata?.name ?? attrs.oldObject?.metadata?.name ?? '';
}

function labelsOf(obj: KubeObject | null): Readonly<Record<string, string>> | undefined {
  return obj?.metadata?.labels;
}

/**
 * kube's namespace matching: a cluster-scoped request matches unless it is about a Namespace,
 * whose own labels are then selected; a namespaced request selects its namespace's labels.
 */
function namespaceMatches(m: CompiledMatch, attrs: AdmissionAttributes, ctx: MatchContext): boolean {
  if (m.namespaceSelectorEmpty) return true;
  const isNamespace = attrs.resource.group === '' && attrs.resource.resource === 'namespaces' && attrs.subresource === '';
  if (isNamespace) return m.namespaceSelector.matches(labelsOf(attrs.object) ?? labelsOf(attrs.oldObject) ?? {});
  if (attrs.namespace === '') return true;
  return m.namespaceSelector.matches(ctx.namespaceLabels() ?? {});
}

/** The object selector holds for the new object or for the old one. */
function objectMatches(m: CompiledMatch, attrs: AdmissionAttributes): boolean {
  if (m.objectSelectorEmpty) return true;
  if (attrs.object !== null && m.objectSelector.matches(labelsOf(attrs.object) ?? {})) return true;
  return attrs.oldObject !== null && m.objectSelector.matches(labelsOf(attrs.oldObject) ?? {});
}

function rulesMatch(rules: readonly NamedRule[], m: CompiledMatch, attrs: AdmissionAttributes, ctx: MatchContext): MatchedAs | undefined {
  const candidates: MatchedAs[] = [{ resource: attrs.resource, kind: attrs.kind }];
  if (m.matchPolicy === 'Equivalent') candidates.push(...ctx.equivalents());
  for (const c of candidates) if (rules.some((r) => ruleMatches(r, attrs, c.resource, ctx.namespaced))) return c;
  return undefined;
}

/**
 * kube's matcher.Matches, for a policy's matchConstraints and a binding's matchResources alike:
 * the selectors, then the exclusions, then the rules (none: every resource). The answer is the
 * resource the request matched as: its own, or (matchPolicy Equivalent) an equivalent one.
 */
export function matches(m: CompiledMatch, attrs: AdmissionAttributes, ctx: MatchContext): MatchedAs | undefined {
  if (!namespaceMatches(m, attrs, ctx) || !objectMatches(m, attrs)) return undefined;
  if (rulesMatch(m.excludeResourceRules, m, attrs, ctx) !== undefined) return undefined;
  if (m.resourceRules.length === 0) return { resource: attrs.resource, kind: attrs.kind };
  return rulesMatch(m.resourceRules, m, attrs, ctx);
}
