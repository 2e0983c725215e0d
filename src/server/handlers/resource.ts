/**
 * The HTTP side of a resource endpoint's verbs: get, list, create, update, patch, delete,
 * deletecollection (watch lives in watch.ts). Each negotiates the answer's form, hands the routed
 * request to the local backend (src/backend/local), and writes what it answers: the front door
 * translates HTTP, the backend decides.
 */
import { listSchemaOf } from '../../codec/cbor.ts';
import type { Serializer } from '../../codec/negotiate.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../api/status-errors.ts';
import { apiVersionOf, type KubeObject, type ResourceType } from '../../api/types.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';
import type { ServedResource } from '../../registry/resource-catalog.ts';
import type { Entry } from '../../registry/resource-store.ts';
import { queryBool } from '../../registry/list-options.ts';
import { negotiateOutput, type Negotiated, type Offer } from '../../codec/negotiate.ts';
import { encodeProtobufItemMessage, encodeProtobufList, encodeProtobufListOfMessages, encodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../../codec/protobuf/index.ts';
import { encodeTableJson, partialMetadataMismatch, toPartialObjectMetadata, toPartialObjectMetadataList, toTable, type IncludeObject } from '../../codec/table.ts';
import { stringifyGo } from '../../codec/json-encode.ts';
import { addWarnings, sendBytes, sendValue } from '../respond.ts';
import { protobufServed } from '../../backend/local/body.ts';
import { listItem, listMetaOf, listObjectOf } from '../../api/list-object.ts';
import type { ListResult, LocalResourceVerbs, LocalSubresource, ResourceRequest, VerbResult } from '../../backend/types.ts';
import type { RequestUser } from '../../request/user.ts';
import type { RequestBody } from '../../request/request-body.ts';

export interface VerbContext {
  readonly req: FastifyRequest;
  readonly reply: FastifyReply;
  readonly info: ResourceRequestInfo;
  readonly served: ServedResource;
  readonly query: URLSearchParams;
  readonly user: RequestUser;
}

/** The response representation the Accept header asks for (406 when none fits). */
export function negotiate(c: VerbContext): Negotiated {
  return negotiateOutput({
    accept: String(c.req.headers.accept ?? ''),
    offer: offerFor(c),
    prettyQuery: c.query.get('pretty'),
    userAgent: String(c.req.headers['user-agent'] ?? ''),
  });
}

/** What a resource endpoint can produce: protobuf too for built-in kinds. */
export function offerFor(c: VerbContext): Offer {
  // A custom resource speaks protobuf for its metadata only (kube's unstructured negotiator).
  const metadataOnly = c.served.rt.unstructured === true;
  const serializers: Serializer[] = protobufServed(c.served.rt) || metadataOnly ? ['json', 'yaml', 'protobuf'] : ['json', 'yaml'];
  if (c.req.server.features.enabled('CBORServingAndStorage')) serializers.push('cbor');
  return { table: true, serializers, ...(metadataOnly ? { protobufForMetadataOnly: true } : {}) };
}

/** Sends one object in the negotiated format (memoized bytes for plain JSON). */
function sendObject(c: VerbContext, code: number, obj: KubeObject, fmt: Negotiated, entry?: Entry): void {
  const { rt, store } = c.served;
  if (fmt.kind === 'protobuf') {
    const bytes = entry ? entry.encode(`pb@${apiVersionOf(rt)}`, () => encodeProtobufObject(obj)) : encodeProtobufObject(obj);
    sendBytes(c.req, c.reply, code, bytes, PROTOBUF_MEDIA_TYPE);
  } else if (fmt.kind === 'table') {
    const includeObject = tableIncludeObject(c.query);
    sendValue(c.req, c.reply, code, toTable([obj], rt, { includeObject, now: new Date(), version: fmt.version, listMeta: { resourceVersion: obj.metadata?.resourceVersion } }), asJsonOrYaml(fmt));
  } else if (fmt.kind === 'partial-metadata') {
    const partial = toPartialObjectMetadata(obj, fmt.version);
    if (fmt.serializer === 'protobuf') sendBytes(c.req, c.reply, code, encodeProtobufObject(partial), PROTOBUF_MEDIA_TYPE);
    else sendValue(c.req, c.reply, code, partial, fmt);
  } else if (fmt.kind === 'partial-metadata-list') {
    throw partialMetadataMismatch('PartialObjectMetadataList', goTypeName(rt, false));
  } else if (fmt.kind === 'json' && entry && !fmt.pretty) {
    // Go's json.Encoder ends the body with a newline.
    sendBytes(c.req, c.reply, code, Buffer.concat([store.encodeJson(entry), newline]), 'application/json');
  } else {
    sendValue(c.req, c.reply, code, obj, fmt.serializer === 'cbor' ? { ...fmt, schema: rt.schema } : fmt);
  }
}

/**
 * The Go type kube names in its 406 for a PartialObjectMetadata of the wrong shape: the internal
 * type (`*core.Namespace`, `*rbac.ClusterRoleList`); kinds served in two groups share core's.
 */
function goTypeName(rt: ResourceType, list: boolean): string {
  const pkg = rt.group === '' || rt.storageConversion ? 'core' : rt.group.split('.')[0]!;
  return `*${pkg}.${rt.kind}${list ? 'List' : ''}`;
}

/** TableOptions.includeObject from the query, validated as kube does when a Table is asked for. */
export function tableIncludeObject(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject') ?? '';
  if (v === '') return 'Metadata';
  if (v === 'None' || v === 'Object' || v === 'Metadata') return v;
  throw errors.badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`);
}

const newline = Buffer.from('\n');

/**
 * Length of a leading `{"kind":"…","apiVersion":"…",` in serialized object bytes (objects are
 * stored with these keys first), or 0 when the bytes do not start that way.
 */
export function typeMetaPrefixLength(bytes: Uint8Array): number {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 512)).toString('latin1');
  const m = /^\{"kind":"(?:[^"\\]|\\.)*","apiVersion":"(?:[^"\\]|\\.)*",/.exec(head);
  return m ? m[0].length : 0;
}

/** Tables and metadata-only views have no protobuf encoding here: they are sent as JSON. */
function asJsonOrYaml(fmt: Negotiated): Negotiated {
  return fmt.serializer === 'protobuf' ? { ...fmt, serializer: 'json', mediaType: 'application/json' } : fmt;
}


/** A request's body as the backends read it. */
export function requestBodyOf(req: FastifyRequest): RequestBody {
  const ct = req.headers['content-type'];
  return { contentType: ct === undefined ? undefined : String(ct), bytes: req.body as Buffer | undefined };
}

/** The routed request as the backend takes it: nothing HTTP is left in it. */
export function resourceRequestOf(c: VerbContext): ResourceRequest {
  return {
    info: c.info,
    query: c.query,
    user: c.user,
    body: requestBodyOf(c.req),
    userAgent: String(c.req.headers['user-agent'] ?? ''),
    features: c.req.server.features,
    // The request's audit record collects what admission annotates (src/audit).
    auditAnnotations: c.req.audit?.annotations ?? {},
    auditLog: c.req.audit,
    warnings: [],
  };
}

/** The verbs the local backend serves on a resource endpoint (watch is streamed by watch.ts). */
export type LocalVerb = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** The backend's method for each verb of the route table. */
const VERB_METHODS: Readonly<Record<LocalVerb, keyof LocalResourceVerbs>> = {
  get: 'get',
  list: 'list',
  create: 'create',
  update: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deleteCollection',
};

/**
 * Serves one verb of a resource endpoint: negotiates the answer (406 before anything else),
 * hands the request to the backend, and writes its answer. The warnings the backend recorded are
 * written on a failed answer too: kube's warning recorder writes each one as it is added, so a
 * 422 still carries the unknown-field warnings of its body.
 */
export async function serveVerb(c: VerbContext, verbs: LocalResourceVerbs, verb: LocalVerb): Promise<void> {
  // kube's get handler refuses the long-removed export option first (any value but 0/false).
  if (verb === 'get') {
    const exportParam = c.query.getAll('export');
    if (exportParam.length > 0 && queryBool(exportParam[0])) throw errors.badRequest('the export parameter, deprecated since v1.14, is no longer supported');
  }
  const fmt = negotiate(c);
  const r = resourceRequestOf(c);
  let result: VerbResult;
  try {
    result = await verbs[VERB_METHODS[verb]](c.served, r);
  } catch (err) {
    addWarnings(c.reply, r.warnings);
    throw err;
  }
  addWarnings(c.reply, r.warnings);
  writeResult(c, result, fmt);
}

/**
 * Serves a subresource with its own verbs (a custom resource's scale). Its writes' warnings
 * (admission webhooks, policies' Warn action) are written as any write's, refused or not.
 */
export async function serveSubresource(c: VerbContext, sub: LocalSubresource): Promise<void> {
  const fmt = negotiate(c);
  const r = resourceRequestOf(c);
  let result: VerbResult;
  try {
    result = await sub.serve(c.served, r);
  } finally {
    addWarnings(c.reply, r.warnings);
  }
  writeResult(c, result, fmt);
}

function writeResult(c: VerbContext, result: VerbResult, fmt: Negotiated): void {
  switch (result.kind) {
    case 'object':
      return sendObject(c, result.code, result.object, fmt, result.entry);
    case 'value':
      return sendValue(c.req, c.reply, result.code, result.value, fmt);
    case 'list':
      return sendList(c, result, fmt);
  }
}

/** Sends a list page in the negotiated form; every item's bytes are the store's memoized ones. */
function sendList(c: VerbContext, result: ListResult, fmt: Negotiated): void {
  const { rt, store } = c.served;
  const out = result.outcome;
  const listMeta = listMetaOf(rt, out);
  if (fmt.kind === 'protobuf') {
    // Each item's message is encoded once and kept with its cache entry (as kube's cacher keeps
    // serializations); the list is spliced around those bytes.
    const apiVersion = apiVersionOf(rt);
    const memoKey = `pb:${apiVersion}/${rt.kind}`;
    const items = out.entries.map((e) => e.encode(memoKey, (v) => encodeProtobufItemMessage(apiVersion, rt.kind, store.served(v))));
    sendBytes(c.req, c.reply, 200, encodeProtobufListOfMessages(rt.listKind, apiVersion, listMeta, items), PROTOBUF_MEDIA_TYPE);
    return;
  }
  if (fmt.kind === 'table') {
    const includeObject = tableIncludeObject(c.query);
    if ((fmt.serializer === 'json' || fmt.serializer === 'protobuf') && !fmt.pretty) {
      const objs = out.entries.map((e) => store.servedReadOnly(e.value));
      // Each row's object is encoded once per object version and kept with its cache entry.
      const opts = { includeObject, now: new Date(), listMeta, version: fmt.version };
      const memoKey = `table-meta:${fmt.version}`;
      const objectJson =
        includeObject === 'Object'
          ? (i: number) => store.encodeJson(out.entries[i]!)
          : (i: number) => out.entries[i]!.encode(memoKey, (v) => Buffer.from(stringifyGo(toPartialObjectMetadata(store.served(v), fmt.version))));
      sendBytes(c.req, c.reply, 200, encodeTableJson(objs, rt, opts, objectJson), 'application/json');
      return;
    }
    const objs = out.entries.map((e) => store.served(e.value));
    sendValue(c.req, c.reply, 200, toTable(objs, rt, { includeObject, now: new Date(), listMeta, version: fmt.version }), asJsonOrYaml(fmt));
    return;
  }
  if (fmt.kind === 'partial-metadata') throw partialMetadataMismatch('PartialObjectMetadata', goTypeName(rt, true));
  if (fmt.kind === 'partial-metadata-list') {
    const items = out.entries.map((e) => store.served(e.value));
    const list = toPartialObjectMetadataList(items, listMeta, fmt.version);
    if (fmt.serializer === 'protobuf') {
      sendBytes(c.req, c.reply, 200, encodeProtobufList('PartialObjectMetadataList', `meta.k8s.io/${fmt.version}`, listMeta, list.items as Record<string, unknown>[]), PROTOBUF_MEDIA_TYPE);
    } else sendValue(c.req, c.reply, 200, list, fmt);
    return;
  }
  if (fmt.kind === 'json' && !fmt.pretty) {
    // Splice the memoized bytes of every item: no object is serialized twice.
    const kindAndVersion = `"kind":${JSON.stringify(rt.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(rt))}`;
    const head = rt.unstructured ? `{"apiVersion":${JSON.stringify(apiVersionOf(rt))},"items":[` : `{${kindAndVersion},"metadata":${JSON.stringify(listMeta)},"items":[`;
    const parts: Uint8Array[] = [Buffer.from(head)];
    const comma = Buffer.from(',');
    const open = Buffer.from('{');
    out.entries.forEach((e, i) => {
      if (i > 0) parts.push(comma);
      // Items of a built-in list carry no kind/apiVersion on the wire, as kube-apiserver's do.
      const bytes = store.encodeJson(e);
      // (Custom resource lists are unstructured: their items keep kind and apiVersion.)
      const typeMetaEnd = rt.unstructured ? 0 : typeMetaPrefixLength(bytes);
      if (typeMetaEnd > 0) parts.push(open, bytes.subarray(typeMetaEnd));
      else parts.push(bytes);
    });
    parts.push(Buffer.from(rt.unstructured ? `],"kind":${JSON.stringify(rt.listKind)},"metadata":${JSON.stringify(listMeta)}}\n` : ']}\n'));
    sendBytes(c.req, c.reply, 200, Buffer.concat(parts), 'application/json');
    return;
  }
  const items = out.entries.map((e) => listItem(rt, store.served(e.value)));
  sendValue(c.req, c.reply, 200, listObjectOf(rt, listMeta, items), fmt.serializer === 'cbor' ? { ...fmt, schema: listSchemaOf(rt.schema) } : fmt);
}
