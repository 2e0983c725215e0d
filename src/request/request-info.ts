/**
 * Request info: the one parse of a request's path, method and query into a typed record, used
 * by authorization and by the handlers for namespace and name. Mirrors kube-apiserver's
 * RequestInfoFactory exactly, including its quirks (empty path segments are kept, the
 * `watch` query only turns a collection GET into a watch). Which handler serves a path is a
 * separate decision, made by the route table in routes.ts as go-restful makes it.
 */

export type ResourceVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection';

export interface ResourceRequestInfo {
  readonly isResourceRequest: true;
  readonly path: string;
  /** The verb as kube's authorizer sees it; an unknown HTTP method gives the empty string. */
  readonly verb: ResourceVerb | '';
  /** `api` or `apis`. */
  readonly apiPrefix: 'api' | 'apis';
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** Empty when the path stops at the group/version (`/apis/g/v`): discovery. */
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

export interface NonResourceRequestInfo {
  readonly isResourceRequest: false;
  readonly path: string;
  /** The lowercase HTTP method, as kube-apiserver authorizes non-resource requests. */
  readonly verb: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

/** Subresources of a namespace that are not namespaced resources beneath it. */
const namespaceSubresources = new Set(['status', 'finalize']);

/** Go's `strings.Split(strings.Trim(path, "/"), "/")`: empty inner segments are kept. */
export function splitPath(path: string): string[] {
  // Leading and trailing slashes trimmed by hand: a regular expression replace here was a few
  // microseconds of every request (each request splits its path two or three times).
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 47) start++;
  while (end > start && path.charCodeAt(end - 1) === 47) end--;
  return start === end ? [] : path.slice(start, end).split('/');
}

/**
 * kube's conversion of a query value to bool (runtime.Convert_Slice_string_To_bool): only
 * `0` and `false` (any case) are false; any other value, the empty string included, is true.
 */
export function queryBool(v: string): boolean {
  return !(v === '0' || v.toLowerCase() === 'false');
}

/**
 * The path of a request URL as Go's net/url gives it (URL.Path): percent escapes decoded,
 * dot segments kept as they are (WHATWG URL parsing would resolve `%2e%2e`, kube does not).
 */
export function requestPath(rawUrl: string): string {
  const q = rawUrl.indexOf('?');
  const raw = q < 0 ? rawUrl : rawUrl.slice(0, q);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The query of a request URL (everything after the first `?`). */
export function requestQuery(rawUrl: string): URLSearchParams {
  const q = rawUrl.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1));
}

/**
 * kube's RequestInfoFactory fails (and kube answers a plain-text 500) for a special-verb prefix
 * with nothing after it (`/api/v1/watch`, `/apis/g/v/proxy`); the error text, or undefined.
 */
export function requestInfoError(path: string, rawUrl: string): string | undefined {
  const parts = splitPath(path);
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return undefined;
  const rest = parts.slice(parts[0] === 'api' ? 2 : 3);
  if (parts[0] === 'apis' && parts.length < 4) return undefined;
  if ((rest[0] === 'watch' || rest[0] === 'proxy') && rest.length < 2) {
    return `failed to create RequestInfo: unable to determine kind and namespace from url, ${rawUrl}`;
  }
  return undefined;
}

/** Parses method + path + query into a RequestInfo; never throws. */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const nonResource: NonResourceRequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase() };
  let parts = splitPath(path);
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return nonResource;
  const apiPrefix = parts[0] as 'api' | 'apis';
  parts = parts.slice(1);
  let apiGroup = '';
  if (apiPrefix === 'apis') {
    if (parts.length < 3) return nonResource;
    apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  const apiVersion = parts[0]!;
  parts = parts.slice(1);

  let verb: ResourceVerb | '' = '';
  if (parts[0] === 'watch') {
    // The deprecated `/watch/` path prefix (kube's specialVerbs also has `proxy`, not served here).
    verb = 'watch';
    parts = parts.slice(1);
  } else {
    verb = verbOfMethod(method.toUpperCase());
  }

  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1]!;
    if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2);
  }
  const resource = parts[0] ?? '';
  let name = parts[1] ?? '';
  const subresource = parts[2] ?? '';

  if (name === '' && verb === 'get') {
    const watch = query.getAll('watch');
    verb = watch.length > 0 && queryBool(watch[0]!) ? 'watch' : 'list';
    // A field selector naming one object narrows the request to it, as kube's authorizer sees it.
    const selected = exactNameSelection(query.get('fieldSelector'));
    if (selected !== undefined) name = selected;
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, resource, subresource, namespace, name };
}

function verbOfMethod(method: string): ResourceVerb | '' {
  switch (method) {
    case 'POST':
      return 'create';
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

/** `metadata.name=x` (or `==`) as the only term of a field selector, when x is a valid path segment. */
function exactNameSelection(selector: string | null): string | undefined {
  if (!selector) return undefined;
  const m = /^\s*metadata\.name\s*(?:==|=)\s*([^,]*?)\s*$/.exec(selector);
  if (!m) return undefined;
  const name = m[1]!;
  if (name === '' || name === '.' || name === '..' || /[/%]/.test(name)) return undefined;
  return name;
}
