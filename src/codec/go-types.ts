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
import { goTimeLayout, type Schema } from '../schema/types.ts';
import { parseGoTime } from '../schema/go-time.ts';

export interface GoTypeError {
  /** encoding/json's message, as kube puts it after `X in version "v" cannot be handled as a X: `. */
  readonly message: string;
  /** structured-merge-diff's path (`.metadata.finalizers[=5]`) and complaint, for apply's wording. */
  readonly smdPath: string;
  readonly smdMessage: string;
  /**
   * When structured-merge-diff accepts the value (a float where an integer belongs) and only the
   * later conversion to the Go type fails: that conversion's complaint.
   */
  readonly smdConversion?: string;
  /** The unstructured converter's complaint, as a strategic merge patch reports it. */
  readonly converterMessage: string;
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
  if (isTime(s)) return `v1.${s[goTimeLayout] ?? 'Time'}`;
  switch (s.type) {
    case 'string':
      return s.format === 'byte' ? '[]uint8' : prop === 'uid' ? 'types.UID' : 'string';
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

type Expect = 'string' | 'int' | 'float' | 'bool' | 'list' | 'map' | 'struct';

function fail(w: Walk, where: Where, value: unknown, goType: string, expect: Expect, detail?: string): void {
  if (w.error) return;
  const kind = jsonKind(value);
  // Go names the literal for numbers that do not fit the target (1.5 into an int64), not for type mismatches.
  const valueWords = kind === 'number' && (goType.startsWith('int') || goType.startsWith('uint')) ? `number ${goNumber(value as number)}` : kind;
  const message =
    detail ??
    (where.field === ''
      ? `json: cannot unmarshal ${valueWords} into Go value of type ${goType}`
      : `json: cannot unmarshal ${valueWords} into Go struct field ${where.struct}.${where.field} of type ${goType}`);
  const floatIntoInt = expect === 'int' && typeof value === 'number';
  w.error = {
    message,
    smdPath: where.smd || '.',
    smdMessage: smdComplaint(value, expect),
    ...(floatIntoInt ? { smdConversion: `cannot convert float64 to ${goType}` } : {}),
    converterMessage: converterComplaint(value, expect, goType),
  };
}

/** How structured-merge-diff words a value of the wrong type. */
function smdComplaint(value: unknown, expect: Expect): string {
  const v = goValue(value);
  switch (expect) {
    case 'list':
      return `expected list, got &{${v}}`;
    case 'map':
    case 'struct':
      return `expected map, got &{${v}}`;
    case 'bool':
      return `expected boolean, got &{${v}}`;
    case 'int':
    case 'float':
      return `expected numeric (int or float), got ${unstructuredType(value)}`;
    default:
      return `expected string, got &value.valueUnstructured{Value:${v}}`;
  }
}

/** How the unstructured converter (FromUnstructured) words it, as strategic merge patches report it. */
function converterComplaint(value: unknown, expect: Expect, goType: string): string {
  const kind = unstructuredKind(value);
  switch (expect) {
    case 'list':
      return `cannot restore slice from ${kind}`;
    case 'map':
      return `cannot restore map from ${kind}`;
    case 'struct':
      return `cannot restore struct from: ${kind}`;
    case 'int':
    case 'float':
      return typeof value === 'string' ? `unrecognized type: ${goType}` : `cannot convert ${unstructuredType(value)} to ${goType}`;
    default:
      return `cannot convert ${unstructuredType(value)} to ${goType}`;
  }
}

/** reflect.Kind of a decoded JSON value in kube's unstructured form (integers are int64). */
function unstructuredKind(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  if (v !== null && typeof v === 'object') return 'map';
  return unstructuredType(v);
}

function unstructuredType(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return 'nil';
  switch (typeof v) {
    case 'object':
      return 'map[string]interface {}';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    default:
      return 'string';
  }
}

/** A number as Go's %v prints a float64 or int64. */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21) {
    const [m, e] = n.toExponential().split('e') as [string, string];
    return `${m}e${e.startsWith('-') ? '-' : '+'}${e.replace(/^[-+]/, '').padStart(2, '0')}`;
  }
  return String(n);
}

/** A decoded JSON value as Go's %v prints its unstructured form (`map[a:1 b:[x y]]`). */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o)
      .sort()
      .map((k) => `${k}:${goValue(o[k])}`)
      .join(' ')}]`;
  }
  if (typeof v === 'number') return goNumber(v);
  return String(v);
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

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function visit(value: unknown, s: Schema, w: Walk, where: Where, prop = ''): void {
  if (w.error || value === null || value === undefined) return;
  if (w.opts.patchDirectives && isPlainObject(value) && '$patch' in value && !isStruct(s) && !isMap(s)) return;
  if (s['x-kubernetes-int-or-string']) {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))) return;
    fail(w, where, value, 'intstr.IntOrString', 'string', `json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`);
    return;
  }
  switch (s.type) {
    case 'string':
      if (typeof value !== 'string') {
        // metav1.Time decodes its JSON string itself: Go names the inner string, at the field.
        fail(w, where, value, isTime(s) ? 'string' : goTypeName(s, prop, w), 'string');
      } else if (isTime(s)) {
        // Go's own parse of the time layout (MicroTime needs exactly six fractional digits).
        const parsed = parseGoTime(value, s[goTimeLayout] ?? 'Time');
        if (!parsed.ok) fail(w, where, value, `v1.${s[goTimeLayout] ?? 'Time'}`, 'string', parsed.message);
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
      const listType = s['x-kubernetes-list-type'];
      for (let i = 0; i < value.length && !w.error; i++) {
        if (value[i] === null && w.opts.zeroNulls) value[i] = zeroOf(items);
        const item = value[i];
        if (listType === 'map' && item !== null && !isPlainObject(item)) {
          fail(w, where, item, goTypeName(items, prop, w), 'struct');
          const e = w.error as GoTypeError | undefined;
          if (e) w.error = { ...e, smdMessage: `element ${i}: associative list with keys may not have non-map elements` };
          return;
        }
        visit(item, items, w, { ...where, smd: `${where.smd}${smdListElement(s, item, i)}` }, prop);
      }
      return;
    }
    case 'object':
      if (!isPlainObject(value)) {
        fail(w, where, value, goTypeName(s, prop, w), isMap(s) ? 'map' : 'struct');
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

/** structured-merge-diff's name for a list element: `[=value]` in a set, `[key="v"]` in a map list, else `[i]`. */
function smdListElement(s: Schema, item: unknown, i: number): string {
  const lt = s['x-kubernetes-list-type'];
  const show = (v: unknown) => (v === undefined ? '""' : typeof v === 'string' ? JSON.stringify(v) : goValue(v));
  if (lt === 'set') return `[=${show(item)}]`;
  const keys = s['x-kubernetes-list-map-keys'];
  if (lt === 'map' && keys && isPlainObject(item)) return `[${keys.map((k) => `${k}=${show(item[k])}`).join(',')}]`;
  return `[${i}]`;
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
