/**
 * The authorization gate: request attributes, authorizer decisions and the chain of modes, as
 * kube-apiserver's union authorizer. Modes are asked in configured order; the first that allows
 * or denies decides; when all have no opinion the request is denied. Group `system:masters` is
 * allowed before any mode is asked (kube's privileged-group authorizer sits in front of the chain).
 *
 * Decisions are synchronous where they can be: RBAC, ABAC and the testing modes decide from
 * memory and return a Decision; a mode that must call out (Webhook, on a cache miss) returns a
 * Promise. The chain stays synchronous until the first mode that answers with a promise, so an
 * RBAC-only gate allocates no promise; `authorizeSync` is for callers that cannot wait (the
 * expression language's authorizer library), where a mode that would need I/O counts as an error.
 */
import type { SelectorAttribute } from './selector-attributes.ts';
import type { RequestInfo, ResourceRequestInfo } from '../request/request-info.ts';
import type { RequestUser } from '../request/user.ts';
import { parseFieldSelector } from '../registry/field-selector.ts';

/** kube's authorizer.Attributes: what one decision is about. */
export interface Attributes {
  readonly user: RequestUser;
  /** Resource verb (get, list, watch, create, ...) or, for non-resource requests, the lowercase HTTP method. */
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** The request path (what non-resource rules match). */
  readonly path: string;
  /** `""` is the core group. */
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /**
   * The selectors of a list, watch or deletecollection (raw text, parsed only by the mode that
   * sends them: Webhook), of an access review or of a CEL check (src/authz/selector-attributes.ts).
   */
  readonly fieldSelector?: SelectorAttribute;
  readonly labelSelector?: SelectorAttribute;
}

export type DecisionKind = 'allow' | 'deny' | 'noOpinion';

export interface Decision {
  readonly decision: DecisionKind;
  /** Why: kube appends it to a denial's message and returns it in access reviews. */
  readonly reason: string;
  /**
   * An evaluation error (a webhook that could not be asked). kube's gate answers a request that
   * was not allowed and carries one with a 500, not a 403; access reviews report it.
   */
  readonly error?: string;
}

export type MaybePromise<T> = T | Promise<T>;

export interface Authorizer {
  authorize(attrs: Attributes): MaybePromise<Decision>;
  /** kube's RuleResolver (SelfSubjectRulesReview): what the user may do in `namespace`, as far as this mode can tell. */
  rulesFor?(user: RequestUser, namespace: string): RulesResult;
}

/** authorization.k8s.io/v1 ResourceRule. */
export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** authorization.k8s.io/v1 NonResourceRule. */
export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

export interface RulesResult {
  readonly resourceRules: readonly ResourceRule[];
  readonly nonResourceRules: readonly NonResourceRule[];
  /** True when the mode cannot list everything it would allow (a webhook). */
  readonly incomplete: boolean;
  /** An evaluation problem; the rules found are still returned. */
  readonly error?: string;
}

const NO_RULES: RulesResult = Object.freeze({ resourceRules: [], nonResourceRules: [], incomplete: false });

/** A promise is recognised by its then (every async mode returns a native Promise). */
export function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown }).then === 'function';
}

export const SYSTEM_MASTERS = 'system:masters';

/**
 * The attributes of one request, from its request info (parsed once) and its authenticated user.
 * As kube's RequestInfoFactory, a list or watch whose field selector requires `metadata.name=x`
 * (among other terms too: fields.RequiresExactMatch) is authorized as about that name.
 */
export function attributesOf(user: RequestUser, info: RequestInfo, query?: URLSearchParams): Attributes {
  if (!info.isResourceRequest) return nonResourceAttributes(user, info.verb, info.path);
  return {
    user,
    verb: info.verb,
    isResourceRequest: true,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name === '' && (info.verb === 'list' || info.verb === 'watch') ? selectedName(query) : info.name,
    // Not for the deprecated `/watch/` paths, whose single-object form takes no selectors (as kube).
    ...(query && (info.verb === 'list' || info.verb === 'watch' || info.verb === 'deletecollection') && !viaWatchPath(info) ? selectorsOf(query) : undefined),
  };
}

/** Whether the verb came from the path's `watch` segment (kube's verbViaPathPrefix). */
function viaWatchPath(info: ResourceRequestInfo): boolean {
  if (info.verb !== 'watch') return false;
  return info.path.startsWith(info.apiPrefix === 'api' ? `/api/${info.apiVersion}/watch/` : `/apis/${info.apiGroup}/${info.apiVersion}/watch/`);
}

function selectorsOf(query: URLSearchParams): { fieldSelector?: string; labelSelector?: string } | undefined {
  const fieldSelector = query.get('fieldSelector');
  const labelSelector = query.get('labelSelector');
  if (!fieldSelector && !labelSelector) return undefined;
  return { ...(fieldSelector ? { fieldSelector } : {}), ...(labelSelector ? { labelSelector } : {}) };
}

/** The name a field selector requires exactly, when it is a valid path segment (else ''). */
export function selectedName(query: URLSearchParams | undefined): string {
  const text = query?.get('fieldSelector');
  if (!text) return '';
  let sel;
  try {
    sel = parseFieldSelector(text);
  } catch {
    return ''; // kube: a selector that does not parse leaves the name unset.
  }
  const req = sel.requirements.find((r) => r.field === 'metadata.name' && r.op === '=');
  if (!req) return '';
  const name = req.value;
  if (name === '.' || name === '..' || name.includes('/') || name.includes('%')) return '';
  return name;
}

function nonResourceAttributes(user: RequestUser, verb: string, path: string): Attributes {
  return { user, verb, isResourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

const noOpinion = (reason = ''): Decision => ({ decision: 'noOpinion', reason });

/** Allows every request (AlwaysAllow mode; testing only). */
export const alwaysAllow: Authorizer = {
  authorize: () => ({ decision: 'allow', reason: '' }),
  rulesFor: () => ({ resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false }),
};

/**
 * AlwaysDeny mode (testing only). As kube's alwaysDenyAuthorizer it answers no opinion, not deny,
 * with the reason "Everything is forbidden.": a later mode in the list may still allow.
 */
export const alwaysDeny: Authorizer = { authorize: () => ({ decision: 'noOpinion', reason: 'Everything is forbidden.' }), rulesFor: () => NO_RULES };

/**
 * The chain: `system:masters` first, then each authorizer in order. Reasons of authorizers that
 * had no opinion are joined (kube's union authorizer aggregates them) and returned with the final denial.
 */
export class AuthorizerChain implements Authorizer {
  constructor(private readonly authorizers: readonly Authorizer[]) {}

  authorize(attrs: Attributes): MaybePromise<Decision> {
    if (attrs.user.groups.includes(SYSTEM_MASTERS)) return ALLOW_MASTERS;
    let acc: Accumulated | undefined;
    for (let i = 0; i < this.authorizers.length; i++) {
      const d = this.authorizers[i]!.authorize(attrs);
      // The first mode that must wait turns the rest of the walk asynchronous.
      if (isPromise(d)) return this.continueAsync(attrs, i, d, acc ?? { reasons: [], errors: [] });
      if (d.decision !== 'noOpinion') return d;
      if (d.reason !== '' || d.error !== undefined) acc = accumulate(acc ?? { reasons: [], errors: [] }, d);
    }
    return acc === undefined ? NO_OPINION : finalNoOpinion(acc);
  }

  private async continueAsync(attrs: Attributes, from: number, pending: Promise<Decision>, acc: Accumulated): Promise<Decision> {
    let d = await pending;
    for (let i = from; ; ) {
      if (d.decision !== 'noOpinion') return d;
      accumulate(acc, d);
      if (++i >= this.authorizers.length) break;
      d = await this.authorizers[i]!.authorize(attrs);
    }
    return finalNoOpinion(acc);
  }

  /**
   * kube's union rule resolver: every mode's rules together, incomplete when any is, errors
   * aggregated. (system:masters is not a mode here, as in kube: its rules come from its bindings.)
   */
  rulesFor(user: RequestUser, namespace: string): RulesResult {
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    const errs: string[] = [];
    let incomplete = false;
    for (const a of this.authorizers) {
      const r = a.rulesFor?.(user, namespace);
      if (!r) continue;
      resourceRules.push(...r.resourceRules);
      nonResourceRules.push(...r.nonResourceRules);
      incomplete ||= r.incomplete;
      if (r.error !== undefined) errs.push(r.error);
    }
    const error = errs.length === 0 ? undefined : errs.length === 1 ? errs[0]! : `[${[...new Set(errs)].join(', ')}]`;
    return { resourceRules, nonResourceRules, incomplete, ...(error !== undefined ? { error } : {}) };
  }
}

interface Accumulated {
  readonly reasons: string[];
  readonly errors: string[];
}

function accumulate(acc: Accumulated, d: Decision): Accumulated {
  if (d.reason !== '') acc.reasons.push(d.reason);
  if (d.error !== undefined) acc.errors.push(d.error);
  return acc;
}

/** kube's union: reasons joined by newline, errors as one aggregate. */
function finalNoOpinion(acc: Accumulated): Decision {
  const reason = acc.reasons.join('\n');
  if (acc.errors.length === 0) return noOpinion(reason);
  const error = acc.errors.length === 1 ? acc.errors[0]! : `[${[...new Set(acc.errors)].join(', ')}]`;
  return { decision: 'noOpinion', reason, error };
}

const ALLOW_MASTERS: Decision = Object.freeze({ decision: 'allow', reason: '' });
const NO_OPINION: Decision = Object.freeze({ decision: 'noOpinion', reason: '' });

/**
 * A decision now, for callers that cannot wait: a mode that would have to call out is reported
 * as an error (the caller treats it as not allowed), as kube's CEL library treats a failed check.
 */
export function authorizeSync(authorizer: Authorizer, attrs: Attributes): Decision | { error: string } {
  const d = authorizer.authorize(attrs);
  if (!isPromise(d)) return d;
  d.catch(() => undefined); // the answer arrives later and is only cached
  return { error: 'the authorizer needs a remote call that cannot be made synchronously' };
}

/**
 * kube's forbiddenMessage: who cannot do what, where. Subresources are shown as `resource/subresource`.
 */
export function forbiddenMessage(attrs: Attributes): string {
  return sanitize(rawForbiddenMessage(attrs));
}

/** kube escapes the message's HTML metacharacters (its sanitizer), not the authorizer's reason. */
function sanitize(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function rawForbiddenMessage(attrs: Attributes): string {
  const username = attrs.user.username;
  if (!attrs.isResourceRequest) return `User ${goQuote(username)} cannot ${attrs.verb} path ${goQuote(attrs.path)}`;
  const resource = attrs.subresource !== '' ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const where = attrs.namespace !== '' ? `in the namespace ${goQuote(attrs.namespace)}` : 'at the cluster scope';
  return `User ${goQuote(username)} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup)} ${where}`;
}

/** Go's %q for the strings that reach messages (JSON's escaping agrees for printable text). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
