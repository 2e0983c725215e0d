/**
 * The Go typing of a CRD's JSON schemas (apiextensions v1 JSONSchemaProps): kube decodes a CRD
 * into Go structs, so a schema whose keywords have the wrong JSON type fails at decode with
 * encoding/json's message (a 400), before any validation. The path is Go's: the JSON field names
 * from the CRD's root, without list indexes or map keys.
 */
type Kind = 'string' | 'number' | 'bool' | 'array' | 'object';

const STRING = ['id', '$schema', '$ref', 'description', 'type', 'format', 'title', 'pattern', 'x-kubernetes-list-type', 'x-kubernetes-map-type'];
const INT = ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties'];
const FLOAT = ['maximum', 'minimum', 'multipleOf'];
const BOOL = ['exclusiveMaximum', 'exclusiveMinimum', 'uniqueItems', 'nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'];
const STRINGS = ['required', 'x-kubernetes-list-map-keys'];
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions'];
const SCHEMA_LISTS = ['allOf', 'oneOf', 'anyOf'];

function jsonKind(v: unknown): Kind | 'null' {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  return 'object';
}

function mismatch(v: unknown, path: string, goType: string, struct = 'JSONSchemaProps'): string {
  return `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${path} of type ${goType}`;
}

/** The first decode error in a schema at `path` (e.g. `spec.versions.schema.openAPIV3Schema`), or undefined. */
export function schemaPropsTypeError(s: unknown, path: string): string | undefined {
  if (s === null || s === undefined) return undefined;
  if (jsonKind(s) !== 'object') return undefined; // reported by the caller's own field
  const o = s as Record<string, unknown>;
  const at = (k: string) => `${path}.${k}`;
  for (const [k, v] of Object.entries(o)) {
    if (v === null) continue;
    const kind = jsonKind(v);
    if (STRING.includes(k) && kind !== 'string') return mismatch(v, at(k), 'string');
    if (INT.includes(k) && (kind !== 'number' || !Number.isInteger(v))) return mismatch(v, at(k), 'int64');
    if (FLOAT.includes(k) && kind !== 'number') return mismatch(v, at(k), 'float64');
    if (BOOL.includes(k) && kind !== 'bool') return mismatch(v, at(k), 'bool');
    if (STRINGS.includes(k)) {
      if (kind !== 'array') return mismatch(v, at(k), '[]string');
      const bad = (v as unknown[]).find((x) => x !== null && typeof x !== 'string');
      if (bad !== undefined) return mismatch(bad, at(k), 'string');
    }
    if (k === 'enum' && kind !== 'array') return mismatch(v, at(k), '[]v1.JSON');
    if (SCHEMA_MAPS.includes(k)) {
      if (kind !== 'object') return mismatch(v, at(k), 'map[string]v1.JSONSchemaProps');
      for (const child of Object.values(v as Record<string, unknown>)) {
        if (child === null) continue;
        if (jsonKind(child) !== 'object') return mismatch(child, at(k), 'v1.JSONSchemaProps');
        const e = schemaPropsTypeError(child, at(k));
        if (e) return e;
      }
    }
    if (SCHEMA_LISTS.includes(k)) {
      if (kind !== 'array') return mismatch(v, at(k), '[]v1.JSONSchemaProps');
      for (const child of v as unknown[]) {
        if (child === null) continue;
        if (jsonKind(child) !== 'object') return mismatch(child, at(k), 'v1.JSONSchemaProps');
        const e = schemaPropsTypeError(child, at(k));
        if (e) return e;
      }
    }
    if (k === 'not') {
      if (kind !== 'object') return mismatch(v, at(k), 'v1.JSONSchemaProps');
      const e = schemaPropsTypeError(v, at(k));
      if (e) return e;
    }
    if (k === 'items') {
      // JSONSchemaPropsOrArray: one schema or a list of schemas.
      const list = kind === 'array' ? (v as unknown[]) : kind === 'object' ? [v] : undefined;
      if (!list) return mismatch(v, at(k), 'v1.JSONSchemaPropsOrArray');
      for (const child of list) {
        const e = jsonKind(child) === 'object' ? schemaPropsTypeError(child, at(k)) : child === null ? undefined : mismatch(child, at(k), 'v1.JSONSchemaProps');
        if (e) return e;
      }
    }
    if (k === 'additionalProperties' || k === 'additionalItems') {
      // JSONSchemaPropsOrBool.
      if (kind === 'object') {
        const e = schemaPropsTypeError(v, at(k));
        if (e) return e;
      } else if (kind !== 'bool') return mismatch(v, at(k), 'v1.JSONSchemaPropsOrBool');
    }
    if (k === 'x-kubernetes-validations') {
      if (kind !== 'array') return mismatch(v, at(k), 'v1.ValidationRules');
      for (const rule of v as unknown[]) {
        if (rule === null) continue;
        if (jsonKind(rule) !== 'object') return mismatch(rule, at(k), 'v1.ValidationRule');
        for (const [rk, rv] of Object.entries(rule as Record<string, unknown>)) {
          if (rv === null) continue;
          if (['rule', 'message', 'messageExpression', 'reason', 'fieldPath'].includes(rk) && typeof rv !== 'string') return mismatch(rv, `${at(k)}.${rk}`, rk === 'reason' ? 'v1.FieldValueErrorReason' : 'string', 'ValidationRule');
          if (rk === 'optionalOldSelf' && typeof rv !== 'boolean') return mismatch(rv, `${at(k)}.${rk}`, 'bool', 'ValidationRule');
        }
      }
    }
  }
  return undefined;
}
