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

  /** A request reached a deprecated version (kube sets the gauge to 1 for it). */
  deprecatedRequested(group: string, version: string, resource: string, subresource: string, removedRelease: string): void {
    this.deprecated.labels(group, version, resource, subresource, removedRelease).set(1);
  }

  /**
   * Records one finished request (kube's MonitorRequest). Allocates nothing once its children
   * exist, unless the URL mentions dryRun.
   */
  observe(target: RequestTarget, method: string, contentType: string | undefined, url: string, query: URLSearchParams, code: number, seconds: number): void {
    // As kube: the query is only parsed for dryRun when the raw URL mentions it.
    const dryRun = url.includes('dryRun') ? cleanDryRun(query.getAll('dryRun')) : '';
    let verb: string;
    let group = '';
    let version = '';
    let resource = '';
    let scope = '';
    let component: string;
    let subresource: string;
    if (target.isResourceRequest) {
      scope = target.name !== '' || target.verb === 'create' ? 'resource' : target.namespace !== '' ? 'namespace' : 'cluster';
      verb = reportedVerb(method, scope, target.verb, contentType);
      group = target.apiGroup;
      version = target.apiVersion;
      resource = target.resource;
      subresource = target.subresource;
      component = 'apiserver';
    } else {
      verb = reportedVerb(method, '', '', contentType);
      subresource = target.subresource;
      component = target.component;
    }
    this.requests.labels(verb, dryRun, group, version, resource, subresource, scope, component, codeString(code)).inc();
    this.durations.labels(verb, dryRun, group, version, resource, subresource, scope, component).observe(seconds);
  }
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
