/**
 * Structural schema validation with kube-apiserver's wording: the checks of kube-openapi's
 * schema validator as apiextensions maps them to field errors, plus list-type set/map
 * uniqueness and embedded-resource checks. Pure: never mutates the value.
 */
import type { FieldError } from '../api/field-errors.ts';
import { fieldErr, goLiteral } from '../api/field-errors.ts';
import { goInterfaceValue } from '../api/go-print.ts';
import { checkStringFormat } from './formats.ts';
import type { Schema } from './types.ts';
import { isPlainObject, jsonTypeOf } from './walk.ts';
import { propertyEntries } from './properties.ts';

export interface ValidateOptions {
  /**
   * How keys of additionalProperties maps appear in field paths: `brackets` gives
   * `data[key]` (built-in kinds), `dots` gives `spec.map.key` (what CRD validation reports).
   */
  readonly mapKeyPaths?: 'brackets' | 'dots';
  /**
   * Whether `x-kubernetes-list-type` set and map lists must hold unique items (default true).
   * Custom resources enforce it; built-in kinds are validated by their Go code, which accepts
   * duplicate finalizers, conditions and the like, so their markers only steer apply and patch.
   */
  readonly listTypeUniqueness?: boolean;
  /**
   * Whether a schema's `required` lists are enforced (default true). Custom resources enforce them;
   * built-in kinds' Go validation reports missing fields itself, in its own words (an owner
   * reference's "uid must not be empty", a rule's "verbs must contain at least one value"), so
   * their lists only document the OpenAPI.
   */
  readonly required?: boolean;
}

interface Ctx {
  readonly errs: FieldError[];
  readonly rootPath: string;
  readonly brackets: boolean;
  readonly listTypes: boolean;
  readonly required: boolean;
}

/**
 * Where a node sits: `field` is the reported field path, `name` the dotted path kube-openapi prints
 * inside messages. Both are built only when an error asks for them: a valid object (nearly every
 * write) has none, and building two strings per node was a good share of validating it.
 */
class At {
  private fieldText: string | undefined;
  private nameText: string | undefined;

  constructor(
    private readonly parent: At | undefined,
    /** The key or index leading here (the root path at the root). */
    private readonly seg: string | number,
    /** How `seg` joins the parent's paths: a property, a map entry in brackets, or a list index. */
    private readonly join: 'root' | 'property' | 'bracketEntry' | 'index',
  ) {}

  get field(): string {
    if (this.fieldText === undefined) {
      const p = this.parent;
      const seg = String(this.seg);
      if (!p) this.fieldText = seg;
      else if (this.join === 'index' || this.join === 'bracketEntry') this.fieldText = `${p.field}[${seg}]`;
      else this.fieldText = p.field ? `${p.field}.${seg}` : seg;
    }
    return this.fieldText;
  }

  get name(): string {
    if (this.nameText === undefined) {
      const p = this.parent;
      const seg = String(this.seg);
      if (!p) this.nameText = seg;
      else if (this.join === 'index') this.nameText = `${p.name}[${seg}]`;
      else this.nameText = p.name ? `${p.name}.${seg}` : seg;
    }
    return this.nameText;
  }
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Validates a decoded JSON value against a structural schema and returns every field error found (empty when valid). */
export function validateAgainstSchema(value: unknown, schema: Schema, rootPath = '', options: ValidateOptions = {}): FieldError[] {
  const ctx: Ctx = { errs: [], rootPath, brackets: (options.mapKeyPaths ?? 'brackets') === 'brackets', listTypes: options.listTypeUniqueness ?? true, required: options.required ?? true };
  validateNode(value, schema, new At(undefined, rootPath, 'root'), ctx);
  return ctx.errs;
}

function childAt(at: At, key: string): At {
  return new At(at, key, 'property');
}

function mapEntryAt(at: At, key: string, ctx: Ctx): At {
  return new At(at, key, ctx.brackets ? 'bracketEntry' : 'property');
}

function indexAt(at: At, i: number): At {
  return new At(at, i, 'index');
}

const INT_OR_STRING: readonly string[] = ['integer', 'string'];
const NO_TYPES: readonly string[] = [];
const singleTypes = new Map<string, readonly string[]>();

function declaredTypes(schema: Schema): readonly string[] {
  if (schema['x-kubernetes-int-or-string']) return INT_OR_STRING;
  if (!schema.type) return NO_TYPES;
  let types = singleTypes.get(schema.type);
  if (!types) singleTypes.set(schema.type, (types = [schema.type]));
  return types;
}

function typeMatches(types: readonly string[], actual: string): boolean {
  if (types.includes(actual)) return true;
  // A whole number is also a valid `number`, and 2.0 decodes as an integer anyway.
  return actual === 'integer' && types.includes('number');
}

function validateNode(value: unknown, schema: Schema, at: At, ctx: Ctx): void {
  const types = declaredTypes(schema);
  const isNull = value === null || value === undefined;
  if (isNull) {
    if (types.length > 0 && !schema.nullable) typeError(at, types.join(','), 'null', ctx);
    checkEnum(value, schema, at, ctx);
    return;
  }
  const actual = jsonTypeOf(value);
  if (types.length > 0 && !typeMatches(types, actual)) typeError(at, types.join(','), actual, ctx);
  validateComposition(value, schema, at, ctx);
  if (typeof value === 'string') validateString(value, schema, at, ctx);
  if (typeof value === 'number') validateNumber(value, schema, at, ctx);
  if (Array.isArray(value)) validateArray(value, schema, at, ctx);
  checkEnum(value, schema, at, ctx);
  if (isPlainObject(value)) validateObject(value, schema, at, ctx);
}

function describe(name: string, rest: string): string {
  return `${name} in body ${rest}`;
}

function typeError(at: At, typeName: string, actual: string, ctx: Ctx): void {
  ctx.errs.push(fieldErr.typeInvalid(at.field, actual, describe(at.name, `must be of type ${typeName}: ${JSON.stringify(actual)}`)));
}

function validateString(s: string, schema: Schema, at: At, ctx: Ctx): void {
  // Like kube-openapi, the first failing string check is the only one reported.
  if (schema.maxLength !== undefined && codePointLength(s) > schema.maxLength) {
    ctx.errs.push(fieldErr.tooLong(at.field, s, schema.maxLength));
    return;
  }
  if (schema.minLength !== undefined && codePointLength(s) < schema.minLength) {
    ctx.errs.push(fieldErr.invalid(at.field, s, describe(at.name, `should be at least ${schema.minLength} chars long`)));
    return;
  }
  if (schema.pattern !== undefined) {
    const re = compilePattern(schema.pattern);
    if (typeof re === 'string') {
      ctx.errs.push(fieldErr.invalid(at.field, s, describe(at.name, `should match '${schema.pattern}, but pattern is invalid: ${re}'`)));
      return;
    }
    if (!re.test(s)) {
      ctx.errs.push(fieldErr.invalid(at.field, s, describe(at.name, `should match '${schema.pattern}'`)));
      return;
    }
  }
  if (schema.format && (schema.type === 'string' || schema.type === undefined)) {
    if (checkStringFormat(schema.format, s) === false) {
      ctx.errs.push(fieldErr.typeInvalid(at.field, s, describe(at.name, `must be of type ${schema.format}: ${JSON.stringify(s)}`)));
    }
  }
}

function validateNumber(n: number, schema: Schema, at: At, ctx: Ctx): void {
  if (schema.type === 'integer' && schema.format === 'int32' && Number.isInteger(n) && (n < INT32_MIN || n > INT32_MAX)) {
    ctx.errs.push(fieldErr.typeInvalid(at.field, n, describe(at.name, 'must be of type int32')));
  }
  if (schema.multipleOf !== undefined && schema.multipleOf > 0 && !isMultipleOf(n, schema.multipleOf)) {
    ctx.errs.push(fieldErr.invalid(at.field, n, describe(at.name, `should be a multiple of ${formatNumber(schema.multipleOf)}`)));
  }
  if (schema.minimum !== undefined) {
    const bad = schema.exclusiveMinimum ? n <= schema.minimum : n < schema.minimum;
    if (bad) {
      const rel = schema.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      ctx.errs.push(fieldErr.invalid(at.field, n, describe(at.name, `should be ${rel} ${formatNumber(schema.minimum)}`)));
    }
  }
  if (schema.maximum !== undefined) {
    const bad = schema.exclusiveMaximum ? n >= schema.maximum : n > schema.maximum;
    if (bad) {
      const rel = schema.exclusiveMaximum ? 'less than' : 'less than or equal to';
      ctx.errs.push(fieldErr.invalid(at.field, n, describe(at.name, `should be ${rel} ${formatNumber(schema.maximum)}`)));
    }
  }
}

function isMultipleOf(n: number, factor: number): boolean {
  if (Number.isInteger(n) && Number.isInteger(factor)) return n % factor === 0;
  const q = factor < 1 ? n * (1 / factor) : n / factor;
  return Math.abs(q - Math.round(q)) < 1e-9 * Math.max(1, Math.abs(q));
}

function validateArray(arr: readonly unknown[], schema: Schema, at: At, ctx: Ctx): void {
  if (schema.items) {
    for (let i = 0; i < arr.length; i++) validateNode(arr[i], schema.items, indexAt(at, i), ctx);
  }
  if (schema.minItems !== undefined && arr.length < schema.minItems) {
    ctx.errs.push(fieldErr.invalid(at.field, arr.length, describe(at.name, `should have at least ${schema.minItems} items`)));
  }
  if (schema.maxItems !== undefined && arr.length > schema.maxItems) {
    ctx.errs.push(fieldErr.tooMany(at.field, arr.length, schema.maxItems));
  }
  if (schema.uniqueItems && hasDuplicates(arr)) {
    ctx.errs.push(fieldErr.invalid(at.field, '', describe(at.name, "shouldn't contain duplicates")));
  }
  const lt = ctx.listTypes ? schema['x-kubernetes-list-type'] : undefined;
  if (lt === 'set') validateListSet(arr, at, ctx);
  else if (lt === 'map') validateListMap(arr, schema, at, ctx);
}

/** A duplicate as kube prints it: scalars as field errors print them, maps and lists as Go's `%#v` of the unstructured value. */
function duplicateValue(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? goLiteral(goInterfaceValue(v)) : v;
}

function validateListSet(arr: readonly unknown[], at: At, ctx: Ctx): void {
  const seen = new Set<string>();
  for (let i = 0; i < arr.length; i++) {
    const key = canonicalJson(arr[i]);
    if (seen.has(key)) ctx.errs.push(fieldErr.duplicate(indexAt(at, i).field, duplicateValue(arr[i])));
    else seen.add(key);
  }
}

function validateListMap(arr: readonly unknown[], schema: Schema, at: At, ctx: Ctx): void {
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  const seen = new Set<string>();
  for (let i = 0; i < arr.length; i++) {
    const entry = arr[i];
    if (entry === null || entry === undefined) continue;
    if (!isPlainObject(entry)) {
      ctx.errs.push(fieldErr.invalid(indexAt(at, i).field, entry, 'must be an object for an array of list-type map'));
      continue;
    }
    const keyValue: Record<string, unknown> = {};
    for (const k of keys) {
      const v = k in entry ? entry[k] : schema.items?.properties?.[k]?.default;
      if (v !== undefined) keyValue[k] = v;
    }
    const id = canonicalJson(keys.map((k) => (k in keyValue ? keyValue[k] : { unspecified: true })));
    if (seen.has(id)) ctx.errs.push(fieldErr.duplicate(indexAt(at, i).field, duplicateValue(keyValue)));
    else seen.add(id);
  }
}

function validateObject(obj: Record<string, unknown>, schema: Schema, at: At, ctx: Ctx): void {
  const count = Object.keys(obj).length;
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    ctx.errs.push(fieldErr.invalid(at.field, count, describe(at.name, `should have at least ${schema.minProperties} properties`)));
    return;
  }
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    ctx.errs.push(fieldErr.tooMany(at.field, count, schema.maxProperties));
    return;
  }
  const props = schema.properties ?? {};
  const extra = schema.additionalProperties;
  if (extra === false) {
    for (const k of Object.keys(obj)) {
      if (!Object.prototype.hasOwnProperty.call(props, k)) {
        ctx.errs.push(fieldErr.invalid(at.field, k, `${at.name ? `${at.name}.` : ''}${k} in body is a forbidden property`));
      }
    }
  } else if (extra && typeof extra === 'object') {
    for (const k in obj) {
      if (Object.prototype.hasOwnProperty.call(obj, k) && !Object.prototype.hasOwnProperty.call(props, k)) validateNode(obj[k], extra, mapEntryAt(at, k, ctx), ctx);
    }
  }
  for (const [k, propSchema] of propertyEntries(schema)) {
    if (Object.prototype.hasOwnProperty.call(obj, k)) validateNode(obj[k], propSchema, childAt(at, k), ctx);
  }
  for (const k of ctx.required ? schema.required ?? [] : []) {
    if (!Object.prototype.hasOwnProperty.call(obj, k)) ctx.errs.push(fieldErr.required(childAt(at, k).field));
  }
  if (schema['x-kubernetes-embedded-resource']) validateEmbeddedResource(obj, at, ctx);
}

function validateEmbeddedResource(obj: Record<string, unknown>, at: At, ctx: Ctx): void {
  for (const key of ['apiVersion', 'kind'] as const) {
    const path = childAt(at, key).field;
    if (!(key in obj)) {
      ctx.errs.push(fieldErr.required(path, 'must not be empty'));
      continue;
    }
    const v = obj[key];
    if (typeof v !== 'string') ctx.errs.push(fieldErr.invalid(path, v, 'must be a string'));
    else if (v === '') ctx.errs.push(fieldErr.invalid(path, v, 'must not be empty'));
  }
  const meta = obj['metadata'];
  if (meta !== undefined && meta !== null && !isPlainObject(meta)) {
    ctx.errs.push(fieldErr.invalid(childAt(at, 'metadata').field, meta, 'must be an object'));
  }
}

function checkEnum(value: unknown, schema: Schema, at: At, ctx: Ctx): void {
  const allowed = schema.enum;
  if (!allowed || allowed.length === 0) return;
  const key = canonicalJson(value ?? null);
  if (allowed.some((a) => canonicalJson(a ?? null) === key)) return;
  const supported = allowed.map((a) => (typeof a === 'string' ? a : JSON.stringify(a)));
  ctx.errs.push(fieldErr.notSupported(at.field, value ?? null, supported));
}

/** allOf / anyOf / oneOf / not, reported as kube-openapi does: composite errors at the root path plus the best failing branch. */
function validateComposition(value: unknown, schema: Schema, at: At, ctx: Ctx): void {
  if (!schema.anyOf && !schema.oneOf && !schema.allOf && !schema.not) return;
  const quoted = JSON.stringify(at.name);
  const branch = (s: Schema): FieldError[] => {
    const sub: Ctx = { errs: [], rootPath: ctx.rootPath, brackets: ctx.brackets, listTypes: ctx.listTypes, required: ctx.required };
    validateNode(value, s, at, sub);
    return sub.errs;
  };
  if (schema.anyOf && schema.anyOf.length > 0) {
    let best: FieldError[] | undefined;
    for (const s of schema.anyOf) {
      const errs = branch(s);
      if (errs.length === 0) {
        best = undefined;
        break;
      }
      if (!best || errs.length < best.length) best = errs;
    }
    if (best) {
      ctx.errs.push(fieldErr.invalid(ctx.rootPath, '', `${quoted} must validate at least one schema (anyOf)`));
      ctx.errs.push(...best);
    }
  }
  if (schema.oneOf && schema.oneOf.length > 0) {
    let valid = 0;
    let best: FieldError[] | undefined;
    for (const s of schema.oneOf) {
      const errs = branch(s);
      if (errs.length === 0) valid++;
      else if (valid === 0 && (!best || errs.length < best.length)) best = errs;
    }
    if (valid !== 1) {
      const extra = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      ctx.errs.push(fieldErr.invalid(ctx.rootPath, '', `${quoted} must validate one and only one schema (oneOf). ${extra}`));
      if (valid === 0 && best) ctx.errs.push(...best);
    }
  }
  if (schema.allOf && schema.allOf.length > 0) {
    let valid = 0;
    for (const s of schema.allOf) {
      const errs = branch(s);
      if (errs.length === 0) valid++;
      ctx.errs.push(...errs);
    }
    if (valid !== schema.allOf.length) {
      const extra = valid === 0 ? '. None validated' : '';
      ctx.errs.push(fieldErr.invalid(ctx.rootPath, '', `${quoted} must validate all the schemas (allOf)${extra}`));
    }
  }
  if (schema.not && branch(schema.not).length === 0) {
    ctx.errs.push(fieldErr.invalid(ctx.rootPath, '', `${quoted} must not validate the schema (not)`));
  }
}

const patternCache = new Map<string, RegExp | string>();

/** Compiles a schema pattern once; returns the error text when it does not compile. */
function compilePattern(pattern: string): RegExp | string {
  const cached = patternCache.get(pattern);
  if (cached !== undefined) return cached;
  let compiled: RegExp | string;
  try {
    compiled = new RegExp(pattern, 'u');
  } catch {
    try {
      compiled = new RegExp(pattern);
    } catch (e) {
      compiled = e instanceof Error ? e.message : String(e);
    }
  }
  if (patternCache.size > 1000) patternCache.clear();
  patternCache.set(pattern, compiled);
  return compiled;
}

/** Length in Unicode code points, as Go's utf8.RuneCountInString counts. */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Formats a number as Go's %v prints a float64 (`10`, `1.5`, `1e+21`). */
function formatNumber(n: number): string {
  return String(n);
}

/** JSON with sorted keys, so that deep equality is string equality. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

function hasDuplicates(arr: readonly unknown[]): boolean {
  const seen = new Set<string>();
  for (const v of arr) {
    const k = canonicalJson(v);
    if (seen.has(k)) return true;
    seen.add(k);
  }
  return false;
}
