/**
 * The ABAC mode (`--authorization-policy-file`), as kube's pkg/auth/authorizer/abac: one JSON
 * Policy per line (blank lines and `#` comments skipped), read once at startup. A request is
 * allowed when any policy matches its subject, verb (readonly policies only match get, list and
 * watch), and resource or non-resource path; otherwise no opinion, "No policy matched.".
 * Unversioned lines are the legacy v0 format and are migrated as kube migrates them.
 */
import type { RequestUser } from '../request/user.ts';
import type { Attributes, Authorizer, Decision, NonResourceRule, ResourceRule, RulesResult } from './authorizer.ts';

const ABAC_V1BETA1 = 'abac.authorization.kubernetes.io/v1beta1';
const ABAC_V0 = 'abac.authorization.kubernetes.io/v0';
const ALL_AUTHENTICATED = 'system:authenticated';

/** kube's internal abac.PolicySpec. */
export interface AbacPolicy {
  readonly user: string;
  readonly group: string;
  readonly readonly: boolean;
  readonly apiGroup: string;
  readonly resource: string;
  readonly namespace: string;
  readonly nonResourcePath: string;
}

/** Parses a policy file; throws kube's "error reading policy file" message for the first bad line. */
export function parseAbacPolicies(text: string, path: string): AbacPolicy[] {
  const out: AbacPolicy[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    try {
      out.push(parseLine(trimmed));
    } catch (err) {
      throw new Error(`error reading policy file ${path}, line ${i + 1}: ${raw}: ${(err as Error).message}`);
    }
  }
  return out;
}

function parseLine(line: string): AbacPolicy {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new Error(`couldn't decode the policy: ${(err as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('a policy must be a JSON object');
  const o = v as Record<string, unknown>;
  const apiVersion = o.apiVersion;
  const kind = o.kind;
  if (apiVersion === ABAC_V1BETA1 && kind === 'Policy') return fromV1beta1(field(o, 'spec', 'object') as Record<string, unknown> | undefined ?? {});
  if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== ABAC_V0) {
    if (typeof apiVersion !== 'string') throw new Error('apiVersion must be a string');
    throw new Error(`no kind ${JSON.stringify(String(kind ?? ''))} is registered for version ${JSON.stringify(apiVersion)}`);
  }
  if (kind !== undefined && kind !== '' && kind !== 'Policy') throw new Error(`no kind ${JSON.stringify(String(kind))} is registered for version ${JSON.stringify(String(apiVersion ?? ''))}`);
  return fromV0(o);
}

/** A typed field; a wrong type is an error, as Go's decoder reports it. */
function field(o: Record<string, unknown>, name: string, type: 'string' | 'boolean' | 'object'): unknown {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  if (type === 'object' ? typeof v !== 'object' || Array.isArray(v) : typeof v !== type) throw new Error(`${name} must be a ${type === 'boolean' ? 'bool' : type}`);
  return v;
}

const s = (o: Record<string, unknown>, name: string) => (field(o, name, 'string') as string | undefined) ?? '';
const b = (o: Record<string, unknown>, name: string) => (field(o, name, 'boolean') as boolean | undefined) ?? false;

function fromV1beta1(spec: Record<string, unknown>): AbacPolicy {
  const p = { user: s(spec, 'user'), group: s(spec, 'group'), readonly: b(spec, 'readonly'), apiGroup: s(spec, 'apiGroup'), resource: s(spec, 'resource'), namespace: s(spec, 'namespace'), nonResourcePath: s(spec, 'nonResourcePath') };
  // v1beta1: a `*` user or group means every authenticated subject.
  if (p.user === '*' || p.group === '*') return { ...p, user: '', group: ALL_AUTHENTICATED };
  return p;
}

/** kube's Convert_v0_Policy_To_abac_Policy. */
function fromV0(o: Record<string, unknown>): AbacPolicy {
  const user = s(o, 'user');
  const group = s(o, 'group');
  const resource = s(o, 'resource');
  const namespace = s(o, 'namespace');
  let p: AbacPolicy = { user, group, readonly: b(o, 'readonly'), apiGroup: '*', resource: resource || '*', namespace: namespace || '*', nonResourcePath: resource === '' ? '*' : '' };
  if (user === '' && group === '') p = { ...p, group: ALL_AUTHENTICATED };
  if (user === '*' || group === '*') p = { ...p, user: '', group: ALL_AUTHENTICATED };
  return p;
}

function subjectMatches(p: AbacPolicy, user: RequestUser): boolean {
  let matched = false;
  if (p.user !== '') {
    if (p.user === '*') matched = true;
    else if (p.user === user.username) matched = true;
    else return false;
  }
  if (p.group !== '') {
    if (p.group === '*') matched = true;
    else if (user.groups.includes(p.group)) matched = true;
    else return false;
  }
  return matched;
}

const isReadOnly = (verb: string) => verb === 'get' || verb === 'list' || verb === 'watch';

function matches(p: AbacPolicy, a: Attributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (p.readonly && !isReadOnly(a.verb)) return false;
  if (a.isResourceRequest) {
    return (p.namespace === '*' || p.namespace === a.namespace) && (p.resource === '*' || p.resource === a.resource) && (p.apiGroup === '*' || p.apiGroup === a.apiGroup);
  }
  const path = p.nonResourcePath;
  return path === '*' || path === a.path || (path.endsWith('*') && a.path.startsWith(path.replace(/\*+$/, '')));
}

const NO_MATCH: Decision = Object.freeze({ decision: 'noOpinion', reason: 'No policy matched.' });
const ALLOW: Decision = Object.freeze({ decision: 'allow', reason: '' });

export class AbacAuthorizer implements Authorizer {
  constructor(private readonly policies: readonly AbacPolicy[]) {}

  authorize(attrs: Attributes): Decision {
    for (const p of this.policies) if (matches(p, attrs)) return ALLOW;
    return NO_MATCH;
  }

  /** kube's PolicyList.RulesFor: one rule per matching policy whose namespace applies. */
  rulesFor(user: RequestUser, namespace: string): RulesResult {
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const p of this.policies) {
      if (!subjectMatches(p, user) || (p.namespace !== '*' && p.namespace !== namespace)) continue;
      const verbs = p.readonly ? ['get', 'list', 'watch'] : ['*'];
      if (p.resource !== '') resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
      if (p.nonResourcePath !== '') nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] });
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  }
}
