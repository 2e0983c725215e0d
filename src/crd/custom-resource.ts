/**
 * The ResourceType of one served version of a CRD: names and scope from the CRD, the version's
 * structural schema completed with apiVersion, kind and ObjectMeta, printer columns, selectable
 * fields, subresources, and the custom-resource strategy (status kept apart when the status
 * subresource is on; schema validation with kube's paths and messages; CEL rules).
 */
import type { KubeObject, ResourceType, TableColumn } from '../api/types.ts';
import { fieldErr, goLiteral, type FieldError } from '../api/field-errors.ts';
import type { Schema } from '../schema/types.ts';
import { objectMetaSchema, typeMetaProperties } from '../api/kinds/object-meta-schema.ts';
import { nameColumn } from '../api/kinds/table-columns.ts';
import { timestampSince } from '../api/kinds/human-duration.ts';
import { validateAgainstSchema } from '../schema/validate.ts';
import { hasRules, validateRules } from './rules.ts';
import { correlatedItem } from './correlation.ts';
import { jsonEqual } from '../registry/object-meta.ts';
import { ApiError } from '../api/status-errors.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Reads a simple JSON path (`.spec.replicas`, `.status.conditions[0].type`, `.metadata.labels['a.b']`). */
export function readJsonPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/gy;
  let pos = 0;
  while (pos < path.length) {
    re.lastIndex = pos;
    const m = re.exec(path);
    if (!m) return undefined;
    pos = re.lastIndex;
    if (m[2] !== undefined) cur = Array.isArray(cur) ? cur[Number(m[2])] : undefined;
    else {
      const key = m[1] ?? m[3] ?? m[4]!;
      cur = isObj(cur) ? cur[key] : undefined;
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Writes a value at a simple `.a.b` path, creating objects on the way. */
export function writeJsonPath(obj: Obj, path: string, value: unknown): void {
  const keys = path.replace(/^\./, '').split('.');
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (!isObj(cur[k])) cur[k] = {};
    cur = cur[k] as Obj;
  }
  cur[keys[keys.length - 1]!] = value;
}

/** The object schema of a custom resource: the version's schema with TypeMeta and ObjectMeta. */
function objectSchema(root: Schema): Schema {
  const { metadata: _m, ...own } = root.properties ?? {};
  return { ...root, type: 'object', properties: { ...typeMetaProperties, metadata: objectMetaSchema, ...own } };
}

function columnCell(path: string, type: string) {
  return (obj: KubeObject, now: Date): unknown => {
    const v = readJsonPath(obj, path);
    if (v === undefined || v === null) return null;
    // kube's CR table convertor prints date columns as ages, like kubectl's AGE.
    if (type === 'date') return typeof v === 'string' ? timestampSince(v, now) : null;
    // kube's printer prints what the JSON path finds; non-scalar values as JSON text.
    if (typeof v === 'object') return JSON.stringify(v);
    if (type === 'integer' && typeof v !== 'number') return null;
    return v;
  };
}

function tableColumns(version: Obj): TableColumn[] {
  const declared = Array.isArray(version.additionalPrinterColumns) ? version.additionalPrinterColumns.filter(isObj) : [];
  // Without printer columns kube shows Name and Age (a date column on creationTimestamp).
  const cols = declared.length > 0 ? declared : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  return [
    nameColumn(),
    ...cols.map((c): TableColumn => {
      const type = (str(c.type) || 'string') as TableColumn['type'];
      const jsonPath = str(c.jsonPath);
      return {
        name: str(c.name),
        type,
        format: str(c.format),
        description: str(c.description) || `Custom resource definition column (in JSONPath format): ${jsonPath}`,
        priority: typeof c.priority === 'number' ? c.priority : 0,
        cell: columnCell(jsonPath, type),
      };
    }),
  ];
}

function selectableFields(version: Obj): Record<string, (obj: KubeObject) => string> {
  const out: Record<string, (obj: KubeObject) => string> = {};
  for (const f of Array.isArray(version.selectableFields) ? version.selectableFields.filter(isObj) : []) {
    const path = str(f.jsonPath);
    out[path.replace(/^\./, '')] = (obj) => {
      const v = readJsonPath(obj, path);
      return v === undefined || v === null ? '' : String(v);
    };
  }
  return out;
}

/** The metadata a root rule sees: the names, as kube declares them for CEL. */
function ruleMetadata(obj: KubeObject): Record<string, unknown> {
  const meta = obj.metadata ?? {};
  return { ...(meta.name !== undefined ? { name: meta.name } : {}), ...(meta.generateName !== undefined ? { generateName: meta.generateName } : {}) };
}

/** Validates a custom resource against its schema and rules, as kube's CR strategy does. */
function validateCustomResource(obj: KubeObject, old: KubeObject | null, schema: Schema, rules: boolean, scale: ResourceType['scale'], ratcheting: boolean): FieldError[] {
  const { metadata: _m, ...body } = obj;
  // kube's schema validator reports in field order (its properties are walked sorted).
  const errs = validateAgainstSchema(body, { ...schema, properties: { ...schema.properties, metadata: {} } }, '', { mapKeyPaths: 'dots' })
    // Ratcheting: an update is not refused for a value it leaves as it was. Duplicates in sets and
    // map lists are kube's list-type validation, which never ratchets.
    .filter((e) => !ratcheting || !old || e.type === 'FieldValueDuplicate' || !unchangedAt(e.field, body, old, schema))
    .sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  if (scale) errs.push(...validateScalePaths(obj, scale));
  if (!rules) return errs;
  if (errs.some((e) => BLOCKING_RULES.has(e.type))) {
    errs.push(fieldErr.invalid('<nil>', goLiteral('"null"'), 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'));
  } else {
    // Rules at the root read metadata.name and metadata.generateName (kube's WithTypeAndObjectMeta), nothing else of it.
    const oldBody = old ? { ...old, metadata: ruleMetadata(old) } : undefined;
    errs.push(...validateRules({ ...body, metadata: ruleMetadata(obj) }, oldBody, schema, ratcheting));
  }
  return errs;
}

/**
 * kube's hasBlockingErr: a wrong type, a missing required field, a value outside an enum or over a
 * size limit leaves the rules unchecked; a value out of bounds or a duplicate does not.
 */
const BLOCKING_RULES: ReadonlySet<FieldError['type']> = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

/**
 * Whether the value an error names is as the old object had it, correlated as kube's ratcheting
 * correlates: fields by name, map values by key, list items only in map-type lists, by their keys
 * (items of other lists have nothing to correlate with, so their errors stand).
 */
function unchangedAt(field: string, obj: unknown, old: unknown, schema: Schema): boolean {
  if (field === '') return false;
  let a: unknown = obj;
  let b: unknown = old;
  let s: Schema | undefined = schema;
  for (const seg of field.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(seg);
    if (!m) return false;
    const [, name, indexes] = m;
    if (name !== '') {
      s = s?.properties?.[name!] ?? (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
      a = isObj(a) ? a[name!] : undefined;
      b = isObj(b) ? b[name!] : undefined;
    }
    for (const idx of indexes!.match(/\d+/g) ?? []) {
      const item: unknown = Array.isArray(a) ? a[Number(idx)] : undefined;
      b = correlatedItem(item, b, s);
      a = item;
      s = s?.items;
    }
    if (a === undefined || b === undefined) return false;
  }
  return jsonEqual(a, b);
}

/** kube's scale checks: the replicas at the scale paths are non-negative integers, the selector a string. */
function validateScalePaths(obj: KubeObject, scale: NonNullable<ResourceType['scale']>): FieldError[] {
  const errs: FieldError[] = [];
  for (const p of [scale.specReplicasPath, scale.statusReplicasPath]) {
    const v = readJsonPath(obj, p);
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 0)) errs.push(fieldErr.invalid(p, v, 'should be a non-negative integer'));
  }
  if (scale.labelSelectorPath) {
    const v = readJsonPath(obj, scale.labelSelectorPath);
    if (v !== undefined && typeof v !== 'string') errs.push(fieldErr.invalid(scale.labelSelectorPath, v, 'should be a string'));
  }
  return errs;
}

/** The versions of a CRD that are served. */
export function servedVersions(crd: KubeObject): Obj[] {
  const spec = isObj(crd.spec) ? crd.spec : {};
  return (Array.isArray(spec.versions) ? spec.versions : []).filter((v): v is Obj => isObj(v) && v.served === true);
}

/** The ResourceType of `version` of `crd` (its names as accepted). */
/** What the controller tells a served custom resource type while it serves it. */
export interface CustomResourceLifecycle {
  /** The CRD is being deleted: its resources go, no new ones come. */
  terminating: boolean;
}

/** Options of the server: `ratcheting` is the CRDValidationRatcheting gate (default on). */
export interface CustomResourceOptions {
  readonly ratcheting?: boolean;
}

export function customResourceType(crd: KubeObject, version: Obj, lifecycle: CustomResourceLifecycle = { terminating: false }, options: CustomResourceOptions = {}): ResourceType {
  const ratcheting = options.ratcheting ?? true;
  const spec = crd.spec as Obj;
  const names = (isObj(spec.names) ? spec.names : {}) as Obj;
  const group = str(spec.group);
  const plural = str(names.plural);
  const root = (isObj(version.schema) && isObj(version.schema.openAPIV3Schema) ? version.schema.openAPIV3Schema : { type: 'object' }) as Schema;
  const schema = objectSchema(root);
  const subresources = isObj(version.subresources) ? version.subresources : {};
  const hasStatus = subresources.status !== undefined && subresources.status !== null;
  const scale = isObj(subresources.scale) ? subresources.scale : undefined;
  const rules = hasRules(root);
  const scaleOf: ResourceType['scale'] = scale
    ? { specReplicasPath: str(scale.specReplicasPath), statusReplicasPath: str(scale.statusReplicasPath), ...(scale.labelSelectorPath ? { labelSelectorPath: str(scale.labelSelectorPath) } : {}) }
    : undefined;
  const stripStatus = (obj: KubeObject) => {
    if (hasStatus) delete obj.status;
  };
  return {
    group,
    version: str(version.name),
    resource: plural,
    kind: str(names.kind),
    listKind: str(names.listKind) || `${str(names.kind)}List`,
    singular: str(names.singular) || str(names.kind).toLowerCase(),
    namespaced: spec.scope === 'Namespaced',
    shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(str) : [],
    categories: Array.isArray(names.categories) ? names.categories.map(str) : [],
    schema,
    hasStatus,
    tracksGeneration: true,
    nameValidation: 'dns1123-subdomain',
    tableColumns: tableColumns(version),
    fieldSelectors: selectableFields(version),
    storagePrefix: `/registry/${group}/${plural}/`,
    unstructured: true,
    ...(scaleOf ? { scale: scaleOf } : {}),
    strategy: {
      // kube's customResourceStrategy: an update must name the resourceVersion it replaces.
      allowUnconditionalUpdate: false,
      prepareForCreate(obj) {
        if (lifecycle.terminating) throw new ApiError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating');
        stripStatus(obj);
      },
      prepareForUpdate(obj, old) {
        if (!hasStatus) return;
        if (old.status === undefined) delete obj.status;
        else obj.status = structuredClone(old.status);
      },
      validate: (obj) => validateCustomResource(obj, null, schema, rules, scaleOf, ratcheting),
      validateUpdate: (obj, old) => validateCustomResource(obj, old, schema, rules, scaleOf, ratcheting),
      // The custom-resource rule for status writes (kube's statusStrategy): everything but status
      // comes from the stored object, metadata too (labels and annotations of the request are
      // ignored); only the managed fields this write recorded are kept.
      subresources: {
        status: {
          prepareForUpdate(obj, old) {
            const status = obj.status;
            const meta = obj.metadata;
            for (const k of Object.keys(obj)) delete obj[k];
            const metadata = structuredClone(old.metadata ?? {});
            if (meta?.managedFields !== undefined) metadata.managedFields = meta.managedFields;
            if (meta?.resourceVersion !== undefined) metadata.resourceVersion = meta.resourceVersion;
            Object.assign(obj, structuredClone(old), { metadata });
            if (status === undefined) delete obj.status;
            else obj.status = status;
          },
          validateUpdate: (obj, old) => validateCustomResource(obj, old, schema, rules, scaleOf, ratcheting),
        },
      },
    },
  };
}
