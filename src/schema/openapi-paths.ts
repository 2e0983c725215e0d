/**
 * The REST operations of one resource type as kube-apiserver publishes them in OpenAPI: paths,
 * operation ids, query parameters (kubectl looks for `fieldValidation` on the PATCH operation
 * to decide that the server validates fields itself) and `x-kubernetes-*` operation markers.
 */
import type { ResourceType } from '../api/types.ts';
import { DELETE_OPTIONS, PATCH, STATUS, type Json } from './openapi-meta.ts';

export type DocVersion = 'v2' | 'v3';

interface ParamSpec {
  readonly name: string;
  readonly type: 'string' | 'boolean' | 'integer';
  readonly description: string;
}

const P: Readonly<Record<string, ParamSpec>> = {
  allowWatchBookmarks: { name: 'allowWatchBookmarks', type: 'boolean', description: 'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server\'s discretion.' },
  continue: { name: 'continue', type: 'string', description: 'The continue option should be set when retrieving more results from the server. Since this value is server defined, clients may only use the continue value from a previous query result with identical query parameters (except for the value of continue).' },
  dryRun: { name: 'dryRun', type: 'string', description: 'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed' },
  fieldManager: { name: 'fieldManager', type: 'string', description: 'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.' },
  fieldSelector: { name: 'fieldSelector', type: 'string', description: 'A selector to restrict the list of returned objects by their fields. Defaults to everything.' },
  fieldValidation: { name: 'fieldValidation', type: 'string', description: 'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered.' },
  force: { name: 'force', type: 'boolean', description: 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.' },
  gracePeriodSeconds: { name: 'gracePeriodSeconds', type: 'integer', description: 'The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately.' },
  ignoreStoreReadErrorWithClusterBreakingPotential: { name: 'ignoreStoreReadErrorWithClusterBreakingPotential', type: 'boolean', description: 'if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error.' },
  labelSelector: { name: 'labelSelector', type: 'string', description: 'A selector to restrict the list of returned objects by their labels. Defaults to everything.' },
  limit: { name: 'limit', type: 'integer', description: 'limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata to a value that can be used with the same initial query to retrieve the next set of results.' },
  orphanDependents: { name: 'orphanDependents', type: 'boolean', description: 'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned.' },
  propagationPolicy: { name: 'propagationPolicy', type: 'string', description: "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. Acceptable values are: 'Orphan', 'Background', 'Foreground'." },
  resourceVersion: { name: 'resourceVersion', type: 'string', description: 'resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset.' },
  resourceVersionMatch: { name: 'resourceVersionMatch', type: 'string', description: 'resourceVersionMatch determines how resourceVersion is applied to list calls. Defaults to unset.' },
  sendInitialEvents: { name: 'sendInitialEvents', type: 'boolean', description: '`sendInitialEvents=true` may be set together with `watch=true`. In that case, the watch stream will begin with synthetic events to produce the current state of objects in the collection.' },
  timeoutSeconds: { name: 'timeoutSeconds', type: 'integer', description: 'Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity.' },
  watch: { name: 'watch', type: 'boolean', description: 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.' },
  pretty: { name: 'pretty', type: 'string', description: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line tool (curl and wget)." },
};

const LIST_PARAMS = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];
const WRITE_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation'];
const DELETE_PARAMS = ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy'];
const DELETE_COLLECTION_PARAMS = ['continue', 'dryRun', 'fieldSelector', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'labelSelector', 'limit', 'orphanDependents', 'propagationPolicy', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds'];
const PATCH_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force'];

const MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const LIST_MEDIA = [...MEDIA, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
const PATCH_MEDIA_CRD = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];
const PATCH_MEDIA_BUILTIN = [...PATCH_MEDIA_CRD, 'application/strategic-merge-patch+json'];

/** Group tag used in operation ids and tags: `core`, `apps`, `rbacAuthorization`, `stableExampleCom`. */
export function groupTag(group: string): string {
  if (!group) return 'core';
  const base = group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
  const parts = base.split(/[.-]/).filter(Boolean);
  return parts.map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('');
}

const cap = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

function isBuiltinGroup(group: string): boolean {
  return !group.includes('.') || group.endsWith('.k8s.io');
}

/** Everything needed to emit one resource type's paths into a document. */
export interface PathContext {
  readonly doc: DocVersion;
  readonly rt: ResourceType;
  /** Reference to a definition by name, in the document's style. */
  ref(name: string): Json;
  /** Definition names of the kind and its list. */
  readonly kindName: string;
  readonly listName: string;
}

function queryParam(doc: DocVersion, name: string): Json {
  const p = P[name]!;
  return doc === 'v3'
    ? { name: p.name, in: 'query', description: p.description, schema: { type: p.type, uniqueItems: true } }
    : { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: 'query' };
}

function pathParam(doc: DocVersion, name: 'name' | 'namespace', what: string): Json {
  const description = name === 'name' ? `name of the ${what}` : 'object name and auth scope, such as for teams and projects';
  return doc === 'v3'
    ? { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } }
    : { uniqueItems: true, type: 'string', description, name, in: 'path', required: true };
}

function responses(ctx: PathContext, codes: Readonly<Record<string, string>>, schemaName: string, media: readonly string[]): Json {
  const out: Json = {};
  for (const [code, description] of Object.entries(codes)) {
    if (ctx.doc === 'v3') {
      const content: Json = {};
      for (const m of media) content[m] = { schema: ctx.ref(schemaName) };
      out[code] = { description, content };
    } else {
      out[code] = { description, schema: ctx.ref(schemaName) };
    }
  }
  out['401'] = { description: 'Unauthorized' };
  return out;
}

function body(ctx: PathContext, schemaName: string, media: readonly string[]): { v3?: Json; v2?: Json } {
  if (ctx.doc === 'v3') {
    const content: Json = {};
    for (const m of media) content[m] = { schema: ctx.ref(schemaName) };
    return { v3: { content, required: true } };
  }
  return { v2: { name: 'body', in: 'body', required: true, schema: ctx.ref(schemaName) } };
}

interface OpSpec {
  readonly action: string;
  readonly description: string;
  readonly params: readonly string[];
  readonly responses: Json;
  readonly body?: { v3?: Json; v2?: Json };
  readonly consumes?: readonly string[];
  readonly produces: readonly string[];
}

function operation(ctx: PathContext, spec: OpSpec, id: string): Json {
  const { rt } = ctx;
  const tag = `${groupTag(rt.group)}_${rt.version}`;
  const op: Json = { tags: [tag], description: spec.description, operationId: id };
  const params = spec.params.map((p) => queryParam(ctx.doc, p));
  if (spec.body?.v2) params.unshift(spec.body.v2);
  if (params.length > 0) op['parameters'] = params;
  if (spec.body?.v3) op['requestBody'] = spec.body.v3;
  if (ctx.doc === 'v2') {
    if (spec.consumes) op['consumes'] = [...spec.consumes];
    op['produces'] = [...spec.produces];
    op['schemes'] = ['https'];
  }
  op['responses'] = spec.responses;
  op['x-kubernetes-action'] = spec.action;
  op['x-kubernetes-group-version-kind'] = { group: rt.group, kind: rt.kind, version: rt.version };
  return op;
}

function named(ctx: PathContext, verb: string, scoped: string): string {
  return `${verb}${cap(groupTag(ctx.rt.group))}${cap(ctx.rt.version)}${scoped}`;
}

/** The paths of one resource type (collection, item, status, and the all-namespaces list), keyed by path. */
export function resourcePaths(ctx: PathContext): Record<string, Json> {
  const { rt } = ctx;
  const root = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
  const scope = rt.namespaced ? 'Namespaced' : '';
  const collection = rt.namespaced ? `${root}/namespaces/{namespace}/${rt.resource}` : `${root}/${rt.resource}`;
  const item = `${collection}/{name}`;
  const patchMedia = isBuiltinGroup(rt.group) ? PATCH_MEDIA_BUILTIN : PATCH_MEDIA_CRD;
  const withId = (spec: OpSpec, id: string): Json => operation(ctx, spec, id);
  const what = rt.kind;
  const scopeParams = (withName: boolean): Json[] => {
    const ps: Json[] = [];
    if (withName) ps.push(pathParam(ctx.doc, 'name', what));
    if (rt.namespaced) ps.push(pathParam(ctx.doc, 'namespace', what));
    ps.push(queryParam(ctx.doc, 'pretty'));
    return ps;
  };
  const ok = { '200': 'OK' };
  const paths: Record<string, Json> = {};

  paths[collection] = {
    get: withId({ action: 'list', description: `list or watch objects of kind ${what}`, params: LIST_PARAMS, responses: responses(ctx, ok, ctx.listName, LIST_MEDIA), produces: LIST_MEDIA }, named(ctx, 'list', `${scope}${what}`)),
    post: withId({ action: 'post', description: `create a ${what}`, params: WRITE_PARAMS, body: body(ctx, ctx.kindName, MEDIA.slice(0, 2)), responses: responses(ctx, { '200': 'OK', '201': 'Created', '202': 'Accepted' }, ctx.kindName, MEDIA), consumes: ['*/*'], produces: MEDIA }, named(ctx, 'create', `${scope}${what}`)),
    delete: withId({ action: 'deletecollection', description: `delete collection of ${what}`, params: DELETE_COLLECTION_PARAMS, body: optionalBody(ctx), responses: responses(ctx, ok, STATUS, MEDIA), consumes: ['*/*'], produces: MEDIA }, named(ctx, 'delete', `Collection${scope}${what}`)),
    parameters: scopeParams(false),
  };
  paths[item] = {
    get: withId({ action: 'get', description: `read the specified ${what}`, params: [], responses: responses(ctx, ok, ctx.kindName, MEDIA), produces: MEDIA }, named(ctx, 'read', `${scope}${what}`)),
    put: withId({ action: 'put', description: `replace the specified ${what}`, params: WRITE_PARAMS, body: body(ctx, ctx.kindName, MEDIA.slice(0, 2)), responses: responses(ctx, { '200': 'OK', '201': 'Created' }, ctx.kindName, MEDIA), consumes: ['*/*'], produces: MEDIA }, named(ctx, 'replace', `${scope}${what}`)),
    delete: withId({ action: 'delete', description: `delete a ${what}`, params: DELETE_PARAMS, body: optionalBody(ctx), responses: responses(ctx, { '200': 'OK', '202': 'Accepted' }, STATUS, MEDIA), consumes: ['*/*'], produces: MEDIA }, named(ctx, 'delete', `${scope}${what}`)),
    patch: withId({ action: 'patch', description: `partially update the specified ${what}`, params: PATCH_PARAMS, body: body(ctx, PATCH, patchMedia), responses: responses(ctx, { '200': 'OK', '201': 'Created' }, ctx.kindName, MEDIA), consumes: patchMedia, produces: MEDIA }, named(ctx, 'patch', `${scope}${what}`)),
    parameters: scopeParams(true),
  };
  if (rt.hasStatus) {
    paths[`${item}/status`] = {
      get: withId({ action: 'get', description: `read status of the specified ${what}`, params: [], responses: responses(ctx, ok, ctx.kindName, MEDIA), produces: MEDIA }, named(ctx, 'read', `${scope}${what}Status`)),
      put: withId({ action: 'put', description: `replace status of the specified ${what}`, params: WRITE_PARAMS, body: body(ctx, ctx.kindName, MEDIA.slice(0, 2)), responses: responses(ctx, { '200': 'OK', '201': 'Created' }, ctx.kindName, MEDIA), consumes: ['*/*'], produces: MEDIA }, named(ctx, 'replace', `${scope}${what}Status`)),
      patch: withId({ action: 'patch', description: `partially update status of the specified ${what}`, params: PATCH_PARAMS, body: body(ctx, PATCH, patchMedia), responses: responses(ctx, { '200': 'OK', '201': 'Created' }, ctx.kindName, MEDIA), consumes: patchMedia, produces: MEDIA }, named(ctx, 'patch', `${scope}${what}Status`)),
      parameters: scopeParams(true),
    };
  }
  if (rt.namespaced) {
    paths[`${root}/${rt.resource}`] = {
      get: withId({ action: 'list', description: `list or watch objects of kind ${what}`, params: LIST_PARAMS, responses: responses(ctx, ok, ctx.listName, LIST_MEDIA), produces: LIST_MEDIA }, named(ctx, 'list', `${what}ForAllNamespaces`)),
      parameters: [queryParam(ctx.doc, 'pretty')],
    };
  }
  return paths;
}

function optionalBody(ctx: PathContext): { v3?: Json; v2?: Json } {
  if (ctx.doc === 'v3') {
    return { v3: { content: { '*/*': { schema: ctx.ref(DELETE_OPTIONS) } } } };
  }
  return { v2: { name: 'body', in: 'body', schema: ctx.ref(DELETE_OPTIONS) } };
}
