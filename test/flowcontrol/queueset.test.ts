/**
 * The fair-queuing core of API Priority and Fairness on a fake clock: shuffle sharding, the
 * dispatch order between a flooding flow and a quiet one, rejection reasons, seats, and the
 * Retry-After tracker. No wall-clock timing is asserted.
 */
import { describe, expect, it } from 'vitest';
import { dealHand, hashFlowId, QueueSet, type Execution, type StartOutcome } from '../../src/flowcontrol/queueset.ts';
import { DroppedRequests } from '../../src/flowcontrol/filter.ts';

function fakeClock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('shuffle sharding', () => {
  it('deals handSize distinct queues, the same hand for the same flow', () => {
    for (const name of ['alice', 'bob', 'system:serviceaccount:ns:sa', '']) {
      const h = hashFlowId('global-default', name);
      const hand = dealHand(h, 128, 6);
      expect(hand).toHaveLength(6);
      expect(new Set(hand).size).toBe(6);
      expect(hand.every((q) => q >= 0 && q < 128)).toBe(true);
      expect(dealHand(hashFlowId('global-default', name), 128, 6)).toEqual(hand);
    }
  });

  it('deals by the hash digits as kube does (mixed radix, later cards skip earlier ones)', () => {
    // hash = 5 + 10*3 + 10*9*7: remainders 5, 3, 7 over radices 10, 9, 8 -> cards 5, 3, 9
    expect(dealHand(BigInt(5 + 10 * 3 + 10 * 9 * 7), 10, 3)).toEqual([5, 3, 9]);
    expect(dealHand(0n, 4, 4)).toEqual([0, 1, 2, 3]);
  });
});

describe('QueueSet', () => {
  const executions = (o: StartOutcome): Execution => {
    if (o.kind !== 'execute') throw new Error(`expected execute, got ${o.kind}`);
    return o.execution;
  };

  it('runs while seats are free, then queues; a finish lets the next one in', async () => {
    const clock = fakeClock();
    const qs = new QueueSet(2, { queues: 8, handSize: 2, queueLengthLimit: 10 }, 60_000, clock.now);
    const a = executions(qs.start('fs', 'u1', 1));
    executions(qs.start('fs', 'u1', 1));
    const third = qs.start('fs', 'u1', 1);
    expect(third.kind).toBe('wait');
    expect([qs.seatsInUse, qs.waiting]).toEqual([2, 1]);
    a.finish();
    a.finish(); // idempotent
    const granted = await (third as Extract<StartOutcome, { kind: 'wait' }>).granted;
    expect(typeof granted).toBe('object');
    expect([qs.seatsInUse, qs.waiting, qs.counters.dispatched]).toEqual([2, 0, 3]);
  });

  it('a quiet flow is not stuck behind a flood: it is served next, not after the flood', async () => {
    const clock = fakeClock();
    // One seat, many queues: the two flows' hands must not share the queue they pick.
    const qs = new QueueSet(1, { queues: 64, handSize: 1, queueLengthLimit: 100 }, 60_000, clock.now);
    expect(dealHand(hashFlowId('fs', 'flood'), 64, 1)).not.toEqual(dealHand(hashFlowId('fs', 'quiet'), 64, 1));
    const order: string[] = [];
    const running = executions(qs.start('fs', 'flood', 1));
    const waits: Promise<void>[] = [];
    const enqueue = (flow: string, i: number) => {
      const o = qs.start('fs', flow, 1);
      if (o.kind !== 'wait') throw new Error('expected to wait');
      waits.push(
        o.granted.then((e) => {
          if (typeof e === 'string') throw new Error(e);
          order.push(`${flow}${i}`);
          // Each request takes 5 ms of the fake clock, then ends.
          clock.advance(5);
          queueMicrotask(() => e.finish());
        }),
      );
    };
    for (let i = 0; i < 30; i++) enqueue('flood', i);
    clock.advance(1);
    for (let i = 0; i < 3; i++) enqueue('quiet', i);
    clock.advance(5);
    running.finish();
    await Promise.all(waits);
    expect(order).toHaveLength(33);
    // Fair queuing alternates between the two queues: the quiet flow's three requests are among the first seven served.
    const lastQuiet = Math.max(...['quiet0', 'quiet1', 'quiet2'].map((q) => order.indexOf(q)));
    expect(lastQuiet).toBeLessThan(7);
    // And its requests keep their own order.
    expect(order.filter((o) => o.startsWith('quiet'))).toEqual(['quiet0', 'quiet1', 'quiet2']);
  });

  it('a request served at once (nothing waiting, a seat free) is charged to its flow: a newcomer waiting later goes first', async () => {
    const clock = fakeClock();
    const qs = new QueueSet(1, { queues: 64, handSize: 1, queueLengthLimit: 100 }, 60_000, clock.now);
    expect(dealHand(hashFlowId('fs', 'busy'), 64, 1)).not.toEqual(dealHand(hashFlowId('fs', 'new'), 64, 1));
    // The uncontended path: executed synchronously, no wait.
    const first = qs.start('fs', 'busy', 1);
    expect(first.kind).toBe('execute');
    expect([qs.seatsInUse, qs.waiting, qs.activeQueues]).toEqual([1, 0, 1]);
    const order: string[] = [];
    const wait = (flow: string) => {
      const o = qs.start('fs', flow, 1);
      if (o.kind !== 'wait') throw new Error('expected to wait');
      return o.granted.then((e) => {
        if (typeof e === 'string') throw new Error(e);
        order.push(flow);
        e.finish();
      });
    };
    // The busy flow's second request arrives before the newcomer's; both wait for the one seat.
    const waits = [wait('busy'), wait('new')];
    // The first request takes its estimated service time (no correction of its charge).
    clock.advance(3);
    executions(first).finish();
    await Promise.all(waits);
    // Fair queuing: the busy flow already had its turn, so the newcomer is served first.
    expect(order).toEqual(['new', 'busy']);
    expect([qs.seatsInUse, qs.waiting, qs.activeQueues, qs.counters.dispatched]).toEqual([0, 0, 0, 3]);
  });

  it('rejects when the flow\'s queue is full (queue-full), and without queuing when seats are out (concurrency-limit)', () => {
    const clock = fakeClock();
    const queued = new QueueSet(1, { queues: 1, handSize: 1, queueLengthLimit: 2 }, 60_000, clock.now);
    executions(queued.start('fs', 'u', 1));
    expect(queued.start('fs', 'u', 1).kind).toBe('wait');
    expect(queued.start('fs', 'u', 1).kind).toBe('wait');
    expect(queued.start('fs', 'u', 1)).toEqual({ kind: 'reject', reason: 'queue-full' });
    const reject = new QueueSet(1, undefined, 60_000, clock.now);
    executions(reject.start('fs', 'u', 1));
    expect(reject.start('fs', 'u', 1)).toEqual({ kind: 'reject', reason: 'concurrency-limit' });
    expect(reject.counters.rejected).toBe(1);
  });

  it('a waiting request gives up after the wait limit (time-out) or when cancelled', async () => {
    const qs = new QueueSet(1, { queues: 4, handSize: 2, queueLengthLimit: 5 }, 20);
    executions(qs.start('fs', 'u', 1));
    const timedOut = qs.start('fs', 'u', 1) as Extract<StartOutcome, { kind: 'wait' }>;
    const cancelled = qs.start('fs', 'v', 1) as Extract<StartOutcome, { kind: 'wait' }>;
    cancelled.cancel();
    expect(await cancelled.granted).toBe('cancelled');
    expect(await timedOut.granted).toBe('time-out');
    expect([qs.waiting, qs.counters.timedOut, qs.counters.cancelled]).toEqual([0, 1, 1]);
  });

  it('a request wider than the limit runs alone; a raised limit dispatches what waits', async () => {
    const qs = new QueueSet(2, { queues: 4, handSize: 2, queueLengthLimit: 5 }, 60_000);
    const wide = executions(qs.start('fs', 'u', 5));
    const next = qs.start('fs', 'u', 1) as Extract<StartOutcome, { kind: 'wait' }>;
    expect(next.kind).toBe('wait');
    wide.finish();
    expect(typeof (await next.granted)).toBe('object');
    const more = qs.start('fs', 'u', 1);
    const evenMore = qs.start('fs', 'u', 1) as Extract<StartOutcome, { kind: 'wait' }>;
    expect([more.kind, evenMore.kind]).toEqual(['execute', 'wait']);
    qs.configure(3, { queues: 4, handSize: 2, queueLengthLimit: 5 });
    expect(typeof (await evenMore.granted)).toBe('object');
    expect(qs.seatsInUse).toBe(3);
  });
});

describe('Retry-After (kube droppedRequestsTracker)', () => {
  it('starts at 1, doubles under sustained drops (at most 32) and eases back by one', () => {
    let now = 1000;
    const d = new DroppedRequests(() => now);
    expect(d.retryAfter('pl')).toBe(1);
    // 3 drops in second 1000, then one in 1001: the previous second had >= 3*1 drops.
    for (let i = 0; i < 3; i++) d.record('pl');
    now = 1001;
    d.record('pl');
    expect(d.retryAfter('pl')).toBe(2);
    // Quiet for a while: one drop later sees fewer than retryAfter drops in its window.
    now = 1010;
    d.record('pl');
    expect(d.retryAfter('pl')).toBe(1);
    expect(d.retryAfter('other')).toBe(1);
  });
});
