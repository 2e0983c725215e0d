/**
 * How many seats a request takes (kube v1.32's work estimator, k8s.io/apiserver/pkg/util/
 * flowcontrol/request): the width of a request in API Priority and Fairness.
 *
 * - list (and, with the WatchList gate, a watch that asks for its initial events): one seat per
 *   100 objects it is expected to read, from the stored object counts; a list by name, a watch
 *   without initial events, or a resource not counted (an aggregated one) takes one seat; a
 *   stale count or a query that does not parse takes the maximum;
 * - create, update, patch, delete: one seat while it runs, then ceil(watchers / 10) seats for
 *   the time the watchers take to get the event (5 ms of one seat per 10 watchers, reshaped when
 *   the seats are capped), once at least 10 watchers are interested;
 * - anything else: one seat.
 * Seats are capped per priority level at max(1, min(ceil(15% of its nominal limit),
 * nominal limit / handSize)) and never above 10.
 */
import { queryBool, type ResourceRequestInfo } from '../request/request-info.ts';
import { groupResourceKey, type ObjectCount } from './object-counts.ts';

export const MINIMUM_SEATS = 1;
export const MAXIMUM_SEATS_LIMIT = 10;
export const OBJECTS_PER_SEAT = 100;
export const WATCHES_PER_SEAT = 10;
/** The time one seat is taken per 10 watchers after a write (kube's eventAdditionalDuration). */
export const EVENT_ADDITIONAL_MS = 5;
/** The share of a level's nominal limit one request may take at most. */
const LEVEL_MAX_SEATS_FRACTION = 0.15;

export interface WorkEstimate {
  /** Seats while the request runs. */
  readonly initialSeats: number;
  /** Seats after it has finished, for `additionalLatencyMs` (the watchers' share). */
  readonly finalSeats: number;
  readonly additionalLatencyMs: number;
}

export const ONE_SEAT: WorkEstimate = Object.freeze({ initialSeats: MINIMUM_SEATS, finalSeats: 0, additionalLatencyMs: 0 });

/** The seats a request holds from its start until it is fully done. */
export function maxSeatsOf(we: WorkEstimate): number {
  return Math.max(we.initialSeats, we.finalSeats);
}

/** kube's per-level cap on a request's seats, for a level with queues (0: no cap of its own). */
export function levelMaxSeats(nominalCL: number, handSize: number | undefined): number {
  if (handSize === undefined || handSize <= 0) return 0;
  return Math.max(1, Math.min(Math.ceil(nominalCL * LEVEL_MAX_SEATS_FRACTION), Math.trunc(nominalCL / handSize)));
}

export interface WorkEstimatorSources {
  /** The stored count of a group-resource (`configmaps`, `deployments.apps`). */
  objectCount(key: string): ObjectCount;
  /** Watchers a write may wake. */
  interestedWatchers(info: ResourceRequestInfo): number;
  /** WatchList: a watch with initial events costs as the list it starts with. */
  readonly watchList: boolean;
  /** A list without resourceVersion is served from the watch cache (ConsistentListFromCache with a store that can confirm progress). */
  readonly consistentListFromCache: boolean;
}

/** The request as the estimate sees it: its info, the name a field selector requires, its query. */
export interface EstimatedRequest {
  readonly info: ResourceRequestInfo;
  /** The name of the request, or for a list/watch the name its field selector requires ('' if none). */
  readonly name: string;
  readonly query: URLSearchParams;
}

/** Optional observer of the watcher counts of writes (apiserver_flowcontrol_watch_count_samples). */
export type WatchCountObserver = (watchers: number) => void;

export class WorkEstimator {
  constructor(private readonly sources: WorkEstimatorSources) {}

  /** The estimate of one request classified into a level whose own cap is `levelCap` (0: none). */
  estimate(req: EstimatedRequest, levelCap: number, observeWatchers?: WatchCountObserver): WorkEstimate {
    const maxSeats = levelCap === 0 || levelCap > MAXIMUM_SEATS_LIMIT ? MAXIMUM_SEATS_LIMIT : levelCap;
    switch (req.info.verb) {
      case 'list':
        return this.listEstimate(req, maxSeats);
      case 'watch':
        return this.sources.watchList ? this.listEstimate(req, maxSeats) : ONE_SEAT;
      case 'create':
      case 'update':
      case 'patch':
      case 'delete':
        return this.mutatingEstimate(req.info, maxSeats, observeWatchers);
      default:
        return ONE_SEAT;
    }
  }

  private listEstimate(req: EstimatedRequest, maxSeats: number): WorkEstimate {
    const { info, query } = req;
    // A list by name is a point read in storage.
    if (req.name !== '') return ONE_SEAT;
    const opts = listOptionsOf(query);
    // Destined to fail validation: as wide as it may be, as kube.
    if (!opts) return seats(maxSeats);
    if (info.verb === 'watch' && !opts.sendInitialEvents) return ONE_SEAT;
    const fromCache = info.verb === 'watch' || !this.listsFromStorage(opts);
    const counted = this.sources.objectCount(groupResourceKey(info.apiGroup, info.resource));
    // Stale counts mean a degraded store: assume the worst.
    if (counted === 'stale') return seats(maxSeats);
    // Unknown here: a typo, or an aggregated resource that another server pays for.
    if (counted === 'not-found') return ONE_SEAT;
    const stored = counted.count;
    const limit = opts.limit > 0 && opts.limit < stored ? opts.limit : stored;
    let objects: number;
    if (fromCache) objects = stored;
    else if (opts.fieldSelector !== '' || opts.labelSelector !== '') objects = stored + limit;
    else objects = 2 * limit;
    return seats(Math.min(Math.max(Math.ceil(objects / OBJECTS_PER_SEAT), MINIMUM_SEATS), maxSeats));
  }

  /** kube's shouldListFromStorage: consistent reads without the cache, continuations, exact matches. */
  private listsFromStorage(opts: ListOptions): boolean {
    const rv = opts.resourceVersion;
    const match = opts.resourceVersionMatch;
    const consistentFromStorage = rv === '' && !this.sources.consistentListFromCache;
    const legacyExactMatch = opts.limit > 0 && match === '' && rv !== '' && rv !== '0';
    const unsupportedMatch = (match !== '' && match !== 'NotOlderThan') || legacyExactMatch;
    return consistentFromStorage || opts.continue !== '' || unsupportedMatch;
  }

  private mutatingEstimate(info: ResourceRequestInfo, maxSeats: number, observeWatchers?: WatchCountObserver): WorkEstimate {
    // A service account token is made, not stored: no watcher hears of it.
    if (info.resource === 'serviceaccounts' && info.subresource === 'token') return ONE_SEAT;
    const watchers = this.sources.interestedWatchers(info);
    observeWatchers?.(watchers);
    if (watchers < WATCHES_PER_SEAT) return ONE_SEAT;
    const wanted = Math.ceil(watchers / WATCHES_PER_SEAT);
    // The work (seats x time) stays; capping the seats makes it last longer.
    const finalSeats = Math.min(wanted, maxSeats);
    return { initialSeats: 1, finalSeats, additionalLatencyMs: (wanted * EVENT_ADDITIONAL_MS) / finalSeats };
  }
}

function seats(n: number): WorkEstimate {
  return n === MINIMUM_SEATS ? ONE_SEAT : { initialSeats: n, finalSeats: 0, additionalLatencyMs: 0 };
}

interface ListOptions {
  readonly limit: number;
  readonly continue: string;
  readonly resourceVersion: string;
  readonly resourceVersionMatch: string;
  readonly fieldSelector: string;
  readonly labelSelector: string;
  readonly sendInitialEvents: boolean;
}

const INT64 = /^[+-]?\d+$/;

/** kube's conversion of the query to ListOptions; undefined where it fails (an integer that is not one). */
function listOptionsOf(query: URLSearchParams): ListOptions | undefined {
  const limitText = query.get('limit');
  const timeoutText = query.get('timeoutSeconds');
  if ((limitText !== null && !INT64.test(limitText)) || (timeoutText !== null && !INT64.test(timeoutText))) return undefined;
  const sendInitialEvents = query.get('sendInitialEvents');
  return {
    limit: limitText === null ? 0 : Number(limitText),
    continue: query.get('continue') ?? '',
    resourceVersion: query.get('resourceVersion') ?? '',
    resourceVersionMatch: query.get('resourceVersionMatch') ?? '',
    fieldSelector: query.get('fieldSelector') ?? '',
    labelSelector: query.get('labelSelector') ?? '',
    sendInitialEvents: sendInitialEvents !== null && queryBool(sendInitialEvents),
  };
}
