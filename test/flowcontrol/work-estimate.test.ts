/**
 * The APF work estimator (kube v1.32's k8s.io/apiserver/pkg/util/flowcontrol/request): seats of
 * lists from object counts, of writes from watcher counts, the per-level cap; the watch tracker;
 * the object count tracker's staleness; and the QueueSet holding a write's final seats after it
 * finishes. Figures are kube's formulas applied by hand.
 */
import { describe, expect, it } from 'vitest';
import { ObjectCountTracker, STALE_AFTER_MS, type ObjectCount } from '../../src/flowcontrol/object-counts.ts';
import { QueueSet, type Execution, type StartOutcome } from '../../src/flowcontrol/queueset.ts';
import { WatchCountTracker } from '../../src/flowcontrol/watch-tracker.ts';
import { levelMaxSeats, maxSeatsOf, WorkEstimator, type WorkEstimate } from '../../src/flowcontrol/work-estimate.ts';
import type { ResourceRequestInfo } from '../../src/request/request-info.ts';

function info(verb: ResourceRequestInfo['verb'], resource: string, extra: Partial<ResourceRequestInfo> = {}): ResourceRequestInfo {
  return { isResourceRequest: true, path: '/', verb, apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', resource, subresource: '', namespace: '', name: '', ...extra };
}

function estimator(counts: Record<string, ObjectCount>, opts: { watchers?: number; watchList?: boolean; consistent?: boolean } = {}) {
  return new WorkEstimator({
    objectCount: (key) => counts[key] ?? 'not-found',
    interestedWatchers: () => opts.watchers ?? 0,
    watchList: opts.watchList ?? true,
    consistentListFromCache: opts.consistent ?? true,
  });
}

const q = (s: string) => new URLSearchParams(s);
const seatsOf = (we: WorkEstimate) => maxSeatsOf(we);

describe('list work estimate', () => {
  const e = estimator({ configmaps: { count: 250 }, 'deployments.apps': { count: 5000 }, secrets: 'stale' });
  const list = (query: string, resource = 'configmaps', extra: Partial<ResourceRequestInfo> = {}, name = '') =>
    seatsOf(e.estimate({ info: info('list', resource, extra), name, query: q(query) }, 0));

  it('from the watch cache: one seat per 100 stored objects, capped at 10', () => {
    expect(list('')).toBe(3);
    // A limit does not make a cache read cheaper (kube reads the whole cache).
    expect(list('limit=10')).toBe(3);
    expect(list('resourceVersion=0')).toBe(3);
    expect(list('', 'deployments', { apiGroup: 'apps' })).toBe(10);
  });

  it('from storage: twice the page, or all plus the page with selectors', () => {
    // A continuation reads storage: 2 x 60 objects.
    expect(list('limit=60&continue=abc')).toBe(2);
    expect(list('limit=60&continue=abc&labelSelector=a%3Db')).toBe(4);
    // An exact match is a storage read too; without a limit the page is everything.
    expect(list('resourceVersion=5&resourceVersionMatch=Exact')).toBe(5);
    // kube's legacy exact match: a limit with a resourceVersion other than 0.
    expect(list('limit=20&resourceVersion=5')).toBe(1);
    expect(list('limit=200&resourceVersion=5')).toBe(4);
    // Consistent lists without a provably fresh cache.
    expect(seatsOf(estimator({ configmaps: { count: 250 } }, { consistent: false }).estimate({ info: info('list', 'configmaps'), name: '', query: q('') }, 0))).toBe(5);
  });

  it('one seat by name or for uncounted resources; the maximum for stale counts and bad queries', () => {
    expect(list('', 'configmaps', {}, 'one')).toBe(1);
    expect(list('', 'widgets', { apiGroup: 'example.com' })).toBe(1);
    expect(list('', 'secrets')).toBe(10);
    expect(list('limit=ten')).toBe(10);
    expect(list('timeoutSeconds=')).toBe(10);
  });

  it('caps at the level\'s own maximum', () => {
    expect(seatsOf(e.estimate({ info: info('list', 'deployments', { apiGroup: 'apps' }), name: '', query: q('') }, 4))).toBe(4);
    // A cap above 10 is 10.
    expect(seatsOf(e.estimate({ info: info('list', 'deployments', { apiGroup: 'apps' }), name: '', query: q('') }, 30))).toBe(10);
  });

  it('a watch costs a list only when it asks for initial events and WatchList is on', () => {
    const watch = (query: string, ee = e) => seatsOf(ee.estimate({ info: info('watch', 'configmaps'), name: '', query: q(query) }, 0));
    expect(watch('watch=1')).toBe(1);
    expect(watch('watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan')).toBe(3);
    expect(watch('watch=1&sendInitialEvents=false')).toBe(1);
    expect(watch('watch=1&sendInitialEvents=true', estimator({ configmaps: { count: 250 } }, { watchList: false }))).toBe(1);
  });
});

describe('mutating work estimate', () => {
  const write = (watchers: number, cap = 0, extra: Partial<ResourceRequestInfo> = {}) => {
    const seen: number[] = [];
    const we = estimator({}, { watchers }).estimate({ info: info('create', 'configmaps', { namespace: 'ns', ...extra }), name: '', query: q('') }, cap, (n) => seen.push(n));
    return { we, seen };
  };

  it('one seat under 10 watchers; then ceil(watchers/10) final seats for 5 ms', () => {
    expect(write(9).we).toEqual({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
    expect(write(10).we).toEqual({ initialSeats: 1, finalSeats: 1, additionalLatencyMs: 5 });
    expect(write(25)).toEqual({ we: { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 }, seen: [25] });
  });

  it('capped seats keep the work: fewer seats for longer', () => {
    // 150 watchers want 15 seats x 5 ms; at most 10 seats, for 7.5 ms.
    expect(write(150).we).toEqual({ initialSeats: 1, finalSeats: 10, additionalLatencyMs: 7.5 });
    expect(write(30, 2).we).toEqual({ initialSeats: 1, finalSeats: 2, additionalLatencyMs: 7.5 });
  });

  it('a service account token request wakes no watcher', () => {
    expect(write(500, 0, { resource: 'serviceaccounts', subresource: 'token' })).toEqual({ we: { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }, seen: [] });
  });

  it('other verbs take one seat', () => {
    const e = estimator({}, { watchers: 100 });
    for (const verb of ['get', 'deletecollection'] as const) expect(e.estimate({ info: info(verb, 'configmaps'), name: '', query: q('') }, 0)).toEqual({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  });
});

describe('per-level cap (kube: max(1, min(ceil(15% of nominal), nominal / handSize)))', () => {
  it('follows the nominal limit and hand size', () => {
    // kube's default server limit of 600: global-default has 49 seats and hands of 6.
    expect(levelMaxSeats(49, 6)).toBe(8);
    expect(levelMaxSeats(245, 6)).toBe(37);
    expect(levelMaxSeats(3, 6)).toBe(1);
    expect(levelMaxSeats(13, 6)).toBe(2);
    // Levels without queues have no cap of their own.
    expect(levelMaxSeats(100, undefined)).toBe(0);
  });
});

describe('watch tracker', () => {
  it('counts the watchers a write may wake: cluster-wide, its namespace, its name', () => {
    const t = new WatchCountTracker();
    const forgets = [
      t.register(info('watch', 'configmaps'), '', q('')),
      t.register(info('watch', 'configmaps', { namespace: 'a' }), '', q('')),
      t.register(info('watch', 'configmaps', { namespace: 'a' }), 'x', q('fieldSelector=metadata.name%3Dx')),
      t.register(info('watch', 'configmaps', { namespace: 'b' }), '', q('')),
      t.register(info('watch', 'secrets', { namespace: 'a' }), '', q('')),
    ];
    expect(t.interested(info('create', 'configmaps', { namespace: 'a' }))).toBe(2);
    expect(t.interested(info('update', 'configmaps', { namespace: 'a', name: 'x' }))).toBe(3);
    expect(t.interested(info('delete', 'configmaps', { namespace: 'c', name: 'x' }))).toBe(1);
    expect(t.interested(info('list', 'configmaps', { namespace: 'a' }))).toBe(0);
    forgets[0]!();
    expect(t.interested(info('create', 'configmaps', { namespace: 'a' }))).toBe(1);
    // Watches of one key share one function; each registration is forgotten by one call.
    const again = [t.register(info('watch', 'configmaps', { namespace: 'b' }), '', q('')), t.register(info('watch', 'configmaps', { namespace: 'b' }), '', q(''))];
    expect(again[0]).toBe(again[1]);
    expect(t.interested(info('create', 'configmaps', { namespace: 'b' }))).toBe(3);
    again[0]!();
    expect(t.interested(info('create', 'configmaps', { namespace: 'b' }))).toBe(2);
    again[1]!();
    forgets[3]!();
    expect(t.interested(info('create', 'configmaps', { namespace: 'b' }))).toBe(0);
  });

  it('leaves out pods watched by node (kube\'s built-in index)', () => {
    const t = new WatchCountTracker();
    t.register(info('watch', 'pods'), '', q('fieldSelector=spec.nodeName%3Dnode-1'));
    t.register(info('watch', 'pods'), '', q('fieldSelector=spec.nodeName%3D'));
    t.register(info('watch', 'pods'), '', q('fieldSelector=status.phase%3DRunning'));
    expect(t.interested(info('create', 'pods', { namespace: 'a' }))).toBe(2);
  });
});

describe('object count tracker', () => {
  it('answers counts, stale after 3 minutes without a refresh, not found when never counted', () => {
    let now = 0;
    const t = new ObjectCountTracker(() => now);
    t.set('configmaps', 7);
    expect(t.get('configmaps')).toEqual({ count: 7 });
    expect(t.get('secrets')).toBe('not-found');
    // A failed count keeps the last good one, which ages.
    now = STALE_AFTER_MS;
    t.set('configmaps', -1);
    expect(t.get('configmaps')).toEqual({ count: 7 });
    now = STALE_AFTER_MS + 1;
    expect(t.get('configmaps')).toBe('stale');
  });
});

describe('QueueSet with work estimates', () => {
  const executions = (o: StartOutcome): Execution => {
    if (o.kind !== 'execute') throw new Error(`expected execute, got ${o.kind}`);
    return o.execution;
  };

  it('a write holds its final seats after it finishes, then frees them', async () => {
    const qs = new QueueSet(4, { queues: 8, handSize: 2, queueLengthLimit: 10 }, 60_000);
    const write = executions(qs.start('fs', 'u', { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 }));
    expect(write.seats).toBe(3);
    expect(qs.seatsInUse).toBe(3);
    const next = qs.start('fs', 'v', 2);
    expect(next.kind).toBe('wait');
    const released = new Promise<number>((resolve) => write.finish(resolve));
    // Finished, but its watchers' share still holds the seats.
    expect([qs.executing, qs.seatsInUse]).toEqual([0, 3]);
    expect(await released).toBe(3);
    const granted = await (next as Extract<StartOutcome, { kind: 'wait' }>).granted;
    expect(typeof granted).toBe('object');
    expect(qs.seatsInUse).toBe(2);
  });

  it('dump_queues sums: initial seats, max seats and work (seat-seconds) of the waiting requests', () => {
    const qs = new QueueSet(1, { queues: 1, handSize: 1, queueLengthLimit: 10 }, 60_000);
    executions(qs.start('fs', 'a', 1));
    qs.start('fs', 'a', { initialSeats: 1, finalSeats: 4, additionalLatencyMs: 5 });
    qs.start('fs', 'a', 2);
    const [row] = qs.queueRows();
    expect(row).toMatchObject({ pending: 2, initialSeatsSum: 3, maxSeatsSum: 6 });
    // 1 x 3 ms + 4 x 5 ms, then 2 x 3 ms.
    expect(row!.totalWorkSum).toBeCloseTo(0.003 + 0.02 + 0.006, 9);
    expect(qs.waitingRows().map((w) => w.estimate)).toEqual([{ initialSeats: 1, finalSeats: 4, additionalLatencyMs: 5 }, { initialSeats: 2, finalSeats: 0, additionalLatencyMs: 0 }]);
  });

  it('a request wider than the free seats waits for them (no accommodation counted)', async () => {
    const qs = new QueueSet(3, { queues: 8, handSize: 2, queueLengthLimit: 10 }, 60_000);
    const a = executions(qs.start('fs', 'a', 2));
    const wide = qs.start('fs', 'b', 3);
    expect(wide.kind).toBe('wait');
    expect(qs.counters.noAccommodation).toBe(1);
    a.finish();
    expect(typeof (await (wide as Extract<StartOutcome, { kind: 'wait' }>).granted)).toBe('object');
    expect(qs.seatsInUse).toBe(3);
    expect(qs.start('fs', 'c', 1).kind).toBe('wait');
  });
});
