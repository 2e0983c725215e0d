/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection package does
 * it for kube-controller-manager: a candidate takes the Lease when it is free or when its record
 * has not changed for leaseDurationSeconds as observed on the candidate's own clock (so clocks
 * need not agree); the leader renews every retry period and steps down when it could not renew
 * for the renew deadline; writes are compare-and-swap on resourceVersion, so two candidates never
 * both win. On a clean stop the leader releases the Lease (client-go's ReleaseOnCancel), so a
 * successor takes over at its next try instead of after the lease duration.
 */
import type { KubeObject } from '../api/types.ts';
import type { WriteContext } from '../registry/resource-store.ts';
import type { LeaderElectionConfig } from './flags.ts';

/** The part of a ResourceStore the elector uses. */
export interface LeaseStore {
  get(namespace: string, name: string, resourceVersion: string): Promise<{ readonly value: KubeObject }>;
  create(namespace: string, obj: KubeObject, ctx: WriteContext): Promise<KubeObject>;
  update(
    namespace: string,
    name: string,
    tryUpdate: (current: KubeObject | null) => KubeObject,
    ctx: WriteContext,
    opts: { readonly allowCreate: boolean; readonly subresource: string },
  ): Promise<unknown>;
}

export interface LeaderElectorOptions extends LeaderElectionConfig {
  readonly leases: LeaseStore;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
  readonly log?: (level: 'info' | 'warn', msg: string) => void;
  readonly now?: () => number;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export class LeaderElector {
  private timer: NodeJS.Timeout | undefined;
  private leading = false;
  private stopped = true;
  private lastRenew = 0;
  /** The record as last read and when this process first saw it (client-go's observedRecord/observedTime). */
  private observed: { key: string; rv: string; spec: LeaseSpec; at: number } | undefined;
  private busy = false;
  private readonly now: () => number;
  private readonly log: (level: 'info' | 'warn', msg: string) => void;

  constructor(private readonly o: LeaderElectorOptions) {
    this.now = o.now ?? Date.now;
    this.log = o.log ?? ((level, msg) => process.stderr.write(`${JSON.stringify({ level, msg })}\n`));
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops competing; a leader stops its controllers and releases the Lease. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (!this.leading) return;
    this.stepDown('stopping');
    // Release: an empty holder with a one-second duration, as client-go's release writes it.
    await this.write((spec) => ({ ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(this.now()), acquireTime: microTime(this.now()) })).catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.round(), delayMs);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      const ok = await this.tryAcquireOrRenew();
      if (ok) {
        this.lastRenew = this.now();
        if (!this.leading && !this.stopped) {
          this.leading = true;
          this.log('info', `leader election: ${this.o.identity} acquired lease ${this.o.namespace}/${this.o.name}`);
          this.o.onStartedLeading();
        }
      } else if (this.leading && this.now() - this.lastRenew >= this.o.renewDeadlineMs) {
        this.stepDown('failed to renew lease within the renew deadline');
      }
    } catch (err) {
      if (this.leading && this.now() - this.lastRenew >= this.o.renewDeadlineMs) this.stepDown(`failed to renew lease: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
    // client-go: the leader retries every retryPeriod; candidates wait a jittered retryPeriod.
    this.schedule(this.leading ? this.o.retryPeriodMs : this.o.retryPeriodMs * (1 + Math.random() * 1.2));
  }

  private stepDown(reason: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.log('warn', `leader election: ${this.o.identity} lost lease ${this.o.namespace}/${this.o.name} (${reason}); stopping its controllers`);
    this.o.onStoppedLeading();
  }

  /** One attempt: true when this process holds the Lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const nowMs = this.now();
    let current: KubeObject | undefined;
    try {
      current = (await this.o.leases.get(this.o.namespace, this.o.name, '')).value;
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
    if (!current) {
      const spec: LeaseSpec = this.claim(undefined, nowMs);
      try {
        await this.o.leases.create(this.o.namespace, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.o.name, namespace: this.o.namespace }, spec: spec as Record<string, unknown> }, context());
        return true;
      } catch (err) {
        if ((err as { code?: number }).code === 409) return false;
        throw err;
      }
    }
    const spec = (current.spec ?? {}) as LeaseSpec;
    const rv = String(current.metadata?.resourceVersion ?? '');
    const key = JSON.stringify([spec.holderIdentity ?? '', spec.renewTime ?? '', spec.leaseDurationSeconds ?? 0]);
    if (!this.observed || this.observed.key !== key) this.observed = { key, rv, spec, at: nowMs };
    this.observed.rv = rv;
    const holder = spec.holderIdentity ?? '';
    const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
    if (holder !== '' && holder !== this.o.identity && this.observed.at + durationMs > nowMs) return false;
    try {
      await this.o.leases.update(
        this.o.namespace,
        this.o.name,
        (cur) => {
          if (!cur) throw Object.assign(new Error('lease vanished'), { code: 404 });
          // Pinned to the resourceVersion read: another candidate's write in between makes this a 409.
          return { ...cur, metadata: { ...cur.metadata, resourceVersion: rv }, spec: this.claim((cur.spec ?? {}) as LeaseSpec, nowMs) as Record<string, unknown> };
        },
        context(),
        { allowCreate: false, subresource: '' },
      );
      return true;
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 409 || code === 404) return false;
      throw err;
    }
  }

  /** The spec this candidate writes: renewal keeps acquireTime; a takeover counts a transition. */
  private claim(prev: LeaseSpec | undefined, nowMs: number): LeaseSpec {
    const mine = prev?.holderIdentity === this.o.identity;
    return {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.max(1, Math.round(this.o.leaseDurationMs / 1000)),
      acquireTime: mine && prev?.acquireTime ? prev.acquireTime : microTime(nowMs),
      renewTime: microTime(nowMs),
      leaseTransitions: prev ? (prev.leaseTransitions ?? 0) + (mine ? 0 : 1) : 0,
    };
  }

  /** Writes the Lease from its current spec (the release). */
  private async write(change: (spec: LeaseSpec) => LeaseSpec): Promise<void> {
    await this.o.leases.update(
      this.o.namespace,
      this.o.name,
      (cur) => {
        if (!cur) throw Object.assign(new Error('lease vanished'), { code: 404 });
        const spec = (cur.spec ?? {}) as LeaseSpec;
        if (spec.holderIdentity !== this.o.identity) throw Object.assign(new Error('not the holder'), { code: 409 });
        return { ...cur, spec: change(spec) as Record<string, unknown> };
      },
      context(),
      { allowCreate: false, subresource: '' },
    );
  }
}

/** Writes of the elector, as kube-controller-manager's (no user: the server's own write, admission-exempt). */
function context(): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-gateway', subresource: '' };
}

/** metav1.MicroTime's RFC 3339 form with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
