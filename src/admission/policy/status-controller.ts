/**
 * kube's validatingadmissionpolicy-status-controller: for every policy whose
 * status.observedGeneration is behind its generation, type-checks the expressions against the
 * schemas of the kinds its rules name and writes `status.typeChecking` and `observedGeneration`
 * through the status subresource. Runs in-process on the policy watch cache.
 */
import type { KubeObject } from '../../api/types.ts';
import type { ResourceStore, WriteContext } from '../../registry/resource-store.ts';
import type { Schema } from '../../schema/types.ts';
import { compilePolicy } from './compiled.ts';
import { kindsToCheck, typeCheckPolicy, type CheckedKind } from './type-check.ts';

const MANAGER = 'validatingadmissionpolicy-status-controller';

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
  const old = (policy.status ?? {}) as Record<string, unknown>;
  return {
    ...old,
    observedGeneration: policy.metadata?.generation ?? 1,
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
      try {
        await this.policies.update(
          '',
          name,
          (current) => {
            if (!current) throw new Error('gone');
            return { ...current, status: policyStatus(current, this.kinds) } as KubeObject;
          },
          { dryRun: false, warnings: [], now: new Date(), manager: MANAGER, subresource: 'status' } satisfies WriteContext,
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
