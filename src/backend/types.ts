/**
 * The contract between the front door and the backends that own API group/versions.
 *
 * The front door (src/server) owns everything before a backend is chosen (request info,
 * authentication, flow control and limits, authorization) and the shape of every answer (content
 * negotiation, encoding, Status errors, Warning headers). A backend owns what happens to a
 * resource request after that. Two kinds plug in at the front door's routing step:
 *
 * - a local backend serves the verbs in-process over a ResourceStore: the built-in registry and
 *   the custom-resource registry (the same generic store; CRD kinds come and go in the catalog).
 *   It gets a typed ResourceRequest and answers a typed VerbResult, or throws an ApiError;
 * - a remote backend (src/aggregator: an APIService with a service) gets the request as it came,
 *   with the caller's identity asserted, and streams the answer back untouched.
 *
 * Neither kind imports the HTTP server: the request's records (src/request) sit below both.
 */
import type { KubeObject, ResourceType } from '../api/types.ts';
import type { FeatureGates } from '../features/index.ts';
import type { ResourceCatalog, ServedResource } from '../registry/resource-catalog.ts';
import type { Entry, ListOutcome } from '../registry/resource-store.ts';
import type { RequestBody } from '../request/request-body.ts';
import type { ResourceRequestInfo } from '../request/request-info.ts';
import type { RequestUser } from '../request/user.ts';

/**
 * One resource request as a local backend serves it: authenticated, authorized and routed
 * (namespace, name and subresource are the matched route's). Nothing in it is HTTP.
 */
export interface ResourceRequest {
  readonly info: ResourceRequestInfo;
  readonly query: URLSearchParams;
  readonly user: RequestUser;
  /** The body as received; decoded by the verb at the point kube decodes it. */
  readonly body: RequestBody;
  /** The User-Agent header (the default field manager is derived from it). */
  readonly userAgent: string;
  readonly features: FeatureGates;
  /** The request's audit annotations, which admission adds to. */
  readonly auditAnnotations: Record<string, string>;
  /** The request's audit record, when it is audited: told the object a create or update decoded. */
  readonly auditLog?: RequestObjectLog;
  /**
   * Warnings for the answer's Warning headers. The verb appends; the front door writes them
   * whether the verb answers or throws (kube's recorder writes each warning as it is added).
   */
  readonly warnings: string[];
}

/**
 * kube's audit.LogRequestObject: the verb reports the object it decoded from the body, before
 * admission or defaults change it, and the audit event's object reference is completed from it.
 */
export interface RequestObjectLog {
  requestObject(obj: KubeObject): void;
}

/** One stored object: encoded in the negotiated form (Table, metadata-only, protobuf, JSON from the entry's memo). */
export interface ObjectResult {
  readonly kind: 'object';
  readonly code: number;
  readonly object: KubeObject;
  /** The store's entry of the object, when it was read as stored: its encodings are memoized there. */
  readonly entry?: Entry;
}

/** An answer that is not one of the kind's objects (a Status, a Scale, the list deletecollection removed): encoded as it is. */
export interface ValueResult {
  readonly kind: 'value';
  readonly code: number;
  readonly value: object;
}

/** One page of a list, with its list metadata. */
export interface ListResult {
  readonly kind: 'list';
  readonly outcome: ListOutcome;
}

export type VerbResult = ObjectResult | ValueResult | ListResult;

/**
 * The verbs of one served resource in a local backend. Each may throw an ApiError, which the
 * front door answers as kube's Status. Watch is the front door's stream over the store's watch
 * cache (src/server/handlers/watch.ts): only its encoding differs per backend, and it has none.
 */
export interface LocalResourceVerbs {
  get(target: ServedResource, r: ResourceRequest): Promise<ObjectResult>;
  list(target: ServedResource, r: ResourceRequest): Promise<ListResult>;
  create(target: ServedResource, r: ResourceRequest): Promise<ObjectResult>;
  /** PUT of the resource or a subresource (status, finalize); 201 when it created the object. */
  update(target: ServedResource, r: ResourceRequest): Promise<ObjectResult>;
  /** JSON, merge and strategic merge patch, and server-side apply (which may create). */
  patch(target: ServedResource, r: ResourceRequest): Promise<ObjectResult>;
  delete(target: ServedResource, r: ResourceRequest): Promise<ObjectResult | ValueResult>;
  deleteCollection(target: ServedResource, r: ResourceRequest): Promise<ValueResult>;
}

/** A subresource a local backend serves with its own verbs (a custom resource's scale). */
export interface LocalSubresource {
  /** Whether this subresource handler serves `subresource` of `rt`. */
  serves(rt: ResourceType, subresource: string): boolean;
  /** GET, PUT or PATCH of the subresource; answers the subresource's own object. */
  serve(target: ServedResource, r: ResourceRequest): Promise<ValueResult>;
}

/** A local backend: the group/versions it serves (the catalog) and its verbs. */
export interface LocalBackend {
  readonly kind: 'local';
  /** What it serves, by group/version and resource; discovery and OpenAPI are built from it. */
  readonly catalog: ResourceCatalog;
  readonly verbs: LocalResourceVerbs;
  readonly subresources: readonly LocalSubresource[];
}
