/**
 * The audit policy (`--audit-policy-file`, audit.k8s.io/v1 Policy, also v1beta1/v1alpha1 as kube
 * reads them): validated at start with kube's field paths and messages, then evaluated per
 * request: the first rule that matches the user, group, verb, resource or non-resource URL and
 * namespace decides the level; stages a rule or the policy omits are never emitted.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

const ACCEPTED_VERSIONS = ['audit.k8s.io/v1', 'audit.k8s.io/v1beta1', 'audit.k8s.io/v1alpha1'];

interface GroupResources {
  readonly group: string;
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

interface PolicyRule {
  readonly level: AuditLevel;
  readonly users: readonly string[];
  readonly userGroups: readonly string[];
  readonly verbs: readonly string[];
  readonly resources: readonly GroupResources[];
  readonly namespaces: readonly string[];
  readonly nonResourceURLs: readonly string[];
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean | undefined;
}

/** What the policy decides for one request. */
export interface RequestAuditConfig {
  readonly level: AuditLevel;
  readonly omitStages: ReadonlySet<AuditStage>;
  readonly omitManagedFields: boolean;
}

/** The attributes a rule matches against (kube's authorizer.Attributes). */
export interface AuditAttributes {
  readonly user: { readonly username: string; readonly groups: readonly string[] } | undefined;
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** A policy file that cannot be used; the message names the file and each bad field. */
export class AuditPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditPolicyError';
  }
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);
const quoted = (xs: readonly string[]) => xs.map((x) => JSON.stringify(x)).join(', ');
const goList = (xs: readonly string[]) => `[]string{${quoted(xs)}}`;

export class AuditPolicy {
  /** Each rule's decision, made once: evaluating a request allocates nothing. */
  private readonly configs: readonly RequestAuditConfig[];
  private readonly noMatch: RequestAuditConfig;

  private constructor(
    private readonly rules: readonly PolicyRule[],
    omitStages: readonly AuditStage[],
    omitManagedFields: boolean,
  ) {
    this.configs = rules.map((rule) => ({
      level: rule.level,
      omitStages: new Set([...omitStages, ...rule.omitStages]),
      omitManagedFields: rule.omitManagedFields ?? omitManagedFields,
    }));
    this.noMatch = { level: 'None', omitStages: new Set(omitStages), omitManagedFields };
  }

  /** Reads and validates a policy file; throws AuditPolicyError naming every bad field. */
  static load(path: string): AuditPolicy {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new AuditPolicyError(`loading audit policy file ${JSON.stringify(path)}: ${(err as Error).message}`);
    }
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      throw new AuditPolicyError(`loading audit policy file ${JSON.stringify(path)}: failed decoding: ${(err as Error).message}`);
    }
    return AuditPolicy.parse(doc, path);
  }

  /** Validates a decoded policy document (kube's validation.ValidatePolicy). */
  static parse(doc: unknown, source = 'policy'): AuditPolicy {
    const fail = (what: string) => new AuditPolicyError(`loading audit policy file ${JSON.stringify(source)}: ${what}`);
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw fail('failed decoding: the file does not hold an object');
    const d = doc as Record<string, unknown>;
    if (d.kind !== 'Policy' || !ACCEPTED_VERSIONS.includes(String(d.apiVersion))) {
      throw fail(`failed decoding: expected kind Policy in ${ACCEPTED_VERSIONS.join(', ')}, got ${String(d.apiVersion ?? '')}, Kind=${String(d.kind ?? '')}`);
    }
    const errs: string[] = [];
    const stagesOf = (v: unknown, path: string): AuditStage[] => {
      const out: AuditStage[] = [];
      strings(v).forEach((s, i) => {
        if ((STAGES as readonly string[]).includes(s)) out.push(s as AuditStage);
        else errs.push(`${path}[${i}]: Unsupported value: ${JSON.stringify(s)}: supported values: ${quoted(STAGES)}`);
      });
      return out;
    };
    const omitStages = stagesOf(d.omitStages, 'omitStages');
    const rawRules = Array.isArray(d.rules) ? d.rules : [];
    if (d.rules !== undefined && d.rules !== null && !Array.isArray(d.rules)) errs.push('rules: Invalid value: the rules must be a list');
    const rules: PolicyRule[] = [];
    rawRules.forEach((raw: unknown, i: number) => {
      const p = `rules[${i}]`;
      const r = (raw ?? {}) as Record<string, unknown>;
      const level = String(r.level ?? '');
      if (level === '') errs.push(`${p}.level: Required value`);
      else if (!(LEVELS as readonly string[]).includes(level)) errs.push(`${p}.level: Unsupported value: ${JSON.stringify(level)}: supported values: ${quoted(LEVELS)}`);
      const nonResourceURLs = strings(r.nonResourceURLs);
      const resources = (Array.isArray(r.resources) ? r.resources : []).map((g: unknown, j: number): GroupResources => {
        const gr = (g ?? {}) as Record<string, unknown>;
        const group = String(gr.group ?? '');
        const res = strings(gr.resources);
        const names = strings(gr.resourceNames);
        if (group !== '' && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(group)) {
          errs.push(`${p}.resources[${j}].group: Invalid value: ${JSON.stringify(group)}: must be a valid DNS-1123 subdomain`);
        }
        if (names.length > 0 && res.length === 0) {
          errs.push(`${p}.resources[${j}].resourceNames: Invalid value: ${goList(names)}: using resourceNames requires at least one resource`);
        }
        res.forEach((x, k) => {
          if (x === '*' || x === '*/*') return;
          const [main, sub, extra] = x.split('/');
          if (extra !== undefined || (main === '*' && sub === undefined) || (main === '*' && sub === '*')) return;
          if (main !== '*' && main!.includes('*')) errs.push(`${p}.resources[${j}].resources[${k}]: Invalid value: ${JSON.stringify(x)}: wildcard is only supported for the whole resource or subresource`);
          if (sub !== undefined && sub !== '*' && sub.includes('*')) errs.push(`${p}.resources[${j}].resources[${k}]: Invalid value: ${JSON.stringify(x)}: wildcard is only supported for the whole resource or subresource`);
        });
        return { group, resources: res, resourceNames: names };
      });
      const namespaces = strings(r.namespaces);
      if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0)) {
        errs.push(`${p}.nonResourceURLs: Invalid value: ${goList(nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
      }
      nonResourceURLs.forEach((u, j) => {
        const star = u.indexOf('*');
        if (star >= 0 && star !== u.length - 1) errs.push(`${p}.nonResourceURLs[${j}]: Invalid value: ${JSON.stringify(u)}: non-resource URL rules may only use wildcards ('*') at the end`);
        else if (!u.startsWith('/') && u !== '*') errs.push(`${p}.nonResourceURLs[${j}]: Invalid value: ${JSON.stringify(u)}: non-resource URL rules must begin with a '/' character`);
      });
      rules.push({
        level: level as AuditLevel,
        users: strings(r.users),
        userGroups: strings(r.userGroups),
        verbs: strings(r.verbs),
        resources,
        namespaces,
        nonResourceURLs,
        omitStages: stagesOf(r.omitStages, `${p}.omitStages`),
        omitManagedFields: typeof r.omitManagedFields === 'boolean' ? r.omitManagedFields : undefined,
      });
    });
    if (errs.length > 0) throw fail(errs.join('; '));
    return new AuditPolicy(rules, omitStages, d.omitManagedFields === true);
  }

  /** kube's policy rule evaluator: the first matching rule decides; none: level None. */
  evaluate(a: AuditAttributes): RequestAuditConfig {
    for (let i = 0; i < this.rules.length; i++) if (ruleMatches(this.rules[i]!, a)) return this.configs[i]!;
    return this.noMatch;
  }
}

function ruleMatches(r: PolicyRule, a: AuditAttributes): boolean {
  if (r.users.length > 0 && (a.user === undefined || !r.users.includes(a.user.username))) return false;
  if (r.userGroups.length > 0 && (a.user === undefined || !a.user.groups.some((g) => r.userGroups.includes(g)))) return false;
  if (r.verbs.length > 0 && !r.verbs.includes(a.verb)) return false;
  if (r.namespaces.length > 0 || r.resources.length > 0) return a.isResourceRequest && resourceMatches(r, a);
  if (r.nonResourceURLs.length > 0) return !a.isResourceRequest && r.nonResourceURLs.some((u) => (u.endsWith('*') ? a.path.startsWith(u.slice(0, -1)) : a.path === u));
  return true;
}

/**
 * kube's ruleMatchesResource, literally: namespaces ("" is cluster scope), then per group the
 * resources: a lone star (anything, subresources too), `resource` or `resource/sub` exactly, a star
 * for the resource with a given subresource, and `resource/` plus a star (which kube also matches
 * for the resource itself), with resourceNames when given.
 */
function resourceMatches(r: PolicyRule, a: AuditAttributes): boolean {
  if (r.namespaces.length > 0 && !r.namespaces.includes(a.namespace)) return false;
  if (r.resources.length === 0) return true;
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  for (const gr of r.resources) {
    if (gr.group !== a.apiGroup) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (a.subresource !== '' && res.startsWith('*/') && res.slice(2) === a.subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}
