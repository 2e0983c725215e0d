/**
 * ObjectMeta validation on create and update, with the field paths and messages of apimachinery's
 * `api/validation/objectmeta.go` (`metadata.name: Invalid value: "x": ...`).
 */
import type { FieldError } from '../field-errors.ts';
import { fieldErr, fieldPath, goLiteral, goStringSlice } from '../field-errors.ts';
import { goQuote } from '../../schema/prune.ts';
import { goOwnerReference } from '../go-print.ts';
import type { ManagedFieldsEntry, NameValidation, ObjectMeta } from '../types.ts';
import { semanticEqual } from './equality.ts';
import { isDns1123Label, isLabelValue, isQualifiedName, nameValidator } from './names.ts';

export const FIELD_IMMUTABLE_MSG = 'field is immutable';
/** Total size of annotation keys and values, in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const FINALIZER_ORPHAN = 'orphan';
const FINALIZER_FOREGROUND = 'foregroundDeletion';

export interface ObjectMetaOptions {
  readonly namespaced: boolean;
  readonly nameValidation: NameValidation;
}

/** Errors in the metadata of a new object (name generation already done, so a name is required). */
export function validateObjectMeta(meta: ObjectMeta | undefined, opts: ObjectMetaOptions, path = 'metadata'): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  const check = nameValidator(opts.nameValidation);
  if (typeof m.generateName === 'string' && m.generateName.length > 0) {
    for (const msg of check(m.generateName, true)) errs.push(fieldErr.invalid(fieldPath.child(path, 'generateName'), m.generateName, msg));
  }
  if (!m.name) {
    errs.push(fieldErr.required(fieldPath.child(path, 'name'), 'name or generateName is required'));
  } else {
    for (const msg of check(m.name, false)) errs.push(fieldErr.invalid(fieldPath.child(path, 'name'), m.name, msg));
  }
  if (opts.namespaced) {
    if (!m.namespace) errs.push(fieldErr.required(fieldPath.child(path, 'namespace')));
    else for (const msg of isDns1123Label(m.namespace)) errs.push(fieldErr.invalid(fieldPath.child(path, 'namespace'), m.namespace, msg));
  } else if (m.namespace) {
    errs.push(fieldErr.forbidden(fieldPath.child(path, 'namespace'), 'not allowed on this type'));
  }
  if (typeof m.generation === 'number' && m.generation < 0) {
    errs.push(fieldErr.invalid(fieldPath.child(path, 'generation'), m.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...validateLabels(m.labels, fieldPath.child(path, 'labels')));
  errs.push(...validateAnnotations(m.annotations, fieldPath.child(path, 'annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences, fieldPath.child(path, 'ownerReferences')));
  errs.push(...validateFinalizers(m.finalizers, fieldPath.child(path, 'finalizers')));
  errs.push(...validateManagedFields(m.managedFields, fieldPath.child(path, 'managedFields')));
  return errs;
}

export interface ObjectMetaUpdateOptions {
  /**
   * Report an empty resourceVersion as kube does. kube's store copies the current resourceVersion into an
   * unconditional update before validating; a store that drops it for unpinned updates leaves this off.
   */
  readonly requireResourceVersion?: boolean;
}

/** Errors in the metadata of an update: immutable identity fields, generation, and the maps on the new object. */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta | undefined,
  oldMeta: ObjectMeta | undefined,
  path = 'metadata',
  opts: ObjectMetaUpdateOptions = {},
): FieldError[] {
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const old = new Set(o.finalizers ?? []);
    const extra = [...new Set((n.finalizers ?? []).filter((f) => !old.has(f)))].sort();
    if (extra.length > 0) {
      errs.push(
        fieldErr.forbidden(
          fieldPath.child(path, 'finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
        ),
      );
    }
  }
  if (opts.requireResourceVersion && !n.resourceVersion) errs.push(fieldErr.invalid(fieldPath.child(path, 'resourceVersion'), n.resourceVersion ?? '', 'must be specified for an update'));
  if ((n.generation ?? 0) < (o.generation ?? 0)) {
    errs.push(fieldErr.invalid(fieldPath.child(path, 'generation'), n.generation ?? 0, 'must not be decremented'));
  }
  for (const f of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    errs.push(...validateImmutableField(n[f], o[f], fieldPath.child(path, f)));
  }
  errs.push(...validateLabels(n.labels, fieldPath.child(path, 'labels')));
  errs.push(...validateAnnotations(n.annotations, fieldPath.child(path, 'annotations')));
  errs.push(...validateOwnerReferences(n.ownerReferences, fieldPath.child(path, 'ownerReferences')));
  errs.push(...validateManagedFields(n.managedFields, fieldPath.child(path, 'managedFields')));
  return errs;
}

/**
 * Core's ValidateObjectMetaUpdate (what core kinds' update validation starts with): apimachinery's
 * checks plus the standard-finalizer rule on each finalizer. kube runs it in the kind's strategy
 * after the generic checks, so its errors appear twice among a Status's causes, as here.
 */
export function validateCoreObjectMetaUpdate(newMeta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined): FieldError[] {
  return [...validateObjectMetaUpdate(newMeta, oldMeta), ...validateCoreFinalizerNames(newMeta)];
}

/** `field is immutable` when the new value differs from the old one. */
export function validateImmutableField(newVal: unknown, oldVal: unknown, path: string): FieldError[] {
  return semanticEqual(newVal, oldVal) ? [] : [fieldErr.invalid(path, newVal ?? '', FIELD_IMMUTABLE_MSG)];
}

/** Label keys must be qualified names and values label values; errors carry the map's path. */
export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErr.invalid(path, k, msg));
    for (const msg of isLabelValue(String(v))) errs.push(fieldErr.invalid(path, v, msg));
  }
  return errs;
}

/** Annotation keys are qualified names (case-insensitive); keys and values together at most 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErr.invalid(path, k, msg));
    total += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(String(v), 'utf8');
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErr.tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** Finalizer names are qualified names; `orphan` and `foregroundDeletion` exclude each other. */
export function validateFinalizers(finalizers: readonly string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = finalizers ?? [];
  for (const f of list) for (const msg of isQualifiedName(f)) errs.push(fieldErr.invalid(path, f, msg));
  if (list.includes(FINALIZER_ORPHAN) && list.includes(FINALIZER_FOREGROUND)) {
    errs.push(fieldErr.invalid(path, list, `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`));
  }
  return errs;
}

const STANDARD_FINALIZERS = new Set(['kubernetes', FINALIZER_ORPHAN, FINALIZER_FOREGROUND]);

/** Whether a finalizer name without a `/` prefix is one kube defines. */
export function isStandardFinalizerName(name: string): boolean {
  return STANDARD_FINALIZERS.has(name);
}

/**
 * The extra finalizer rule of core-group kinds (core ValidateObjectMeta and ValidateObjectMetaUpdate):
 * an unprefixed finalizer must be a standard one. Errors are indexed, `metadata.finalizers[0]`.
 */
export function validateCoreFinalizerNames(meta: ObjectMeta | undefined, path = 'metadata.finalizers'): FieldError[] {
  const errs: FieldError[] = [];
  (meta?.finalizers ?? []).forEach((f, i) => {
    if (!f.includes('/') && !isStandardFinalizerName(f)) {
      errs.push(fieldErr.invalid(fieldPath.index(path, i), f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

/** Version, kind, name and uid are required in each owner reference; at most one controller. */
export function validateOwnerReferences(refs: readonly Record<string, unknown>[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    const apiVersion = str(ref.apiVersion);
    const kind = str(ref.kind);
    const { group, version } = parseApiVersion(apiVersion);
    if (!version) errs.push(fieldErr.invalid(fieldPath.child(path, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (!kind) errs.push(fieldErr.invalid(fieldPath.child(path, 'kind'), kind, 'kind must not be empty'));
    if (!str(ref.name)) errs.push(fieldErr.invalid(fieldPath.child(path, 'name'), str(ref.name), 'name must not be empty'));
    if (!str(ref.uid)) errs.push(fieldErr.invalid(fieldPath.child(path, 'uid'), str(ref.uid), 'uid must not be empty'));
    // Events may not own anything: their lifetime is too short and they are not garbage collected as owners.
    if (group === '' && version === 'v1' && kind === 'Event') {
      errs.push(fieldErr.invalid(path, goLiteral(goOwnerReference(ref)), `${group}/${version}, Kind=${kind} is disallowed from being an owner`));
    }
    if (ref.controller === true) {
      const current = `${kind}/${str(ref.name)}`;
      if (firstController) {
        errs.push(
          fieldErr.invalid(path, goLiteral(`[]v1.OwnerReference{${refs!.map(goOwnerReference).join(', ')}}`), `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** Each managedFields entry must have operation Apply or Update and, if set, fieldsType FieldsV1. */
export function validateManagedFields(entries: readonly ManagedFieldsEntry[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const e of entries ?? []) {
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      errs.push(fieldErr.invalid(fieldPath.child(path, 'operation'), e.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') {
      errs.push(fieldErr.invalid(fieldPath.child(path, 'fieldsType'), e.fieldsType, 'must be `FieldsV1`'));
    }
  }
  return errs;
}

/** Group and version of an apiVersion string; both empty when it has more than one `/`. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (apiVersion === '') return { group: '', version: '' };
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

