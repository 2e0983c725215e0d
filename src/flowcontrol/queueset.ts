/**
 * One priority level's queues and seats: kube's queueset (k8s.io/apiserver/pkg/util/flowcontrol/
 * fairqueuing/queueset), the fair queuing for server requests of API Priority and Fairness.
 *
 * - A flow (flow schema name + distinguisher) is hashed and shuffle-sharded: `handSize` queues
 *   are dealt from the `queues`, and the request joins the one of them with the least waiting
 *   work. A full queue (`queueLengthLimit`) rejects.
 * - Seats: a request's width is its work estimate (work-estimate.ts): initial seats while it
 *   runs, final seats for a while after (a write's watchers). It holds the larger of the two
 *   from its start until the final phase ends. The level may run requests while their seats fit
 *   its current concurrency limit; one wider than the limit runs when nothing else executes.
 * - Dispatch order is fair queuing in virtual time: R advances at
 *   min(seats wanted, limit) / active queues per second; each queue's next request may start at
 *   its queue's `nextDispatchR`, which grows by the request's work (initial seats x G, G = 3 ms
 *   estimated service time, plus final seats x the final phase) when it starts and is corrected
 *   by the actual service time when it ends. The queue whose head would finish first in R goes
 *   first, so a flow that sends much does not delay the others beyond its share.
 * - A level without queuing (limitResponse Reject) runs what fits and rejects the rest.
 * - A waiting request gives up after the wait limit (`time-out`) or when its client goes away
 *   (`cancelled`).
 */
import { createHash } from 'node:crypto';
import { maxSeatsOf, type WorkEstimate } from './work-estimate.ts';

/** kube's estimated service duration G of a request not yet finished. */
export const ESTIMATED_SERVICE_SECONDS = 0.003;

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export interface QueuingConfig {
  readonly queues: number;
  readonly handSize: number;
  readonly queueLengthLimit: number;
}

/**
 * A request that holds seats: `finish()` when it is done (idempotent). Its seats are free at
 * once, or after its final phase (`onSeatsReleased` is told when, with the seats freed).
 */
export interface Execution {
  /** The seats it holds: the larger of its initial and final seats. */
  readonly seats: number;
  /** How long it waited in a queue, in seconds (0 when dispatched at once). */
  readonly waitedSeconds: number;
  finish(onSeatsReleased?: (seats: number) => void): void;
}

export type StartOutcome =
  | { readonly kind: 'execute'; readonly execution: Execution }
  | { readonly kind: 'wait'; readonly queueIndex: number; readonly queueLength: number; readonly granted: Promise<Execution | RejectReason>; cancel(): void }
  | { readonly kind: 'reject'; readonly reason: RejectReason };

interface Waiting {
  readonly estimate: WorkEstimate;
  readonly seats: number;
  /** Its work in seat-seconds of virtual time. */
  readonly work: number;
  readonly arrivedMs: number;
  readonly flowSchema: string;
  readonly distinguisher: string;
  readonly queue: Queue;
  /** Set when dispatched. */
  execution?: Execution;
  settle(outcome: Execution | RejectReason): void;
  timer?: NodeJS.Timeout;
}

class Queue {
  readonly waiting: Waiting[] = [];
  nextDispatchR = 0;
  seatsInUse = 0;
  executing = 0;
  /** Seats and work of the waiting requests, kept as they come and go. */
  waitingSeats = 0;
  waitingWork = 0;
  constructor(readonly index: number) {}
}

/** A request's work in seat-seconds of virtual time: initial seats x G, plus its final phase. */
function workOf(we: WorkEstimate): number {
  return we.initialSeats * ESTIMATED_SERVICE_SECONDS + (we.finalSeats * we.additionalLatencyMs) / 1000;
}

/** kube's hashFlowID: the first 8 bytes, little-endian, of SHA-256(flowSchema NUL distinguisher). */
export function hashFlowId(flowSchema: string, distinguisher: string): bigint {
  const sum = createHash('sha256').update(flowSchema).update(Buffer.from([0])).update(distinguisher).digest();
  return sum.readBigUInt64LE(0);
}

/** kube's shufflesharding.Dealer.Deal: `handSize` distinct queue indices from `deckSize`, by the hash's mixed-radix digits. */
export function dealHand(hash: bigint, deckSize: number, handSize: number): number[] {
  const remainders: number[] = [];
  let h = hash;
  for (let i = 0; i < handSize; i++) {
    const radix = BigInt(deckSize - i);
    remainders.push(Number(h % radix));
    h /= radix;
  }
  const hand: number[] = [];
  for (let i = 0; i < handSize; i++) {
    let card = remainders[i]!;
    for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++;
    hand.push(card);
  }
  return hand;
}

export interface QueueSetCounters {
  dispatched: number;
  /** Times the fairest waiting request did not fit the free seats (kube's dispatch_with_no_accommodation). */
  noAccommodation: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
}

export class QueueSet {
  private queues: Queue[] = [];
  private limit: number;
  private queuing: QueuingConfig | undefined;
  private seatsInUseTotal = 0;
  private executingTotal = 0;
  private waitingTotal = 0;
  private currentR = 0;
  private lastRealMs: number;
  /** Enqueues so far: rotates where ties between queues of a hand are broken (kube's enqueues). */
  private enqueues = 0;
  /**
   * Hands by flow schema, then distinguisher: hashing and dealing cost BigInt arithmetic, and a
   * flow sends many requests. Two lookups by strings the request already holds (their hashes
   * kept), rather than a key string made and hashed for every request.
   */
  private readonly hands = new Map<string, Map<string, number[]>>();
  private handCount = 0;
  readonly counters: QueueSetCounters = { dispatched: 0, noAccommodation: 0, rejected: 0, timedOut: 0, cancelled: 0 };
  /** Called whenever seats in use or waiting change (demand tracking), with the time of the change. */
  onChange: ((nowMs: number) => void) | undefined;
  /** Called when the fairest waiting request does not fit the free seats, with its flow schema. */
  onNoAccommodation: ((flowSchema: string) => void) | undefined;

  constructor(
    limit: number,
    queuing: QueuingConfig | undefined,
    private readonly waitLimitMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.limit = limit;
    this.lastRealMs = now();
    this.configure(limit, queuing);
  }

  /** A new limit or queuing configuration; queued requests stay (queues dropped by a shrink keep theirs until they drain). */
  configure(limit: number, queuing: QueuingConfig | undefined): void {
    const now = this.syncTime();
    this.limit = limit;
    const sameShape = this.queuing && queuing && this.queuing.queues === queuing.queues && this.queuing.handSize === queuing.handSize;
    this.queuing = queuing;
    if (!sameShape) {
      this.hands.clear();
      this.handCount = 0;
      // Old queues with work stay in `active` and drain under their old index (kube lets them quiesce).
      this.queues = Array.from({ length: queuing?.queues ?? 0 }, (_, i) => new Queue(i));
    }
    this.dispatch(now);
  }

  /**
   * Queues with waiting or executing requests (old ones of a replaced configuration included):
   * the only ones virtual time and dispatch look at, so a request costs the same with 128 queues
   * as with 1.
   */
  private readonly active = new Set<Queue>();
  private waitingSeatsTotal = 0;

  get concurrencyLimit(): number {
    return this.limit;
  }
  get seatsInUse(): number {
    return this.seatsInUseTotal;
  }
  get executing(): number {
    return this.executingTotal;
  }
  get waiting(): number {
    return this.waitingTotal;
  }
  get waitingSeats(): number {
    return this.waitingSeatsTotal;
  }
  get virtualTime(): number {
    return this.currentR;
  }

  /** Every queue: the configured ones, then old ones still draining. */
  private *allQueues(): Iterable<Queue> {
    yield* this.queues;
    for (const q of this.active) if (this.queues[q.index] !== q) yield q;
  }

  /** Asks for seats for one request of the flow: its work estimate, or a plain number of seats. */
  start(flowSchema: string, distinguisher: string, width: WorkEstimate | number): StartOutcome {
    const now = this.syncTime();
    const estimate = typeof width === 'number' ? { initialSeats: width, finalSeats: 0, additionalLatencyMs: 0 } : width;
    const seats = maxSeatsOf(estimate);
    const queuing = this.queuing;
    if (!queuing) {
      if (this.fits(seats)) return { kind: 'execute', execution: this.begin(estimate, undefined, 0, now) };
      this.counters.rejected++;
      return { kind: 'reject', reason: 'concurrency-limit' };
    }
    const queue = this.chooseQueue(flowSchema, distinguisher, queuing);
    if (queue.waiting.length >= queuing.queueLengthLimit) {
      this.counters.rejected++;
      return { kind: 'reject', reason: 'queue-full' };
    }
    // An idle queue starts at the present virtual time: no credit for having been quiet.
    if (queue.waiting.length === 0 && queue.executing === 0) queue.nextDispatchR = this.currentR;
    // Nothing waits anywhere and the seats are free: the request would be the only candidate of
    // dispatch() and go at once. Its effect (the queue active, its R advanced by the request's
    // work, the seats taken) without a waiting entry, a promise or a timer.
    if (this.waitingTotal === 0 && this.fits(seats)) {
      this.active.add(queue);
      queue.nextDispatchR += workOf(estimate);
      return { kind: 'execute', execution: this.begin(estimate, queue, 0, now) };
    }
    let settle!: (o: Execution | RejectReason) => void;
    const granted = new Promise<Execution | RejectReason>((resolve) => (settle = resolve));
    let settled = false;
    const w: Waiting = {
      estimate,
      seats,
      work: workOf(estimate),
      arrivedMs: now,
      flowSchema,
      distinguisher,
      queue,
      settle: (o) => {
        if (settled) return;
        settled = true;
        if (w.timer) clearTimeout(w.timer);
        settle(o);
      },
    };
    queue.waiting.push(w);
    queue.waitingSeats += seats;
    queue.waitingWork += w.work;
    this.waitingSeatsTotal += seats;
    this.active.add(queue);
    this.waitingTotal++;
    const queueLength = queue.waiting.length;
    this.dispatch(now);
    // Dispatched at once: hand the execution over synchronously.
    if (w.execution) return { kind: 'execute', execution: w.execution };
    w.timer = setTimeout(() => this.giveUp(w, 'time-out'), this.waitLimitMs);
    w.timer.unref?.();
    this.onChange?.(now);
    return { kind: 'wait', queueIndex: queue.index, queueLength, granted, cancel: () => this.giveUp(w, 'cancelled') };
  }

  private giveUp(w: Waiting, reason: 'time-out' | 'cancelled'): void {
    const i = w.queue.waiting.indexOf(w);
    if (i < 0) return;
    const now = this.syncTime();
    w.queue.waiting.splice(i, 1);
    w.queue.waitingSeats -= w.seats;
    w.queue.waitingWork -= w.work;
    this.waitingSeatsTotal -= w.seats;
    if (w.queue.waiting.length === 0 && w.queue.executing === 0 && w.queue.seatsInUse === 0) this.active.delete(w.queue);
    this.waitingTotal--;
    if (reason === 'time-out') this.counters.timedOut++;
    else this.counters.cancelled++;
    w.settle(reason);
    this.onChange?.(now);
  }

  private chooseQueue(flowSchema: string, distinguisher: string, queuing: QueuingConfig): Queue {
    let byDistinguisher = this.hands.get(flowSchema);
    let hand = byDistinguisher?.get(distinguisher);
    if (!hand) {
      hand = dealHand(hashFlowId(flowSchema, distinguisher), queuing.queues, queuing.handSize);
      if (this.handCount >= 10_000) {
        this.hands.clear();
        this.handCount = 0;
        byDistinguisher = undefined;
      }
      if (!byDistinguisher) this.hands.set(flowSchema, (byDistinguisher = new Map()));
      byDistinguisher.set(distinguisher, hand);
      this.handCount++;
    }
    // The queue of the hand with the least waiting work; ties go to the first such from an
    // offset that moves with every enqueue, as kube's.
    const offset = this.enqueues++ % hand.length;
    let best = this.queues[hand[offset]!]!;
    let bestWork = Infinity;
    for (let k = 0; k < hand.length; k++) {
      const q = this.queues[hand[(offset + k) % hand.length]!]!;
      if (q.waitingWork < bestWork) {
        best = q;
        bestWork = q.waitingWork;
      }
    }
    return best;
  }

  /** kube's canAccommodateSeats: within the limit, or wider than it with nothing executing. */
  private fits(seats: number): boolean {
    if (seats > this.limit) return this.executingTotal === 0;
    return this.seatsInUseTotal + seats <= this.limit;
  }

  /** Advances R to now at the rate of the state that held since the last change; returns now (ms), the time of the change. */
  private syncTime(): number {
    const now = this.now();
    const dt = (now - this.lastRealMs) / 1000;
    this.lastRealMs = now;
    if (dt <= 0) return now;
    const active = this.active.size;
    const seatsWanted = this.seatsInUseTotal + this.waitingSeatsTotal;
    if (active > 0) this.currentR += (dt * Math.min(seatsWanted, this.limit)) / active;
    return now;
  }

  /** Starts waiting requests, the one that would finish first in R first, while their seats fit (`now`: the time R was synced to). */
  private dispatch(now: number): void {
    for (;;) {
      let best: Queue | undefined;
      let bestFinishR = Infinity;
      for (const q of this.active) {
        if (q.waiting.length === 0) continue;
        const finishR = q.nextDispatchR + q.waiting[0]!.work;
        if (finishR < bestFinishR) {
          best = q;
          bestFinishR = finishR;
        }
      }
      if (!best) return;
      const head = best.waiting[0]!;
      // The fairest request waits for its seats; nothing jumps ahead of it.
      if (!this.fits(head.seats)) {
        this.counters.noAccommodation++;
        this.onNoAccommodation?.(head.flowSchema);
        return;
      }
      best.waiting.shift();
      best.waitingSeats -= head.seats;
      best.waitingWork -= head.work;
      this.waitingSeatsTotal -= head.seats;
      this.waitingTotal--;
      best.nextDispatchR += head.work;
      const execution = this.begin(head.estimate, best, (now - head.arrivedMs) / 1000, now);
      head.execution = execution;
      head.settle(execution);
    }
  }

  private begin(estimate: WorkEstimate, queue: Queue | undefined, waitedSeconds: number, now: number): Execution {
    const seats = maxSeatsOf(estimate);
    this.seatsInUseTotal += seats;
    this.executingTotal++;
    this.counters.dispatched++;
    if (queue) {
      queue.seatsInUse += seats;
      queue.executing++;
    }
    this.onChange?.(now);
    return new SeatGrant(this, estimate, queue, seats, waitedSeconds, now);
  }

  /** A request's execution ended: its initial phase is over (called once per grant, by SeatGrant). */
  finished(grant: SeatGrant): void {
    const now = this.syncTime();
    this.executingTotal--;
    const queue = grant.queue;
    if (queue) {
      queue.executing--;
      // Correct the estimate G of the initial phase by what the request really took.
      const actual = (now - grant.startedMs) / 1000;
      queue.nextDispatchR -= grant.estimate.initialSeats * (ESTIMATED_SERVICE_SECONDS - actual);
    }
  }

  /** A request's seats are free again (after its final phase): what waits may go. */
  released(grant: SeatGrant, onSeatsReleased: ((seats: number) => void) | undefined): void {
    const now = this.syncTime();
    this.seatsInUseTotal -= grant.seats;
    const queue = grant.queue;
    if (queue) {
      queue.seatsInUse -= grant.seats;
      if (queue.executing === 0 && queue.seatsInUse === 0 && queue.waiting.length === 0) this.active.delete(queue);
    }
    onSeatsReleased?.(grant.seats);
    this.dispatch(now);
    this.onChange?.(now);
  }

  /** Rows of dump_queues: one per queue. */
  queueRows(): { index: number; pending: number; executing: number; seatsInUse: number; nextDispatchR: number; initialSeatsSum: number; maxSeatsSum: number; totalWorkSum: number }[] {
    return this.queues.map((q) => ({
      index: q.index,
      pending: q.waiting.length,
      executing: q.executing,
      seatsInUse: q.seatsInUse,
      nextDispatchR: q.nextDispatchR,
      initialSeatsSum: q.waiting.reduce((n, w) => n + w.estimate.initialSeats, 0),
      maxSeatsSum: q.waitingSeats,
      totalWorkSum: q.waitingWork,
    }));
  }

  /** Queues with waiting or executing requests. */
  get activeQueues(): number {
    return this.active.size;
  }

  /** Waiting requests (dump_requests). */
  waitingRows(): { queueIndex: number; indexInQueue: number; flowSchema: string; distinguisher: string; arrivedMs: number; estimate: WorkEstimate }[] {
    const rows: ReturnType<QueueSet['waitingRows']> = [];
    for (const q of this.allQueues()) q.waiting.forEach((w, i) => rows.push({ queueIndex: q.index, indexInQueue: i, flowSchema: w.flowSchema, distinguisher: w.distinguisher, arrivedMs: w.arrivedMs, estimate: w.estimate }));
    return rows;
  }
}

/** One dispatched request's seats (an object with methods rather than closures: one per request). */
class SeatGrant implements Execution {
  private done = false;
  private onSeatsReleased: ((seats: number) => void) | undefined;

  constructor(
    private readonly set: QueueSet,
    readonly estimate: WorkEstimate,
    readonly queue: Queue | undefined,
    readonly seats: number,
    readonly waitedSeconds: number,
    readonly startedMs: number,
  ) {}

  finish(onSeatsReleased?: (seats: number) => void): void {
    if (this.done) return;
    this.done = true;
    this.set.finished(this);
    this.onSeatsReleased = onSeatsReleased;
    // The final phase (the watchers' share of a write) keeps the seats a while longer; the
    // client has its answer already.
    if (this.estimate.additionalLatencyMs > 0) setTimeout(() => this.release(), this.estimate.additionalLatencyMs).unref?.();
    else this.release();
  }

  private release(): void {
    // The caller hears of the freed seats before the queue set dispatches what waits.
    this.set.released(this, this.onSeatsReleased);
  }
}
