/**
 * The admission contract: what one admission decision is about, and the plugins that make it.
 * kube-apiserver runs every mutating plugin, then (after the schema validates the mutated
 * object again) every validating plugin, then persists. A plugin refuses by throwing an
 * ApiError (src/api/status-errors.ts); the first refusal ends the request.
 *
 * Local backends (the built-in core registry, the custom-resource registry) call the chain on
 * create, update, patch (with the patched result), apply, delete and deletecollection (per
 * object), and on subresource writes; never on get, list or watch. Plugins see the object in the
 * version the request used (kube's "requestKind"), and may ask for it in another version through
 * `convert` (matchPolicy Equivalent).
 */
import type { KubeObject } from '../api/types.ts';
import type { RequestUser } from '../request/user.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** kube's admission.Attributes for one object of one request. */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  /** The kind and resource as the request named them (AdmissionReview `requestKind`/`requestResource`). */
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** `status`, `finalize`, `token`, ... ; empty for the main resource. */
  readonly subresource: string;
  /** Empty for a create with generateName before the name is chosen. */
  readonly name: string;
  /** Empty for cluster-scoped objects. */
  readonly namespace: string;
  /**
   * The object being written (the patched result for a patch, the object being deleted is
   * `oldObject` for a delete, where `object` is null). Mutating plugins change it in place.
   */
  readonly object: KubeObject | null;
  /** The stored object on update and delete, null on create. */
  readonly oldObject: KubeObject | null;
  /** The request's CreateOptions, UpdateOptions, PatchOptions or DeleteOptions as a typed object (with apiVersion/kind). */
  readonly options: KubeObject | null;
  readonly dryRun: boolean;
  readonly userInfo: RequestUser;
  /** Messages for `Warning` response headers; plugins append. */
  readonly warnings: string[];
  /** Audit annotations (`key` → value); plugins add, prefixed as kube does. */
  readonly auditAnnotations: Record<string, string>;
}

/** One compiled-in or configured admission plugin (kube's admission.Interface). */
export interface AdmissionPlugin {
  /** kube's plugin name, as `--enable-admission-plugins` spells it (`NamespaceLifecycle`, `ValidatingAdmissionPolicy`, ...). */
  readonly name: string;
  /** Whether the plugin cares about this operation at all (kube's Handles). */
  handles(operation: AdmissionOperation): boolean;
  /** The mutating phase: may change `attrs.object`; throws ApiError to refuse. */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  /** The validating phase: must not change anything; throws ApiError to refuse. */
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
  /**
   * (Extension.) Resolves once the plugin can decide (its informers synced); the server waits for
   * it before serving, as kube-apiserver's admission plugins wait for their informers.
   */
  ready?(): Promise<void>;
  /** (Extension.) Releases watches and timers at shutdown. */
  stop?(): void;
  /** (Extension.) Registers the plugin's metric families on the server's registry (served at /metrics). */
  registerMetrics?(registry: MetricsRegistry): void;
}
