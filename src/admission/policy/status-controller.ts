/**
 * kube's validatingadmissionpolicy-status-controller: for every policy whose
 * status.observedGeneration is behind its generation, type-checks the expressions against the
 * schemas of the kinds its rules name and applies `status.typeChecking` and `observedGeneration`
 * to the status subresource, as kube's controller does (server-side apply, forced, by the
 * manager `validatingadmissionpolicy-status`). Runs in-process on the policy watch cache.
 */
import { apiVersionOf, type KubeObject } from '../../api/types.ts';
import type { ResourceStore, WriteContext } from '../../registry/resource-store.ts';
import type { Schema } from '../../schema/types.ts';
import { serverSideApply } from '../../apply/index.ts';
import { applyContextFor } from '../../registry/apply-context.ts';
import { mergeSubresource } from '../../backend/local/subresource-merge.ts';
import { cloneObject } from '../../registry/object-meta.ts';
import { compilePolicy } from './compiled.ts';
import { kindsToCheck, typeCheckPolicy, type CheckedKind } from './type-check.ts';

/** kube's controller applies as this field manager (its ControllerName). */
const MANAGER = 'validatingadmissionpolicy-status';

/** The served kinds, for the rules' resources and the paramKind. */
export interface KindResolver {
  byResource(group: string, version: string, resource: string): CheckedKind | undefined;
  byKind(group: string, version: string, kind: string): Schema | undefined;
}

/** The status the controller writes for a policy. */
export function policyStatus(policy: KubeObject, kinds: KindResolver): Record<string, unknown> {
  const spec = (policy.spec ?? {}) as Record<string, unknown>;
  const constraints = (spec.matchConstraints ?? {}) as Record<string, unknown>;
  const rules = Array.isArray(constraints.resourceRules) ? (constraints.resourceRules as Record<string, unknown>[]) : [];
  const checked = kindsToCheck(rules, (g, v, r) => kinds.byResource(g, v, r));
  const paramKind = spec.paramKind as { apiVersion?: string; kind?: string } | undefined;
  let paramSchema: Schema | undefined;
  if (paramKind?.apiVersion && paramKind.kind) {
    const slash = paramKind.apiVersion.indexOf('/');
    const [group, version] = slash < 0 ? ['', paramKind.apiVersion] : [paramKind.apiVersion.slice(0, slash), paramKind.apiVersion.slice(slash + 1)];
    paramSchema = kinds.byKind(group, version, paramKind.kind);
  }
  const warnings = typeCheckPolicy(compilePolicy(policy), checked, paramSchema);
  return {
    observedGeneration: policy.metadata?.generation ?? 1,
    // No warnings: an empty list, which the apply configuration leaves out.
    typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {},
  };
}

export class PolicyStatusController {
  private handle: { close(): void } | undefined;
  private scheduled = false;
  private stopped = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly policies: ResourceStore,
    private readonly kinds: KindResolver,
    private readonly onError: (err: Error) => void,
  ) {}

  start(): void {
    const cache = this.policies.cache;
    this.handle = cache.watch({ fromRevision: cache.revision }, { onEvent: () => this.schedule(), onError: () => this.schedule() });
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.handle?.close();
  }

  /** Resolves once the pending passes are done (tests). */
  async settled(): Promise<void> {
    while (this.scheduled) await new Promise((r) => setImmediate(r));
    await this.queue;
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.queue = this.queue.then(() => this.pass()).catch((err) => this.onError(err as Error));
    });
  }

  private async pass(): Promise<void> {
    if (this.stopped) return;
    for (const e of this.policies.cache.list().entries) {
      if (e.corrupt) continue;
      const policy = e.value;
      const status = (policy.status ?? {}) as { observedGeneration?: number };
      if (status.observedGeneration === (policy.metadata?.generation ?? 1)) continue;
      const name = policy.metadata?.name ?? '';
      const rt = this.policies.rt;
      const now = new Date();
      try {
        await this.policies.update(
          '',
          name,
          (current) => {
            if (!current) throw new Error('gone');
            const applied = { apiVersion: apiVersionOf(rt), kind: rt.kind, metadata: { name }, status: policyStatus(current, this.kinds) } as KubeObject;
            const merged = serverSideApply(current, applied, { ...applyContextFor(rt, MANAGER, 'status', now), force: true });
            mergeSubresource(merged, cloneObject(current), 'status', rt);
            return merged;
          },
          { dryRun: false, warnings: [], now, manager: MANAGER, subresource: 'status', skipManagedFields: true } satisfies WriteContext,
          { allowCreate: false, subresource: 'status' },
        );
      } catch (err) {
        // Deleted or changed meanwhile: that change schedules another pass.
        const code = (err as { code?: number }).code;
        if ((err as Error).message !== 'gone' && code !== 404 && code !== 409) this.onError(err as Error);
      }
    }
  }
}
