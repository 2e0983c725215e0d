// From OpenAPI schemas to CEL: property-name escaping, the CEL type of a schema, and the conversion
// of a JSON value to the engine's values (int64 as bigint, formats to bytes/timestamp/duration).
import { goParseTimestamp } from './go-conversions.ts';
import type { Schema } from '../schema/types.ts';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { setList, mapList } from './list-types.ts';

const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The CEL field name of a property (kube-apiserver escaping), or undefined if it cannot be accessed. */
export function escapePropertyName(name: string): string | undefined {
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  const escaped = name.replace(/__|\.|-|\//g, (m) => (m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__'));
  return IDENTIFIER.test(escaped) ? escaped : undefined;
}

/** The property name a CEL field name stands for (inverse of escapePropertyName). */
export function unescapePropertyName(field: string): string {
  const kw = /^__(.+)__$/.exec(field);
  if (kw !== null && CEL_RESERVED.has(kw[1] ?? '')) return kw[1] ?? field;
  return field.replace(/__(underscores|dot|dash|slash)__/g, (_m, w: string) => (w === 'underscores' ? '__' : w === 'dot' ? '.' : w === 'dash' ? '-' : '/'));
}

/**
 * A CEL type description derived from a schema; size bounds feed the cost estimator. `maxElements`
 * and `minSize` are kube's DeclType.MaxElements and MinSerializedSize (common.SchemaDeclType).
 */
export type CelType = (
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, CelType>>; readonly maxProperties?: number }
  | { readonly kind: 'map'; readonly key?: CelType; readonly value: CelType; readonly maxProperties?: number }
  | { readonly kind: 'optional'; readonly element: CelType }
  | { readonly kind: 'list'; readonly element: CelType; readonly listType: 'atomic' | 'set' | 'map'; readonly mapKeys?: readonly string[]; readonly maxItems?: number }
  | { readonly kind: 'int' | 'uint' | 'double' | 'bool' | 'bytes' | 'timestamp' | 'duration' | 'dyn' | 'null' | 'intOrString' }
  | { readonly kind: 'string'; readonly maxLength?: number }
) & { readonly maxElements?: number; readonly minSize?: number };

/** kube's maxRequestSizeBytes: the largest request body, which bounds unbounded sizes. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

function stringMaxElements(schema: Schema): number {
  if (schema['x-kubernetes-int-or-string'] === true) return MAX_REQUEST_BYTES - 2;
  switch (schema.format) {
    case 'duration': return 32;
    case 'date': return 12;
    case 'date-time': return 32;
    default: return MAX_REQUEST_BYTES - 2;
  }
}

export interface SchemaTypeOptions {
  /**
   * The schema is the root of a resource (a custom resource's top-level schema): `apiVersion`,
   * `kind` and `metadata.name`/`metadata.generateName` are declared even when it does not list
   * them, as kube does (WithTypeAndObjectMeta). Implied for x-kubernetes-embedded-resource.
   */
  readonly resourceRoot?: boolean;
}

const STRING_SCHEMA: Schema = { type: 'string' };

/** kube's WithTypeAndObjectMeta: the resource-root properties every rule may read. */
function withTypeAndObjectMeta(schema: Schema): Schema {
  const p = schema.properties;
  const meta = p?.metadata?.properties;
  if (p?.kind?.type === 'string' && p.apiVersion?.type === 'string' && p.metadata?.type === 'object' && meta?.name?.type === 'string' && meta.generateName?.type === 'string') return schema;
  return {
    ...schema,
    properties: { ...p, kind: STRING_SCHEMA, apiVersion: STRING_SCHEMA, metadata: { type: 'object', properties: { name: STRING_SCHEMA, generateName: STRING_SCHEMA } } },
  };
}

const childOptions = (s: Schema): SchemaTypeOptions => ({ resourceRoot: s['x-kubernetes-embedded-resource'] === true });

/**
 * The CEL type kube gives a schema (common.SchemaDeclType), with its size bounds. An object with
 * properties or with neither properties nor additionalProperties is an object type declaring exactly
 * its properties (x-kubernetes-preserve-unknown-fields adds none: unknown fields are not readable).
 */
export function celTypeFromSchema(schema: Schema, options: SchemaTypeOptions = {}): CelType {
  if (schema['x-kubernetes-int-or-string'] === true) return { kind: 'intOrString', maxElements: MAX_REQUEST_BYTES - 2, minSize: 1 };
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.properties === undefined && schema.type === undefined) return { kind: 'dyn' };
  if (options.resourceRoot === true) schema = withTypeAndObjectMeta(schema);
  switch (schema.type) {
    case 'object': {
      if (typeof schema.additionalProperties === 'object') {
        const value = celTypeFromSchema(schema.additionalProperties, childOptions(schema.additionalProperties));
        const max = schema.maxProperties ?? Math.floor((MAX_REQUEST_BYTES - 2) / ((value.minSize ?? 0) + 6));
        return { kind: 'map', value, maxProperties: schema.maxProperties, maxElements: Math.max(0, max), minSize: 2 };
      }
      {
        const fields: Record<string, CelType> = {};
        const required = new Set(schema.required ?? []);
        let minSize = 2;
        for (const [name, s] of Object.entries(schema.properties ?? {})) {
          const t = celTypeFromSchema(s, childOptions(s));
          const f = escapePropertyName(name);
          if (f !== undefined) fields[f] = t;
          if (required.has(name) && s.default === undefined) minSize += name.length + (t.minSize ?? 0) + 4;
        }
        return { kind: 'object', fields, maxProperties: schema.maxProperties, maxElements: 0, minSize };
      }
    }
    case 'array': {
      const element = schema.items === undefined ? { kind: 'dyn' as const } : celTypeFromSchema(schema.items, childOptions(schema.items));
      const max = schema.maxItems ?? Math.floor((MAX_REQUEST_BYTES - 2) / ((element.minSize ?? 0) + 1));
      return {
        kind: 'list',
        element,
        listType: schema['x-kubernetes-list-type'] ?? 'atomic',
        mapKeys: schema['x-kubernetes-list-map-keys']?.map((k) => escapePropertyName(k) ?? k),
        maxItems: schema.maxItems,
        maxElements: Math.max(0, max),
        minSize: 2,
      };
    }
    case 'integer':
      return { kind: 'int', maxElements: 0, minSize: 1 };
    case 'number':
      return { kind: 'double', maxElements: 0, minSize: 1 };
    case 'boolean':
      return { kind: 'bool', maxElements: 0, minSize: 4 };
    case 'string':
      switch (schema.format) {
        case 'byte': return { kind: 'bytes', maxElements: schema.maxLength !== undefined ? Math.max(0, schema.maxLength) : stringMaxElements(schema), minSize: 2 };
        case 'date': return { kind: 'timestamp', maxElements: stringMaxElements(schema), minSize: 12 };
        case 'date-time': case 'datetime': return { kind: 'timestamp', maxElements: stringMaxElements(schema), minSize: 21 };
        case 'duration': return { kind: 'duration', maxElements: stringMaxElements(schema), minSize: 3 };
        default: {
          let maxElements: number;
          if (schema.maxLength !== undefined) maxElements = Math.max(0, schema.maxLength) * 4;
          else if (schema.enum !== undefined && schema.enum.length > 0) maxElements = Math.max(0, ...schema.enum.map((v) => (typeof v === 'string' ? Buffer.byteLength(v) : 0)));
          else maxElements = stringMaxElements(schema);
          return { kind: 'string', maxLength: schema.maxLength, maxElements, minSize: 2 };
        }
      }
    default:
      return { kind: 'dyn' };
  }
}

const DURATION_UNIT_NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n,
};

/** Parses a Go duration string ("1h30m", "-1.5s", "300ms", "0") into a duration value, or undefined. */
export function parseGoDuration(text: string): Duration | undefined {
  const m = /^([-+]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+|0)$/.exec(text);
  if (m === null) return undefined;
  let nanos = 0n;
  for (const [, num, unit] of (m[2] ?? '').matchAll(/(\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g)) {
    const [whole = '0', frac = ''] = (num ?? '0').split('.');
    const scale = DURATION_UNIT_NANOS[unit ?? 's'] ?? 1n;
    nanos += BigInt(whole || '0') * scale + (frac === '' ? 0n : (BigInt(frac) * scale) / 10n ** BigInt(frac.length));
  }
  if (m[1] === '-') nanos = -nanos;
  return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
}

function dynValue(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(dynValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = dynValue(x);
    return out;
  }
  return v;
}

/** An RFC 3339 date-time at nanosecond precision (Go's parse); other spellings strfmt accepts through Date. */
function parseDateTime(s: string): Date {
  try {
    return goParseTimestamp(s);
  } catch {
    return new Date(s);
  }
}

/** Converts a JSON value to the engine's representation; objects with properties get escaped field names. */
export function toCelValue(value: unknown, type: CelType = { kind: 'dyn' }): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
    case 'double':
      return value;
    case 'intOrString':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
    case 'bytes':
      return typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : value;
    case 'timestamp':
      return typeof value === 'string' ? parseDateTime(value) : value;
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(value)) {
        const f = escapePropertyName(k);
        if (f === undefined) continue;
        out[f] = toCelValue(x, type.fields[f] ?? { kind: 'dyn' });
      }
      return out;
    }
    case 'map': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(value)) out[k] = toCelValue(x, type.value);
      return out;
    }
    case 'list': {
      if (!Array.isArray(value)) return value;
      const elements = value.map((x) => toCelValue(x, type.element));
      if (type.listType === 'set') return setList(elements);
      if (type.listType === 'map') return mapList(elements, type.mapKeys ?? []);
      return elements;
    }
    case 'duration':
      return typeof value === 'string' ? parseGoDuration(value) ?? value : value;
    default:
      return dynValue(value);
  }
}
