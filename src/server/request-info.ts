/**
 * Request info: the one parse of a request's path, method and query into a typed record.
 * Every later step (authorization, routing, handlers) reads this record, never the raw URL.
 * Mirrors the rules of kube-apiserver's RequestInfoFactory.
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
  readonly verb: ResourceVerb;
  /** `api` or `apis`. */
  readonly apiPrefix: 'api' | 'apis';
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** Empty when the path stops at the group/version (`/apis/g/v`): discovery. */
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** The remaining path segments beyond what kube parses (present means the path is not served). */
  readonly extraParts: readonly string[];
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

function isTrue(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** Parses method + path + query into a RequestInfo; never throws. */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const m = method.toUpperCase();
  const parts = path.split('/').filter((p) => p !== '');
  const nonResource: NonResourceRequestInfo = { isResourceRequest: false, path, verb: m.toLowerCase() };
  if (parts.length === 0 || (parts[0] !== 'api' && parts[0] !== 'apis')) return nonResource;
  const apiPrefix = parts[0] as 'api' | 'apis';
  let rest = parts.slice(1);
  let apiGroup = '';
  if (apiPrefix === 'apis') {
    if (rest.length < 2) return nonResource; // /apis, /apis/<group>
    apiGroup = rest[0]!;
    rest = rest.slice(1);
  } else if (rest.length < 1) {
    return nonResource; // /api
  }
  const apiVersion = rest[0]!;
  rest = rest.slice(1);

  let verb: ResourceVerb | '' = '';
  switch (m) {
    case 'POST':
      verb = 'create';
      break;
    case 'GET':
    case 'HEAD':
      verb = 'get';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = 'delete';
      break;
    default:
      verb = '';
  }
  // The legacy `/watch/` path prefix.
  if (rest[0] === 'watch') {
    verb = 'watch';
    rest = rest.slice(1);
  }

  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && !namespaceSubresources.has(rest[2]!)) rest = rest.slice(2);
  }
  const resource = rest[0] ?? '';
  const name = rest[1] ?? '';
  const subresource = rest[2] ?? '';
  const extraParts = rest.slice(3);

  if (verb === 'get' || verb === 'watch') {
    if (isTrue(query.get('watch') ?? undefined)) verb = 'watch';
    else if (verb === 'get' && name === '') verb = 'list';
  } else if (verb === 'delete' && name === '') {
    verb = 'deletecollection';
  }
  if (verb === '') {
    // An unsupported method on an API path: keep it a resource request so the router answers 405.
    return {
      isResourceRequest: true,
      path,
      verb: m.toLowerCase() as ResourceVerb,
      apiPrefix,
      apiGroup,
      apiVersion,
      resource,
      subresource,
      namespace,
      name,
      extraParts,
    };
  }
  return { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, resource, subresource, namespace, name, extraParts };
}
