/**
 * Server-side apply and update tracking over whole objects: kube's field manager chain
 * (version check, CSA migration and annotation sync, skip-until-first-apply, manager cap,
 * manager info, time updates, stripped metadata) on top of structured-merge-diff's updater
 * (merge, prune of dropped fields, ownership moves and conflicts).
 */
import { ApiError, errors } from '../api/status-errors.ts';
import type { KubeObject, ManagedFieldsEntry } from '../api/types.ts';
import type { Schema } from '../schema/types.ts';
import { cloneJson } from '../schema/walk.ts';
import { conflictError, conflictsFromSets, type Conflict } from './conflicts.ts';
import { FieldSet } from './field-set.ts';
import {
  KUBECTL_MANAGER,
  allowedConflictsFromLastApplied,
  buildLastApplied,
  lastAppliedOf,
  setLastApplied,
} from './last-applied.ts';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  managerId,
  stripMeta,
  type ManagerRecord,
  type Managers,
} from './managers.ts';
import { mergeValues } from './merge.ts';
import { fieldElement } from './path.ts';
import { ensureNamedFieldsAreMembers, reconcileWithSchema, removeItems } from './remove.ts';
import { ApplyTypeError, compareValues, deepEqual, toFieldSet, type Comparison } from './typed-walk.ts';
import { rootType, type TypeNode } from './type-node.ts';

export interface ApplyContext {
  /** The object schema; undefined for unstructured objects (maps granular, lists atomic). */
  readonly schema: Schema | undefined;
  /** The served version of the request, `v1` or `group/version`. */
  readonly apiVersion: string;
  readonly manager: string;
  /** `status`, `scale`...; writes to a subresource are tracked as separate entries. */
  readonly subresource?: string;
  /** RFC 3339 time recorded on entries that change. */
  readonly now: string;
  /** When set, an applied object of another kind is rejected as kube's version check does. */
  readonly kind?: string;
  /** Field paths the strategy resets for this endpoint (e.g. `[['status']]` for the main resource); never owned. */
  readonly resetFields?: readonly (readonly string[])[];
  /** The kind's zero-valued object a created object is compared against (default `{}`). */
  readonly emptyObject?: KubeObject;
  /** Other apiVersions of the kind that convert to this one: their managers are kept as recorded. */
  readonly convertibleApiVersions?: readonly string[];
  /**
   * The updater's entry keeps the time it had rather than `now` (kube's scale handler carries the
   * Scale's managers back into the object with the object's times: a manager new to it has none).
   */
  readonly keepUpdaterTime?: boolean;
}

const CURRENT_OPERATION = 'current-operation';
const BEFORE_FIRST_APPLY = 'before-first-apply';

interface Env {
  readonly root: TypeNode;
  readonly ignore: FieldSet;
  readonly ctx: ApplyContext;
  readonly sub: string;
}

function envOf(ctx: ApplyContext): Env {
  const ignore = FieldSet.of((ctx.resetFields ?? []).map((p) => p.map(fieldElement)));
  return { root: rootType(ctx.schema), ignore, ctx, sub: ctx.subresource ?? '' };
}

/** The object without `metadata.managedFields` (a shallow copy; the input is not changed). */
function withoutManagedFields(obj: KubeObject): KubeObject {
  if (!obj.metadata || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _drop, ...meta } = obj.metadata;
  return { ...obj, metadata: meta };
}

function decodeOrEmpty(entries: readonly ManagedFieldsEntry[] | undefined): Map<string, ManagerRecord> {
  try {
    return decodeManagedFields(entries);
  } catch {
    return new Map();
  }
}

function gvkString(obj: KubeObject): string {
  const av = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const slash = av.lastIndexOf('/');
  const group = slash >= 0 ? av.slice(0, slash) : '';
  const version = slash >= 0 ? av.slice(slash + 1) : av;
  return `${group}/${version}, Kind=${typeof obj.kind === 'string' ? obj.kind : ''}`;
}

/** kube's 500 for an object the field manager cannot type: `failed to create typed patch object (ns/name; gvk): ...`. */
function typeErrorToApi(err: unknown, what: string, obj: KubeObject): never {
  if (err instanceof ApplyTypeError) {
    const meta = obj.metadata ?? {};
    throw new ApiError(500, '', `failed to create typed ${what} object (${meta.namespace ?? ''}/${meta.name ?? ''}; ${gvkString(obj)}): ${err.message}`);
  }
  throw err;
}

type Ownership = { readonly ok: true; readonly managers: Map<string, ManagerRecord>; readonly compare: Comparison } | { readonly ok: false; readonly conflicts: Conflict[] };

/**
 * structured-merge-diff's ownership step: fields the change modified or added leave their other
 * owners (or conflict, without force); removed fields leave every other owner; empty owners go.
 */
function moveOwnership(oldV: unknown, newV: unknown, managers: Managers, workflow: string, force: boolean, env: Env): Ownership {
  const raw = compareValues(oldV, newV, env.root);
  const compare: Comparison = {
    added: raw.added.recursiveDifference(env.ignore),
    modified: raw.modified.recursiveDifference(env.ignore),
    removed: raw.removed.recursiveDifference(env.ignore),
  };
  const changed = compare.modified.union(compare.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, rec] of managers) {
    if (id === workflow) continue;
    const c = rec.set.intersection(changed);
    if (!c.isEmpty()) conflicts.set(id, c);
  }
  if (!force && conflicts.size > 0) return { ok: false, conflicts: conflictsFromSets(conflicts) };
  const out = new Map<string, ManagerRecord>();
  for (const [id, rec] of managers) {
    let set = rec.set;
    if (id !== workflow) {
      const c = conflicts.get(id);
      if (c) set = set.difference(c);
      set = set.difference(compare.removed);
    }
    if (!set.isEmpty()) out.set(id, set === rec.set ? rec : { ...rec, set });
  }
  return { ok: true, managers: out, compare };
}

/** Records an Update by `manager` of `oldV` into `newV`; returns the new managers. */
function recordUpdate(oldV: unknown, newV: unknown, managers: Managers, manager: string, env: Env): Map<string, ManagerRecord> {
  const r = moveOwnership(oldV, newV, managers, CURRENT_OPERATION, true, env);
  if (!r.ok) throw new Error('unreachable: forced update reported conflicts');
  const out = r.managers;
  const current = stripMeta(r.compare.modified.union(r.compare.added));
  if (current.isEmpty()) return out;
  const id = managerId(manager, 'Update', env.ctx.apiVersion, env.sub);
  const prev = out.get(id);
  out.set(id, {
    manager,
    operation: 'Update',
    apiVersion: env.ctx.apiVersion,
    subresource: env.sub,
    time: env.ctx.keepUpdaterTime ? prev?.time : env.ctx.now,
    set: prev ? current.union(prev.set) : current,
  });
  return out;
}

/**
 * Schema reconciliation of every manager. Managers recorded in another apiVersion go: kube's
 * version converter cannot turn this object into their version (each group serves one version
 * here, and kinds shared by two groups, like events, do not convert between groups), and
 * structured-merge-diff drops managers whose version is missing.
 */
function reconcileAll(managers: Managers, root: TypeNode, apiVersion: string, convertible: readonly string[] = []): Map<string, ManagerRecord> {
  const out = new Map<string, ManagerRecord>();
  for (const [id, rec] of managers) {
    if (rec.apiVersion !== apiVersion) {
      // A CRD's other versions convert (field paths unchanged under conversion None).
      if (convertible.includes(rec.apiVersion)) out.set(id, rec);
      continue;
    }
    const set = reconcileWithSchema(rec.set, root);
    out.set(id, set === rec.set ? rec : { ...rec, set });
  }
  return out;
}

/** Removes from `merged` what the applier owned before, no longer applies, and nobody else owns. */
function prune(merged: unknown, managers: Managers, lastSet: FieldSet | undefined, configSet: FieldSet, root: TypeNode): unknown {
  // Nothing was dropped when the applier still applies every path it applied before.
  if (!lastSet || lastSet.difference(configSet).isEmpty()) return merged;
  const last = ensureNamedFieldsAreMembers(lastSet, root);
  const pruned = removeItems(merged, last, root) ?? {};
  let owned = new FieldSet();
  for (const rec of managers.values()) owned = owned.union(rec.set);
  const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(merged, root), root);
  const prunedSet = ensureNamedFieldsAreMembers(toFieldSet(pruned, root), root);
  const keptOwned =
    removeItems(merged, mergedSet.difference(prunedSet.union(ensureNamedFieldsAreMembers(owned, root))), root) ?? {};
  const keptSet = ensureNamedFieldsAreMembers(toFieldSet(keptOwned, root), root);
  return removeItems(merged, mergedSet.difference(keptSet).intersection(last), root) ?? {};
}

type ApplyOutcome = { readonly ok: true; readonly object: KubeObject; readonly managers: Map<string, ManagerRecord> } | { readonly ok: false; readonly conflicts: Conflict[] };

function applyOnce(liveBody: KubeObject, applied: KubeObject, managers: Managers, force: boolean, env: Env): ApplyOutcome {
  const { root, ctx } = env;
  const applyId = managerId(ctx.manager, 'Apply', '', env.sub);
  let configSet: FieldSet;
  try {
    configSet = toFieldSet(applied, root).recursiveDifference(env.ignore);
  } catch (err) {
    typeErrorToApi(err, 'patch', applied);
  }
  let merged: unknown;
  try {
    merged = mergeValues(liveBody, applied, root);
  } catch (err) {
    typeErrorToApi(err, 'live', liveBody);
  }
  const prev = managers.get(applyId);
  const withApplier = new Map(managers);
  withApplier.set(applyId, { manager: ctx.manager, operation: 'Apply', apiVersion: ctx.apiVersion, subresource: env.sub, time: prev?.time, set: configSet });
  const pruned = prune(merged, withApplier, prev?.set, configSet, root) as KubeObject;
  const r = moveOwnership(liveBody, pruned, withApplier, applyId, force, env);
  if (!r.ok) return r;
  const out = r.managers;
  const mine = out.get(applyId);
  if (mine) {
    const set = stripMeta(mine.set);
    // kube stamps the applier's entry only when the object changed: a no-op apply keeps the
    // entry's previous time (none for a new entry), though its fields still change hands.
    const time = deepEqual(liveBody, pruned) ? prev?.time : ctx.now;
    if (set.isEmpty()) out.delete(applyId);
    else out.set(applyId, { ...mine, set, time });
  }
  return { ok: true, object: pruned, managers: out };
}

/**
 * Writes managers onto `obj` (mutating it). When nothing but entry times would change
 * (same object, same sets), the old times are kept, as kube's timestamp transformer does.
 */
function encodeOnto(obj: KubeObject, managers: Managers, before: Managers | undefined, beforeBody: unknown): KubeObject {
  let final: Managers = managers;
  if (before && sameSets(managers, before) && deepEqual(withoutManagedFields(obj), beforeBody)) {
    final = new Map([...managers].map(([id, rec]) => [id, { ...rec, time: before.get(id)!.time }]));
  }
  const meta = { ...(obj.metadata ?? {}) };
  if (final.size > 0) meta.managedFields = encodeManagedFields(final);
  else delete meta.managedFields;
  obj.metadata = meta;
  return obj;
}

function sameSets(a: Managers, b: Managers): boolean {
  if (a.size !== b.size) return false;
  for (const [id, rec] of a) {
    const o = b.get(id);
    if (!o || !o.set.equals(rec.set)) return false;
  }
  return true;
}

/**
 * Server-side apply of `applied` onto `live` (null when creating). Returns a new object: the
 * merge, minus fields this manager dropped that nobody else owns, with updated
 * metadata.managedFields. Throws ApiError 409 on conflicts unless `force`, 400 on a bad body.
 */
export function serverSideApply(live: KubeObject | null, applied: KubeObject, ctx: ApplyContext & { readonly force: boolean }): KubeObject {
  const env = envOf(ctx);
  if (applied.metadata?.managedFields !== undefined && applied.metadata.managedFields !== null) {
    throw errors.badRequest('metadata.managedFields must be nil');
  }
  if (applied.apiVersion !== ctx.apiVersion || (ctx.kind !== undefined && applied.kind !== ctx.kind)) {
    throw errors.badRequest(`invalid object type: ${gvkString(applied)}`);
  }
  const appliedBody = withoutManagedFields(applied);
  const liveBody = live ? withoutManagedFields(live) : (ctx.emptyObject ?? {});
  let managers: Map<string, ManagerRecord>;
  try {
    managers = decodeManagedFields(live?.metadata?.managedFields);
  } catch (err) {
    throw new ApiError(500, '', `failed to decode managed fields: ${(err as Error).message}`);
  }
  const before = live ? new Map(managers) : undefined;
  if (live) {
    // Objects never applied before: their existing fields become an Update entry first.
    if (managers.size === 0) managers = recordUpdate(ctx.emptyObject ?? {}, liveBody, managers, BEFORE_FIRST_APPLY, env);
    managers = reconcileAll(managers, env.root, ctx.apiVersion, ctx.convertibleApiVersions);
  }
  let outcome = applyOnce(liveBody, appliedBody, managers, ctx.force, env);
  if (!outcome.ok && live && ctx.manager === KUBECTL_MANAGER) {
    // Migration from client-side apply: conflicts on fields kubectl's annotation set are kubectl's to take.
    const allowed = allowedConflictsFromLastApplied(live, liveBody, env.root, ctx.apiVersion);
    if (allowed) {
      const remaining = outcome.conflicts.filter((c) => !allowed.has(c.path));
      outcome = remaining.length === 0 ? applyOnce(liveBody, appliedBody, managers, true, env) : { ok: false, conflicts: remaining };
    }
  }
  if (!outcome.ok) throw conflictError(outcome.conflicts);
  const result = cloneJson(outcome.object);
  encodeOnto(result, outcome.managers, before, liveBody);
  if (ctx.manager === KUBECTL_MANAGER && lastAppliedOf(result)) setLastApplied(result, buildLastApplied(applied));
  return result;
}

/**
 * kube's reset request (isResetManagedFields): managedFields given as an empty list (non-nil in
 * Go: `[]` in JSON; absent and null are nil) or as exactly one empty entry.
 */
function isReset(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && entries[0] !== null && typeof entries[0] === 'object' && Object.keys(entries[0] as object).length === 0;
}

/**
 * For create, update and non-apply patch: records the fields `updated` changed relative to
 * `live` (null on create) as `manager`'s Update entry, taking them from other owners; never
 * conflicts. Managed fields written in `updated` replace the live ones when valid (not for
 * subresources); a single empty entry resets them. Returns a new object; inputs are unchanged.
 */
export function trackUpdate(live: KubeObject | null, updated: KubeObject, ctx: ApplyContext): KubeObject {
  const env = envOf(ctx);
  const requested = updated.metadata?.managedFields;
  let managers: Map<string, ManagerRecord>;
  if (env.sub) managers = decodeOrEmpty(live?.metadata?.managedFields);
  else if (isReset(requested)) managers = new Map();
  else {
    let fromRequest: Map<string, ManagerRecord> | undefined;
    try {
      fromRequest = decodeManagedFields(requested);
    } catch {
      fromRequest = undefined;
    }
    managers = fromRequest && fromRequest.size > 0 ? fromRequest : decodeOrEmpty(live?.metadata?.managedFields);
  }
  const newBody = cloneJson(withoutManagedFields(updated));
  // An existing object without managers is not tracked until its first apply (kube's skip-non-applied).
  if (managers.size === 0 && live) return encodeOnto(newBody, managers, undefined, undefined);
  const liveBody = live ? withoutManagedFields(live) : (ctx.emptyObject ?? {});
  if (live) managers = reconcileAll(managers, env.root, ctx.apiVersion, ctx.convertibleApiVersions);
  const before = live ? decodeOrEmpty(live.metadata?.managedFields) : undefined;
  let out: Managers;
  try {
    out = capUpdateManagers(recordUpdate(liveBody, newBody, managers, ctx.manager, env));
  } catch (err) {
    // As kube's UpdateNoErrors: a value that cannot be read through the schema keeps the live managers.
    if (!(err instanceof ApplyTypeError)) throw err;
    out = decodeOrEmpty(live?.metadata?.managedFields);
  }
  return encodeOnto(newBody, out, before, liveBody);
}

/** The default manager kube derives from a User-Agent: the part before the first `/`, printable, at most 128 characters; `unknown` when that is empty. */
export function managerFromUserAgent(ua: string | undefined): string {
  const head = (ua ?? '').split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (/[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}]/u.test(ch) || (/\p{Zs}/u.test(ch) && ch !== ' ')) continue;
    if (bytes >= 128) break;
    out += ch;
    bytes += Buffer.byteLength(ch);
  }
  // kube-apiserver v1.32.4 records a write with no usable User-Agent (none, blank, or starting with `/`) as "unknown".
  return out === '' ? 'unknown' : out;
}

/** The manager of a non-apply write: `fieldManager` when given, else derived from the User-Agent. */
export function managerOrUserAgent(fieldManager: string | undefined, ua: string | undefined): string {
  return fieldManager ? fieldManager : managerFromUserAgent(ua);
}
