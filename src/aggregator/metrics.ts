/**
 * Per-backend metrics on the server's registry: kube-aggregator's availability families
 * (aggregator_unavailable_apiservice, aggregator_unavailable_apiservice_total) and the gateway's
 * own per-APIService proxy counts, rejections and latencies.
 */
import type { MetricsRegistry } from '../metrics/index.ts';
import { REQUEST_DURATION_BUCKETS } from '../metrics/apiserver.ts';

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

  observe(name: string, code: number, startedNs: bigint): void {
    this.requests.labels(name, String(code)).inc();
    this.duration.labels(name).observe(Number(process.hrtime.bigint() - startedNs) / 1e9);
  }

  rejected(name: string, reason: 'concurrency' | 'body-too-large'): void {
    this.rejections.labels(name, reason).inc();
  }

  markUnavailable(name: string, reason: string): void {
    this.unavailableTotal.labels(name, reason).inc();
  }
}
