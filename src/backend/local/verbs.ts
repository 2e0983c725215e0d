/**
 * The verbs of a resource in the local backend (built-in kinds and custom resources alike): the
 * orchestration of decode, defaults, admission, field manager, patch and store, in kube's order.
 * Each takes a routed ResourceRequest and answers a typed result; encoding is the front door's.
 */
import { errors } from '../../api/status-errors.ts';
import { listItem, listMetaOf, listObjectOf } from '../../api/list-object.ts';
import type { KubeObject } from '../../api/types.ts';
import type { ServedResource } from '../../registry/resource-catalog.ts';
import type { WriteContext } from '../../registry/resource-store.ts';
import { parseListQuery, parseResourceVersion, type ListQuery } from '../../registry/list-options.ts';
import { buildObjectFilter } from '../../registry/object-filter.ts';
import { isCorruptObjectError } from '../../registry/storage-errors.ts';
import { deleteOptionsDecodeError, parseDeleteOptions, type ParsedDeleteOptions } from '../../registry/delete-options.ts';
import { cloneObject } from '../../registry/object-meta.ts';
import type { ListResult, LocalResourceVerbs, ObjectResult, ResourceRequest, ValueResult } from '../types.ts';
import { asObject, decodeBody, fieldValidationMode, readObjectBody } from './body.ts';
import { applyPatchBody } from './patch.ts';
import { mergeSubresource } from './subresource-merge.ts';
import { writeContext } from './write-context.ts';

/** Whether CBOR bodies are taken (its feature gate). */
export function cborBodies(r: ResourceRequest): boolean {
  return r.features.enabled('CBORServingAndStorage');
}

async function get(target: ServedResource, r: ResourceRequest): Promise<ObjectResult> {
  const rv = r.query.getAll('resourceVersion')[0] ?? '';
  // A get with a version is served by kube's cacher, which refuses a malformed one with a bare 500.
  if (rv !== '' && rv !== '0') parseResourceVersion(rv, false);
  const entry = await target.store.get(r.info.namespace, r.info.name, rv);
  return { kind: 'object', code: 200, object: target.store.served(entry.value), entry };
}

async function list(target: ServedResource, r: ResourceRequest): Promise<ListResult> {
  const q = await resolveFutureReads(target, parseListQuery(r.query));
  const filter = buildObjectFilter(target.rt, q.labelSelector, q.fieldSelector);
  return { kind: 'list', outcome: await target.store.list(r.info.namespace, q, filter) };
}

/**
 * Reads kube hands to etcd at a fixed revision (continue tokens, Exact) fail at once when the
 * revision is in the future: etcd answers "required revision is a future revision", which kube
 * passes on as a bare 500. (Not-older-than reads wait for the revision, then 504, as kube's cacher.)
 * A continue token with a negative revision reads the latest snapshot.
 */
async function resolveFutureReads(target: ServedResource, q: ListQuery): Promise<ListQuery> {
  const sem = q.semantics;
  if (sem.kind !== 'exact' && sem.kind !== 'continue') return q;
  const { store } = target;
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

async function create(target: ServedResource, r: ResourceRequest): Promise<ObjectResult> {
  const ctx = writeContext(r);
  const obj = await readObjectBody(r.body, cborBodies(r), { rt: target.rt, namespace: r.info.namespace, name: '' }, fieldValidationMode(r.query), ctx.warnings);
  r.auditLog?.requestObject(obj);
  return { kind: 'object', code: 201, object: await target.store.create(r.info.namespace, obj, ctx) };
}

async function update(target: ServedResource, r: ResourceRequest): Promise<ObjectResult> {
  const { rt, store } = target;
  const { info } = r;
  const ctx = writeContext(r);
  const obj = await readObjectBody(r.body, cborBodies(r), { rt, namespace: info.namespace, name: info.name }, fieldValidationMode(r.query), ctx.warnings);
  r.auditLog?.requestObject(obj);
  // kube's checkName: an update must name its object (the URL alone does not).
  if (!obj.metadata?.name) throw errors.badRequest(`the name of the object (${info.name} based on URL) was undeterminable: name must be provided`);
  const sub = info.subresource;
  const result = await store.update(
    info.namespace,
    info.name,
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
  return { kind: 'object', code: result.created ? 201 : 200, object: result.object };
}

async function patch(target: ServedResource, r: ResourceRequest): Promise<ObjectResult> {
  const ctx = writeContext(r);
  const { object, created } = await applyPatchBody(target, r, ctx);
  return { kind: 'object', code: created ? 201 : 200, object };
}

/**
 * DeleteOptions of a delete or deletecollection: from the body when one is sent (client-go,
 * kubectl and controller-runtime put dryRun and preconditions there), else from the query.
 */
async function deleteOptionsOf(target: ServedResource, r: ResourceRequest): Promise<ParsedDeleteOptions> {
  const unsafeAllowed = r.features.enabled('AllowUnsafeMalformedObjectDeletion');
  const raw = r.body.bytes;
  if (raw && raw.length > 0) {
    let value: unknown;
    try {
      // No expected kind: kube's delete handler reports the decoder's own words.
      value = (await decodeBody(r.body, cborBodies(r), 'body', target.rt, '')).value;
    } catch (err) {
      throw deleteOptionsDecodeError(err);
    }
    return parseDeleteOptions({ from: 'body', body: asObject(value) as Record<string, unknown> }, unsafeAllowed);
  }
  return parseDeleteOptions({ from: 'query', query: r.query }, unsafeAllowed);
}

async function deleteOne(target: ServedResource, r: ResourceRequest): Promise<ObjectResult | ValueResult> {
  const { rt, store } = target;
  const { info } = r;
  const opts = await deleteOptionsOf(target, r);
  const ctx = writeContext(r, opts);
  let outcome;
  try {
    outcome = await store.delete(info.namespace, info.name, opts, ctx);
  } catch (err) {
    // The unsafe delete of an object that cannot be read: only when asked, only on corruption.
    if (opts.ignoreStoreReadError && isCorruptObjectError(err)) {
      await store.deleteCorrupt(info.namespace, info.name);
      return { kind: 'value', code: 200, value: successStatus(rt.group, rt.resource, info.name, undefined) };
    }
    throw err;
  }
  if (outcome.kind === 'terminating') {
    // kube answers 202 for an object left in place only when the (deprecated) orphanDependents
    // was explicitly false; otherwise 200 with the terminating object.
    return { kind: 'object', code: opts.orphanDependents === false ? 202 : 200, object: outcome.object };
  }
  if (rt.strategy.returnDeletedObject) return { kind: 'object', code: 200, object: outcome.object };
  return { kind: 'value', code: 200, value: successStatus(rt.group, rt.resource, info.name, outcome.object.metadata?.uid) };
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

async function deleteCollection(target: ServedResource, r: ResourceRequest): Promise<ValueResult> {
  const { rt, store } = target;
  const opts = await deleteOptionsOf(target, r);
  // kube's deletecollection admits each object with the collection's (empty) name.
  const ctx: WriteContext = { ...writeContext(r, opts), collection: true };
  const q = parseListQuery(r.query);
  const filter = buildObjectFilter(rt, q.labelSelector, q.fieldSelector);
  const listed = await store.list(r.info.namespace, { ...q, limit: 0 }, filter);
  const items: KubeObject[] = [];
  for (const e of listed.entries) {
    const meta = e.value.metadata ?? {};
    // kube answers with the list it deleted from, as listed (not as each delete left the object).
    items.push(listItem(rt, store.served(e.value)));
    try {
      await store.delete(meta.namespace ?? '', meta.name ?? '', opts, ctx);
    } catch (err) {
      // Someone else deleted it meanwhile: that is the outcome we wanted.
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }
  return { kind: 'value', code: 200, value: listObjectOf(rt, listMetaOf(rt, { resourceVersion: listed.resourceVersion }), items) };
}

/** The verbs of the local backend. */
export const localVerbs: LocalResourceVerbs = { get, list, create, update, patch, delete: deleteOne, deleteCollection };
