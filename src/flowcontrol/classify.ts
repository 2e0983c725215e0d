/**
 * Request classification, as kube's flowcontrol matching (k8s.io/apiserver/pkg/util/flowcontrol/
 * rule.go): a FlowSchema matches a request when one of its rules matches both the user (a
 * subject) and the request (a resource or a non-resource rule). Schemas are tried by
 * matchingPrecedence, ties by name; the first that matches decides.
 */
import type { RequestInfo } from '../request/request-info.ts';
import type { RequestUser } from '../request/user.ts';

export interface Subject {
  readonly kind?: string;
  readonly user?: { readonly name?: string };
  readonly group?: { readonly name?: string };
  readonly serviceAccount?: { readonly namespace?: string; readonly name?: string };
}

export interface ResourceRule {
  readonly verbs?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly clusterScope?: boolean;
  readonly namespaces?: readonly string[] | null;
}

export interface NonResourceRule {
  readonly verbs?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

export interface PolicyRules {
  readonly subjects?: readonly Subject[];
  readonly resourceRules?: readonly ResourceRule[];
  readonly nonResourceRules?: readonly NonResourceRule[];
}

const SA_PREFIX = 'system:serviceaccount:';

function subjectMatches(s: Subject, user: RequestUser): boolean {
  switch (s.kind) {
    case 'User':
      return s.user?.name === '*' || s.user?.name === user.username;
    case 'Group': {
      const name = s.group?.name;
      return name === '*' || (name !== undefined && user.groups.includes(name));
    }
    case 'ServiceAccount': {
      if (!user.username.startsWith(SA_PREFIX)) return false;
      const [ns, name] = user.username.slice(SA_PREFIX.length).split(':');
      return ns === s.serviceAccount?.namespace && (s.serviceAccount?.name === '*' || name === s.serviceAccount?.name);
    }
    default:
      return false;
  }
}

const has = (list: readonly string[] | null | undefined, v: string): boolean => !!list && (list.includes('*') || list.includes(v));

function resourceRuleMatches(r: ResourceRule, info: Extract<RequestInfo, { isResourceRequest: true }>): boolean {
  if (!has(r.verbs, info.verb) || !has(r.apiGroups, info.apiGroup)) return false;
  const resource = info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`;
  if (!has(r.resources, resource)) return false;
  if (info.namespace === '') return r.clusterScope === true;
  return has(r.namespaces, info.namespace);
}

function nonResourceRuleMatches(r: NonResourceRule, info: Extract<RequestInfo, { isResourceRequest: false }>): boolean {
  if (!has(r.verbs, info.verb)) return false;
  for (const url of r.nonResourceURLs ?? []) {
    if (url === '*' || url === info.path) return true;
    // `/prefix/*` matches everything below the prefix (and the wildcard also matches slashes).
    if (url.endsWith('*') && info.path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/**
 * Whether one of `rules` matches the user and the request. Plain loops: every request runs this
 * for each schema until one matches (a dozen for an ordinary user), so nothing is allocated.
 */
export function rulesMatch(rules: readonly PolicyRules[], user: RequestUser, info: RequestInfo): boolean {
  for (const rule of rules) {
    if (!anySubjectMatches(rule.subjects, user)) continue;
    if (info.isResourceRequest) {
      for (const r of rule.resourceRules ?? NONE) if (resourceRuleMatches(r, info)) return true;
    } else {
      for (const r of rule.nonResourceRules ?? NONE) if (nonResourceRuleMatches(r, info)) return true;
    }
  }
  return false;
}

const NONE: readonly never[] = [];

function anySubjectMatches(subjects: readonly Subject[] | undefined, user: RequestUser): boolean {
  if (!subjects) return false;
  for (const s of subjects) if (subjectMatches(s, user)) return true;
  return false;
}

/** The flow distinguisher: the user name (ByUser), the namespace (ByNamespace), or '' without a method. */
export function flowDistinguisher(method: string | undefined, user: RequestUser, info: RequestInfo): string {
  if (method === 'ByUser') return user.username;
  if (method === 'ByNamespace') return info.isResourceRequest ? info.namespace : '';
  return '';
}
