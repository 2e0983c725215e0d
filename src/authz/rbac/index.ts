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

/** The index key of a subject as bound in `namespace` ('' for cluster bindings), or undefined when it can never match. */
function subjectKey(s: Subject, namespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return `u:${s.name}`;
    case 'Group':
      return `g:${s.name}`;
    case 'ServiceAccount': {
      // A RoleBinding's service account without a namespace is one of the binding's namespace.
      const ns = s.namespace ? s.namespace : namespace;
      return ns === '' ? undefined : `sa:${SA_PREFIX}${ns}:${s.name}`;
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
      return ns !== '' && caller.username === `${SA_PREFIX}${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

function callerKeys(caller: Caller): string[] {
  const keys = [`u:${caller.username}`];
  for (const g of caller.groups) keys.push(`g:${g}`);
  if (caller.username.startsWith(SA_PREFIX)) keys.push(`sa:${caller.username}`);
  return keys;
}

/** Bindings grouped by subject key; a binding appears under each of its subjects' keys. */
class BindingsBySubject {
  private readonly byKey = new Map<string, Set<Binding>>();

  add(b: Binding): void {
    for (const k of keysOf(b)) {
      let set = this.byKey.get(k);
      if (!set) this.byKey.set(k, (set = new Set()));
      set.add(b);
    }
  }

  remove(b: Binding): void {
    for (const k of keysOf(b)) {
      const set = this.byKey.get(k);
      if (!set) continue;
      set.delete(b);
      if (set.size === 0) this.byKey.delete(k);
    }
  }

  /**
   * Calls `each` once per distinct binding with a subject under one of `keys`, until it returns
   * false; returns false when stopped. No allocation when the caller matches under one key only.
   */
  forEachCandidate(keys: readonly string[], each: (b: Binding) => boolean): boolean {
    let first: Set<Binding> | undefined;
    let seen: Set<Binding> | undefined;
    for (const k of keys) {
      const set = this.byKey.get(k);
      if (!set) continue;
      if (!first) {
        first = set;
        for (const b of set) if (!each(b)) return false;
        continue;
      }
      // A second key matched: skip bindings already visited through an earlier key.
      seen ??= new Set(first);
      for (const b of set) {
        if (seen.has(b)) continue;
        seen.add(b);
        if (!each(b)) return false;
      }
    }
    return true;
  }

  get empty(): boolean {
    return this.byKey.size === 0;
  }
}

function keysOf(b: Binding): Set<string> {
  const keys = new Set<string>();
  for (const s of b.subjects) {
    const k = subjectKey(s, b.namespace);
    if (k !== undefined) keys.add(k);
  }
  return keys;
}

export class RbacIndex {
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  /** Keyed `namespace/name`. */
  private readonly roles = new Map<string, PolicyRule[]>();
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
    this.roles.set(`${namespace}/${name}`, rulesOf(obj));
  }

  deleteRole(namespace: string, name: string): void {
    this.roles.delete(`${namespace}/${name}`);
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
      const rules = this.roles.get(`${namespace}/${ref.name}`);
      return rules ? { rules } : { error: `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  }

  /**
   * kube's VisitRulesFor: every rule granted to the caller by cluster bindings, then (for a
   * namespaced request) by the role bindings of that namespace; stops when the visitor returns false.
   */
  visitRulesFor(caller: Caller, namespace: string, visit: RuleVisitor): void {
    const keys = callerKeys(caller);
    const each = (b: Binding) => this.visitBinding(b, caller, visit);
    if (!this.clusterBindings.forEachCandidate(keys, each)) return;
    if (namespace === '') return;
    this.bindingsByNamespace.get(namespace)?.forEachCandidate(keys, each);
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

  /** Visits the rules of one binding if it applies to the caller; false when the visitor stopped. */
  private visitBinding(b: Binding, caller: Caller, visit: RuleVisitor): boolean {
    let subject: Subject | undefined;
    for (const s of b.subjects) {
      if (subjectApplies(caller, s, b.namespace)) {
        subject = s;
        break;
      }
    }
    if (!subject) return true;
    const found = this.roleRules(b.roleRef, b.namespace);
    if ('error' in found) return visit(b, subject, undefined, found.error);
    for (const rule of found.rules) if (!visit(b, subject, rule, undefined)) return false;
    return true;
  }
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
