/**
 * The RBAC mode: allow when a rule granted to the caller allows the request, else no opinion
 * (RBAC never denies), with kube's reasons: which binding and role allowed, or the roles that
 * bindings of the caller name but that do not exist.
 */
import type { Attributes, Authorizer, Decision, NonResourceRule, ResourceRule, RulesResult } from '../authorizer.ts';
import type { RequestUser } from '../../server/user.ts';
import { goQuote } from '../authorizer.ts';
import { ruleAllows } from './rules.ts';
import type { Binding, RbacIndex, Subject } from './index.ts';

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly index: RbacIndex) {}

  authorize(attrs: Attributes): Decision {
    let allowedBy: string | undefined;
    const errors: string[] = [];
    this.index.visitRulesFor(attrs.user, attrs.namespace, (binding, subject, rule, err) => {
      if (rule && ruleAllows(attrs, rule)) {
        allowedBy = describeSource(binding!, subject!);
        return false;
      }
      if (err !== undefined) errors.push(err);
      return true;
    });
    if (allowedBy !== undefined) return { decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` };
    return { decision: 'noOpinion', reason: errors.length > 0 ? `RBAC: ${aggregateMessage(errors)}` : '' };
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
