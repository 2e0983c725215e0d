/**
 * Privilege escalation prevention, as kube's RBAC registry (pkg/registry/rbac/*\/policybased):
 * a Role or ClusterRole may only be written by someone who holds every permission it grants at
 * the same scope, or who may `escalate` it; a binding only by someone who holds every permission
 * of the role it references, or who may `bind` that role. Group system:masters is exempt.
 *
 * The check runs on the object as written (after mutating admission, before validation), and only
 * for requests: the server's own writes (default policy, aggregation) carry no user.
 */
import { ApiError, errors } from '../../api/status-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import type { RequestUser } from '../../request/user.ts';
import { SYSTEM_MASTERS, type Attributes, type Authorizer } from '../authorizer.ts';
import { aggregateMessage } from './authorizer.ts';
import { bindingOf, type RbacIndex, type RoleRef } from './index.ts';
import { rulesOf, type PolicyRule } from './rules.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
export type RbacResource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';

/** Every permission, what kube asks of whoever sets an aggregationRule. */
const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export class EscalationGuard {
  /** `authorizer` is read at each check: the chain is built after the stores. */
  constructor(
    private readonly index: RbacIndex,
    private readonly authorizer: () => Authorizer | undefined,
  ) {}

  /** Throws kube's 403 (or the 404 of a missing referenced role) when the write would escalate. */
  async check(resource: RbacResource, obj: KubeObject, old: KubeObject | null, user: RequestUser): Promise<void> {
    if (user.groups.includes(SYSTEM_MASTERS)) return;
    if (old && onlyGcFieldsChanged(obj, old)) return;
    const name = obj.metadata?.name ?? '';
    const namespace = resource === 'roles' || resource === 'rolebindings' ? (obj.metadata?.namespace ?? '') : '';
    const gr = { group: RBAC_GROUP, resource };
    if (resource === 'roles' || resource === 'clusterroles') {
      // kube names the request's own object here, which a create does not have in its path.
      if (await this.allowed(user, 'escalate', RBAC_GROUP, resource, old ? name : '', namespace)) return;
      const problem = this.uncovered(user, namespace, rulesOf(obj));
      if (problem) throw errors.forbidden(gr, name, problem);
      // An aggregationRule can gather anything, so setting, changing or removing one needs every permission.
      if (resource === 'clusterroles' && (hasAggregationRule(obj) || (old !== null && hasAggregationRule(old))) && this.uncovered(user, namespace, FULL_AUTHORITY)) {
        throw errors.forbidden(gr, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
      return;
    }
    const binding = bindingOf(resource === 'rolebindings' ? 'RoleBinding' : 'ClusterRoleBinding', obj);
    if (!binding) return; // not a binding validation would accept: validation answers
    const ref = binding.roleRef;
    const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : undefined;
    if (roleResource && (await this.allowed(user, 'bind', ref.apiGroup ?? '', roleResource, ref.name, namespace))) return;
    const rules = this.referencedRules(ref, namespace, gr);
    const problem = this.uncovered(user, namespace, rules);
    if (problem) throw errors.forbidden(gr, name, problem);
  }

  private async allowed(user: RequestUser, verb: string, apiGroup: string, resource: string, name: string, namespace: string): Promise<boolean> {
    const authz = this.authorizer();
    if (!authz) return false;
    const attrs: Attributes = { user, verb, isResourceRequest: true, path: '', apiGroup, apiVersion: '*', resource, subresource: '', namespace, name };
    try {
      return (await authz.authorize(attrs)).decision === 'allow';
    } catch {
      return false; // kube: an authorizer error is not an allow
    }
  }

  /**
   * The referenced role's rules. kube reads the role through the binding's own storage, so a
   * missing one is reported as a NotFound of the binding resource under the role's name.
   */
  private referencedRules(ref: RoleRef, namespace: string, gr: { group: string; resource: string }): readonly PolicyRule[] {
    // kube's storage Get of the role, whose answer to an empty name is this 400.
    if ((ref.kind === 'ClusterRole' || ref.kind === 'Role') && ref.name === '') throw errors.badRequest('Name parameter required.');
    const found = this.index.roleRules(ref, namespace);
    if ('rules' in found) return found.rules;
    if (ref.kind === 'ClusterRole' || ref.kind === 'Role') throw errors.notFound(gr, ref.name);
    throw new ApiError(500, 'InternalError', `Internal error occurred: ${found.error}`, {});
  }

  /** kube's ConfirmNoEscalation: undefined when the caller's rules cover `rules`, else the message. */
  private uncovered(user: RequestUser, namespace: string, rules: readonly PolicyRule[]): string | undefined {
    const held = this.index.rulesFor(user, namespace);
    const missing = missingRules(held.rules, rules);
    if (missing.length === 0) return undefined;
    const lines = [...new Set(compactRules(missing).map(compactString))].sort();
    let msg = `user ${JSON.stringify(user.username)} (groups=${goStrings(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
    // kube's registry resolves roles through its storage, whose NotFound names the plural resource.
    const errs = held.errors.map((e) => e.replace(/^(role|clusterrole)\.rbac\.authorization\.k8s\.io /, '$1s.rbac.authorization.k8s.io '));
    if (errs.length > 0) msg += `; resolution errors: [${aggregateMessage(errs)}]`;
    return msg;
  }
}

/** kube's IsOnlyMutatingGCFields: a write that only touches owner references or finalizers is not checked. */
function onlyGcFieldsChanged(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, selfLink: _s, deletionTimestamp: _d, deletionGracePeriodSeconds: _g, resourceVersion: _r, ...meta } = (o.metadata ?? {}) as Record<string, unknown>;
    return { ...o, metadata: meta };
  };
  return canonical(strip(obj)) === canonical(strip(old));
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x !== 'object' || x === null || Array.isArray(x)) return x;
    return Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

function hasAggregationRule(obj: KubeObject): boolean {
  const rule = (obj as { aggregationRule?: { clusterRoleSelectors?: unknown } }).aggregationRule;
  return typeof rule === 'object' && rule !== null && Array.isArray(rule.clusterRoleSelectors) && rule.clusterRoleSelectors.length > 0;
}

/** kube's Covers: each rule broken down to one verb, group, resource and name, checked against the owner's rules. */
export function missingRules(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of servant) {
    for (const sub of breakdown(rule)) if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
  }
  return missing;
}

function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (names.length > 0) for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  // Non-resource URLs combine with verbs only.
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const has = (set: readonly string[] | undefined, x: string) => (set ?? []).includes(x);
const hasAll = (set: readonly string[] | undefined, xs: readonly string[] | undefined) => (xs ?? []).every((x) => has(set, x));

function resourceCoversAll(owner: readonly string[] | undefined, subs: readonly string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, subs)) return true;
  for (const r of subs ?? []) {
    if (has(owner, r)) continue;
    const slash = r.indexOf('/');
    // `*/subresource` covers that subresource of every resource.
    if (slash < 0 || !has(owner, `*/${r.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((u) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, u)));
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/** kube's CompactRules: rules of one group, one resource and at most one name merge their verbs. */
function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }>();
  for (const r of rules) {
    const names = r.resourceNames ?? [];
    if (names.length > 1 || (r.nonResourceURLs ?? []).length > 0 || r.apiGroups?.length !== 1 || r.resources?.length !== 1) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups[0], r.resources[0], names.length > 0, names[0] ?? '']);
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...r.verbs);
    else simple.set(key, { apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs], ...(names.length > 0 ? { resourceNames: [...names] } : {}) });
  }
  out.push(...simple.values());
  return out;
}

/** kube's rbacv1helpers.CompactString. */
function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goStrings(r.apiGroups!)}`);
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goStrings(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goStrings(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goStrings(r.resourceNames!)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goStrings(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Go's %q of a []string: ["a" "b"]. */
function goStrings(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}
