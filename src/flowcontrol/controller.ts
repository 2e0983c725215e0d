/**
 * API Priority and Fairness at run time (kube's apf_controller.go, in-process): the FlowSchemas
 * and PriorityLevelConfigurations of the watch caches digested into a classifier and one
 * QueueSet per Limited level; seats shared out and re-balanced every adjustment period; the
 * Dangling condition of every FlowSchema kept in its status; the bootstrap configuration kept
 * current. Mandatory objects missing from storage are used from their built-in definitions (uid
 * empty), as kube does, so classification always ends at catch-all.
 */
import type { KubeObject } from '../api/types.ts';
import { serverSideApply } from '../apply/engine.ts';
import { applyContextFor } from '../registry/apply-context.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import type { RequestInfo } from '../request/request-info.ts';
import type { RequestUser } from '../request/user.ts';
import { allocate, DemandIntegrator, levelLimits, type LevelLimits } from './allocation.ts';
import { ensureBootstrapConfiguration, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from './bootstrap.ts';
import { rulesMatch, type PolicyRules } from './classify.ts';
import { defaultFlowSchema, defaultPriorityLevel } from './kinds.ts';
import { QueueSet, type QueuingConfig } from './queueset.ts';
import { levelMaxSeats } from './work-estimate.ts';

export const CONSUMER_MANAGER = 'api-priority-and-fairness-config-consumer-v1';

export interface FlowSchemaDigest {
  readonly name: string;
  readonly uid: string;
  readonly precedence: number;
  readonly levelName: string;
  readonly distinguisherMethod: string | undefined;
  readonly rules: readonly PolicyRules[];
}

/** One priority level's run-time state; survives configuration changes that keep its name. */
export class Level {
  uid = '';
  exempt = false;
  queuing: QueuingConfig | undefined;
  limits: LevelLimits = { nominalCL: 0, lendableCL: 0, minCL: 0, maxCL: 0 };
  currentCL = 0;
  target = 0;
  /** The most seats one request may take here (work-estimate.ts levelMaxSeats; 0: the global cap). */
  maxSeats = 0;
  /** Exempt levels count what runs (never queued). */
  exemptExecuting = 0;
  exemptDispatched = 0;
  readonly demand: DemandIntegrator;
  readonly queueSet: QueueSet;

  constructor(
    readonly name: string,
    waitLimitMs: number,
    now: () => number,
  ) {
    this.demand = new DemandIntegrator(now);
    this.queueSet = new QueueSet(1, undefined, waitLimitMs, now);
    this.queueSet.onChange = (nowMs) => this.demand.set(this.queueSet.seatsInUse + this.queueSet.waitingSeats, nowMs);
  }
}

export interface Classification {
  readonly schema: FlowSchemaDigest;
  readonly level: Level;
}

export interface FlowControlOptions {
  readonly flowSchemas: ResourceStore;
  readonly priorityLevels: ResourceStore;
  /** --max-requests-inflight + --max-mutating-requests-inflight. */
  readonly serverConcurrencyLimit: number;
  /** How long a request may wait in a queue (kube: a quarter of the request timeout, 15 s). */
  readonly queueWaitLimitMs?: number;
  /** How often seats are re-balanced among levels (kube: 10 s). */
  readonly adjustPeriodMs?: number;
  /** How often the bootstrap configuration is ensured again (kube: every minute). */
  readonly ensurePeriodMs?: number;
  readonly warn?: (msg: string) => void;
  readonly now?: () => number;
}

const num = (v: unknown, dflt: number) => (typeof v === 'number' ? v : dflt);

export class FlowControl {
  private schemas: FlowSchemaDigest[] = [];
  /** The schemas whose level exists, by precedence, each with its level. */
  private classifications: Classification[] = [];
  private readonly levels = new Map<string, Level>();
  private handles: { close(): void }[] = [];
  private timers: NodeJS.Timeout[] = [];
  private digestScheduled = false;
  private statusBusy: Promise<void> = Promise.resolve();
  private stopped = false;
  fairFrac = 0;
  readonly serverCL: number;
  private readonly waitLimitMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: FlowControlOptions) {
    this.serverCL = Math.max(1, opts.serverConcurrencyLimit);
    this.waitLimitMs = opts.queueWaitLimitMs ?? 15_000;
    this.now = opts.now ?? (() => performance.now());
  }

  /** Ensures the bootstrap objects, digests the configuration and follows its changes. */
  async start(): Promise<void> {
    await this.ensure();
    this.follow();
  }

  /**
   * Digests the configuration as stored (missing mandatory objects imagined, so classification
   * works on an empty store) and follows its changes; the bootstrap objects are ensured by
   * ensureBootstrap() (the server's post-start hook) and then every ensure period.
   */
  follow(): void {
    for (const store of [this.opts.flowSchemas, this.opts.priorityLevels]) {
      const cache = store.cache;
      this.handles.push(cache.watch({ fromRevision: cache.revision }, { onEvent: () => this.scheduleDigest(), onError: () => this.scheduleDigest() }));
    }
    this.digest();
    const adjust = setInterval(() => this.adjust(), this.opts.adjustPeriodMs ?? 10_000);
    const ensure = setInterval(() => void this.ensure(), this.opts.ensurePeriodMs ?? 60_000);
    adjust.unref();
    ensure.unref();
    this.timers.push(adjust, ensure);
  }

  stop(): void {
    this.stopped = true;
    for (const h of this.handles) h.close();
    for (const t of this.timers) clearInterval(t);
  }

  /** kube's priority-and-fairness-config-producer post-start hook: the bootstrap objects created or revised. */
  ensureBootstrap(): Promise<void> {
    return this.ensure();
  }

  private async ensure(): Promise<void> {
    if (this.stopped) return;
    const failures = await ensureBootstrapConfiguration({ flowSchemas: this.opts.flowSchemas, priorityLevels: this.opts.priorityLevels });
    for (const err of failures) this.opts.warn?.(`unable to ensure the API Priority and Fairness configuration: ${err.message}`);
  }

  private scheduleDigest(): void {
    if (this.digestScheduled || this.stopped) return;
    this.digestScheduled = true;
    setImmediate(() => {
      this.digestScheduled = false;
      if (!this.stopped) this.digest();
    });
  }

  /** The stored objects (defaulted as read), with the mandatory ones filled in where missing. */
  private objects(store: ResourceStore, mandatory: readonly KubeObject[], defaults: (o: KubeObject) => void): KubeObject[] {
    const byName = new Map<string, KubeObject>();
    for (const e of store.cache.list().entries) if (!e.corrupt && e.value.metadata?.name) byName.set(e.value.metadata.name, e.value);
    for (const m of mandatory) {
      if (byName.has(m.metadata!.name!)) continue;
      const copy = structuredClone(m);
      defaults(copy);
      byName.set(m.metadata!.name!, { ...copy, metadata: { ...copy.metadata, uid: '' } });
    }
    return [...byName.values()];
  }

  /** Rebuilds the classifier and the levels from the configuration objects. */
  digest(): void {
    const plObjects = this.objects(this.opts.priorityLevels, MANDATORY_PRIORITY_LEVELS, defaultPriorityLevel);
    const seen = new Set<string>();
    const shares = [];
    for (const pl of plObjects) {
      const name = pl.metadata!.name!;
      const spec = (pl.spec ?? {}) as Record<string, any>;
      const exempt = spec.type === 'Exempt';
      let level = this.levels.get(name);
      if (!level) {
        level = new Level(name, this.waitLimitMs, this.now);
        this.levels.set(name, level);
      }
      seen.add(name);
      level.uid = pl.metadata?.uid ?? '';
      level.exempt = exempt;
      const cfg = (exempt ? spec.exempt : spec.limited) ?? {};
      const queuing = !exempt && spec.limited?.limitResponse?.type === 'Queue' ? spec.limited.limitResponse.queuing : undefined;
      level.queuing = queuing ? { queues: num(queuing.queues, 64), handSize: num(queuing.handSize, 8), queueLengthLimit: num(queuing.queueLengthLimit, 50) } : undefined;
      shares.push({
        name,
        exempt,
        nominalConcurrencyShares: num(cfg.nominalConcurrencyShares, exempt ? 0 : 30),
        lendablePercent: num(cfg.lendablePercent, 0),
        ...(typeof cfg.borrowingLimitPercent === 'number' ? { borrowingLimitPercent: cfg.borrowingLimitPercent } : {}),
      });
    }
    // Levels no longer configured: their queued and running requests finish through the QueueSet they hold.
    for (const name of [...this.levels.keys()]) if (!seen.has(name)) this.levels.delete(name);
    const limits = levelLimits(shares, this.serverCL);
    for (const [name, l] of limits) {
      const level = this.levels.get(name)!;
      const fresh = level.currentCL === 0 || level.limits.nominalCL !== l.nominalCL;
      level.limits = l;
      level.maxSeats = levelMaxSeats(l.nominalCL, level.queuing?.handSize);
      // A new or re-shared level starts at its nominal limit; the next adjustment re-balances.
      if (fresh) level.currentCL = Math.max(1, l.nominalCL);
      level.currentCL = Math.min(Math.max(level.currentCL, l.minCL, 1), Math.max(l.maxCL, 1));
      if (!level.exempt) level.queueSet.configure(level.currentCL, level.queuing);
    }
    const fsObjects = this.objects(this.opts.flowSchemas, MANDATORY_FLOW_SCHEMAS, defaultFlowSchema);
    this.schemas = fsObjects
      .map((fs): FlowSchemaDigest => {
        const spec = (fs.spec ?? {}) as Record<string, any>;
        return {
          name: fs.metadata!.name!,
          uid: fs.metadata?.uid ?? '',
          precedence: num(spec.matchingPrecedence, 1000),
          levelName: spec.priorityLevelConfiguration?.name ?? '',
          distinguisherMethod: spec.distinguisherMethod?.type,
          rules: Array.isArray(spec.rules) ? spec.rules : [],
        };
      })
      .sort((a, b) => a.precedence - b.precedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // What classify() answers, made once per configuration; a dangling schema matches nothing.
    this.classifications = [];
    for (const schema of this.schemas) {
      const level = this.levels.get(schema.levelName);
      if (level) this.classifications.push({ schema, level });
    }
    this.updateDanglingConditions(fsObjects);
  }

  /** The matching schema (the first by precedence whose level exists) and its level. */
  classify(user: RequestUser, info: RequestInfo): Classification {
    for (const c of this.classifications) if (rulesMatch(c.schema.rules, user, info)) return c;
    // Unreachable while catch-all exists (it matches every user); kube falls back to it likewise.
    const schema = this.schemas.find((s) => s.name === 'catch-all')!;
    return { schema, level: this.levels.get('catch-all')! };
  }

  get priorityLevels(): readonly Level[] {
    return [...this.levels.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Re-balances seats: each level's target from its smoothed demand, one fair fraction for all. */
  adjust(): void {
    const limited = this.priorityLevels.filter((l) => !l.exempt);
    for (const l of this.levels.values()) l.demand.reset();
    const items = limited.map((l) => {
      l.target = Math.max(l.limits.minCL, l.demand.smoothed);
      return { lower: l.limits.minCL, upper: l.limits.maxCL, target: l.target };
    });
    const { allocs, fairFrac } = allocate(items, this.serverCL);
    this.fairFrac = fairFrac;
    limited.forEach((l, i) => {
      l.currentCL = allocs[i]!;
      l.queueSet.configure(l.currentCL, l.queuing);
    });
  }

  /** Writes the Dangling condition where it differs from what the configuration says. */
  private updateDanglingConditions(fsObjects: readonly KubeObject[]): void {
    const writes: { name: string; condition: Record<string, string> }[] = [];
    for (const fs of fsObjects) {
      if (!fs.metadata?.uid) continue;
      const plName = String((fs.spec as Record<string, any> | undefined)?.priorityLevelConfiguration?.name ?? '');
      const exists = this.levels.has(plName);
      const want = exists
        ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} and it exists` }
        : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} but there is no such object` };
      const conditions = ((fs.status as Record<string, unknown> | undefined)?.conditions ?? []) as Record<string, string>[];
      const have = conditions.find((c) => c.type === 'Dangling');
      if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) continue;
      writes.push({ name: fs.metadata.name!, condition: want });
    }
    if (writes.length === 0) return;
    const rt = this.opts.flowSchemas.rt;
    this.statusBusy = this.statusBusy.then(async () => {
      for (const w of writes) {
        if (this.stopped) return;
        const now = new Date();
        // kube's config consumer applies (server-side, forced) a status holding only this condition.
        const applied = {
          apiVersion: `${rt.group}/${rt.version}`,
          kind: rt.kind,
          metadata: { name: w.name },
          status: { conditions: [{ ...w.condition, lastTransitionTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z') }] },
        } as KubeObject;
        try {
          await this.opts.flowSchemas.update(
            '',
            w.name,
            (current) => {
              if (!current) throw new Error('gone');
              const have = (((current.status as Record<string, unknown> | undefined)?.conditions ?? []) as Record<string, string>[]).find((c) => c.type === 'Dangling');
              // Written meanwhile by an earlier pass: nothing to do.
              if (have && have.status === w.condition.status && have.reason === w.condition.reason && have.message === w.condition.message) throw new Error('gone');
              return serverSideApply(current, structuredClone(applied), { ...applyContextFor(rt, CONSUMER_MANAGER, 'status', now), force: true });
            },
            { dryRun: false, warnings: [], now, manager: CONSUMER_MANAGER, subresource: 'status', skipManagedFields: true, operation: 'patch' },
            { allowCreate: false, subresource: 'status' },
          );
        } catch (err) {
          // Deleted or changed meanwhile: that change brings another digest.
          const code = (err as { code?: number }).code;
          if ((err as Error).message !== 'gone' && code !== 404 && code !== 409) this.opts.warn?.(`flowschema ${w.name} status: ${(err as Error).message}`);
        }
      }
    });
  }

  /** Resolves once pending status writes are done (tests). */
  async settled(): Promise<void> {
    while (this.digestScheduled) await new Promise((r) => setImmediate(r));
    await this.statusBusy;
  }
}
