/**
 * The managers of an object: `metadata.managedFields` decoded into field sets keyed by kube's
 * manager identifier (manager, operation, apiVersion for updates, subresource), and encoded
 * back in kube's order (Apply before Update, then by time, manager, apiVersion, subresource).
 */
import type { ManagedFieldsEntry } from '../api/types.ts';
import { FieldSet } from './field-set.ts';
import { fieldSetToFieldsV1, fieldsV1ToFieldSet } from './fields-v1.ts';

export interface ManagerRecord {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly subresource: string;
  readonly time: string | undefined;
  readonly set: FieldSet;
}

/** Managers by identifier; operations copy the map before changing it. */
export type Managers = ReadonlyMap<string, ManagerRecord>;

/**
 * kube's manager identifier: the entry's JSON without fields, type and time, and without the
 * apiVersion for appliers, so one applier has one entry whatever version it applies with.
 */
export function managerId(manager: string, operation: 'Apply' | 'Update', apiVersion: string, subresource: string): string {
  const o: Record<string, string> = { manager, operation };
  if (operation === 'Update' && apiVersion) o['apiVersion'] = apiVersion;
  if (subresource) o['subresource'] = subresource;
  return JSON.stringify(o);
}

export function idOf(r: Omit<ManagerRecord, 'set' | 'time'>): string {
  return managerId(r.manager, r.operation, r.apiVersion, r.subresource);
}

/** Decodes managedFields; throws an Error with kube's reason when an entry is invalid. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): Map<string, ManagerRecord> {
  const out = new Map<string, ManagerRecord>();
  (entries ?? []).forEach((e, i) => {
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new Error('apiVersion must not be empty');
    if (!e.fieldsType) throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType "${String(e.fieldsType)}" in managed fields entry ${i}`);
    const rec: ManagerRecord = {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: e.subresource ?? '',
      time: e.time ?? undefined,
      set: e.fieldsV1 === undefined || e.fieldsV1 === null ? new FieldSet() : fieldsV1ToFieldSet(e.fieldsV1),
    };
    out.set(idOf(rec), rec);
  });
  return out;
}

function unixSeconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Encodes managers as managedFields entries in kube's order and field order; empty sets are kept out by callers. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  const recs = [...managers.values()].sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      unixSeconds(p.time) - unixSeconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource, q.subresource),
  );
  return recs.map((r) => {
    // Go's omitempty: a request without a User-Agent updates as the empty manager, which is left out.
    const e = (r.manager ? { manager: r.manager, operation: r.operation, apiVersion: r.apiVersion } : { operation: r.operation, apiVersion: r.apiVersion }) as ManagedFieldsEntry;
    if (r.time !== undefined) e.time = r.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = fieldSetToFieldsV1(r.set);
    if (r.subresource) e.subresource = r.subresource;
    return e;
  });
}

/** At most this many Update entries are kept; older ones merge into `ancient-changes`. */
export const MAX_UPDATE_MANAGERS = 10;

/** Merges the oldest Update entries into one `ancient-changes` entry per apiVersion, as kube caps them. */
export function capUpdateManagers(managers: Managers): Managers {
  const updaters = [...managers.entries()].filter(([, r]) => r.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return managers;
  updaters.sort(([ia, a], [ib, b]) => unixSeconds(a.time) - unixSeconds(b.time) || cmp(ia, ib));
  const out = new Map(managers);
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const [id, rec] = updaters[i]!;
    const bucketId = managerId('ancient-changes', 'Update', rec.apiVersion, '');
    const first = firstByVersion.get(rec.apiVersion);
    if (first === undefined) {
      firstByVersion.set(rec.apiVersion, id);
      continue;
    }
    let bucket = out.get(bucketId);
    if (!bucket) {
      const firstRec = out.get(first)!;
      out.delete(first);
      bucket = { ...firstRec, manager: 'ancient-changes', subresource: '' };
    }
    out.delete(id);
    out.set(bucketId, { ...bucket, set: rec.set.union(bucket.set), time: rec.time });
    length--;
  }
  return out;
}

/** Paths never tracked: identity and server-owned metadata (kube's stripmeta). */
const STRIPPED: FieldSet = FieldSet.of(
  [
    ['apiVersion'],
    ['kind'],
    ['metadata'],
    ['metadata', 'name'],
    ['metadata', 'namespace'],
    ['metadata', 'creationTimestamp'],
    ['metadata', 'selfLink'],
    ['metadata', 'uid'],
    ['metadata', 'clusterName'],
    ['metadata', 'generation'],
    ['metadata', 'managedFields'],
    ['metadata', 'resourceVersion'],
  ].map((p) => p.map((name) => ({ kind: 'field' as const, name }))),
);

/** The set without the never-tracked paths. */
export function stripMeta(set: FieldSet): FieldSet {
  return set.difference(STRIPPED);
}
