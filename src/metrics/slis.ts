/**
 * kube's component SLI metrics, served at /metrics/slis: the result of each health check run by the
 * /healthz, /livez and /readyz roots (component-base's kubernetes_healthcheck and
 * kubernetes_healthchecks_total), plus the process start time, in a registry of their own.
 */
import { MetricsRegistry } from './registry.ts';
import { processStartTimeSeconds } from './process.ts';

/** One named health check, as the /healthz, /livez and /readyz roots run it and these metrics record it. */
export type HealthCheck = {
  readonly name: string;
  check(): Promise<void> | void;
  /** Said after `ok` in the verbose line of a passing check (a check of ours that reports a degraded mode). */
  detail?(): string;
};

export interface SliMetrics {
  readonly registry: MetricsRegistry;
  /** Records one health check run: `type` is the endpoint (`healthz`, `livez`, `readyz`). */
  observeHealthcheck(name: string, type: string, ok: boolean): void;
}

export function createSliMetrics(): SliMetrics {
  const registry = new MetricsRegistry();
  const last = registry.gauge({
    name: 'kubernetes_healthcheck',
    help: 'This metric records the result of a single healthcheck.',
    labels: ['name', 'type'],
    stability: 'STABLE',
  });
  const total = registry.counter({
    name: 'kubernetes_healthchecks_total',
    help: 'This metric records the results of all healthcheck.',
    labels: ['name', 'type', 'status'],
    stability: 'STABLE',
  });
  // As in kube's SLI registry, with the ALPHA marker kube gives it there.
  registry.collector({
    name: 'process_start_time_seconds',
    help: 'Start time of the process since unix epoch in seconds.',
    type: 'gauge',
    collect: () => [{ value: processStartTimeSeconds }],
  });
  return {
    registry,
    observeHealthcheck(name, type, ok) {
      last.labels(name, type).set(ok ? 1 : 0);
      total.labels(name, type, ok ? 'success' : 'error').inc();
    },
  };
}
