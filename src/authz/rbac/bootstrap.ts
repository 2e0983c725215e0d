/**
 * kube's EnsureRBACPolicy post-start hook: at every start, each default role and binding is
 * created when missing, and otherwise reconciled unless annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"`: missing labels, annotations, rules,
 * aggregation selectors and subjects are added; nothing a user added is taken away.
 */
import type { KubeObject } from '../../api/types.ts';
import { ApiError } from '../../api/status-errors.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import type { WriteContext } from '../../registry/resource-store.ts';
import { cachedCurrent } from '../../registry/cached-current.ts';
import { DEFAULT_CLUSTER_ROLE_BINDINGS, DEFAULT_CLUSTER_ROLES, DEFAULT_ROLE_BINDINGS, DEFAULT_ROLES } from './bootstrap-policy.ts';

export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

export interface RbacStores {
  readonly roles: ResourceStore;
  readonly clusterRoles: ResourceStore;
  readonly roleBindings: ResourceStore;
  readonly clusterRoleBindings: ResourceStore;
}

function systemContext(): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-apiserver', subresource: '' };
}

/** Creates or reconciles every default object; per-object failures are collected, not fatal to the rest. */
export async function ensureRbacPolicy(stores: RbacStores): Promise<Error[]> {
  const failures: Error[] = [];
  // All at once: the objects are independent, and writes issued together are committed together
  // (one transaction and one fsync for the whole policy at a first start, instead of one each).
  const run = (store: ResourceStore, defaults: readonly KubeObject[]) =>
    defaults.map((want) => reconcileOne(store, want).catch((err: unknown) => void failures.push(err as Error)));
  await Promise.all([
    ...run(stores.clusterRoles, DEFAULT_CLUSTER_ROLES),
    ...run(stores.clusterRoleBindings, DEFAULT_CLUSTER_ROLE_BINDINGS),
    ...run(stores.roles, DEFAULT_ROLES),
    ...run(stores.roleBindings, DEFAULT_ROLE_BINDINGS),
  ]);
  return failures;
}

async function reconcileOne(store: ResourceStore, want: KubeObject): Promise<void> {
  const namespace = want.metadata?.namespace ?? '';
  const name = want.metadata!.name!;
  // Already as it should be (every start after the first): nothing to write.
  const cached = cachedCurrent(store, namespace, name);
  if (cached && reconciled(cached, want) === undefined) return;
  try {
    await store.create(namespace, structuredClone(want), systemContext());
    return;
  } catch (err) {
    if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
  }
  await store.update(
    namespace,
    name,
    (current) => {
      if (!current) return structuredClone(want);
      return reconciled(current, want) ?? current;
    },
    systemContext(),
    { allowCreate: true, subresource: '' },
  );
}

/** The reconciled object, or undefined when nothing is to change (or reconciliation is off). */
export function reconciled(current: KubeObject, want: KubeObject): KubeObject | undefined {
  if (current.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return undefined;
  const next = structuredClone(current) as KubeObject & Record<string, unknown>;
  const w = want as KubeObject & Record<string, unknown>;
  let changed = false;
  const meta = (next.metadata ??= {});
  for (const field of ['labels', 'annotations'] as const) {
    for (const [k, v] of Object.entries(want.metadata?.[field] ?? {})) {
      const map = (meta[field] ??= {}) as Record<string, string>;
      if (!(k in map)) {
        map[k] = v;
        changed = true;
      }
    }
  }
  changed = addMissing(next, w, 'rules') || changed;
  changed = addMissing(next, w, 'subjects') || changed;
  const wantAgg = (w.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors;
  if (wantAgg) {
    const agg = ((next.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined) ??= {});
    next.aggregationRule = agg;
    const have = (agg.clusterRoleSelectors ??= []);
    for (const sel of wantAgg) {
      if (!have.some((h) => sameJson(h, sel))) {
        have.push(sel);
        changed = true;
      }
    }
  }
  return changed ? next : undefined;
}

/** Appends the entries of want[field] that current[field] lacks (compared as values). */
function addMissing(next: Record<string, unknown>, want: Record<string, unknown>, field: string): boolean {
  const wanted = want[field];
  if (!Array.isArray(wanted) || wanted.length === 0) return false;
  const have = Array.isArray(next[field]) ? (next[field] as unknown[]) : [];
  let changed = false;
  for (const item of wanted) {
    if (!have.some((h) => sameJson(h, item))) {
      have.push(structuredClone(item));
      changed = true;
    }
  }
  next[field] = have;
  return changed;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}
