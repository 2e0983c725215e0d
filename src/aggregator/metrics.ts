/**
 * Per-backend metrics on the server's registry: kube-aggregator's availability families
 * (aggregator_unavailable_apiservice, aggregator_unavailable_apiservice_total) and the gateway's
 * own per-APIService proxy counts, rejections and latencies.
 */
import type { MetricsRegistry } from '../metrics/index.ts';
import type { CounterChild, HistogramChild } from '../metrics/registry.ts';
import { REQUEST_DURATION_BUCKETS } from '../metrics/apiserver.ts';

/**
 * One APIService's proxy counts and latencies, their series found once: the proxy records on
 * every request, without a label lookup or a string per observation.
 */
export class BackendProxyMetrics {
  private readonly byCode = new Map<number, CounterChild>();

  constructor(
    private readonly requests: (code: string) => CounterChild,
    private readonly duration: HistogramChild,
  ) {}

  /** A request answered `code`, started at `startedMs` (performance.now()). */
  observe(code: number, startedMs: number): void {
    let counter = this.byCode.get(code);
    if (counter === undefined) this.byCode.set(code, (counter = this.requests(String(code))));
    counter.inc();
    this.duration.observe((performance.now() - startedMs) / 1000);
  }
}

export class AggregatorMetrics {
  private readonly requests;
  private readonly duration;
  private readonly rejections;
  private readonly unavailableTotal;
  /** Current availability by APIService name (read at scrape time). */
  readonly unavailable = new Map<string, boolean>();

  constructor(registry: MetricsRegistry) {
    this.requests = registry.counter({ name: 'aggregator_proxy_requests_total', help: 'Requests proxied to an extension API server, by APIService and HTTP code.', labels: ['name', 'code'] });
    this.duration = registry.histogram({
      name: 'aggregator_proxy_request_duration_seconds',
      help: 'Time from the proxied request to the end of the backend response (watches: their whole life), by APIService.',
      labels: ['name'],
      buckets: REQUEST_DURATION_BUCKETS,
    });
    this.rejections = registry.counter({ name: 'aggregator_proxy_rejected_requests_total', help: 'Requests the traffic contract refused without reaching the backend, by APIService and reason.', labels: ['name', 'reason'] });
    this.unavailableTotal = registry.counter({ name: 'aggregator_unavailable_apiservice_total', help: 'Counter of APIServices which are marked as unavailable broken down by APIService name and reason.', labels: ['name', 'reason'] });
    registry.collector({
      name: 'aggregator_unavailable_apiservice',
      help: 'Gauge of APIServices which are marked as unavailable broken down by APIService name.',
      type: 'gauge',
      collect: () => [...this.unavailable].map(([name, down]) => ({ labels: { name }, value: down ? 1 : 0 })),
    });
  }

  /** The series of APIService `name`. */
  forBackend(name: string): BackendProxyMetrics {
    return new BackendProxyMetrics((code) => this.requests.labels(name, code), this.duration.labels(name));
  }

  rejected(name: string, reason: 'concurrency' | 'body-too-large'): void {
    this.rejections.labels(name, reason).inc();
  }

  markUnavailable(name: string, reason: string): void {
    this.unavailableTotal.labels(name, reason).inc();
  }
}
