/**
 * kube's clusterrole-aggregation controller: every ClusterRole with
 * `aggregationRule.clusterRoleSelectors` gets, as its rules, the rules of the other ClusterRoles
 * its selectors match (per selector, roles by name, duplicates dropped), and keeps them current
 * as roles and labels change. Runs in-process on the ClusterRole watch cache; one pass recomputes
 * every aggregated role, and chains (edit aggregated into admin) settle over successive passes
 * because each write is itself a change the controller sees.
 *
 * Writes are what kube v1.32's controller sends: a forced server-side apply of `{rules}` as field
 * manager `clusterrole-aggregation-controller` (managedFields show an Apply entry owning f:rules).
 * Its apply configuration omits an empty rule list: when the selectors match nothing, the apply
 * drops the rules only if the controller owned them, and leaves rules someone else wrote alone
 * (checked against kube-controller-manager v1.32.4).
 */
import type { KubeObject } from '../../api/types.ts';
import type { ResourceStore, WriteContext } from '../../registry/resource-store.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../registry/label-selector.ts';
import { applyContextFor } from '../../registry/apply-context.ts';
import { serverSideApply } from '../../apply/index.ts';
import { isStorageError } from '../../storage/types.ts';

const MANAGER = 'clusterrole-aggregation-controller';

function controllerContext(now: Date): WriteContext {
  return { dryRun: false, warnings: [], now, manager: MANAGER, subresource: '', skipManagedFields: true, operation: 'patch' };
}

/** The rules `role` should have, given every ClusterRole; undefined when it aggregates nothing. */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): unknown[] | undefined {
  const selectors = (role as { aggregationRule?: { clusterRoleSelectors?: LabelSelectorObject[] } }).aggregationRule?.clusterRoleSelectors;
  if (!Array.isArray(selectors)) return undefined;
  const name = role.metadata?.name;
  const byName = [...all].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const rules: unknown[] = [];
  const seen = new Set<string>();
  for (const sel of selectors) {
    let selector;
    try {
      selector = labelSelectorFromObject(sel);
    } catch {
      return undefined; // kube's controller stops on an invalid selector and retries; nothing to write.
    }
    for (const other of byName) {
      if (other.metadata?.name === name || !selector.matches(other.metadata?.labels)) continue;
      for (const rule of ((other as { rules?: unknown[] }).rules ?? [])) {
        const key = canonicalJson(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(structuredClone(rule));
      }
    }
  }
  return rules;
}

export class ClusterRoleAggregator {
  private handle: { close(): void } | undefined;
  private scheduled = false;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly clusterRoles: ResourceStore,
    private readonly onError: (err: Error) => void = () => {},
  ) {}

  /** Aggregates now (so the first requests see filled roles), then on every ClusterRole change. */
  async start(): Promise<void> {
    const cache = this.clusterRoles.cache;
    // A start retried (a post-start hook that failed) follows the cache with one watch, not two.
    this.handle?.close();
    this.handle = cache.watch({ fromRevision: cache.revision }, { onEvent: () => this.schedule(), onError: () => this.schedule() });
    // The first pass must see the default policy just written: the cache hears of writes at the end
    // of the event loop's turn, and a pass over a cache without them would find nothing to do.
    if (!(await this.caughtUp())) return;
    // Settle chains (edit is aggregated into admin) before serving: pass until nothing changes.
    for (let i = 0; i < 10; i++) {
      if ((await this.enqueue()) === 0) break;
      if (!(await this.caughtUp())) return;
    }
  }

  /**
   * Waits for the cache to hold everything the store has. On etcd the cache learns the store's
   * revision from progress notifications; an etcd that sends none (older than 3.4.31 or 3.5.13,
   * without a progress-notify interval) leaves a ClusterRole cache behind for good once anything
   * else is written after the last ClusterRole, and the other post-start hooks write concurrently.
   * When the cache cannot be shown current in time, the passes are left to the watch (every
   * ClusterRole change the cache receives brings one), as kube's controller aggregates
   * asynchronously, rather than holding the server unready: the post-start hook would fail and
   * retry for as long as etcd stays silent.
   */
  private async caughtUp(): Promise<boolean> {
    try {
      await this.clusterRoles.cache.waitUntilFresh();
      return true;
    } catch (err) {
      if (!isStorageError(err, 'TooLarge')) throw err;
      this.onError(new Error(`the ClusterRole cache could not be shown current (${(err as Error).message}); aggregating as changes arrive`));
      this.schedule();
      return false;
    }
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

  /** Passes run one at a time: two concurrent passes would race on the same roles. */
  private enqueue(): Promise<number> {
    const run = this.queue.then(() => this.pass());
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.enqueue().catch((err) => this.onError(err as Error));
    });
  }

  /** One recomputation of every aggregated role; returns how many it rewrote. */
  private async pass(): Promise<number> {
    if (this.stopped) return 0;
    let writes = 0;
    const all: KubeObject[] = [];
    for (const e of this.clusterRoles.cache.list().entries) {
      try {
        all.push(e.value);
      } catch {
        // A corrupt role contributes nothing.
      }
    }
    for (const role of all) {
      const want = aggregatedRules(role, all);
      if (want === undefined || sameRules(want, (role as { rules?: unknown[] }).rules)) continue;
      const name = role.metadata!.name!;
      const rt = this.clusterRoles.rt;
      const now = new Date();
      const applied = { apiVersion: `${rt.group}/${rt.version}`, kind: rt.kind, metadata: { name }, ...(want.length > 0 ? { rules: want } : {}) } as KubeObject;
      try {
        await this.clusterRoles.update(
          '',
          name,
          (current) => {
            if (!current) throw new Error('gone');
            return serverSideApply(current, structuredClone(applied), { ...applyContextFor(rt, MANAGER, '', now), force: true });
          },
          controllerContext(now),
          { allowCreate: false, subresource: '' },
        );
        writes++;
      } catch (err) {
        // Deleted meanwhile, or changed meanwhile (409): that change schedules another pass.
        const code = (err as { code?: number }).code;
        if ((err as Error).message !== 'gone' && code !== 404 && code !== 409) this.onError(err as Error);
      }
    }
    return writes;
  }
}

function sameRules(a: readonly unknown[], b: readonly unknown[] | undefined): boolean {
  return canonicalJson(a) === canonicalJson(b ?? []);
}

function canonicalJson(v: unknown): string {
  return JSON.stringify(canonical(v));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      // Empty lists and absent fields are one value (Go's omitempty).
      if (x === undefined || x === null || (Array.isArray(x) && x.length === 0)) continue;
      out[k] = canonical(x);
    }
    return out;
  }
  return v;
}
