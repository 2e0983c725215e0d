/**
 * The verbs of a resource endpoint: get, list, create, update, patch, delete, deletecollection
 * (watch lives in watch.ts). Each handler works on the parsed RequestInfo and the ResourceStore.
 */
import { listSchemaOf } from '../../codec/cbor.ts';
import type { Serializer } from '../../codec/negotiate.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../api/status-errors.ts';
import { apiVersionOf, type KubeObject, type ResourceType } from '../../api/types.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';
import type { ServedResource } from '../../registry/resource-catalog.ts';
import type { Entry, WriteContext, DeleteOptions } from '../../registry/resource-store.ts';
import { parseListQuery, parseResourceVersion, queryBool, type ListQuery } from '../../registry/list-options.ts';
import { buildObjectFilter } from '../../registry/object-filter.ts';
import { isCorruptObjectError } from '../../registry/storage-errors.ts';
import { deleteOptionsDecodeError, dryRunFromQuery, parseDeleteOptions, type ParsedDeleteOptions } from '../../registry/delete-options.ts';
import { cloneObject } from '../../registry/object-meta.ts';
import { negotiateOutput, type Negotiated, type Offer } from '../../codec/negotiate.ts';
import { encodeProtobufItemMessage, encodeProtobufList, encodeProtobufListOfMessages, encodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../../codec/protobuf/index.ts';
import { partialMetadataMismatch, toPartialObjectMetadata, toPartialObjectMetadataList, toTable, type IncludeObject } from '../../codec/table.ts';
import { addWarnings, sendBytes, sendValue } from '../respond.ts';
import { asObject, decodeBody, fieldValidationMode, protobufServed, readObjectBody } from './body.ts';
import { applyPatchBody } from './patch.ts';
import { managerFor } from './field-manager.ts';
import { validateWriteOptions } from './write-options.ts';
import type { RequestUser } from '../../request/user.ts';

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

/** The options kind kube validates a write's query against (named in its 422). */
function optionsKindOf(verb: string): 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' {
  return verb === 'create' ? 'CreateOptions' : verb === 'patch' ? 'PatchOptions' : 'UpdateOptions';
}

export function writeContext(c: VerbContext, deleteOpts?: ParsedDeleteOptions): WriteContext {
  // Create, update and patch validate all their query options first (delete passes its own options).
  if (deleteOpts === undefined) {
    const isApply = String(c.req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase() === 'application/apply-patch+yaml';
    validateWriteOptions(c.query, optionsKindOf(c.info.verb), c.info.verb === 'patch' && isApply);
  }
  return {
    dryRun: deleteOpts?.dryRun ?? dryRunFromQuery(c.query, optionsKindOf(c.info.verb)),
    options: deleteOpts ? admissionDeleteOptions(deleteOpts) : admissionWriteOptions(c.query),
    // The request's audit record collects what admission annotates (src/audit).
    auditAnnotations: c.req.audit?.annotations ?? {},
    warnings: [],
    now: new Date(),
    manager: managerFor(c),
    subresource: c.info.subresource,
    operation: c.info.verb === 'create' || c.info.verb === 'patch' ? c.info.verb : 'update',
    user: c.req.user,
  };
}

/** A write's options as admission sees them (kube's CreateOptions/UpdateOptions fields, in their Go order). */
function admissionWriteOptions(q: URLSearchParams): Record<string, unknown> {
  const dryRun = q.getAll('dryRun');
  const fieldManager = q.getAll('fieldManager')[0] ?? '';
  const fieldValidation = q.getAll('fieldValidation')[0] ?? '';
  return { ...(dryRun.length > 0 ? { dryRun } : {}), ...(fieldManager ? { fieldManager } : {}), ...(fieldValidation ? { fieldValidation } : {}) };
}

/** DeleteOptions as admission sees them, in their Go field order. */
function admissionDeleteOptions(o: ParsedDeleteOptions): Record<string, unknown> {
  return {
    ...(o.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: o.gracePeriodSeconds } : {}),
    ...(o.preconditions ? { preconditions: o.preconditions } : {}),
    ...(o.orphanDependents !== undefined ? { orphanDependents: o.orphanDependents } : {}),
    ...(o.propagationPolicy !== undefined ? { propagationPolicy: o.propagationPolicy } : {}),
    ...(o.dryRun ? { dryRun: ['All'] } : {}),
  };
}

/** What a resource endpoint can produce: protobuf too for built-in kinds. */
export function offerFor(c: VerbContext): Offer {
  const serializers: Serializer[] = protobufServed(c.served.rt) ? ['json', 'yaml', 'protobuf'] : ['json', 'yaml'];
  if (c.req.server.features.enabled('CBORServingAndStorage')) serializers.push('cbor');
  return { table: true, serializers };
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

/** A list item as kube-apiserver writes it: the object without kind and apiVersion. */
function withoutTypeMeta(obj: KubeObject): KubeObject {
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return rest;
}

/** Tables and metadata-only views have no protobuf encoding here: they are sent as JSON. */
function asJsonOrYaml(fmt: Negotiated): Negotiated {
  return fmt.serializer === 'protobuf' ? { ...fmt, serializer: 'json', mediaType: 'application/json' } : fmt;
}

export async function handleGet(c: VerbContext): Promise<void> {
  // kube's get handler refuses the long-removed export option first (any value but 0/false).
  const exportParam = c.query.getAll('export');
  if (exportParam.length > 0 && queryBool(exportParam[0])) throw errors.badRequest('the export parameter, deprecated since v1.14, is no longer supported');
  const fmt = negotiate(c);
  const rv = c.query.getAll('resourceVersion')[0] ?? '';
  // A get with a version is served by kube's cacher, which refuses a malformed one with a bare 500.
  if (rv !== '' && rv !== '0') parseResourceVersion(rv, false);
  const entry = await c.served.store.get(c.info.namespace, c.info.name, rv);
  sendObject(c, 200, c.served.store.served(entry.value), fmt, entry);
}

export async function handleList(c: VerbContext): Promise<void> {
  const { rt, store } = c.served;
  const fmt = negotiate(c);
  const q = await resolveFutureReads(c, parseListQuery(c.query));
  const filter = buildObjectFilter(rt, q.labelSelector, q.fieldSelector);
  const out = await store.list(c.info.namespace, q, filter);
  const listMeta = {
    resourceVersion: out.resourceVersion,
    ...(out.continueToken ? { continue: out.continueToken } : {}),
    ...(out.remainingItemCount !== undefined ? { remainingItemCount: out.remainingItemCount } : {}),
  };
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
    const head = `{"kind":${JSON.stringify(rt.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(rt))},"metadata":${JSON.stringify(listMeta)},"items":[`;
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
    parts.push(Buffer.from(']}\n'));
    sendBytes(c.req, c.reply, 200, Buffer.concat(parts), 'application/json');
    return;
  }
  const items = out.entries.map((e) => (rt.unstructured ? store.served(e.value) : withoutTypeMeta(store.served(e.value))));
  sendValue(c.req, c.reply, 200, { kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata: listMeta, items }, fmt.serializer === 'cbor' ? { ...fmt, schema: listSchemaOf(rt.schema) } : fmt);
}

/**
 * Reads kube hands to etcd at a fixed revision (continue tokens, Exact) fail at once when the
 * revision is in the future: etcd answers "required revision is a future revision", which kube
 * passes on as a bare 500. (Not-older-than reads wait for the revision, then 504, as kube's cacher.)
 * A continue token with a negative revision reads the latest snapshot.
 */
async function resolveFutureReads(c: VerbContext, q: ListQuery): Promise<ListQuery> {
  const sem = q.semantics;
  if (sem.kind !== 'exact' && sem.kind !== 'continue') return q;
  const { store } = c.served;
  if (sem.kind === 'continue' && sem.position.revision === 0) {
    await store.syncForWatch();
    return { ...q, semantics: { kind: 'continue', position: { ...sem.position, revision: store.cache.revision } } };
  }
  const revision = sem.kind === 'exact' ? sem.revision : sem.position.revision;
  if (revision <= store.cache.revision) return q;
  await store.syncForWatch();
  if (revision > store.cache.revision) throw errors.unknown(500, 'etcdserver: mvcc: required revision is a future revision');
  return q;
}

/**
 * Runs a write, keeping the warnings it recorded on a failed answer too: kube's warning recorder
 * writes each warning into the response headers as it is added, so a 422 still carries the
 * unknown-field warnings of its body.
 */
async function keepingWarnings<T>(c: VerbContext, ctx: WriteContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    addWarnings(c.reply, ctx.warnings);
    throw err;
  }
}

export async function handleCreate(c: VerbContext): Promise<void> {
  const fmt = negotiate(c);
  const ctx = writeContext(c);
  const created = await keepingWarnings(c, ctx, async () => {
    const obj = await readObjectBody(c.req, { rt: c.served.rt, namespace: c.info.namespace, name: '' }, fieldValidationMode(c.query), ctx.warnings);
    return c.served.store.create(c.info.namespace, obj, ctx);
  });
  addWarnings(c.reply, ctx.warnings);
  sendObject(c, 201, created, fmt);
}

export async function handleUpdate(c: VerbContext): Promise<void> {
  const { rt, store } = c.served;
  const fmt = negotiate(c);
  const ctx = writeContext(c);
  const result = await keepingWarnings(c, ctx, async () => {
    const obj = await readObjectBody(c.req, { rt, namespace: c.info.namespace, name: c.info.name }, fieldValidationMode(c.query), ctx.warnings);
    // kube's checkName: an update must name its object (the URL alone does not).
    if (!obj.metadata?.name) throw errors.badRequest(`the name of the object (${c.info.name} based on URL) was undeterminable: name must be provided`);
    const sub = c.info.subresource;
    return store.update(
      c.info.namespace,
      c.info.name,
      (current) => {
        const next = cloneObject(obj);
        if (current) mergeSubresource(next, current, sub, rt);
        return next;
      },
      ctx,
      {
        allowCreate: false,
        subresource: sub,
        preconditions: { uid: obj.metadata!.uid },
        requireResourceVersion: rt.strategy.allowUnconditionalUpdate === false,
      },
    );
  });
  addWarnings(c.reply, ctx.warnings);
  sendObject(c, result.created ? 201 : 200, result.object, fmt);
}

/**
 * Status writes change only status; main-resource writes keep the current status (for kinds
 * with a status subresource). Kinds with their own subresource strategy (namespaces) are left
 * to it: the store runs it. Mutates `next`.
 */
export function mergeSubresource(next: KubeObject, current: KubeObject, subresource: string, rt: ResourceType): void {
  if (subresource !== '' && rt.strategy.subresources?.[subresource]) return;
  if (!rt.hasStatus) return;
  if (subresource === 'status') {
    const status = next.status;
    const rv = next.metadata?.resourceVersion;
    // Ownership computed for this write (server-side apply) survives; everything else is the current object's.
    const managedFields = next.metadata?.managedFields;
    for (const k of Object.keys(next)) delete next[k];
    Object.assign(next, cloneObject(current));
    if (managedFields !== undefined) next.metadata!.managedFields = managedFields;
    if (status === undefined) delete next.status;
    else next.status = status;
    if (rv) next.metadata!.resourceVersion = rv;
    else delete next.metadata!.resourceVersion;
  } else {
    if (current.status === undefined) delete next.status;
    else next.status = cloneObject(current.status);
  }
}

export async function handlePatch(c: VerbContext): Promise<void> {
  const fmt = negotiate(c);
  const ctx = writeContext(c);
  const { object, created } = await keepingWarnings(c, ctx, () => applyPatchBody(c, ctx));
  addWarnings(c.reply, ctx.warnings);
  sendObject(c, created ? 201 : 200, object, fmt);
}

/**
 * DeleteOptions of a delete or deletecollection: from the body when one is sent (client-go,
 * kubectl and controller-runtime put dryRun and preconditions there), else from the query.
 */
function unsafeDeleteAllowed(c: VerbContext): boolean {
  return c.req.server.features.enabled('AllowUnsafeMalformedObjectDeletion');
}

async function deleteOptionsOf(c: VerbContext): Promise<ParsedDeleteOptions> {
  const raw = c.req.body as Buffer | undefined;
  if (raw && raw.length > 0) {
    let value: unknown;
    try {
      // No expected kind: kube's delete handler reports the decoder's own words.
      value = (await decodeBody(c.req, 'body', c.served.rt, '')).value;
    } catch (err) {
      throw deleteOptionsDecodeError(err);
    }
    return parseDeleteOptions({ from: 'body', body: asObject(value) as Record<string, unknown> }, unsafeDeleteAllowed(c));
  }
  return parseDeleteOptions({ from: 'query', query: c.query }, unsafeDeleteAllowed(c));
}

export async function handleDelete(c: VerbContext): Promise<void> {
  const { rt, store } = c.served;
  const fmt = negotiate(c);
  const opts = await deleteOptionsOf(c);
  const ctx = writeContext(c, opts);
  let outcome;
  try {
    outcome = await keepingWarnings(c, ctx, () => store.delete(c.info.namespace, c.info.name, opts, ctx));
  } catch (err) {
    // The unsafe delete of an object that cannot be read: only when asked, only on corruption.
    if (opts.ignoreStoreReadError && isCorruptObjectError(err)) {
      await store.deleteCorrupt(c.info.namespace, c.info.name);
      sendValue(c.req, c.reply, 200, successStatus(rt.group, rt.resource, c.info.name, undefined), fmt);
      return;
    }
    throw err;
  }
  addWarnings(c.reply, ctx.warnings);
  if (outcome.kind === 'terminating') {
    // kube answers 202 for an object left in place only when the (deprecated) orphanDependents
    // was explicitly false; otherwise 200 with the terminating object.
    sendObject(c, opts.orphanDependents === false ? 202 : 200, outcome.object, fmt);
    return;
  }
  if (rt.strategy.returnDeletedObject) {
    sendObject(c, 200, outcome.object, fmt);
    return;
  }
  sendValue(c.req, c.reply, 200, successStatus(rt.group, rt.resource, c.info.name, outcome.object.metadata?.uid), fmt);
}

function successStatus(group: string, resource: string, name: string, uid: string | undefined): object {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    // Go's omitempty: no empty group for the core group.
    details: { name, ...(group ? { group } : {}), kind: resource, ...(uid ? { uid } : {}) },
  };
}

export async function handleDeleteCollection(c: VerbContext): Promise<void> {
  const { rt, store } = c.served;
  const fmt = negotiate(c);
  const opts = await deleteOptionsOf(c);
  // kube's deletecollection admits each object with the collection's (empty) name.
  const ctx: WriteContext = { ...writeContext(c, opts), collection: true };
  const q = parseListQuery(c.query);
  const filter = buildObjectFilter(rt, q.labelSelector, q.fieldSelector);
  const listed = await store.list(c.info.namespace, { ...q, limit: 0 }, filter);
  const items: KubeObject[] = [];
  for (const e of listed.entries) {
    const meta = e.value.metadata ?? {};
    // kube answers with the list it deleted from, as listed (not as each delete left the object);
    // items of a typed list carry no kind/apiVersion.
    items.push(withoutTypeMeta(store.served(e.value)));
    try {
      await keepingWarnings(c, ctx, () => store.delete(meta.namespace ?? '', meta.name ?? '', opts, ctx));
    } catch (err) {
      // Someone else deleted it meanwhile: that is the outcome we wanted.
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }
  addWarnings(c.reply, ctx.warnings);
  sendValue(c.req, c.reply, 200, { kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata: { resourceVersion: listed.resourceVersion }, items }, fmt);
}
