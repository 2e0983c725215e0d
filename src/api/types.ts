/**
 * What the server knows about one resource type of one group/version: names, scope, schema,
 * table columns, field selectors and the per-kind strategy. Built-in kinds and CRDs are both
 * described this way; the generic registry owns keys, conflicts and hooks.
 */
import type { Schema } from '../schema/types.ts';
import type { FieldError } from './field-errors.ts';

/** An API object as decoded JSON. Registry code treats it as a plain, mutable tree it owns. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Record<string, unknown>[];
  managedFields?: ManagedFieldsEntry[];
  [field: string]: unknown;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** One column of the server-side Table rendering. */
export interface TableColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly format?: string;
  readonly description: string;
  /** 0 shows by default; 1 shows with `-o wide`. */
  readonly priority: number;
  /** The cell for one object (strings, numbers, booleans; ages already rendered like `5m`). */
  cell(obj: KubeObject, now: Date): unknown;
}

/** Per-kind behaviour. Every hook may mutate the object it is given and nothing else. */
export interface ResourceStrategy {
  /**
   * kube's decode-time defaulting (SetDefaults_*), on every written object (create, update,
   * patch): it runs before managed fields are computed, so the writer owns what it sets.
   */
  defaults?(obj: KubeObject): void;
  /** On create, before validation: set defaults the kind needs, clear status when the kind has a status subresource. */
  prepareForCreate?(obj: KubeObject): void;
  /** On update of the main resource, before validation. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Kind-specific validation of a new object (metadata is validated generically). */
  validate?(obj: KubeObject): FieldError[];
  /** Kind-specific validation of an update (immutable fields and the like). */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * The kind's own strategies for writes through a subresource (kube's StatusStrategy,
   * FinalizeStrategy). Without one, a status write keeps everything but status from the stored
   * object (the custom-resource rule) and the main strategy validates.
   */
  readonly subresources?: Readonly<Record<string, SubresourceStrategy>>;
  /**
   * Finalizers the kind's registry adds on the first delete (kube's CRD registry adds
   * customresourcecleanup.apiextensions.k8s.io), so that the delete marks the object terminating.
   */
  deleteFinalizers?(obj: KubeObject): string[];
  /** On the first delete of an object that has finalizers (e.g. a namespace turns Terminating). */
  prepareForDelete?(obj: KubeObject): void;
  /**
   * Whether a PUT without metadata.resourceVersion overwrites whatever is stored (kube's
   * AllowUnconditionalUpdate). Absent means true, as for most built-in kinds.
   */
  readonly allowUnconditionalUpdate?: boolean;
  /** A DELETE answers with the deleted object rather than a Status (kube's ReturnDeletedObject). */
  readonly returnDeletedObject?: boolean;
  /** Non-fatal warnings returned as `Warning` headers. */
  warnings?(obj: KubeObject, old?: KubeObject): string[];
}

/** How one subresource's updates are prepared and validated. */
export interface SubresourceStrategy {
  /** Resets what this subresource may not change, from the stored object (before validation). */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
}

/** Converts between the served representation and the one kept in storage (for kinds served in two groups). */
export interface StorageConversion {
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
}

/**
 * A conversion that needs a round trip to someone else (a CRD's conversion webhook). Kinds with
 * one work in the version of the request throughout a write and convert only at the two storage
 * boundaries; reads convert stored objects in batches before they are served (ResourceStore.prepare).
 */
export interface AsyncConversion {
  /** The version objects are written in. */
  readonly storageVersion: string;
  /** Stored objects (of any version) in this type's version, in order; objects already there pass unchanged. */
  fromStorage(objs: readonly KubeObject[]): Promise<KubeObject[]>;
  /** An object of this type's version in the storage version. */
  toStorage(obj: KubeObject): Promise<KubeObject>;
}

export type NameValidation = 'dns1123-subdomain' | 'dns1123-label' | 'dns1035-label' | 'path-segment';

export interface ResourceType {
  readonly group: string;
  readonly version: string;
  /** Lowercase plural used in URLs, e.g. `configmaps`. */
  readonly resource: string;
  readonly kind: string;
  readonly listKind: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** The object schema (apiVersion, kind, metadata, and the kind's own fields). */
  readonly schema: Schema;
  /**
   * The apiVersions of the kind's other served versions whose objects convert to this one (a
   * CRD's versions): field managers recorded in them are kept, as kube's version converter keeps them.
   */
  readonly convertibleApiVersions?: readonly string[];
  /** Whether the kind has a `status` subresource. */
  readonly hasStatus: boolean;
  /** Whether metadata.generation is kept (and bumped on spec changes); built-in kinds like ConfigMap have none. */
  readonly tracksGeneration?: boolean;
  readonly nameValidation: NameValidation;
  /** Every column of the kind's Table, Name included, in kube's order; when empty the default Name / Created At table is served. */
  readonly tableColumns: readonly TableColumn[];
  /** Field selector labels beyond `metadata.name` and `metadata.namespace`, each with its value getter. */
  readonly fieldSelectors: Readonly<Record<string, (obj: KubeObject) => string>>;
  readonly strategy: ResourceStrategy;
  /** Key prefix in the store, ending with `/`, e.g. `/registry/configmaps/`. Kinds that share storage share it. */
  readonly storagePrefix: string;
  readonly storageConversion?: StorageConversion;
  /** A conversion by webhook (custom resources with strategy Webhook); every version of such a CRD has one. */
  readonly asyncConversion?: AsyncConversion;
  /**
   * What kube's storage codec does to every object it decodes: the defaults of the CRD version it
   * was stored in (under conversion None the storage version also takes objects stored in an
   * earlier storage version to its own apiVersion). Returns a copy, or the object itself when
   * nothing changes.
   */
  readonly readDefaults?: (obj: KubeObject) => KubeObject;
  /**
   * The API group of the internal type kube's strategy works on, when it is not this one's
   * (events.k8s.io Events are core Events): validation and delete-precondition errors name it.
   */
  readonly internalGroup?: string;
  /**
   * Kinds that are only computed, never stored (TokenReview): discovery lists `verbs` and no
   * storage version hash. Absent: a stored kind with every verb.
   */
  readonly virtual?: { readonly verbs: readonly string[] };
  /**
   * Custom resources: kept as unstructured JSON (kube's CRD handler), not as a Go type. No Go
   * decoding or zero-value rendering, no protobuf, no strategic merge patch; list items keep
   * their kind and apiVersion.
   */
  readonly unstructured?: boolean;
  /** A `Warning` every request to this version gets (a deprecated custom resource version). */
  readonly deprecationWarning?: string;
  /**
   * A built-in version's lifecycle as kube's generated APILifecycle* methods state it: the release
   * that deprecated it, the one that removes it, and its replacement. Requests get kube's warning
   * and deprecation signals (src/features/deprecation.ts reads this and deprecationWarning).
   */
  readonly lifecycle?: {
    readonly deprecated: readonly [number, number];
    readonly removed?: readonly [number, number];
    readonly replacement?: { readonly group: string; readonly version: string; readonly kind: string };
  };
  /** A built-in alpha or beta version served without --runtime-config (kube's betas from before v1.22). */
  readonly enabledByDefault?: boolean;
  /** The scale subresource of a custom resource (JSON paths into the object, `.spec.replicas`). */
  readonly scale?: { readonly specReplicasPath: string; readonly statusReplicasPath: string; readonly labelSelectorPath?: string };
}

/** Whether objects of `rt`'s storage prefix are kept in `rt`'s own version (discovery's storage version hash, the CRD controller). */
export function isStorageType(rt: ResourceType): boolean {
  if (rt.storageConversion) return false;
  return !rt.asyncConversion || rt.asyncConversion.storageVersion === rt.version;
}

/** `v1` for the core group, `group/version` otherwise. */
export function apiVersionOf(rt: Pick<ResourceType, 'group' | 'version'>): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}

/** `ConfigMap` for the core group, `Role.rbac.authorization.k8s.io` otherwise (as in Invalid messages). */
export function qualifiedKind(rt: Pick<ResourceType, 'group' | 'kind'>): string {
  return rt.group ? `${rt.kind}.${rt.group}` : rt.kind;
}
