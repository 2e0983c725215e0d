/**
 * kube's instrumentedAuthorizer: each configured authorizer counts its terminal decisions
 * (`apiserver_authorization_decisions_total{type,name,decision}`). Authorizers from the mode flags
 * are named as kube names them when it turns the flags into a configuration: the mode in lower
 * case (`rbac`, `webhook`, ...).
 */
import { isPromise, type Attributes, type Authorizer, type Decision, type MaybePromise, type RulesResult } from './authorizer.ts';
import type { RequestUser } from '../request/user.ts';

export interface DecisionRecorder {
  recordDecision(type: string, name: string, decision: 'allowed' | 'denied'): void;
}

export function instrumented(inner: Authorizer, type: string, name: string, recorder: DecisionRecorder | undefined): Authorizer {
  if (!recorder) return inner;
  const record = (d: Decision): Decision => {
    // No opinion is not terminal and is not counted (as kube).
    if (d.decision === 'allow') recorder.recordDecision(type, name, 'allowed');
    else if (d.decision === 'deny') recorder.recordDecision(type, name, 'denied');
    return d;
  };
  return {
    authorize(attrs: Attributes): MaybePromise<Decision> {
      const d = inner.authorize(attrs);
      return isPromise(d) ? d.then(record) : record(d);
    },
    ...(inner.rulesFor ? { rulesFor: (user: RequestUser, namespace: string): RulesResult => inner.rulesFor!(user, namespace) } : {}),
  };
}
