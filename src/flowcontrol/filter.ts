/**
 * The API Priority and Fairness filter of the front door (kube's WithPriorityAndFairness), after
 * authentication and impersonation, before authorization:
 *
 * - every request is classified and answered with the `X-Kubernetes-PF-FlowSchema-UID` and
 *   `X-Kubernetes-PF-PriorityLevel-UID` headers;
 * - exempt levels run at once; Limited levels run when a seat is free, or wait in their queues;
 *   a request that cannot wait gets kube's plain-text 429 with Retry-After (adapted per level by
 *   how many were dropped lately, kube's droppedRequestsTracker);
 * - a request takes the seats of its work estimate (work-estimate.ts): wide lists and writes
 *   with many watchers take more than one;
 * - a watch holds its seats only until its initial events are written (its "initialization"),
 *   and is counted among the watchers of its resource until it ends.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { flowDistinguisher } from './classify.ts';
import type { FlowControl, Level } from './controller.ts';
import type { Execution, RejectReason, StartOutcome } from './queueset.ts';
import { selectedName } from '../authz/authorizer.ts';
import type { WatchCountTracker } from './watch-tracker.ts';
import { maxSeatsOf, ONE_SEAT, type WorkEstimate, type WorkEstimator } from './work-estimate.ts';
import { isLongRunning } from '../request/long-running.ts';
import { onResponseEnd } from '../request/response-end.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the APF filter on a watch: the watch handler calls it once its initial events are written. */
    watchInitialized?: () => void;
  }
}

const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const QUEUE_LENGTH_BUCKETS = [0, 10, 25, 50, 100, 250, 500, 1000];
// kube: the seats of one request are at most 10.
const ESTIMATED_SEATS_BUCKETS = [1, 2, 4, 10];
const WATCH_COUNT_BUCKETS = [0, 1, 10, 100, 1000, 10000];
const MAX_RETRY_AFTER = 32;

/** kube's droppedRequestsStats: Retry-After per level, doubled under sustained drops and eased back after. */
export class DroppedRequests {
  private readonly levels = new Map<string, { history: { unix: number; n: number }[]; currentUnix: number; count: number; retryAfter: number; updatedUnix: number }>();
  constructor(private readonly nowUnix: () => number = () => Math.floor(Date.now() / 1000)) {}

  record(level: string): void {
    const unix = this.nowUnix();
    let s = this.levels.get(level);
    if (!s) this.levels.set(level, (s = { history: [], currentUnix: 0, count: 0, retryAfter: 1, updatedUnix: 0 }));
    if (s.currentUnix === unix) {
      s.count++;
      return;
    }
    s.history.push({ unix: s.currentUnix, n: s.count });
    s.history = s.history.filter((h) => s!.currentUnix - h.unix <= MAX_RETRY_AFTER);
    s.currentUnix = unix;
    s.count = 1;
    let dropped = 0;
    for (let i = s.history.length - 1; i >= 0; i--) {
      const h = s.history[i]!;
      if (unix - h.unix > s.retryAfter) break;
      if (h.unix < unix) dropped += h.n;
    }
    if (unix - s.updatedUnix >= s.retryAfter && dropped >= 3 * s.retryAfter) {
      s.retryAfter = Math.min(s.retryAfter * 2, MAX_RETRY_AFTER);
      s.updatedUnix = unix;
    } else if (dropped < s.retryAfter && s.retryAfter > 1) s.retryAfter--;
  }

  retryAfter(level: string): number {
    return this.levels.get(level)?.retryAfter ?? 1;
  }
}

/** The series of one flow schema and priority level a dispatched request touches, found once per pair. */
interface FlowSeries {
  readonly dispatched: { inc(by?: number): void };
  readonly executing: { inc(by?: number): void };
  readonly seats: { inc(by?: number): void };
  readonly estimated: { observe(v: number): void };
  readonly waitedExecuted: { observe(v: number): void };
  /** Takes freed seats off the executing seats (one function per pair, handed to every execution's finish). */
  readonly seatsReleased: (seats: number) => void;
}

interface FlowMetrics {
  /** The hot series of the pair: a request's dispatch, execution, seats and estimate. */
  series(fs: string, pl: string): FlowSeries;
  rejected(fs: string, pl: string, reason: RejectReason): void;
  waited(fs: string, pl: string, executed: boolean, seconds: number): void;
  enqueued(fs: string, pl: string, queueLength: number): void;
  inqueue(fs: string, pl: string, delta: number): void;
  watchCount(fs: string, pl: string, watchers: number): void;
  noAccommodation(fs: string, pl: string): void;
}

function registerMetrics(registry: MetricsRegistry, fc: FlowControl): FlowMetrics {
  const fsPl = ['flow_schema', 'priority_level'];
  const dispatched = registry.counter({ name: 'apiserver_flowcontrol_dispatched_requests_total', help: 'Number of requests executed by API Priority and Fairness subsystem', labels: fsPl, stability: 'BETA' });
  const rejected = registry.counter({ name: 'apiserver_flowcontrol_rejected_requests_total', help: 'Number of requests rejected by API Priority and Fairness subsystem', labels: [...fsPl, 'reason'], stability: 'BETA' });
  const wait = registry.histogram({ name: 'apiserver_flowcontrol_request_wait_duration_seconds', help: 'Length of time a request spent waiting in its queue', labels: ['execute', ...fsPl], buckets: WAIT_BUCKETS, stability: 'BETA' });
  const queueLength = registry.histogram({
    name: 'apiserver_flowcontrol_request_queue_length_after_enqueue',
    help: 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued',
    labels: fsPl,
    buckets: QUEUE_LENGTH_BUCKETS,
  });
  const inqueue = registry.gauge({ name: 'apiserver_flowcontrol_current_inqueue_requests', help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem', labels: fsPl, stability: 'BETA' });
  const executingRequests = registry.gauge({
    name: 'apiserver_flowcontrol_current_executing_requests',
    help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
    labels: fsPl,
    stability: 'BETA',
  });
  const executingSeats = registry.gauge({
    name: 'apiserver_flowcontrol_current_executing_seats',
    help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
    labels: fsPl,
    stability: 'BETA',
  });
  const estimatedSeats = registry.histogram({
    name: 'apiserver_flowcontrol_work_estimated_seats',
    help: 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness',
    labels: ['priority_level', 'flow_schema'],
    buckets: ESTIMATED_SEATS_BUCKETS,
  });
  const watchCounts = registry.histogram({
    name: 'apiserver_flowcontrol_watch_count_samples',
    help: 'count of watchers for mutating requests in API Priority and Fairness',
    labels: ['priority_level', 'flow_schema'],
    buckets: WATCH_COUNT_BUCKETS,
  });
  const noAccommodation = registry.counter({
    name: 'apiserver_flowcontrol_request_dispatch_no_accommodation_total',
    help: 'Number of times a dispatch attempt resulted in a non accommodation due to lack of available seats',
    labels: ['priority_level', 'flow_schema'],
  });
  const perLevel = (name: string, help: string, value: (l: Level) => number, stability: 'ALPHA' | 'BETA' = 'ALPHA') =>
    registry.collector({ name, help, type: 'gauge', stability, collect: () => fc.priorityLevels.map((l) => ({ labels: { priority_level: l.name }, value: value(l) })) });
  perLevel('apiserver_flowcontrol_nominal_limit_seats', 'Nominal number of execution seats configured for each priority level', (l) => l.limits.nominalCL, 'BETA');
  perLevel('apiserver_flowcontrol_current_limit_seats', 'current derived number of execution seats available to each priority level', (l) => (l.exempt ? l.exemptExecuting : l.currentCL));
  perLevel('apiserver_flowcontrol_lower_limit_seats', 'Configured lower bound on number of execution seats available to each priority level', (l) => l.limits.minCL);
  perLevel('apiserver_flowcontrol_upper_limit_seats', 'Configured upper bound on number of execution seats available to each priority level', (l) => l.limits.maxCL);
  perLevel('apiserver_flowcontrol_target_seats', 'Seat allocation targets', (l) => l.target);
  perLevel('apiserver_flowcontrol_demand_seats_smoothed', 'Smoothed seat demands', (l) => l.demand.smoothed);
  perLevel('apiserver_flowcontrol_current_r', 'R(time of last change)', (l) => l.queueSet.virtualTime);
  registry.collector({ name: 'apiserver_flowcontrol_seat_fair_frac', help: "Fair fraction of server's concurrency to allocate to each priority level that can use it", type: 'gauge', collect: () => [{ value: fc.fairFrac }] });
  const bySchema = new Map<string, Map<string, FlowSeries>>();
  const series = (fs: string, pl: string): FlowSeries => {
    let byLevel = bySchema.get(fs);
    if (!byLevel) bySchema.set(fs, (byLevel = new Map()));
    let out = byLevel.get(pl);
    if (!out) {
      const seats = executingSeats.labels(fs, pl);
      out = {
        dispatched: dispatched.labels(fs, pl),
        executing: executingRequests.labels(fs, pl),
        seats,
        estimated: estimatedSeats.labels(pl, fs),
        waitedExecuted: wait.labels('true', fs, pl),
        seatsReleased: (n) => seats.inc(-n),
      };
      byLevel.set(pl, out);
    }
    return out;
  };
  return {
    series,
    rejected: (fs, pl, reason) => rejected.labels(fs, pl, reason).inc(),
    waited: (fs, pl, executed, s) => wait.labels(String(executed), fs, pl).observe(s),
    enqueued: (fs, pl, n) => queueLength.labels(fs, pl).observe(n),
    inqueue: (fs, pl, d) => inqueue.labels(fs, pl).inc(d),
    watchCount: (fs, pl, n) => watchCounts.labels(pl, fs).observe(n),
    noAccommodation: (fs, pl) => noAccommodation.labels(pl, fs).inc(),
  };
}

const noSeries: FlowSeries = { dispatched: { inc() {} }, executing: { inc() {} }, seats: { inc() {} }, estimated: { observe() {} }, waitedExecuted: { observe() {} }, seatsReleased() {} };
const noMetrics: FlowMetrics = { series: () => noSeries, rejected() {}, waited() {}, enqueued() {}, inqueue() {}, watchCount() {}, noAccommodation() {} };


/** kube's tooManyRequests: http.Error's plain text, with Retry-After. */
function sendTooManyRequests(reply: FastifyReply, retryAfter: number): FastifyReply {
  return reply
    .code(429)
    .header('retry-after', String(retryAfter))
    .header('content-type', 'text/plain; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .send('Too many requests, please try again later.\n');
}

/** kube's in-flight gauges (apiserver_current_inflight_requests), which APF keeps too: a request counts from its admission to its response's end. */
export interface InflightCounter {
  enter(mutating: boolean): void;
  leave(mutating: boolean): void;
}

export interface ApfFilterOptions {
  readonly inflight?: InflightCounter;
  readonly metrics?: MetricsRegistry;
  /** The work estimator; absent, every request takes one seat. */
  readonly estimator?: WorkEstimator;
  /** Where executing watches are counted (for the estimates of writes). */
  readonly watches?: WatchCountTracker;
}

/**
 * What admit() decided: undefined, go on at once; ANSWERED, refused with a 429 already sent; a
 * promise, queued: it resolves true when the request may go on, false when it was answered or
 * its client has gone.
 */
export type Admission = undefined | typeof ANSWERED | Promise<boolean>;
export const ANSWERED = 'answered';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class ApfFilter {
  readonly dropped = new DroppedRequests();
  private readonly metrics: FlowMetrics;

  constructor(
    readonly flowControl: FlowControl,
    private readonly opts: ApfFilterOptions = {},
  ) {
    this.metrics = opts.metrics ? registerMetrics(opts.metrics, flowControl) : noMetrics;
  }

  /**
   * The filter: sets the request's headers and lets it go on when a seat is free (synchronously:
   * no promise on the path of a request that does not wait), queues it, or answers 429 itself.
   */
  admit(req: FastifyRequest, reply: FastifyReply): Admission {
    const info = req.requestInfo;
    const isWatch = info.isResourceRequest && info.verb === 'watch';
    // kube's WithPriorityAndFairness serves other long-running requests (exec, attach, log,
    // port-forward, proxy) untracked: no classification, no seat, no in-flight count.
    if (!isWatch && isLongRunning(info)) return undefined;
    const { schema, level } = this.flowControl.classify(req.user, info);
    // Fastify's headers, not the raw response's: a response without raw headers is written by
    // Node's fast writeHead path (the watch handler writes them itself, as it does the others).
    reply.header('x-kubernetes-pf-flowschema-uid', schema.uid);
    reply.header('x-kubernetes-pf-prioritylevel-uid', level.uid);
    const fs = schema.name;
    const pl = level.name;
    // Watches are long-running: kube's in-flight figures leave them out, as the plain limits do.
    const inflight = isWatch ? undefined : this.opts.inflight;
    const mutating = MUTATING.has(req.method);
    inflight?.enter(mutating);
    // kube's RequestInfo names the object a list or watch selects by metadata.name.
    const name = info.isResourceRequest ? info.name || (info.verb === 'list' || info.verb === 'watch' ? selectedName(req.searchParams) : '') : '';
    const estimate = this.estimate(req, name, fs, pl, level.maxSeats);
    const seats = maxSeatsOf(estimate);
    const series = this.metrics.series(fs, pl);
    series.estimated.observe(seats);
    if (level.exempt) {
      level.exemptExecuting++;
      level.exemptDispatched++;
      series.dispatched.inc();
      series.executing.inc(1);
      series.seats.inc(seats);
      this.watchStarted(req, reply, name, isWatch);
      // One piece of end work per request: the in-flight count goes with the seat.
      this.hold(req, reply, isWatch, () => {
        inflight?.leave(mutating);
        level.exemptExecuting--;
        series.executing.inc(-1);
        if (estimate.additionalLatencyMs > 0) setTimeout(() => series.seats.inc(-seats), estimate.additionalLatencyMs).unref?.();
        else series.seats.inc(-seats);
      });
      return undefined;
    }
    level.queueSet.onNoAccommodation ??= (waitingFs) => this.metrics.noAccommodation(waitingFs, pl);
    const outcome = level.queueSet.start(fs, flowDistinguisher(schema.distinguisherMethod, req.user, info), estimate);
    if (outcome.kind === 'execute') {
      this.execute(req, reply, series, outcome.execution, name, isWatch, inflight, mutating);
      return undefined;
    }
    // Refused or queued: counted in flight until the response ends, whatever comes of it.
    if (inflight) onResponseEnd(reply.raw, () => inflight.leave(mutating));
    if (outcome.kind === 'reject') {
      this.reject(reply, fs, pl, outcome.reason);
      return ANSWERED;
    }
    return this.waitForSeat(req, reply, outcome, fs, pl, series, name, isWatch);
  }

  private async waitForSeat(req: FastifyRequest, reply: FastifyReply, outcome: Extract<StartOutcome, { kind: 'wait' }>, fs: string, pl: string, series: FlowSeries, name: string, isWatch: boolean): Promise<boolean> {
    this.metrics.enqueued(fs, pl, outcome.queueLength);
    this.metrics.inqueue(fs, pl, 1);
    // A client that goes away while waiting leaves the queue.
    const onClose = () => outcome.cancel();
    req.raw.once('close', onClose);
    const granted = await outcome.granted;
    req.raw.off('close', onClose);
    this.metrics.inqueue(fs, pl, -1);
    if (typeof granted === 'string') {
      this.metrics.waited(fs, pl, false, 0);
      this.reject(reply, fs, pl, granted);
      return false;
    }
    // The client may have gone between the grant and now.
    if (req.raw.destroyed) {
      granted.finish();
      return false;
    }
    this.execute(req, reply, series, granted, name, isWatch, undefined, false);
    return true;
  }

  /** A request with its seats: counted as executing until its response ends (a watch: until initialized). */
  private execute(req: FastifyRequest, reply: FastifyReply, series: FlowSeries, execution: Execution, name: string, isWatch: boolean, inflight: InflightCounter | undefined, mutating: boolean): void {
    series.waitedExecuted.observe(execution.waitedSeconds);
    series.dispatched.inc();
    series.executing.inc(1);
    series.seats.inc(execution.seats);
    this.watchStarted(req, reply, name, isWatch);
    this.hold(req, reply, isWatch, () => {
      inflight?.leave(mutating);
      series.executing.inc(-1);
      execution.finish(series.seatsReleased);
    });
  }

  private estimate(req: FastifyRequest, name: string, fs: string, pl: string, levelMaxSeats: number): WorkEstimate {
    const info = req.requestInfo;
    if (!this.opts.estimator || !info.isResourceRequest) return ONE_SEAT;
    return this.opts.estimator.estimate({ info, name, query: req.searchParams }, levelMaxSeats, (n) => this.metrics.watchCount(fs, pl, n));
  }

  /** An executing watch counts among its resource's watchers until its response ends (kube's RegisterWatch). */
  private watchStarted(req: FastifyRequest, reply: FastifyReply, name: string, isWatch: boolean): void {
    const info = req.requestInfo;
    if (!isWatch || !this.opts.watches || !info.isResourceRequest) return;
    onResponseEnd(reply.raw, this.opts.watches.register(info, name, req.searchParams));
  }

  /** Keeps the seat until the response ends, or for a watch until its initial events are out. */
  private hold(req: FastifyRequest, reply: FastifyReply, isWatch: boolean, release: () => void): void {
    // onResponseEnd runs it once already; a watch may release earlier, at its initialization.
    if (!isWatch) return onResponseEnd(reply.raw, release);
    // Dropped once run: a watch lives on long after its seat is back, and must not keep the
    // execution it held.
    let pending: (() => void) | undefined = release;
    const once = () => {
      const run = pending;
      pending = undefined;
      run?.();
    };
    req.watchInitialized = once;
    onResponseEnd(reply.raw, once);
  }

  private reject(reply: FastifyReply, fs: string, pl: string, reason: RejectReason): FastifyReply {
    this.metrics.rejected(fs, pl, reason);
    // A client that went away was not dropped by us (its answer goes nowhere).
    if (reason !== 'cancelled') this.dropped.record(pl);
    return sendTooManyRequests(reply, this.dropped.retryAfter(pl));
  }
}
