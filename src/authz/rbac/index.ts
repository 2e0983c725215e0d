/**
 * The in-memory RBAC policy: roles by name and bindings by subject, so a decision looks up only
 * the bindings that can apply to the caller (its user name, each of its groups, its service
 * account) instead of scanning every binding. Kept current from the watch caches (see feed.ts);
 * nothing here reads storage.
 */
import { rulesOf, type PolicyRule } from './rules.ts';

export interface Subject {
  readonly kind: string;
  readonly apiGroup?: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface RoleRef {
  readonly apiGroup?: string;
  readonly kind: string;
  readonly name: string;
}

export interface Binding {
  readonly kind: 'ClusterRoleBinding' | 'RoleBinding';
  readonly name: string;
  /** '' for ClusterRoleBindings. */
  readonly namespace: string;
  readonly roleRef: RoleRef;
  readonly subjects: readonly Subject[];
}

export interface Caller {
  readonly username: string;
  readonly groups: readonly string[];
}

/** What a visitor is told for each rule: where it came from, or the error of a missing role. */
export type RuleVisitor = (source: Binding | undefined, subject: Subject | undefined, rule: PolicyRule | undefined, err: string | undefined) => boolean;

const SA_PREFIX = 'system:serviceaccount:';

/**
 * Where a subject is indexed: users and service accounts by the user name they match (a service
 * account's is `system:serviceaccount:<ns>:<name>`), groups by group name; undefined when the
 * subject can never match (an unknown kind, a service account without a namespace).
 */
function subjectSlot(s: Subject, bindingNamespace: string): { group: boolean; name: string } | undefined {
  switch (s.kind) {
    case 'User':
      return { group: false, name: s.name };
    case 'Group':
      return { group: true, name: s.name };
    case 'ServiceAccount': {
      // A RoleBinding's service account without a namespace is one of the binding's namespace.
      const ns = s.namespace ? s.namespace : bindingNamespace;
      return ns === '' ? undefined : { group: false, name: `${SA_PREFIX}${ns}:${s.name}` };
    }
    default:
      return undefined;
  }
}

/** kube's appliesToUser. */
export function subjectApplies(caller: Caller, s: Subject, namespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return caller.username === s.name;
    case 'Group':
      return caller.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace ? s.namespace : namespace;
      return ns !== '' && caller.username.length === SA_PREFIX.length + ns.length + 1 + s.name.length && caller.username === `${SA_PREFIX}${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

/** The first subject of `b` that applies to the caller (the one kube names in its reason). */
export function firstApplicableSubject(b: Binding, caller: Caller): Subject | undefined {
  for (const s of b.subjects) if (subjectApplies(caller, s, b.namespace)) return s;
  return undefined;
}

/**
 * Bindings by the user names and group names their subjects match. A binding appears under each
 * of its subjects' slots; a walk visits it once, under the slot of its first applicable subject,
 * so a decision needs no set of visited bindings (and allocates nothing).
 */
class BindingsBySubject {
  private readonly byUser = new Map<string, Set<Binding>>();
  private readonly byGroup = new Map<string, Set<Binding>>();

  add(b: Binding): void {
    for (const s of b.subjects) {
      const slot = subjectSlot(s, b.namespace);
      if (!slot) continue;
      const map = slot.group ? this.byGroup : this.byUser;
      let set = map.get(slot.name);
      if (!set) map.set(slot.name, (set = new Set()));
      set.add(b);
    }
  }

  remove(b: Binding): void {
    for (const s of b.subjects) {
      const slot = subjectSlot(s, b.namespace);
      if (!slot) continue;
      const map = slot.group ? this.byGroup : this.byUser;
      const set = map.get(slot.name);
      if (!set) continue;
      set.delete(b);
      if (set.size === 0) map.delete(slot.name);
    }
  }

  /**
   * Calls `each` once per binding that applies to the caller, with its first applicable subject,
   * until it returns false; returns false when stopped.
   */
  forEachApplicable(caller: Caller, each: (b: Binding, s: Subject) => boolean): boolean {
    const mine = this.byUser.get(caller.username);
    if (mine) {
      for (const b of mine) {
        const s = firstApplicableSubject(b, caller)!;
        // Found by the user name: visit it here unless an earlier subject is a group of the caller's.
        if (s.kind === 'Group') continue;
        if (!each(b, s)) return false;
      }
    }
    if (this.byGroup.size === 0) return true;
    const groups = caller.groups;
    for (let i = 0; i < groups.length; i++) {
      const set = this.byGroup.get(groups[i]!);
      // A group listed twice is walked once.
      if (!set || groups.indexOf(groups[i]!) !== i) continue;
      for (const b of set) {
        const s = firstApplicableSubject(b, caller)!;
        // Visit under the slot of the first applicable subject only.
        if (s.kind !== 'Group' || s.name !== groups[i]) continue;
        if (!each(b, s)) return false;
      }
    }
    return true;
  }

  get empty(): boolean {
    return this.byUser.size === 0 && this.byGroup.size === 0;
  }
}

export class RbacIndex {
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  /** By namespace, then name (no key to build per lookup). */
  private readonly roles = new Map<string, Map<string, PolicyRule[]>>();
  private readonly clusterBindings = new BindingsBySubject();
  private readonly bindingsByNamespace = new Map<string, BindingsBySubject>();
  /** The binding currently indexed per `kind/namespace/name`, to replace or remove it. */
  private readonly bindingByName = new Map<string, Binding>();

  setClusterRole(name: string, obj: unknown): void {
    this.clusterRoles.set(name, rulesOf(obj));
  }

  deleteClusterRole(name: string): void {
    this.clusterRoles.delete(name);
  }

  setRole(namespace: string, name: string, obj: unknown): void {
    let ns = this.roles.get(namespace);
    if (!ns) this.roles.set(namespace, (ns = new Map()));
    ns.set(name, rulesOf(obj));
  }

  deleteRole(namespace: string, name: string): void {
    const ns = this.roles.get(namespace);
    ns?.delete(name);
    if (ns?.size === 0) this.roles.delete(namespace);
  }

  setBinding(b: Binding): void {
    this.deleteBinding(b.kind, b.namespace, b.name);
    this.bindingByName.set(`${b.kind}/${b.namespace}/${b.name}`, b);
    if (b.kind === 'ClusterRoleBinding') {
      this.clusterBindings.add(b);
      return;
    }
    let ns = this.bindingsByNamespace.get(b.namespace);
    if (!ns) this.bindingsByNamespace.set(b.namespace, (ns = new BindingsBySubject()));
    ns.add(b);
  }

  deleteBinding(kind: Binding['kind'], namespace: string, name: string): void {
    const id = `${kind}/${namespace}/${name}`;
    const old = this.bindingByName.get(id);
    if (!old) return;
    this.bindingByName.delete(id);
    if (kind === 'ClusterRoleBinding') {
      this.clusterBindings.remove(old);
      return;
    }
    const ns = this.bindingsByNamespace.get(namespace);
    ns?.remove(old);
    if (ns?.empty) this.bindingsByNamespace.delete(namespace);
  }

  /** The rules a role reference names, or kube's not-found error text. */
  roleRules(ref: RoleRef, namespace: string): { rules: readonly PolicyRule[] } | { error: string } {
    if (ref.kind === 'ClusterRole') {
      const rules = this.clusterRoles.get(ref.name);
      return rules ? { rules } : { error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    }
    if (ref.kind === 'Role') {
      const rules = this.roles.get(namespace)?.get(ref.name);
      return rules ? { rules } : { error: `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  }

  /**
   * kube's VisitRulesFor: every rule granted to the caller by cluster bindings, then (for a
   * namespaced request) by the role bindings of that namespace; stops when the visitor returns false.
   */
  visitRulesFor(caller: Caller, namespace: string, visit: RuleVisitor): void {
    const each = (b: Binding, s: Subject) => {
      const rules = this.rulesOfRef(b.roleRef, b.namespace);
      if (!rules) return visit(b, s, undefined, this.missingRoleError(b.roleRef));
      for (const rule of rules) if (!visit(b, s, rule, undefined)) return false;
      return true;
    };
    if (!this.clusterBindings.forEachApplicable(caller, each)) return;
    if (namespace === '') return;
    this.bindingsByNamespace.get(namespace)?.forEachApplicable(caller, each);
  }

  /**
   * The hot path of a decision: the first binding (with its subject) whose role has a rule for
   * which `allows` holds, visiting cluster bindings then the namespace's. When none does, the
   * errors of bindings whose role is missing are returned instead. Allocates nothing unless a
   * role is missing.
   */
  findAllowing<T>(caller: Caller, namespace: string, arg: T, allows: (arg: T, rule: PolicyRule) => boolean): { binding: Binding; subject: Subject } | { missing: string[] } | undefined {
    this.found = undefined;
    this.findMissing = undefined;
    this.findArg = arg;
    this.findAllows = allows as (arg: unknown, rule: PolicyRule) => boolean;
    if (this.clusterBindings.forEachApplicable(caller, this.findEach) && namespace !== '') this.bindingsByNamespace.get(namespace)?.forEachApplicable(caller, this.findEach);
    const found = this.found;
    const missing = this.findMissing;
    this.found = this.findArg = this.findAllows = this.findMissing = undefined;
    return found ?? (missing ? { missing } : undefined);
  }

  // The state of the one findAllowing in progress (decisions are synchronous), so its visitor is created once.
  private found: { binding: Binding; subject: Subject } | undefined;
  private findArg: unknown;
  private findAllows: ((arg: unknown, rule: PolicyRule) => boolean) | undefined;
  private findMissing: string[] | undefined;
  private readonly findEach = (b: Binding, s: Subject): boolean => {
    const rules = this.rulesOfRef(b.roleRef, b.namespace);
    if (!rules) {
      (this.findMissing ??= []).push(this.missingRoleError(b.roleRef));
      return true;
    }
    for (let i = 0; i < rules.length; i++) {
      if (this.findAllows!(this.findArg, rules[i]!)) {
        this.found = pairOf(b, s);
        return false;
      }
    }
    return true;
  };

  private rulesOfRef(ref: RoleRef, namespace: string): readonly PolicyRule[] | undefined {
    if (ref.kind === 'ClusterRole') return this.clusterRoles.get(ref.name);
    if (ref.kind === 'Role') return this.roles.get(namespace)?.get(ref.name);
    return undefined;
  }

  private missingRoleError(ref: RoleRef): string {
    if (ref.kind === 'ClusterRole') return `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`;
    if (ref.kind === 'Role') return `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`;
    return `unsupported role reference kind: ${JSON.stringify(ref.kind)}`;
  }

  /**
   * kube's RulesFor: every rule the caller holds at cluster scope and, for a namespace, in it,
   * with the errors of bindings whose role is missing (the rules found are still returned).
   */
  rulesFor(caller: Caller, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(caller, namespace, (_b, _s, rule, err) => {
      if (rule) rules.push(rule);
      if (err !== undefined) errors.push(err);
      return true;
    });
    return { rules, errors };
  }

}

/** One (binding, subject) pair object per subject, so an allow allocates nothing. */
const pairs = new WeakMap<Subject, { binding: Binding; subject: Subject }>();
function pairOf(binding: Binding, subject: Subject): { binding: Binding; subject: Subject } {
  let p = pairs.get(subject);
  if (!p || p.binding !== binding) pairs.set(subject, (p = { binding, subject }));
  return p;
}

/** A stored binding as an index record; undefined when it is not a usable binding. */
export function bindingOf(kind: Binding['kind'], obj: unknown): Binding | undefined {
  const o = obj as { metadata?: { name?: unknown; namespace?: unknown }; roleRef?: Record<string, unknown>; subjects?: unknown } | null;
  const name = o?.metadata?.name;
  if (typeof name !== 'string' || typeof o?.roleRef !== 'object' || o.roleRef === null) return undefined;
  const namespace = kind === 'RoleBinding' && typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : '';
  const subjects: Subject[] = [];
  if (Array.isArray(o.subjects)) {
    for (const s of o.subjects) {
      if (typeof s !== 'object' || s === null) continue;
      const r = s as Record<string, unknown>;
      if (typeof r.kind !== 'string' || typeof r.name !== 'string') continue;
      subjects.push({ kind: r.kind, name: r.name, ...(typeof r.namespace === 'string' ? { namespace: r.namespace } : {}), ...(typeof r.apiGroup === 'string' ? { apiGroup: r.apiGroup } : {}) });
    }
  }
  const roleRef: RoleRef = { kind: String(o.roleRef.kind ?? ''), name: String(o.roleRef.name ?? ''), apiGroup: String(o.roleRef.apiGroup ?? '') };
  return { kind, name, namespace, roleRef, subjects };
}
