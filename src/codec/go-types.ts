/**
 * The type check kube-apiserver gets for free from decoding a body into its Go struct: a value
 * of the wrong JSON type is a decode error (`json: cannot unmarshal number into Go struct field
 * ObjectMeta.metadata.name of type string`) before any code sees the object. We decode into plain
 * JSON, so this walk over the kind's structural schema stands in for that step: it runs on every
 * body before the handlers, patch code, apply code or validation touch it, so none of them ever
 * meets a number where a string belongs.
 *
 * It also does what Go's decoder does with `null` inside collections: a null list element or map
 * value becomes the element type's zero value (`[null]` in a []string is `[""]`).
 */
import type { Schema } from '../schema/types.ts';

export interface GoTypeError {
  /** encoding/json's message, as kube puts it after `X in version "v" cannot be handled as a X: `. */
  readonly message: string;
  /** structured-merge-diff's path (`.metadata.finalizers[0]`) and complaint, for apply's wording. */
  readonly smdPath: string;
  readonly smdMessage: string;
}

export interface GoTypeOptions {
  /** The Go name of the root struct (the kind) and the package qualifier of its own types (`v1`). */
  readonly rootStruct: string;
  readonly rootPackage: string;
  /** Strategic merge patch bodies: keys starting with `$` are directives, not fields. */
  readonly patchDirectives?: boolean;
  /** Replace null list elements and map values by their zero value, as Go's decoder does. */
  readonly zeroNulls?: boolean;
}

// Go type names of nested structs whose property name does not say it (the rest are capitalized).
const STRUCT_NAMES: Readonly<Record<string, string>> = {
  metadata: 'ObjectMeta',
  ownerReferences: 'OwnerReference',
  managedFields: 'ManagedFieldsEntry',
  rules: 'PolicyRule',
  subjects: 'Subject',
  involvedObject: 'ObjectReference',
  regarding: 'ObjectReference',
  related: 'ObjectReference',
  secrets: 'ObjectReference',
  imagePullSecrets: 'LocalObjectReference',
  source: 'EventSource',
  series: 'EventSeries',
  deprecatedSource: 'EventSource',
  aggregationRule: 'AggregationRule',
  clusterRoleSelectors: 'LabelSelector',
  matchExpressions: 'LabelSelectorRequirement',
};
// Types that live in apimachinery's meta/v1 whatever the kind's group.
const META_TYPES = new Set(['ObjectMeta', 'OwnerReference', 'ManagedFieldsEntry', 'LabelSelector', 'LabelSelectorRequirement', 'Time', 'MicroTime', 'FieldsV1']);

interface Walk {
  readonly opts: GoTypeOptions;
  error?: GoTypeError;
}

/**
 * Checks `value` against `schema` as decoding it into the Go type would; returns the first
 * mismatch in document order (Go keeps decoding and reports the first), or undefined.
 * With `zeroNulls` it rewrites nulls in place.
 */
export function checkGoTypes(value: unknown, schema: Schema, opts: GoTypeOptions): GoTypeError | undefined {
  const w: Walk = { opts };
  visit(value, schema, w, { struct: opts.rootStruct, field: '', smd: '' });
  return w.error;
}

interface Where {
  /** Innermost Go struct holding the field, and the dotted JSON path of the field from the root. */
  readonly struct: string;
  readonly field: string;
  /** structured-merge-diff's path. */
  readonly smd: string;
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

function isStruct(s: Schema): boolean {
  return s.type === 'object' && s.properties !== undefined && !isMap(s);
}

function isMap(s: Schema): boolean {
  return s.type === 'object' && s.properties === undefined && typeof s.additionalProperties === 'object';
}

function isTime(s: Schema): boolean {
  return s.type === 'string' && s.format === 'date-time';
}

/** Go's name for the type a schema decodes into, as encoding/json prints it. */
function goTypeName(s: Schema, prop: string, w: Walk): string {
  if (s['x-kubernetes-int-or-string']) return 'intstr.IntOrString';
  if (isTime(s)) return 'v1.Time';
  switch (s.type) {
    case 'string':
      return s.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return s.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${s.items ? goTypeName(s.items, prop, w) : 'interface {}'}`;
    case 'object':
      if (isMap(s)) return `map[string]${goTypeName(s.additionalProperties as Schema, prop, w)}`;
      if (s.properties) return qualified(structName(prop, w), w);
      return 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}

function structName(prop: string, w: Walk): string {
  if (prop === '') return w.opts.rootStruct;
  if (prop === 'spec' || prop === 'status') return `${w.opts.rootStruct}${prop === 'spec' ? 'Spec' : 'Status'}`;
  return STRUCT_NAMES[prop] ?? prop.charAt(0).toUpperCase() + prop.slice(1);
}

function qualified(name: string, w: Walk): string {
  return `${META_TYPES.has(name) ? 'v1' : w.opts.rootPackage}.${name}`;
}

function fail(w: Walk, where: Where, value: unknown, goType: string, smdExpected: string, detail?: string): void {
  if (w.error) return;
  const kind = jsonKind(value);
  const shown = kind === 'number' ? `number ${String(value)}` : kind;
  // Go names the literal for numbers that do not fit the target (1.5 into an int64), not for type mismatches.
  const valueWords = kind === 'number' && (goType.startsWith('int') || goType.startsWith('uint')) ? shown : kind === 'bool' ? 'bool' : kind;
  const message =
    detail ??
    (where.field === ''
      ? `json: cannot unmarshal ${valueWords} into Go value of type ${goType}`
      : `json: cannot unmarshal ${valueWords} into Go struct field ${where.struct}.${where.field} of type ${goType}`);
  w.error = { message, smdPath: where.smd || '.', smdMessage: `expected ${smdExpected}, got ${smdValue(value)}` };
}

/** How structured-merge-diff prints the offending value (`&value.valueUnstructured{Value:55}`). */
function smdValue(v: unknown): string {
  if (v !== null && typeof v === 'object') return Array.isArray(v) ? `&value.listUnstructured{...}` : `&value.mapUnstructured{...}`;
  return `&value.valueUnstructured{Value:${typeof v === 'string' ? JSON.stringify(v) : String(v)}}`;
}

function zeroOf(s: Schema): unknown {
  if (s['x-kubernetes-int-or-string']) return 0;
  switch (s.type) {
    case 'string':
      return isTime(s) ? null : '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return isStruct(s) ? {} : null;
    default:
      return null;
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

function validTime(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo < 1 || mo > 12 || d < 1 || d > days[mo - 1]! || h > 23 || mi > 59 || se > 59) return false;
  return m[9] === undefined || (Number(m[9]) < 24 && Number(m[10]) < 60);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function visit(value: unknown, s: Schema, w: Walk, where: Where, prop = ''): void {
  if (w.error || value === null || value === undefined) return;
  if (w.opts.patchDirectives && isPlainObject(value) && '$patch' in value && !isStruct(s) && !isMap(s)) return;
  if (s['x-kubernetes-int-or-string']) {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))) return;
    fail(w, where, value, 'intstr.IntOrString', 'string or int', `json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`);
    return;
  }
  switch (s.type) {
    case 'string':
      if (typeof value !== 'string') {
        // metav1.Time decodes its JSON string itself, so Go reports the inner string decode.
        if (isTime(s)) fail(w, where, value, 'string', 'string', `json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
        else fail(w, where, value, goTypeName(s, prop, w), 'string');
      } else if (isTime(s) && !validTime(value)) {
        fail(w, where, value, 'v1.Time', 'string', `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(value)} as "2006"`);
      } else if (s.format === 'byte' && !BASE64.test(value)) {
        fail(w, where, value, '[]uint8', 'string', `illegal base64 data at input byte ${firstBadBase64Byte(value)}`);
      }
      return;
    case 'integer':
      if (typeof value !== 'number') fail(w, where, value, goTypeName(s, prop, w), 'int');
      else if (!Number.isInteger(value) || !inRange(value, s.format === 'int32' ? 32 : 64)) fail(w, where, value, goTypeName(s, prop, w), 'int');
      return;
    case 'number':
      if (typeof value !== 'number') fail(w, where, value, 'float64', 'float');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail(w, where, value, 'bool', 'bool');
      return;
    case 'array': {
      if (!Array.isArray(value)) {
        fail(w, where, value, goTypeName(s, prop, w), 'list');
        return;
      }
      const items = s.items;
      if (!items) return;
      for (let i = 0; i < value.length && !w.error; i++) {
        if (value[i] === null && w.opts.zeroNulls) value[i] = zeroOf(items);
        visit(value[i], items, w, { ...where, smd: `${where.smd}[${i}]` }, prop);
      }
      return;
    }
    case 'object':
      if (!isPlainObject(value)) {
        fail(w, where, value, goTypeName(s, prop, w), 'map');
        return;
      }
      if (isMap(s)) {
        const vs = s.additionalProperties as Schema;
        for (const [k, v] of Object.entries(value)) {
          if (w.error) return;
          if (w.opts.patchDirectives && k.startsWith('$')) continue;
          if (v === null && w.opts.zeroNulls) value[k] = zeroOf(vs);
          visit(value[k], vs, w, { ...where, smd: `${where.smd}.${k}` }, prop);
        }
        return;
      }
      if (s.properties) {
        const struct = prop === '' && where.field === '' ? w.opts.rootStruct : structName(prop, w);
        for (const [k, v] of Object.entries(value)) {
          if (w.error) return;
          const ps = s.properties[k];
          if (!ps || (w.opts.patchDirectives && k.startsWith('$'))) continue;
          visit(v, ps, w, { struct, field: where.field ? `${where.field}.${k}` : k, smd: `${where.smd}.${k}` }, k);
        }
      }
      return;
    default:
      return;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function inRange(n: number, bits: 32 | 64): boolean {
  return bits === 32 ? n >= -(2 ** 31) && n < 2 ** 31 : n >= -(2 ** 63) && n < 2 ** 63;
}

function firstBadBase64Byte(s: string): number {
  for (let i = 0; i < s.length; i++) if (!/[A-Za-z0-9+/=]/.test(s[i]!)) return i;
  return Math.max(0, s.length - (s.length % 4 || 4));
}
