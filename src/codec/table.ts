/**
 * Server-side Table rendering (meta.k8s.io Table) and the PartialObjectMetadata conversions,
 * shaped as kube-apiserver sends them, including the per-event Tables of a watch.
 */
import { ApiError, errors } from '../api/status-errors.ts';
import type { KubeObject, ResourceType } from '../api/types.ts';
import type { MetaVersion } from './negotiate.ts';
import { stringifyGo } from './json-encode.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface ListMeta {
  readonly resourceVersion?: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

export interface TableOptions {
  /** kube's default is Metadata; kubectl asks for Object only with --sort-by. */
  readonly includeObject?: IncludeObject;
  readonly now: Date;
  readonly listMeta?: ListMeta;
  /** Table apiVersion: meta.k8s.io/v1 (default) or v1beta1. */
  readonly version?: MetaVersion;
  /** Omit columnDefinitions (kube does so after the first event of a table watch). */
  readonly noHeaders?: boolean;
}

export interface TableColumnDefinition {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

export interface TableRow {
  readonly cells: unknown[];
  readonly object: unknown;
}

export interface Table {
  readonly kind: 'Table';
  readonly apiVersion: string;
  readonly metadata: ListMeta;
  readonly columnDefinitions: TableColumnDefinition[] | null;
  readonly rows: TableRow[];
}

// ObjectMeta's API documentation, which kube uses as the descriptions of the default columns.
const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATED_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const NAME_COLUMN: TableColumnDefinition = { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 };
const CREATED_COLUMN: TableColumnDefinition = { name: 'Created At', type: 'date', format: '', description: CREATED_DESCRIPTION, priority: 0 };

/** Go's zero time in RFC 3339, which kube prints for an object without a creation time. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

function createdAt(obj: KubeObject): string {
  const ts = obj.metadata?.creationTimestamp;
  if (!ts) return ZERO_TIME;
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? ZERO_TIME : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function listMetaOf(meta: ListMeta | undefined): ListMeta {
  if (!meta) return {};
  return {
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
    ...(meta.continue ? { continue: meta.continue } : {}),
    ...(meta.remainingItemCount !== undefined && meta.remainingItemCount !== null ? { remainingItemCount: meta.remainingItemCount } : {}),
  };
}

/** The metadata-only form of an object (`kind: PartialObjectMetadata`). */
export function toPartialObjectMetadata(obj: KubeObject, version: MetaVersion = 'v1'): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata ?? {} };
}

/** Builds a Table of the given objects (one row each), with the list metadata. Pure. */
export function toTable(objects: readonly KubeObject[], rt: ResourceType, opts: TableOptions): Table {
  const version = opts.version ?? 'v1';
  const include = opts.includeObject ?? 'Metadata';
  if (!['None', 'Metadata', 'Object'].includes(include)) throw errors.badRequest(`unrecognized includeObject value: "${include}"`);
  // Kinds with their own columns list all of them, Name included, in kube's order (events put Name last).
  const own = rt.tableColumns;
  const custom = own.length > 0;
  const columns: TableColumnDefinition[] = custom
    ? [...own.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority }))]
    : [NAME_COLUMN, CREATED_COLUMN];
  const rows = objects.map((obj): TableRow => {
    const cells = rowCells(obj, rt, opts.now);
    const object = include === 'Object' ? obj : include === 'Metadata' ? toPartialObjectMetadata(obj, version) : null;
    return { cells, object };
  });
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMetaOf(opts.listMeta),
    columnDefinitions: opts.noHeaders ? null : columns,
    rows,
  };
}

/** One object's cells: the kind's own columns, else Name and Created At. */
function rowCells(obj: KubeObject, rt: ResourceType, now: Date): unknown[] {
  const own = rt.tableColumns;
  return own.length > 0 ? own.map((c) => c.cell(obj, now)) : [obj.metadata?.name ?? '', createdAt(obj)];
}

/**
 * The compact JSON body of a Table (Go's escaping, newline-terminated), byte for byte what
 * encoding `toTable(objects, rt, opts)` gives, but with each row's object taken from
 * `objectJson(i)`: the JSON of row i's PartialObjectMetadata or whole object, which the caller
 * memoizes with the object's version. Only the cells (ages change) are encoded per request.
 */
export function encodeTableJson(objects: readonly KubeObject[], rt: ResourceType, opts: TableOptions, objectJson: (i: number) => Uint8Array): Buffer {
  const include = opts.includeObject ?? 'Metadata';
  const empty = stringifyGo(toTable([], rt, opts));
  // The rows are the document's last member: `..."rows":[]}`.
  const parts: Uint8Array[] = [Buffer.from(empty.slice(0, -2))];
  const nullObject = Buffer.from('null}');
  for (let i = 0; i < objects.length; i++) {
    parts.push(Buffer.from(`${i > 0 ? ',' : ''}{"cells":${stringifyGo(rowCells(objects[i]!, rt, opts.now))},"object":`));
    if (include === 'None') parts.push(nullObject);
    else parts.push(objectJson(i), CLOSE_BRACE);
  }
  parts.push(Buffer.from(']}\n'));
  return Buffer.concat(parts);
}
const CLOSE_BRACE = Buffer.from('}');

/** The list form, `PartialObjectMetadataList`, keeping the list metadata. */
export function toPartialObjectMetadataList(items: readonly KubeObject[], listMeta: ListMeta | undefined, version: MetaVersion = 'v1'): KubeObject {
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMetaOf(listMeta) as KubeObject['metadata'],
    items: items.map((o) => toPartialObjectMetadata(o, version)),
  };
}

/** kube's 406 when the Accept asked for the single-object form on a list or the reverse. */
export function partialMetadataMismatch(asked: 'PartialObjectMetadata' | 'PartialObjectMetadataList', goType: string): ApiError {
  const message =
    asked === 'PartialObjectMetadata'
      ? `you requested PartialObjectMetadata, but the requested object is a list (${goType})`
      : `you requested PartialObjectMetadataList, but the requested object is not a list (${goType})`;
  return new ApiError(406, 'NotAcceptable', message);
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * The object of one event in a watch that asked for a Table: a one-row Table whose
 * resourceVersion is the object's. Column definitions come only with the first event
 * (`firstEvent`), as kube sets NoHeaders after it. Status objects (ERROR events) pass unchanged.
 */
export function tableWatchEventObject(
  type: WatchEventType,
  obj: KubeObject,
  rt: ResourceType,
  opts: Omit<TableOptions, 'listMeta' | 'noHeaders'> & { readonly firstEvent: boolean },
): KubeObject | Table {
  if (type === 'ERROR' || obj.kind === 'Status') return obj;
  const rv = obj.metadata?.resourceVersion;
  return toTable([obj], rt, { ...opts, listMeta: rv ? { resourceVersion: rv } : {}, noHeaders: !opts.firstEvent });
}
