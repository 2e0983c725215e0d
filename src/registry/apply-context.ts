/**
 * The server-side-apply context of one write (which schema, manager and subresource, and which
 * fields the write may not own), and the decode-time stage of a write: what kube-apiserver does
 * to an object between reading the request and handing it to its registry.
 */
import type { ApplyContext } from '../apply/index.ts';
import { trackUpdate } from '../apply/index.ts';
import { goTrackedForm, goWireForm } from '../codec/go-zero.ts';
import { apiVersionOf, type KubeObject, type ManagedFieldsEntry, type ResourceType } from '../api/types.ts';
import { applyDefaults } from '../schema/defaults.ts';
import type { Schema } from '../schema/types.ts';
import { cloneJson } from '../schema/walk.ts';
import { nowRfc3339 } from './object-meta.ts';
import type { WriteContext } from './resource-store.ts';
import { propertyEntries } from '../schema/properties.ts';

export function applyContextFor(rt: ResourceType, manager: string, subresource: string, now: Date): ApplyContext {
  const statusWrite = subresource === 'status';
  const topLevel = Object.keys(rt.schema.properties ?? {}).filter((k) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata' && k !== 'status');
  return {
    schema: rt.schema,
    apiVersion: apiVersionOf(rt),
    kind: rt.kind,
    manager,
    subresource: subresource || undefined,
    now: nowRfc3339(now),
    ...(rt.hasStatus ? { resetFields: statusWrite ? topLevel.map((k) => [k]) : [['status']] } : {}),
    // Creates are compared against the kind's zero value, as kube's typed objects are.
    emptyObject: rt.unstructured ? { metadata: { creationTimestamp: null } } : zeroObject(rt.schema),
    ...(rt.convertibleApiVersions ? { convertibleApiVersions: rt.convertibleApiVersions } : {}),
    // Writes through /scale are recorded as kube's scale handler records them.
    ...(subresource === 'scale' ? { keepUpdaterTime: true } : {}),
  };
}

const zeroCache = new WeakMap<Schema, KubeObject>();

/**
 * The kind's Go zero value as kube-apiserver serializes it (`New()` of the type): metadata with
 * a null creationTimestamp, and every field the schema defaults to a zero value (`{}`, `""`,
 * `0`, `false`: kube publishes those for non-pointer fields), recursively. A field present in
 * the zero value is never "added" by a write, so writers do not own it as a node (no `.`).
 */
export function zeroObject(schema: Schema): KubeObject {
  let z = zeroCache.get(schema);
  if (!z) {
    // In Go wire form too: a list Go always writes is `null` in the zero value, so a create that
    // leaves it empty does not own it.
    z = goWireForm({ ...(zeroOf(schema) as KubeObject), metadata: { creationTimestamp: null } }, schema);
    zeroCache.set(schema, z);
  }
  return cloneJson(z);
}

function isZeroValue(v: unknown): boolean {
  return v === '' || v === 0 || v === false || (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
}

function zeroOf(schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.default === undefined || !isZeroValue(prop.default)) continue;
    out[k] = typeof prop.default === 'object' ? zeroOf(prop) : prop.default;
  }
  return out;
}

/**
 * Empty maps of free-form keys (labels, data, ...) are dropped, as decoding into Go's omitempty
 * map fields and encoding again drops them: `data: {}` is neither stored nor owned.
 */
export function dropEmptyMaps(v: unknown, schema: Schema | undefined): void {
  if (!schema || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const el of v) dropEmptyMaps(el, schema.items);
    return;
  }
  const obj = v as Record<string, unknown>;
  for (const [k, prop] of propertyEntries(schema)) {
    const child = obj[k];
    if (child === null || typeof child !== 'object') continue;
    const freeForm = !prop.properties && typeof prop.additionalProperties === 'object';
    if (freeForm && !Array.isArray(child) && Object.keys(child).length === 0 && prop.default === undefined) delete obj[k];
    else dropEmptyMaps(child, prop);
  }
}

/**
 * ObjectMeta's lists are `omitempty`: an emptied ownerReferences or finalizers (the garbage collector
 * orphaning a dependent) is a removed field to kube's field manager, so its owners lose it. Not
 * managedFields, whose empty list is the request to reset them.
 */
function dropEmptyMetaLists(obj: KubeObject): void {
  const meta = obj.metadata;
  if (!meta) return;
  for (const f of ['ownerReferences', 'finalizers'] as const) {
    const v = meta[f] as unknown;
    if (v === null || (Array.isArray(v) && v.length === 0)) delete meta[f];
  }
}

/**
 * The decode-time stage of a create or update, on the stored form `obj` (changed in place; `old`
 * is the stored current object): the served form is defaulted (schema defaults, the kind's
 * SetDefaults), empty maps drop, then the writer's managed fields are recorded on it, unless
 * server-side apply already did. kube computes managed fields in the handler on the decoded
 * object, before the strategy's PrepareForCreate/PrepareForUpdate, so what the strategy sets
 * afterwards (a namespace's spec.finalizers) belongs to nobody.
 */
export function decodedWrite(rt: ResourceType, obj: KubeObject, old: KubeObject | null, ctx: WriteContext): void {
  const conv = rt.storageConversion;
  // Ownership is recorded on the object in the version the writer used.
  const served = conv ? conv.fromStorage(obj) : obj;
  applyDefaults(served, rt.schema);
  // Unstructured custom resources keep empty maps as written.
  if (!rt.unstructured) dropEmptyMaps(served, rt.schema);
  dropEmptyMetaLists(served);
  rt.strategy.defaults?.(served);
  if (!ctx.skipManagedFields) {
    // kube compares the objects as its Go types write them: the stored one as read back (an empty
    // list Go always writes is `null`), the written one as decoded (a list it left out is `null`, a
    // changed value owned by the writer, not a removed field; an empty list it set stays `[]`).
    // Metadata passes as written: an empty managedFields list is the request to reset them.
    const oldServed = old && conv ? conv.fromStorage(old) : old;
    const wire = (o: KubeObject) => (rt.unstructured ? o : goWireForm(o, rt.schema));
    const trackedForm = (o: KubeObject) => (rt.unstructured ? o : goTrackedForm(o, rt.schema));
    const tracked = trackUpdate(
      oldServed && { ...wire(oldServed), metadata: oldServed.metadata },
      { ...trackedForm(served), metadata: served.metadata },
      applyContextFor(rt, ctx.manager ?? '', ctx.subresource ?? '', ctx.now),
    );
    served.metadata = tracked.metadata;
  }
  if (conv) {
    const stored = conv.toStorage(served);
    for (const k of Object.keys(obj)) delete obj[k];
    Object.assign(obj, stored);
  }
}

/**
 * The managedFields kube's create handler records for a request body that is answered, not
 * stored (TokenReview, SubjectAccessReview, serviceaccounts/NAME/token): one Update entry for the
 * fields the body sets, as its field manager stamps any create before the REST create runs.
 */
export function createOnlyManagedFields(rt: ResourceType, body: KubeObject, manager: string, subresource: string, now: Date): ManagedFieldsEntry[] | undefined {
  const tracked = trackUpdate(null, { ...goTrackedForm(body, rt.schema), metadata: body.metadata ?? {} }, applyContextFor(rt, manager, subresource, now));
  return tracked.metadata?.managedFields;
}
