/**
 * Values as Go's `%#v` prints them inside kube's validation messages, for the few errors whose
 * bad value is a whole struct (`metadata: Invalid value: v1.ObjectMeta{Name:"x", ...}: must be
 * empty`). Pointer fields print as heap addresses in kube, which mean nothing to a client: a fixed
 * address stands in for each.
 */
import { goQuote } from '../schema/prune.ts';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A time as Go's Time.GoString: `time.Date(2026, time.November, 28, 18, 24, 42, 0, time.UTC)`; absent, Go's zero time. */
export function goTime(rfc3339: unknown): string {
  const ms = typeof rfc3339 === 'string' ? Date.parse(rfc3339) : NaN;
  if (!Number.isFinite(ms)) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  const d = new Date(ms);
  const nanos = d.getUTCMilliseconds() * 1_000_000;
  return `time.Date(${d.getUTCFullYear()}, time.${MONTHS[d.getUTCMonth()]}, ${d.getUTCDate()}, ${d.getUTCHours()}, ${d.getUTCMinutes()}, ${d.getUTCSeconds()}, ${nanos}, time.UTC)`;
}

const s = (v: unknown): string => goQuote(typeof v === 'string' ? v : '');
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `map[string]string{"a":"b"}` with keys sorted (as fmt sorts them), or `map[string]string(nil)`. */
function goStringMap(v: unknown): string {
  if (!isObj(v)) return 'map[string]string(nil)';
  const keys = Object.keys(v).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${s(v[k])}`).join(', ')}}`;
}

function goSlice(type: string, v: unknown, item: (x: unknown) => string): string {
  if (!Array.isArray(v)) return `[]${type}(nil)`;
  return `[]${type}{${v.map(item).join(', ')}}`;
}

/** A v1.OwnerReference; its two *bool fields print as pointers, `(*bool)(nil)` or an address. */
export function goOwnerReference(ref: unknown): string {
  const r = isObj(ref) ? ref : {};
  const ptr = (v: unknown, addr: string) => (typeof v === 'boolean' ? `(*bool)(${addr})` : '(*bool)(nil)');
  return (
    `v1.OwnerReference{APIVersion:${s(r.apiVersion)}, Kind:${s(r.kind)}, Name:${s(r.name)}, UID:${s(r.uid)}, ` +
    `Controller:${ptr(r.controller, '0xc000a1c0a8')}, BlockOwnerDeletion:${ptr(r.blockOwnerDeletion, '0xc000a1c0a9')}}`
  );
}

function goManagedFieldsEntry(entry: unknown): string {
  const e = isObj(entry) ? entry : {};
  return (
    `v1.ManagedFieldsEntry{Manager:${s(e.manager)}, Operation:${s(e.operation)}, APIVersion:${s(e.apiVersion)}, ` +
    `Time:${e.time === undefined || e.time === null ? '<nil>' : goTime(e.time)}, FieldsType:${s(e.fieldsType)}, ` +
    `FieldsV1:${e.fieldsV1 === undefined || e.fieldsV1 === null ? '(*v1.FieldsV1)(nil)' : '(*v1.FieldsV1)(0xc000a1c0b0)'}, Subresource:${s(e.subresource)}}`
  );
}

/** A v1.ObjectMeta, every field in Go order. */
export function goObjectMeta(meta: unknown): string {
  const m = isObj(meta) ? meta : {};
  const generation = typeof m.generation === 'number' ? m.generation : 0;
  const grace = typeof m.deletionGracePeriodSeconds === 'number' ? '(*int64)(0xc000a1c0b8)' : '(*int64)(nil)';
  return (
    `v1.ObjectMeta{Name:${s(m.name)}, GenerateName:${s(m.generateName)}, Namespace:${s(m.namespace)}, SelfLink:${s(m.selfLink)}, ` +
    `UID:${s(m.uid)}, ResourceVersion:${s(m.resourceVersion)}, Generation:${generation}, CreationTimestamp:${goTime(m.creationTimestamp)}, ` +
    `DeletionTimestamp:${typeof m.deletionTimestamp === 'string' ? goTime(m.deletionTimestamp) : '<nil>'}, DeletionGracePeriodSeconds:${grace}, ` +
    `Labels:${goStringMap(m.labels)}, Annotations:${goStringMap(m.annotations)}, ` +
    `OwnerReferences:${goSlice('v1.OwnerReference', m.ownerReferences, goOwnerReference)}, ` +
    `Finalizers:${goSlice('string', m.finalizers, s)}, ManagedFields:${goSlice('v1.ManagedFieldsEntry', m.managedFields, goManagedFieldsEntry)}}`
  );
}

/**
 * An unstructured (JSON-decoded) value as Go's `%#v` prints an `interface{}` holding it:
 * `map[string]interface {}{"a":"x", "n":1}` (keys sorted), `[]interface {}{"a"}`, numbers and
 * booleans bare, strings quoted, null as `interface {}(nil)`.
 */
export function goInterfaceValue(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goInterfaceValue).join(', ')}}`;
  if (isObj(v)) return `map[string]interface {}{${Object.keys(v).sort().map((k) => `${goQuote(k)}:${goInterfaceValue(v[k])}`).join(', ')}}`;
  return String(v);
}
