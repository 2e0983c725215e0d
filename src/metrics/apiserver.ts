/**
 * kube-apiserver's request metrics (k8s.io/apiserver/pkg/endpoints/metrics), with kube's names,
 * help texts, label sets and buckets, so dashboards and alerts written for kube-apiserver work:
 * apiserver_request_total, apiserver_request_duration_seconds, apiserver_current_inflight_requests
 * and apiserver_storage_objects.
 *
 * What is recorded follows kube's instrumentation: every request that reached a resource route
 * (go-restful's InstrumentRouteFunc), plus the health roots and the `/api`, `/apis` discovery
 * roots, which kube instruments by path. Requests refused before routing (401, 403, 429) are not.
 */
import type { MetricsRegistry, Sample } from './registry.ts';

/** kube's responseSizes buckets: ExponentialBuckets(1000, 10, 8). */
const RESPONSE_SIZE_BUCKETS: readonly number[] = [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];
/** kube's watchEventsSizes buckets: ExponentialBuckets(1024, 2, 8). */
const WATCH_EVENT_SIZE_BUCKETS: readonly number[] = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
/** The authentication and authorization duration buckets: ExponentialBuckets(0.001, 2, 15). */
const AUTH_DURATION_BUCKETS: readonly number[] = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

/** kube's requestLatencies buckets (seconds). */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** What a routed resource request tells the metrics: the route's resource and the request's verb. */
export interface ResourceTarget {
  readonly isResourceRequest: true;
  /** The request info's verb (`create`, `list`, `watch`, ...). */
  readonly verb: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** A non-resource path kube instruments, with its component and the path it reports as subresource. */
export interface NonResourceTarget {
  readonly isResourceRequest: false;
  readonly component: string;
  readonly subresource: string;
}

export type RequestTarget = ResourceTarget | NonResourceTarget;

/** The non-resource paths kube instruments, as it labels them. */
const NON_RESOURCE_TARGETS: ReadonlyMap<string, NonResourceTarget> = new Map<string, NonResourceTarget>([
  ['/healthz', { isResourceRequest: false, component: '', subresource: '/healthz' }],
  ['/livez', { isResourceRequest: false, component: '', subresource: '/livez' }],
  ['/readyz', { isResourceRequest: false, component: '', subresource: '/readyz' }],
  ['/api', { isResourceRequest: false, component: 'apiserver', subresource: 'api' }],
  ['/apis', { isResourceRequest: false, component: 'apiserver', subresource: 'apis' }],
]);

/** The instrumented non-resource path `path` is, or undefined. */
export function nonResourceTarget(path: string): NonResourceTarget | undefined {
  return NON_RESOURCE_TARGETS.get(path);
}

export interface ApiServerMetricSources {
  /** In-flight requests held by the max-in-flight gate now, and the most since the last call. */
  readonly inflight: () => { readonly readOnly: number; readonly mutating: number };
  /** Stored objects per resource (`configmaps`, `leases.coordination.k8s.io`); -1 when a count failed. */
  readonly storageObjects: () => Promise<readonly Sample[]>;
}

const codeStrings: string[] = [];
function codeString(code: number): string {
  return (codeStrings[code] ??= String(code));
}

export class ApiServerMetrics {
  private readonly requests;
  private readonly durations;
  private readonly deprecated;
  private readonly responseSizes;
  private readonly longRunning;
  private readonly watchEvents;
  private readonly watchEventSizes;
  private readonly authnAttempts;
  private readonly authnDurations;
  private readonly authzAttempts;
  private readonly authzDurations;

  constructor(registry: MetricsRegistry, sources: ApiServerMetricSources) {
    this.requests = registry.counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labels: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
      stability: 'STABLE',
    });
    this.durations = registry.histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labels: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: REQUEST_DURATION_BUCKETS,
      stability: 'STABLE',
    });
    this.responseSizes = registry.histogram({
      name: 'apiserver_response_sizes',
      help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
      labels: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: RESPONSE_SIZE_BUCKETS,
      stability: 'STABLE',
    });
    this.longRunning = registry.gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labels: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      stability: 'STABLE',
    });
    this.watchEvents = registry.counter({ name: 'apiserver_watch_events_total', help: 'Number of events sent in watch clients', labels: ['group', 'version', 'kind'] });
    this.watchEventSizes = registry.histogram({
      name: 'apiserver_watch_events_sizes',
      help: 'Watch event size distribution in bytes',
      labels: ['group', 'version', 'kind'],
      buckets: WATCH_EVENT_SIZE_BUCKETS,
    });
    this.authnAttempts = registry.counter({ name: 'authentication_attempts', help: 'Counter of authenticated attempts.', labels: ['result'] });
    this.authnDurations = registry.histogram({
      name: 'authentication_duration_seconds',
      help: 'Authentication duration in seconds broken out by result.',
      labels: ['result'],
      buckets: AUTH_DURATION_BUCKETS,
    });
    this.authzAttempts = registry.counter({
      name: 'authorization_attempts_total',
      help: "Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
      labels: ['result'],
    });
    this.authzDurations = registry.histogram({
      name: 'authorization_duration_seconds',
      help: 'Authorization duration in seconds broken out by result.',
      labels: ['result'],
      buckets: AUTH_DURATION_BUCKETS,
    });
    // Declarative validation (gate DeclarativeValidation): no served kind has declarative rules yet, so these stay 0.
    for (const [name, help] of [
      ['apiserver_validation_declarative_validation_mismatch_total', 'Number of times declarative validation results differed from handwritten validation results for core types.'],
      ['apiserver_validation_declarative_validation_panic_total', 'Number of times declarative validation has panicked during validation.'],
    ] as const) {
      registry.counter({ name, help, stability: 'BETA' }).labels();
    }
    this.deprecated = registry.gauge({
      name: 'apiserver_requested_deprecated_apis',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      labels: ['group', 'version', 'resource', 'subresource', 'removed_release'],
      stability: 'STABLE',
    });
    registry.collector({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      type: 'gauge',
      stability: 'STABLE',
      collect: () => {
        const n = sources.inflight();
        return [
          { labels: { request_kind: 'mutating' }, value: n.mutating },
          { labels: { request_kind: 'readOnly' }, value: n.readOnly },
        ];
      },
    });
    registry.collector({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      type: 'gauge',
      stability: 'STABLE',
      collect: sources.storageObjects,
    });
  }

  /** One authentication: `success`, `failure` (rejected credentials) or `error`. */
  authenticated(result: 'success' | 'failure' | 'error', seconds: number): void {
    this.authnAttempts.labels(result).inc();
    this.authnDurations.labels(result).observe(seconds);
  }

  /** One authorization decision: `allowed`, `denied`, `no-opinion` or `error`. */
  authorized(result: 'allowed' | 'denied' | 'no-opinion' | 'error', seconds: number): void {
    this.authzAttempts.labels(result).inc();
    this.authzDurations.labels(result).observe(seconds);
  }

  /** A long-running request (a watch) starts; the returned function ends it. */
  longRunningStarted(target: ResourceTarget): () => void {
    const scope = scopeOf(target);
    const key = `${target.apiGroup}/${target.apiVersion}/${target.resource}/${target.subresource}/${scope}`;
    let series = this.longRunningDone.get(key);
    if (series === undefined) {
      const g = this.longRunning.labels('WATCH', target.apiGroup, target.apiVersion, target.resource, target.subresource, scope, 'apiserver');
      series = { gauge: g, done: () => g.dec() };
      this.longRunningDone.set(key, series);
    }
    series.gauge.inc();
    return series.done;
  }

  /**
   * The end of a long-running request, per series: one function that every watch of the series
   * holds (a thousand idle watchers hold one, not a thousand closures).
   */
  private readonly longRunningDone = new Map<string, { readonly gauge: { inc(): void }; readonly done: () => void }>();
  /** The recorder of a kind's watch events, shared by its watches. */
  private readonly eventRecorders = new Map<string, (bytes: number) => void>();

  /** The recorder of one watch's events (children resolved once per kind). */
  watchEventRecorder(group: string, version: string, kind: string): (bytes: number) => void {
    const key = `${group}/${version}/${kind}`;
    let recorder = this.eventRecorders.get(key);
    if (recorder === undefined) {
      const total = this.watchEvents.labels(group, version, kind);
      const sizes = this.watchEventSizes.labels(group, version, kind);
      recorder = (bytes) => {
        total.inc();
        sizes.observe(bytes);
      };
      this.eventRecorders.set(key, recorder);
    }
    return recorder;
  }

  /** A request reached a deprecated version (kube sets the gauge to 1 for it). */
  deprecatedRequested(group: string, version: string, resource: string, subresource: string, removedRelease: string): void {
    this.deprecated.labels(group, version, resource, subresource, removedRelease).set(1);
  }

  /**
   * Records one finished request (kube's MonitorRequest). Allocates nothing once its children
   * exist, unless the URL mentions dryRun.
   */
  observe(target: RequestTarget, method: string, contentType: string | undefined, url: string, query: URLSearchParams, code: number, seconds: number, responseBytes = -1): void {
    const l = resolveLabels(target, method, contentType, url, query, this.scratch);
    this.requests.labels(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, l.component, codeString(code)).inc();
    this.durations.labels(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, l.component).observe(seconds);
    // kube records sizes of read responses only.
    if (responseBytes >= 0 && (l.verb === 'GET' || l.verb === 'LIST')) this.responseSizes.labels(l.verb, l.group, l.version, l.resource, l.subresource, l.scope, l.component).observe(responseBytes);
  }

  private readonly scratch: RequestLabels = { verb: '', dryRun: '', group: '', version: '', resource: '', subresource: '', scope: '', component: '' };
  /** observe()'s work for the requests of one series whose end is recorded later, by series. */
  private readonly laterObservers = new Map<string, (code: number, seconds: number) => void>();

  /**
   * observe() for a request whose end comes much later (a watch on its raw HTTP/2 stream): the
   * labels are resolved now, and what waits is one function shared by every request of the same
   * series (a watch need not keep its URL, query or request info for this).
   */
  observerFor(target: RequestTarget, method: string, contentType: string | undefined, url: string, query: URLSearchParams): (code: number, seconds: number) => void {
    const l = resolveLabels(target, method, contentType, url, query, this.scratch);
    const key = `${l.verb}\0${l.dryRun}\0${l.group}\0${l.version}\0${l.resource}\0${l.subresource}\0${l.scope}\0${l.component}`;
    let observer = this.laterObservers.get(key);
    if (observer === undefined) {
      const { verb, dryRun, group, version, resource, subresource, scope, component } = l;
      observer = (code, seconds) => {
        this.requests.labels(verb, dryRun, group, version, resource, subresource, scope, component, codeString(code)).inc();
        this.durations.labels(verb, dryRun, group, version, resource, subresource, scope, component).observe(seconds);
      };
      this.laterObservers.set(key, observer);
    }
    return observer;
  }
}

/** A request's series in the request metrics. */
interface RequestLabels {
  verb: string;
  dryRun: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

/** The labels kube's MonitorRequest gives a request, written into `out`. */
function resolveLabels(target: RequestTarget, method: string, contentType: string | undefined, url: string, query: URLSearchParams, out: RequestLabels): RequestLabels {
  // As kube: the query is only parsed for dryRun when the raw URL mentions it.
  out.dryRun = url.includes('dryRun') ? cleanDryRun(query.getAll('dryRun')) : '';
  if (target.isResourceRequest) {
    out.scope = scopeOf(target);
    out.verb = reportedVerb(method, out.scope, target.verb, contentType);
    out.group = target.apiGroup;
    out.version = target.apiVersion;
    out.resource = target.resource;
    out.subresource = target.subresource;
    out.component = 'apiserver';
  } else {
    out.scope = '';
    out.verb = reportedVerb(method, '', '', contentType);
    out.group = '';
    out.version = '';
    out.resource = '';
    out.subresource = target.subresource;
    out.component = target.component;
  }
  return out;
}

/** kube's request scope: `resource` for one object (and creates), `namespace` or `cluster` for collections. */
function scopeOf(target: ResourceTarget): string {
  return target.name !== '' || target.verb === 'create' ? 'resource' : target.namespace !== '' ? 'namespace' : 'cluster';
}

/**
 * kube's canonicalVerb + cleanVerb: the HTTP method, GET on a collection is LIST, a watch is
 * WATCH, a PATCH with an apply content type is APPLY; a collection DELETE stays DELETE.
 */
function reportedVerb(method: string, scope: string, infoVerb: string, contentType: string | undefined): string {
  if (infoVerb === 'watch') return 'WATCH';
  switch (method) {
    case 'GET':
    case 'HEAD':
      return scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
    case 'PATCH':
      return contentType !== undefined && contentType.startsWith('application/apply-patch') ? 'APPLY' : 'PATCH';
    default:
      return method;
  }
}

/** kube's cleanDryRun: the sorted, de-duplicated values, or `invalid` when one is not `All`. */
function cleanDryRun(values: readonly string[]): string {
  if (values.length === 0) return '';
  if (values.some((v) => v !== 'All')) return 'invalid';
  return 'All';
}
