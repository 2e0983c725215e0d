/**
 * The Lease elector against a store with resourceVersion compare-and-swap (as the registry's):
 * one leader at a time, takeover only after the lease duration without renewal as observed
 * locally, a release that lets a successor in at once, and stepping down past the renew deadline.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.ts';
import { LeaderElector, type LeaseStore } from '../../src/leader/lease-elector.ts';

class FakeLeases implements LeaseStore {
  obj: KubeObject | undefined;
  rv = 0;
  down = false;
  async get(): Promise<{ value: KubeObject }> {
    if (this.down) throw new Error('unavailable');
    if (!this.obj) throw Object.assign(new Error('not found'), { code: 404 });
    return { value: structuredClone({ ...this.obj, metadata: { ...this.obj.metadata, resourceVersion: String(this.rv) } }) };
  }
  async create(_ns: string, obj: KubeObject): Promise<KubeObject> {
    if (this.down) throw new Error('unavailable');
    if (this.obj) throw Object.assign(new Error('exists'), { code: 409 });
    this.obj = structuredClone(obj);
    this.rv++;
    return obj;
  }
  async update(_ns: string, _name: string, tryUpdate: (cur: KubeObject | null) => KubeObject): Promise<unknown> {
    if (this.down) throw new Error('unavailable');
    const cur = this.obj ? structuredClone({ ...this.obj, metadata: { ...this.obj.metadata, resourceVersion: String(this.rv) } }) : null;
    const next = tryUpdate(cur);
    const pinned = next.metadata?.resourceVersion;
    if (pinned && pinned !== String(this.rv)) throw Object.assign(new Error('conflict'), { code: 409 });
    this.obj = structuredClone(next);
    this.rv++;
    return next;
  }
  get spec(): Record<string, unknown> {
    return (this.obj?.spec ?? {}) as Record<string, unknown>;
  }
}

function candidate(leases: FakeLeases, identity: string, clock: { now: number }) {
  const state = { leading: false, starts: 0, stops: 0 };
  const e = new LeaderElector({
    leases,
    namespace: 'kube-system',
    name: 'ctl',
    identity,
    leaseDurationMs: 1500,
    renewDeadlineMs: 1000,
    retryPeriodMs: 100,
    now: () => clock.now,
    log: () => {},
    onStartedLeading: () => ((state.leading = true), state.starts++),
    onStoppedLeading: () => ((state.leading = false), state.stops++),
  });
  return { e, state };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('LeaderElector', () => {
  it('elects one of two candidates, and the other takes over only after the lease duration when the leader goes silent', async () => {
    const leases = new FakeLeases();
    const clock = { now: 1_000_000 };
    const a = candidate(leases, 'a', clock);
    const b = candidate(leases, 'b', clock);
    a.e.start();
    await sleep(50);
    b.e.start();
    await sleep(400);
    expect(a.state.leading).toBe(true);
    expect(b.state.leading).toBe(false);
    expect(leases.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 2, leaseTransitions: 0 });
    expect(String(leases.spec.renewTime)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // a freezes (a dead process renews nothing): b waits the lease duration from when it saw the last change.
    const frozen = structuredClone(leases.obj);
    await a.e.stop().catch(() => undefined);
    leases.obj = frozen; // undo a's release: it "died" instead
    clock.now += 1000;
    await sleep(400);
    expect(b.state.leading).toBe(false);
    clock.now += 2000;
    await sleep(1000);
    expect(b.state.leading).toBe(true);
    expect(leases.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    await b.e.stop();
  });

  it('releases on stop so a successor takes over at its next try', async () => {
    const leases = new FakeLeases();
    const clock = { now: 5_000_000 };
    const a = candidate(leases, 'a', clock);
    a.e.start();
    await sleep(200);
    expect(a.state.leading).toBe(true);
    await a.e.stop();
    expect(a.state.stops).toBe(1);
    expect(leases.spec.holderIdentity).toBe('');
    const b = candidate(leases, 'b', clock);
    b.e.start();
    await sleep(800);
    expect(b.state.leading).toBe(true);
    await b.e.stop();
  });

  it('steps down when it cannot renew within the renew deadline', async () => {
    const leases = new FakeLeases();
    const clock = { now: 9_000_000 };
    const a = candidate(leases, 'a', clock);
    a.e.start();
    await sleep(200);
    expect(a.state.leading).toBe(true);
    leases.down = true;
    clock.now += 500;
    await sleep(250);
    expect(a.state.leading).toBe(true);
    clock.now += 1000;
    await sleep(250);
    expect(a.state.leading).toBe(false);
    expect(a.state.stops).toBe(1);
    await a.e.stop();
  });
});
