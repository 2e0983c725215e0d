/**
 * kube-apiserver's validation of a CustomResourceDefinition (apiextensions validation.go), with
 * its field paths and messages. kube validates the internal form, into which identical per-version
 * schemas, subresources, printer columns and selectable fields are hoisted: then errors name
 * `spec.validation`, `spec.subresources`, ... instead of `spec.versions[i]...`; we do the same.
 */
import { fieldErr, goLiteral, type FieldError } from '../api/field-errors.ts';
import type { KubeObject } from '../api/types.ts';
import { isDns1123Subdomain, maxLenError, regexError, byteLength } from '../api/validation/names.ts';
import { validateAgainstSchema } from '../schema/validate.ts';
import type { Schema } from '../schema/types.ts';
import { compile, isCompileError, estimateCost, celTypeFromSchema, MAX_REQUEST_BYTES, type CelType } from '../cel/index.ts';
import { goStrings, goValidationRule, goVersions } from './go-dump.ts';
import { jsonEqual } from '../registry/object-meta.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const strOf = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const dns1035Fmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035Re = new RegExp(`^${dns1035Fmt}$`);
const dns1035Msg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** utilvalidation.IsDNS1035Label. */
export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1035Re.test(value)) errs.push(regexError(dns1035Msg, dns1035Fmt, 'my-name', 'abc-123'));
  return errs;
}

/** The per-rule and per-CRD static cost limits (apiextensions' StaticEstimatedCostLimit, StaticEstimatedCRDCostLimit). */
export const PER_RULE_COST_LIMIT = 10_000_000;
export const PER_CRD_COST_LIMIT = 100_000_000;
/** Go's math.MaxUint64, where kube's cost multiplication saturates. */
const MAX_UINT64 = 18446744073709551615;
const COST_HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

function factorText(cost: number, limit: number): string {
  const factor = cost / limit;
  if (factor > 100) return 'more than 100x';
  return `${factor.toFixed(1)}x`;
}

/** The identical per-version parts kube hoists into the internal spec (and where errors then point). */
interface Hoisting {
  readonly schema: boolean;
  readonly subresources: boolean;
  readonly columns: boolean;
  readonly selectable: boolean;
}

function hoisting(versions: readonly Obj[]): Hoisting {
  const same = (k: string) => versions.length > 0 && versions.every((v) => jsonEqual(v[k] ?? null, versions[0]![k] ?? null));
  return { schema: same('schema'), subresources: same('subresources'), columns: same('additionalPrinterColumns'), selectable: same('selectableFields') };
}

/** Validates a CRD (create). The metadata's generic checks run elsewhere; its name rule is here. */
export function validateCustomResourceDefinition(crd: KubeObject, update = false): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObj(crd.spec) ? crd.spec : {};
  const names = isObj(spec.names) ? spec.names : {};
  const group = strOf(spec.group);
  const name = crd.metadata?.name ?? '';
  // (On update the name is immutable, and kube checks only that.)
  if (!update && name !== '' && name !== `${strOf(names.plural)}.${group}`) errs.push(fieldErr.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  errs.push(...validateSpec(spec));
  errs.push(...validateStoredVersions(crd));
  return errs;
}

/** Validates an update: the create checks, and what may not change. */
export function validateCustomResourceDefinitionUpdate(crd: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateCustomResourceDefinition(crd, true);
  const spec = isObj(crd.spec) ? crd.spec : {};
  const oldSpec = isObj(old.spec) ? old.spec : {};
  // Established CRDs keep their group and scope (kube: "field is immutable"), reported first.
  const immutable: FieldError[] = [];
  if (strOf(spec.group) !== strOf(oldSpec.group)) immutable.push(fieldErr.invalid('spec.group', strOf(spec.group), 'field is immutable'));
  if (strOf(spec.scope) !== strOf(oldSpec.scope)) immutable.push(fieldErr.invalid('spec.scope', strOf(spec.scope), 'field is immutable'));
  return [...immutable, ...errs];
}

function validateStoredVersions(crd: KubeObject): FieldError[] {
  const status = isObj(crd.status) ? crd.status : {};
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions.map(strOf) : undefined;
  const spec = isObj(crd.spec) ? crd.spec : {};
  const versions = arr(spec.versions).filter(isObj);
  const path = 'status.storedVersions';
  // An empty list prints as Go's nil slice: kube's strategy left it unset.
  if (!stored || stored.length === 0) return [fieldErr.invalid(path, goLiteral(goStrings(undefined)), 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const names = new Set(versions.map((v) => strOf(v.name)));
  stored.forEach((v, i) => {
    if (!names.has(v)) errs.push(fieldErr.invalid(`${path}[${i}]`, v, 'must appear in spec.versions'));
  });
  let storage = '';
  for (const v of versions) if (v.storage === true) storage = strOf(v.name);
  if (storage !== '' && !stored.includes(storage)) errs.push(fieldErr.invalid(path, goLiteral(goStrings(stored)), `must have the storage version ${storage}`));
  return errs;
}

function validateSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const group = strOf(spec.group);
  if (group === '') errs.push(fieldErr.required('spec.group', ''));
  else {
    const g = isDns1123Subdomain(group);
    if (g.length > 0) errs.push(fieldErr.invalid('spec.group', group, g.join(',')));
    else if (group.split('.').length < 2) errs.push(fieldErr.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const scope = strOf(spec.scope);
  if (scope === '') errs.push(fieldErr.required('spec.scope', ''));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldErr.notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  const versions = arr(spec.versions).filter(isObj);
  const hoist = hoisting(versions);
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const vp = `spec.versions[${i}]`;
    if (v.storage === true) storageCount++;
    const vname = strOf(v.name);
    if (seen.has(vname)) unique = false;
    seen.add(vname);
    const nameErrs = isDns1035Label(vname);
    if (nameErrs.length > 0) errs.push(fieldErr.invalid(`${vp}.name`, vname, nameErrs.join(',')));
    if (typeof v.deprecationWarning === 'string' && v.deprecationWarning.length > 256) errs.push(fieldErr.invalid(`${vp}.deprecationWarning`, v.deprecationWarning, 'must be <= 256 characters long'));
    const schema = isObj(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isObj(schema)) errs.push(fieldErr.required(`${vp}.schema.openAPIV3Schema`, 'schemas are required'));
  });
  if (!unique) errs.push(fieldErr.invalid('spec.versions', goLiteral(goVersions(versions, true)), 'must contain unique version names'));
  if (storageCount !== 1) errs.push(fieldErr.invalid('spec.versions', goLiteral(goVersions(versions, hoist.schema)), 'must have exactly one version marked as storage version'));
  if (versions.length > 0) {
    const first = strOf(versions[0]!.name);
    const e = isDns1035Label(first);
    if (e.length > 0) errs.push(fieldErr.invalid('spec.version', first, e.join(',')));
  }
  errs.push(...validateNames(isObj(spec.names) ? spec.names : {}));
  if (spec.preserveUnknownFields === true) {
    errs.push(fieldErr.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  // Per-version parts, validated once at the hoisted path when identical.
  const parts = (key: string, hoisted: boolean, base: string, fn: (value: unknown, path: string, version: Obj) => FieldError[]) => {
    if (hoisted) {
      if (versions.length > 0) errs.push(...fn(versions[0]![key], `spec.${base}`, versions[0]!));
    } else versions.forEach((v, i) => errs.push(...fn(v[key], `spec.versions[${i}].${key}`, v)));
  };
  parts('schema', hoist.schema, 'validation', (s, p, v) => {
    if (!isObj(s) || !isObj(s.openAPIV3Schema)) return [];
    return validateOpenApiSchema(s.openAPIV3Schema as Schema, `${p}.openAPIV3Schema`, hasStatusSubresource(v));
  });
  parts('subresources', hoist.subresources, 'subresources', (s, p) => validateSubresources(s, p));
  parts('additionalPrinterColumns', hoist.columns, 'additionalPrinterColumns', (cols, p) => arr(cols).flatMap((c, i) => validateColumn(isObj(c) ? c : {}, `${p}[${i}]`)));
  parts('selectableFields', hoist.selectable, 'selectableFields', (fields, p, v) => {
    const schema = isObj(v.schema) && isObj(v.schema.openAPIV3Schema) ? (v.schema.openAPIV3Schema as Schema) : undefined;
    return arr(fields).flatMap((f, i) => validateSelectableField(isObj(f) ? f : {}, `${p}[${i}]`, schema));
  });
  errs.push(...validateConversion(spec.conversion));
  return errs;
}

function hasStatusSubresource(v: Obj): boolean {
  return isObj(v.subresources) && v.subresources.status !== undefined;
}

function validateNames(names: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const label = (path: string, value: string, mixedCase = false) => {
    const e = isDns1035Label(mixedCase ? value.toLowerCase() : value);
    if (e.length > 0) errs.push(fieldErr.invalid(path, value, mixedCase ? `may have mixed case, but should otherwise match: ${e.join(',')}` : e.join(',')));
  };
  const plural = strOf(names.plural);
  if (plural === '') errs.push(fieldErr.required('spec.names.plural', ''));
  else label('spec.names.plural', plural);
  const singular = strOf(names.singular);
  if (singular === '') errs.push(fieldErr.required('spec.names.singular', ''));
  else label('spec.names.singular', singular);
  const kind = strOf(names.kind);
  if (kind === '') errs.push(fieldErr.required('spec.names.kind', ''));
  else label('spec.names.kind', kind, true);
  const listKind = strOf(names.listKind);
  if (listKind === '') errs.push(fieldErr.required('spec.names.listKind', ''));
  else {
    label('spec.names.listKind', listKind, true);
    if (listKind === kind) errs.push(fieldErr.invalid('spec.names.listKind', listKind, 'kind and listKind may not be the same'));
  }
  arr(names.shortNames).forEach((s, i) => label(`spec.names.shortNames[${i}]`, strOf(s)));
  arr(names.categories).forEach((s, i) => label(`spec.names.categories[${i}]`, strOf(s)));
  return errs;
}

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** A simple JSON path as kube accepts it for printer columns and scale: `.a.b`, `.a[0]`, `.a['x']`. */
export function isSimpleJsonPath(p: string): boolean {
  return /^\.[^.]/.test(p) || p === '.';
}

function validateColumn(c: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (strOf(c.name) === '') errs.push(fieldErr.required(`${path}.name`));
  const type = strOf(c.type);
  if (type === '') errs.push(fieldErr.required(`${path}.type`));
  else if (!COLUMN_TYPES.includes(type)) errs.push(fieldErr.invalid(`${path}.type`, type, `must be one of ${COLUMN_TYPES.join(',')}`));
  const format = strOf(c.format);
  if (format !== '' && !COLUMN_FORMATS.includes(format)) errs.push(fieldErr.invalid(`${path}.format`, format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  const jsonPath = strOf(c.jsonPath);
  if (jsonPath === '') errs.push(fieldErr.required(`${path}.JSONPath`));
  else if (!isSimpleJsonPath(jsonPath)) errs.push(fieldErr.invalid(`${path}.JSONPath`, jsonPath, 'must be a simple json path starting with .'));
  return errs;
}

function validateSubresources(s: unknown, path: string): FieldError[] {
  if (!isObj(s) || !isObj(s.scale)) return [];
  const errs: FieldError[] = [];
  const scale = s.scale;
  const check = (key: string, under: string[], required: boolean) => {
    const p = `${path}.scale.${key}`;
    const v = strOf(scale[key]);
    if (v === '') {
      if (required) errs.push(fieldErr.required(p));
      return;
    }
    if (!isSimpleJsonPath(v)) errs.push(fieldErr.invalid(p, v, 'must be a simple json path starting with .'));
    else if (!under.some((u) => v.startsWith(`${u}.`))) errs.push(fieldErr.invalid(p, v, `should be a json path under ${under.join(' or ')}`));
  };
  check('specReplicasPath', ['.spec'], true);
  check('statusReplicasPath', ['.status'], true);
  check('labelSelectorPath', ['.spec', '.status'], false);
  return errs;
}

function validateConversion(c: unknown): FieldError[] {
  if (!isObj(c)) return [];
  const errs: FieldError[] = [];
  const strategy = strOf(c.strategy);
  const webhook = isObj(c.webhook) ? c.webhook : undefined;
  const clientConfig = webhook && isObj(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const reviewVersions = webhook ? arr(webhook.conversionReviewVersions) : [];
  if (strategy !== 'None' && strategy !== 'Webhook') {
    errs.push(fieldErr.notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
    return errs;
  }
  if (strategy === 'Webhook') {
    if (!clientConfig) errs.push(fieldErr.required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'));
    else errs.push(...validateClientConfig(clientConfig, 'spec.conversion.webhookClientConfig'));
    if (reviewVersions.length === 0) errs.push(fieldErr.required('spec.conversion.conversionReviewVersions'));
    else if (!reviewVersions.some((v) => v === 'v1' || v === 'v1beta1')) {
      errs.push(fieldErr.invalid('spec.conversion.conversionReviewVersions', goLiteral(goStrings(reviewVersions.map(strOf))), 'must include at least one of v1, v1beta1'));
    }
  } else {
    if (clientConfig) errs.push(fieldErr.forbidden('spec.conversion.webhookClientConfig', 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions.length > 0) errs.push(fieldErr.forbidden('spec.conversion.conversionReviewVersions', 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

function validateClientConfig(cc: Obj, path: string): FieldError[] {
  const hasUrl = typeof cc.url === 'string';
  const hasService = isObj(cc.service);
  if (hasUrl === hasService) return [fieldErr.required(path, 'exactly one of url or service is required')];
  if (hasUrl) {
    let u: URL;
    try {
      u = new URL(cc.url as string);
    } catch {
      return [fieldErr.invalid(`${path}.url`, cc.url, 'must be a valid URL')];
    }
    const scheme = u.protocol.replace(/:$/, '');
    if (scheme !== 'https') return [fieldErr.invalid(`${path}.url`, scheme, "'https' is the only allowed URL scheme; desired format: https://host[/path]")];
    if (u.hostname === '') return [fieldErr.invalid(`${path}.url`, u.host, 'host must be specified')];
    return [];
  }
  const svc = cc.service as Obj;
  const errs: FieldError[] = [];
  if (strOf(svc.name) === '') errs.push(fieldErr.required(`${path}.service.name`, 'service name is required'));
  if (strOf(svc.namespace) === '') errs.push(fieldErr.required(`${path}.service.namespace`, 'service namespace is required'));
  return errs;
}

function validateSelectableField(f: Obj, path: string, schema: Schema | undefined): FieldError[] {
  const p = strOf(f.jsonPath);
  if (p === '') return [fieldErr.required(`${path}.jsonPath`)];
  if (!isSimpleJsonPath(p)) return [fieldErr.invalid(`${path}.jsonPath`, p, 'must be a simple json path starting with .')];
  let node: Schema | undefined = schema;
  for (const seg of p.slice(1).split('.')) node = node?.properties?.[seg];
  if (!node) return [fieldErr.invalid(`${path}.jsonPath`, p, 'is an invalid path: does not refer to a valid field')];
  if (node.type !== 'string' && node.type !== 'boolean' && node.type !== 'integer') {
    return [fieldErr.invalid(`${path}.jsonPath`, p, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.')];
  }
  return [];
}

const SCHEMA_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const RULE_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/**
 * What a schema walk finds, in kube's three groups: the structural errors (ValidateStructural,
 * reported first), the OpenAPI schema errors, and the CEL errors of the rules. Rules are compiled
 * only in a structural schema, and only at nodes with no schema error at or below them (kube's
 * "not actionable until the schema is fixed"), after the walk, deepest nodes first.
 */
interface SchemaCtx {
  readonly structural: FieldError[];
  readonly errs: FieldError[];
  readonly cel: FieldError[];
  readonly celChecks: (() => void)[];
  /** Estimated costs of every rule, for the per-CRD budget. */
  readonly costs: { path: string; cost: number }[];
}

/** The structural and OpenAPI checks of a version's schema, then its CEL rules and their cost. */
export function validateOpenApiSchema(root: Schema, path: string, _hasStatus: boolean): FieldError[] {
  const ctx: SchemaCtx = { structural: [], errs: [], cel: [], celChecks: [], costs: [] };
  const r = root as Obj;
  if (r.type === undefined) ctx.structural.push(fieldErr.required(`${path}.type`, 'must not be empty at the root'));
  else if (r.type !== 'object') ctx.structural.push(fieldErr.invalid(`${path}.type`, r.type, 'must be object at the root'));
  const meta = root.properties?.metadata;
  if (meta) {
    const extra = Object.keys(meta.properties ?? {}).some((k) => k !== 'name' && k !== 'generateName');
    if (extra || meta.type !== 'object' || Object.keys(meta).some((k) => k !== 'type' && k !== 'properties' && k !== 'description')) {
      ctx.structural.push(fieldErr.forbidden(`${path}.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
    for (const [k, s] of Object.entries(meta.properties ?? {})) {
      if (s.default !== undefined) ctx.errs.push(fieldErr.forbidden(`${path}.properties[metadata].properties[${k}].default`, 'must not be set in top-level metadata'));
    }
  }
  walkSchema(root, path, ctx, true, 1);
  if (ctx.structural.length === 0) for (const check of ctx.celChecks) check();
  const out = [...ctx.structural, ...ctx.errs, ...ctx.cel];
  const total = ctx.costs.reduce((a, c) => a + c.cost, 0);
  if (total > PER_CRD_COST_LIMIT) {
    // kube names the most expensive expressions (at most four, in schema order), not the free ones.
    const top = new Set([...ctx.costs].filter((c) => c.cost > 0).sort((a, b) => b.cost - a.cost).slice(0, 4));
    for (const c of ctx.costs) if (top.has(c)) out.push(fieldErr.forbidden(c.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    out.push(fieldErr.forbidden(path, `x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of ${factorText(total, PER_CRD_COST_LIMIT)} ${COST_HINT}`));
  }
  return out;
}

/**
 * How many times a child of `s` may occur per occurrence of `s` (kube's extractMaxElements): once
 * for a field, maxItems/maxProperties for list items and map values, unbounded (undefined) without.
 */
function maxElementsOf(s: Schema): number | undefined {
  if (s.type === 'object') return s.additionalProperties !== undefined && s.additionalProperties !== false ? s.maxProperties : 1;
  if (s.type === 'array') return s.maxItems;
  return 1;
}

/**
 * `cardinality`: how many times the node may occur in one object, the product of its ancestors'
 * bounds (undefined when one is unbounded): its rules' costs count that many times (kube's
 * CELSchemaContext.MaxCardinality).
 */
function walkSchema(s: Schema, path: string, ctx: SchemaCtx, isRoot: boolean, cardinality: number | undefined): void {
  const n = s as Obj;
  const errs = ctx.errs;
  const errorsBefore = ctx.errs.length;
  if (n.$ref !== undefined) errs.push(fieldErr.forbidden(`${path}.$ref`, '$ref is not supported'));
  if (n.type !== undefined && (typeof n.type !== 'string' || !SCHEMA_TYPES.includes(n.type))) errs.push(fieldErr.notSupported(`${path}.type`, n.type, SCHEMA_TYPES));
  if (n.uniqueItems === true) errs.push(fieldErr.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (n.additionalProperties !== undefined && n.properties !== undefined) {
    errs.push(fieldErr.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (typeof n.pattern === 'string') {
    const problem = goRegexpProblem(n.pattern);
    if (problem) errs.push(fieldErr.invalid(`${path}.pattern`, n.pattern, `must be a valid regular expression, but isn't: error parsing regexp: ${problem}`));
  }
  if (n['x-kubernetes-preserve-unknown-fields'] === false) ctx.structural.push(fieldErr.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  const intOrString = n['x-kubernetes-int-or-string'] === true;
  const preserve = n['x-kubernetes-preserve-unknown-fields'] === true;
  if (n['x-kubernetes-embedded-resource'] === true) {
    if (!preserve && (!n.properties || Object.keys(n.properties as Obj).length === 0)) {
      ctx.structural.push(fieldErr.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
    }
    if (n.type !== 'object') ctx.structural.push(fieldErr.invalid(`${path}.type`, n.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'));
  }
  // Structural: every node typed (int-or-string and free-form nodes aside), every array with items.
  if (!isRoot && n.type === undefined && !intOrString && !preserve) ctx.structural.push(fieldErr.required(`${path}.type`, 'must not be empty for specified object fields'));
  // (`items` may be a list of schemas in JSONSchemaProps: empty, it is no items; otherwise not structural.)
  const itemsList = Array.isArray(n.items) ? (n.items as unknown[]) : undefined;
  if (n.type === 'array' && (n.items === undefined || itemsList?.length === 0)) ctx.structural.push(fieldErr.required(`${path}.items`, 'must be specified'));
  else if (itemsList && itemsList.length > 0) errs.push(fieldErr.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  const listType = n['x-kubernetes-list-type'];
  const mapKeys = arr(n['x-kubernetes-list-map-keys']);
  if (listType !== undefined) {
    if (listType !== 'atomic' && listType !== 'set' && listType !== 'map') errs.push(fieldErr.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
    else if (n.type !== 'array') errs.push(fieldErr.invalid(`${path}.type`, n.type ?? '', 'must be array if x-kubernetes-list-type is specified'));
    else if (listType === 'map' && mapKeys.length === 0) errs.push(fieldErr.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    else if (listType !== 'map' && mapKeys.length > 0) errs.push(fieldErr.invalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    const items = s.items;
    if (listType === 'set' && items && items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errs.push(fieldErr.invalid(`${path}.items.x-kubernetes-map-type`, items['x-kubernetes-map-type'] ?? goLiteral('"null"'), 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (listType === 'map' && items && mapKeys.length > 0) {
      for (const key of mapKeys.map(strOf)) {
        const prop = items.properties?.[key];
        if (!prop) {
          errs.push(fieldErr.invalid(`${path}.x-kubernetes-list-map-keys`, goLiteral(goStrings(mapKeys.map(strOf))), 'entries must all be names of item properties'));
          continue;
        }
        if (prop.default === undefined && !(items.required ?? []).includes(key)) {
          errs.push(fieldErr.required(`${path}.items.properties[${key}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
      }
    }
  } else if (mapKeys.length > 0) {
    errs.push(fieldErr.invalid(`${path}.x-kubernetes-list-type`, goLiteral('""'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  const mapType = n['x-kubernetes-map-type'];
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(fieldErr.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  if (n.default !== undefined && !isRoot) {
    const dErrs = validateAgainstSchema(structuredClone(n.default), s, '', { mapKeyPaths: 'dots' });
    for (const e of dErrs) errs.push({ ...e, field: e.field ? `${path}.default.${e.field}` : `${path}.default` });
  }
  for (const j of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = n[j];
    // kube's isIntOrStringAnyOfPattern: `anyOf: [{type: integer}, {type: string}]` is allowed as it is.
    if (j === 'anyOf' && isIntOrStringAnyOf(list)) continue;
    if (Array.isArray(list)) list.forEach((sub, i) => isObj(sub) && checkJunctor(sub as Schema, `${path}.${j}[${i}]`, s, path, ctx));
  }
  if (isObj(n.not)) checkJunctor(n.not as Schema, `${path}.not`, s, path, ctx);
  const perOccurrence = maxElementsOf(s);
  const childCardinality = cardinality === undefined || perOccurrence === undefined ? undefined : cardinality * Math.max(0, perOccurrence);
  for (const [k, child] of Object.entries(s.properties ?? {})) {
    if (isRoot && k === 'metadata') continue;
    if (isObj(child)) walkSchema(child, `${path}.properties[${k}]`, ctx, false, childCardinality);
  }
  if (isObj(s.items)) walkSchema(s.items, `${path}.items`, ctx, false, childCardinality);
  if (isObj(s.additionalProperties)) walkSchema(s.additionalProperties, `${path}.additionalProperties`, ctx, false, childCardinality);
  // The node's own rules after its children (kube's order), compiled later if nothing here or below is wrong.
  validateRules(s, path, ctx, errorsBefore, isRoot, cardinality);
}

/** Exactly `[{type: integer}, {type: string}]`: the int-or-string pattern kube lets through its junctor checks. */
function isIntOrStringAnyOf(list: unknown): boolean {
  if (!Array.isArray(list) || list.length !== 2) return false;
  const only = (v: unknown, type: string) => isObj(v) && Object.keys(v).length === 1 && v.type === type;
  return only(list[0], 'integer') && only(list[1], 'string');
}

/**
 * A value validation under allOf/anyOf/oneOf/not: structural keywords are forbidden there, and
 * every property or items it names must exist in the structural schema beside it (kube's
 * "must be empty to be structural" and "because it is defined in").
 */
function checkJunctor(j: Schema, jpath: string, structural: Schema | undefined, spath: string, ctx: SchemaCtx): void {
  const forbidden = ['type', 'default', 'additionalProperties', 'nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'];
  const n = j as Obj;
  for (const k of forbidden) if (n[k] !== undefined) ctx.structural.push(fieldErr.forbidden(`${jpath}.${k}`, 'must be empty to be structural'));
  for (const [k, child] of Object.entries(j.properties ?? {})) {
    if (!isObj(child)) continue;
    const sChild = structural?.properties?.[k];
    checkJunctor(child, `${jpath}.properties[${k}]`, sChild, `${spath}.properties[${k}]`, ctx);
    if (!sChild) ctx.structural.push(fieldErr.required(`${spath}.properties[${k}]`, `because it is defined in ${jpath}.properties[${k}]`));
  }
  if (isObj(j.items)) {
    checkJunctor(j.items, `${jpath}.items`, structural?.items, `${spath}.items`, ctx);
    if (!structural?.items) ctx.structural.push(fieldErr.required(`${spath}.items`, `because it is defined in ${jpath}.items`));
  }
}

/** The Go regexp error of the common mistakes (unclosed brackets and parentheses), or undefined when it compiles. */
function goRegexpProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch {
    const open = pattern.lastIndexOf('[');
    if (open >= 0 && !pattern.slice(open).includes(']')) return `missing closing ]: \`${pattern.slice(open)}\``;
    if ((pattern.match(/\(/g) ?? []).length > (pattern.match(/\)/g) ?? []).length) return `missing closing ): \`${pattern}\``;
    return `invalid or unsupported Perl syntax: \`${pattern}\``;
  }
}

/** Whether an expression names `oldSelf` (as an identifier, not inside a string). */
export function usesOldSelf(expr: string): boolean {
  return /(^|[^.\w"'])oldSelf\b/.test(expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""'));
}

/**
 * The CEL declarations of a rule at schema node `s`; at the root of the resource (`resourceRoot`,
 * or an embedded resource) `self` also has apiVersion, kind and metadata.name/generateName, as kube
 * declares them whether or not the schema lists them.
 */
export function ruleVariables(s: Schema, withOldSelf: boolean, resourceRoot: boolean, optionalOldSelf = false): Record<string, { type: CelType }> {
  const type = celTypeFromSchema(s, { resourceRoot: resourceRoot || s['x-kubernetes-embedded-resource'] === true });
  if (!withOldSelf) return { self: { type } };
  // optionalOldSelf: oldSelf is an optional, none where there is no old value (a create, an uncorrelatable item).
  return { self: { type }, oldSelf: { type: optionalOldSelf ? { kind: 'optional', element: type } : type } };
}

function validateRules(s: Schema, path: string, ctx: SchemaCtx, errorsBefore: number, isRoot: boolean, cardinality: number | undefined): void {
  const rules = s['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return;
  const compiled: { r: Obj; rp: string; expr: string }[] = [];
  rules.forEach((rule, i) => {
    const r = (isObj(rule) ? rule : {}) as Obj;
    const rp = `${path}.x-kubernetes-validations[${i}]`;
    const expr = strOf(r.rule);
    if (expr.trim() === '') {
      ctx.errs.push(fieldErr.required(`${rp}.rule`, 'rule is not specified'));
      return;
    }
    const message = strOf(r.message);
    if (message !== '' && message.trim() === '') ctx.errs.push(fieldErr.invalid(`${rp}.message`, message, 'message must be non-empty if specified'));
    if (/[\r\n]/.test(message)) ctx.errs.push(fieldErr.invalid(`${rp}.message`, message, 'message must not contain line breaks'));
    if (r.reason !== undefined && !RULE_REASONS.includes(strOf(r.reason))) ctx.errs.push(fieldErr.notSupported(`${rp}.reason`, r.reason, RULE_REASONS));
    if (typeof r.fieldPath === 'string' && r.fieldPath !== '' && !fieldPathExists(s, r.fieldPath)) {
      ctx.errs.push(fieldErr.invalid(`${rp}.fieldPath`, r.fieldPath, 'fieldPath must be a valid path'));
    }
    compiled.push({ r, rp, expr });
  });
  // Nothing wrong here or below: the rules are compiled once the whole schema is known structural.
  if (ctx.errs.length !== errorsBefore) return;
  ctx.celChecks.push(() => {
    for (const { r, rp, expr } of compiled) compileRule(s, r, rp, expr, ctx, isRoot, cardinality);
  });
}

/** One rule's CEL checks: it compiles, its cost fits, its messageExpression compiles to a string. */
/** kube's maxCardinality: how often data of this minimum serialized size fits in the largest request. */
function maxCardinality(minSize: number): number {
  return Math.floor(MAX_REQUEST_BYTES / (minSize + 1));
}

function compileRule(s: Schema, r: Obj, rp: string, expr: string, ctx: SchemaCtx, isRoot: boolean, cardinality: number | undefined): void {
  const oldSelf = usesOldSelf(expr);
  if (r.optionalOldSelf === true && !oldSelf) ctx.cel.push(fieldErr.invalid(`${rp}.optionalOldSelf`, true, 'may not be set if oldSelf is not used in rule'));
  const variables = ruleVariables(s, oldSelf, isRoot, r.optionalOldSelf === true);
  const compiled = compile(expr, { variables });
  if (isCompileError(compiled)) {
    // kube words a failure to build the program (a folded constant) without "compilation failed".
    const detail = compiled.celGoText.startsWith('program instantiation failed: ') ? compiled.celGoText : `compilation failed: ${compiled.celGoText}`;
    ctx.cel.push(fieldErr.invalid(`${rp}.rule`, goLiteral(goValidationRule(r)), detail));
    return;
  }
  const est = estimateCost(expr, Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, v.type])));
  if (est.kind === 'estimate') {
    // A rule runs once per occurrence of its node: under unbounded lists or maps, as often as the smallest such value fits in a request.
    const times = cardinality ?? maxCardinality(variables.self!.type.minSize ?? 0);
    const cost = Math.min(est.max * times, MAX_UINT64);
    ctx.costs.push({ path: `${rp}.rule`, cost });
    if (cost > PER_RULE_COST_LIMIT) {
      ctx.cel.push(fieldErr.forbidden(`${rp}.rule`, `estimated rule cost exceeds budget by factor of ${factorText(cost, PER_RULE_COST_LIMIT)} ${COST_HINT}`));
    }
  }
  const me = strOf(r.messageExpression);
  if (me !== '') {
    const mc = compile(me, { variables: ruleVariables(s, false, isRoot) });
    if (isCompileError(mc)) {
      ctx.cel.push(fieldErr.invalid(`${rp}.messageExpression`, goLiteral(goValidationRule(r)), `messageExpression compilation failed: ${mc.celGoText}`));
    } else if (!/^\s*(['"]|string\(|.*\+\s*['"])/.test(me) && /^\s*[\d.]+\s*$|^\s*(true|false)\s*$/.test(me)) {
      ctx.cel.push(fieldErr.invalid(`${rp}.messageExpression`, goLiteral(goValidationRule(r)), 'messageExpression must evaluate to a string'));
    } else {
      const mest = estimateCost(me, { self: ruleVariables(s, false, isRoot).self!.type });
      if (mest.kind === 'estimate') {
        ctx.costs.push({ path: `${rp}.messageExpression`, cost: mest.max });
        if (mest.max > PER_RULE_COST_LIMIT) {
          ctx.cel.push(fieldErr.forbidden(`${rp}.messageExpression`, `estimated messageExpression cost exceeds budget by factor of ${factorText(mest.max, PER_RULE_COST_LIMIT)} ${COST_HINT}`));
        }
      }
    }
  }
}

/** Whether a rule's fieldPath (`.a.b`, `.a['x']`) names a property under `s`. */
function fieldPathExists(s: Schema, fieldPath: string): boolean {
  if (!fieldPath.startsWith('.')) return false;
  let node: Schema | undefined = s;
  const re = /\.([A-Za-z_][\w-]*)|\['([^']*)'\]|\[(\d+)\]/gy;
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < fieldPath.length) {
    re.lastIndex = pos;
    m = re.exec(fieldPath);
    if (!m) return false;
    pos = re.lastIndex;
    if (m[3] !== undefined) node = node?.items;
    else {
      const key = m[1] ?? m[2]!;
      node = node?.properties?.[key] ?? (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined);
    }
    if (!node) return false;
  }
  return true;
}
