/**
 * Impersonation, as kube-apiserver v1.32's WithImpersonation filter: after authentication, the
 * `Impersonate-User`, `-Group`, `-Extra-<key>` and `-Uid` headers name another user; every one of
 * them is authorized for the caller with verb `impersonate` (users, groups, serviceaccounts in
 * the core group; uids and userextras/<key> in authentication.k8s.io), in header order, and the
 * first denial answers 403. Then the request goes on, authorized and served as the target.
 *
 * Headers are read from the raw header list: Node joins repeated unknown headers with ", ",
 * while kube takes every `Impersonate-Group` line as one group (kubectl --as-group sends one each).
 */
import { ApiError } from '../api/status-errors.ts';
import type { Attributes, Authorizer } from '../authz/authorizer.ts';
import { forbiddenError } from '../authz/forbidden.ts';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from './types.ts';
import { ALL_SERVICE_ACCOUNTS_GROUP, SERVICE_ACCOUNT_USER_PREFIX } from './serviceaccount-token.ts';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHN_GROUP = 'authentication.k8s.io';

/** One thing the caller asks to impersonate: kube's v1.ObjectReference of buildImpersonationRequests. */
interface ImpersonationRequest {
  readonly kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  readonly namespace: string;
  readonly name: string;
  readonly apiVersion: string;
  readonly fieldPath: string;
}

export type ImpersonationOutcome =
  /** No impersonation header: the caller stays who it is. */
  | { readonly kind: 'none' }
  | { readonly kind: 'impersonated'; readonly user: UserInfo }
  /** Malformed headers: kube answers 500 with this text (responsewriters.InternalError). */
  | { readonly kind: 'invalid'; readonly message: string }
  /** The caller may not impersonate one of the targets: kube's 403. */
  | { readonly kind: 'forbidden'; readonly error: ApiError };

/** Whether a request carries any impersonation header (the cheap test done on every request). */
export function hasImpersonationHeaders(headers: Readonly<Record<string, unknown>>): boolean {
  if (headers[USER_HEADER] !== undefined || headers[GROUP_HEADER] !== undefined || headers[UID_HEADER] !== undefined) return true;
  for (const name in headers) if (name.startsWith(EXTRA_PREFIX)) return true;
  return false;
}

/**
 * Applies the impersonation headers of `rawHeaders` (Node's alternating name/value list) for
 * `caller`, asking `authorizer` about each target.
 */
export async function impersonate(caller: UserInfo, rawHeaders: readonly string[], authorizer: Authorizer): Promise<ImpersonationOutcome> {
  const built = buildImpersonationRequests(rawHeaders);
  if (typeof built === 'string') return { kind: 'invalid', message: built };
  if (built.requests.length === 0) return { kind: 'none' };

  let username = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  let uid = '';
  for (const r of built.requests) {
    const group = r.apiVersion === '' ? '' : AUTHN_GROUP;
    let resource: string;
    let subresource = '';
    switch (r.kind) {
      case 'ServiceAccount':
        resource = 'serviceaccounts';
        username = `${SERVICE_ACCOUNT_USER_PREFIX}${r.namespace}:${r.name}`;
        // Groups given in headers are the authority; else a service account's groups are fixed.
        if (!built.groupsSpecified) groups = [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${r.namespace}`];
        break;
      case 'User':
        resource = 'users';
        username = r.name;
        break;
      case 'Group':
        resource = 'groups';
        groups.push(r.name);
        break;
      case 'UserExtra':
        resource = 'userextras';
        subresource = r.fieldPath;
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        resource = 'uids';
        uid = r.name;
        break;
    }
    const attrs: Attributes = {
      user: caller,
      verb: 'impersonate',
      isResourceRequest: true,
      path: '',
      apiGroup: group,
      apiVersion: r.apiVersion === '' ? '' : 'v1',
      resource,
      subresource,
      namespace: r.namespace,
      name: r.name,
    };
    // A webhook authorizer answers asynchronously.
    const decision = await authorizer.authorize(attrs);
    if (decision.decision !== 'allow') return { kind: 'forbidden', error: forbiddenError(attrs, decision.reason) };
  }

  // kube: an impersonated user is authenticated (unless a group says otherwise); anonymous is not.
  if (username !== ANONYMOUS_USER) {
    if (!groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
    groups.push(ALL_UNAUTHENTICATED);
  }
  return { kind: 'impersonated', user: { username, ...(uid !== '' ? { uid } : {}), groups, extra } };
}

/** kube's buildImpersonationRequests: the targets in its order, or the error text of a bad combination. */
function buildImpersonationRequests(rawHeaders: readonly string[]): { requests: ImpersonationRequest[]; groupsSpecified: boolean } | string {
  let user: string | undefined;
  let uid: string | undefined;
  const groups: string[] = [];
  // Extra values grouped per key, keys in first-seen order (kube walks a map: any order is kube's).
  const extras = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!name.startsWith('impersonate-')) continue;
    const value = rawHeaders[i + 1]!;
    if (name === USER_HEADER) user ??= value;
    else if (name === GROUP_HEADER) groups.push(value);
    else if (name === UID_HEADER) uid ??= value;
    else if (name.startsWith(EXTRA_PREFIX)) {
      const key = unescapeExtraKey(name.slice(EXTRA_PREFIX.length));
      const list = extras.get(key);
      if (list) list.push(value);
      else extras.set(key, [value]);
    }
  }

  const requests: ImpersonationRequest[] = [];
  const hasUser = user !== undefined && user !== '';
  if (hasUser) {
    const sa = splitServiceAccountUsername(user!);
    requests.push(sa ? { kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name, apiVersion: '', fieldPath: '' } : { kind: 'User', namespace: '', name: user!, apiVersion: '', fieldPath: '' });
  }
  for (const g of groups) requests.push({ kind: 'Group', namespace: '', name: g, apiVersion: '', fieldPath: '' });
  for (const [key, values] of extras) {
    for (const v of values) requests.push({ kind: 'UserExtra', namespace: '', name: v, apiVersion: `${AUTHN_GROUP}/v1`, fieldPath: key });
  }
  const hasUid = uid !== undefined && uid !== '';
  if (hasUid) requests.push({ kind: 'UID', namespace: '', name: uid!, apiVersion: `${AUTHN_GROUP}/v1`, fieldPath: '' });

  if ((groups.length > 0 || extras.size > 0 || hasUid) && !hasUser) {
    return `requested [${requests.map(goObjectReference).join(' ')}] without impersonating a user`;
  }
  return { requests, groupsSpecified: groups.length > 0 };
}

/** Go's %v of a v1.ObjectReference value: its seven fields, space-separated, in braces. */
function goObjectReference(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

/** Go's url.PathUnescape of an extra key; a malformed one is kept as it is, as kube does. */
function unescapeExtraKey(key: string): string {
  if (!key.includes('%')) return key;
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** kube's serviceaccount.SplitUsername: `system:serviceaccount:<namespace>:<name>` with valid names, else undefined. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (namespace.length > 63 || !DNS1123_LABEL.test(namespace)) return undefined;
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) return undefined;
  return { namespace, name };
}
