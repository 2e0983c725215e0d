/**
 * The WriteContext of one client write (create, update, patch, delete): its options validated
 * and shaped as kube's admission attributes carry them, the field manager, and who asks.
 */
import type { ParsedDeleteOptions } from '../../registry/delete-options.ts';
import { dryRunFromQuery } from '../../registry/delete-options.ts';
import type { WriteContext } from '../../registry/resource-store.ts';
import type { ResourceRequest } from '../types.ts';
import { managerFor } from './field-manager.ts';
import { validateWriteOptions } from './write-options.ts';

/** The options kind kube validates a write's query against (named in its 422). */
function optionsKindOf(verb: string): 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' {
  return verb === 'create' ? 'CreateOptions' : verb === 'patch' ? 'PatchOptions' : 'UpdateOptions';
}

/**
 * The context of a write; throws kube's 422 when the query options of a create, update or patch
 * are invalid (a delete passes its own, already parsed, options). The warnings are the request's.
 */
export function writeContext(r: ResourceRequest, deleteOpts?: ParsedDeleteOptions): WriteContext {
  const { info, query } = r;
  // Create, update and patch validate all their query options first (delete passes its own options).
  if (deleteOpts === undefined) {
    const isApply = String(r.body.contentType ?? '').split(';', 1)[0]!.trim().toLowerCase() === 'application/apply-patch+yaml';
    validateWriteOptions(query, optionsKindOf(info.verb), info.verb === 'patch' && isApply);
  }
  return {
    dryRun: deleteOpts?.dryRun ?? dryRunFromQuery(query, optionsKindOf(info.verb)),
    options: deleteOpts ? admissionDeleteOptions(deleteOpts) : admissionWriteOptions(query),
    // The request's audit record collects what admission annotates (src/audit).
    auditAnnotations: r.auditAnnotations,
    warnings: r.warnings,
    now: new Date(),
    manager: managerFor(query, r.userAgent),
    subresource: info.subresource,
    operation: info.verb === 'create' || info.verb === 'patch' ? info.verb : 'update',
    user: r.user,
  };
}

/** A write's options as admission sees them (kube's CreateOptions/UpdateOptions fields, in their Go order). */
function admissionWriteOptions(q: URLSearchParams): Record<string, unknown> {
  const dryRun = q.getAll('dryRun');
  const fieldManager = q.getAll('fieldManager')[0] ?? '';
  const fieldValidation = q.getAll('fieldValidation')[0] ?? '';
  return { ...(dryRun.length > 0 ? { dryRun } : {}), ...(fieldManager ? { fieldManager } : {}), ...(fieldValidation ? { fieldValidation } : {}) };
}

/** DeleteOptions as admission sees them, in their Go field order. */
function admissionDeleteOptions(o: ParsedDeleteOptions): Record<string, unknown> {
  return {
    ...(o.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: o.gracePeriodSeconds } : {}),
    ...(o.preconditions ? { preconditions: o.preconditions } : {}),
    ...(o.orphanDependents !== undefined ? { orphanDependents: o.orphanDependents } : {}),
    ...(o.propagationPolicy !== undefined ? { propagationPolicy: o.propagationPolicy } : {}),
    ...(o.dryRun ? { dryRun: ['All'] } : {}),
  };
}
