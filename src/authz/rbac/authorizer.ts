/**
 * The RBAC mode: allow when a rule granted to the caller allows the request, else no opinion
 * (RBAC never denies), with kube's reasons: which binding and role allowed, or the roles that
 * bindings of the caller name but that do not exist.
 */
import type { Attributes, Authorizer, Decision, NonResourceRule, ResourceRule, RulesResult } from '../authorizer.ts';
import type { RequestUser } from '../../request/user.ts';
import { goQuote } from '../authorizer.ts';
import { ruleAllows } from './rules.ts';
import type { Binding, RbacIndex, Subject } from './index.ts';

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly index: RbacIndex) {}

  authorize(attrs: Attributes): Decision {
    const found = this.index.findAllowing(attrs.user, attrs.namespace, attrs, ruleAllows);
    if (found === undefined) return NO_OPINION;
    if ('missing' in found) return { decision: 'noOpinion', reason: `RBAC: ${aggregateMessage(found.missing)}` };
    return allowedDecision(found.binding, found.subject);
  }

  /** kube's RBACAuthorizer.RulesFor: never incomplete; missing roles are the error. */
  rulesFor(user: RequestUser, namespace: string): RulesResult {
    const { rules, errors } = this.index.rulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const r of rules) {
      if ((r.resources ?? []).length > 0) resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], resourceNames: r.resourceNames ?? [] });
      if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs ?? [] });
    }
    return { resourceRules, nonResourceRules, incomplete: false, ...(errors.length > 0 ? { error: aggregateMessage(errors) } : {}) };
  }
}

const NO_OPINION: Decision = Object.freeze({ decision: 'noOpinion', reason: '' });

/** One allow decision per (binding, subject): its reason names them, and an allow then allocates nothing. */
const allowed = new WeakMap<Subject, Decision>();
function allowedDecision(b: Binding, s: Subject): Decision {
  let d = allowed.get(s);
  if (!d) allowed.set(s, (d = Object.freeze({ decision: 'allow' as const, reason: `RBAC: allowed by ${describeSource(b, s)}` })));
  return d;
}

/** kube's clusterRoleBindingDescriber / roleBindingDescriber. */
function describeSource(b: Binding, s: Subject): string {
  return `${b.kind} ${goQuote(b.kind === 'RoleBinding' ? `${b.name}/${b.namespace}` : b.name)} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s, b.namespace)}`;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${goQuote(`${s.name}/${s.namespace ? s.namespace : bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** Go's utilerrors aggregate message: one error as itself, several deduplicated in brackets. */
export function aggregateMessage(errs: readonly string[]): string {
  if (errs.length === 1) return errs[0]!;
  const seen = [...new Set(errs)];
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}
