/**
 * Apply conflicts and the 409 kube-apiserver answers with: one cause per conflicting field
 * (`FieldManagerConflict`), and a message grouping the fields by manager, which kubectl prints.
 */
import { ApiError } from '../api/status-errors.ts';
import type { FieldSet } from './field-set.ts';
import { pathToString, type Path } from './path.ts';

export interface Conflict {
  /** The manager identifier (JSON) of the owner. */
  readonly managerId: string;
  readonly path: Path;
}

/** One conflict per owned path, owners in identifier order. */
export function conflictsFromSets(sets: ReadonlyMap<string, FieldSet>): Conflict[] {
  const ids = [...sets.keys()].sort();
  const out: Conflict[] = [];
  for (const id of ids) for (const path of sets.get(id)!.paths()) out.push({ managerId: id, path });
  return out;
}

/** How kube names a manager in conflicts: `"name"`, with subresource and `using <apiVersion>` for updaters. */
export function printManager(managerId: string): string {
  let e: { manager?: string; operation?: string; apiVersion?: string; subresource?: string };
  try {
    e = JSON.parse(managerId) as typeof e;
  } catch {
    return JSON.stringify(managerId);
  }
  let s = JSON.stringify(e.manager ?? '');
  if (e.subresource) s = `${s} with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') return `${s} using ${e.apiVersion ?? ''}`;
  return s;
}

/** The 409 Conflict kube-apiserver returns for a failed apply. */
export function conflictError(conflicts: readonly Conflict[]): ApiError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.managerId)}`,
    field: pathToString(c.path),
  }));
  return new ApiError(409, 'Conflict', conflictMessage(conflicts), { causes });
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.managerId)}: ${pathToString(c.path)}`;
  }
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.managerId) ?? [];
    list.push(c.path);
    byManager.set(c.managerId, list);
  }
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(id)}:`);
    for (const p of byManager.get(id)!) lines.push(`- ${pathToString(p)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
