/**
 * The server's metrics: one registry per server, kube's request metrics and the process
 * collector registered on it, and the /metrics answer. Other modules (admission webhooks, the
 * aggregator) register their own families on `ServerMetrics.registry` at start.
 */
import { gzipSync } from 'node:zlib';
import { acceptsGzip } from '../codec/compress.ts';
import { ApiServerMetrics, type ApiServerMetricSources } from './apiserver.ts';
import { EXPOSITION_CONTENT_TYPE } from './exposition.ts';
import { registerProcessMetrics, processStartTimeSeconds } from './process.ts';
import { MetricsRegistry } from './registry.ts';

export { MetricsRegistry } from './registry.ts';
export type { Counter, Gauge, Histogram, Sample } from './registry.ts';
export { ApiServerMetrics, nonResourceTarget, type RequestTarget, type ResourceTarget } from './apiserver.ts';
export { createSliMetrics, type SliMetrics } from './slis.ts';

export interface ServerMetrics {
  readonly registry: MetricsRegistry;
  readonly apiserver: ApiServerMetrics;
}

export function createServerMetrics(sources: ApiServerMetricSources): ServerMetrics {
  const registry = new MetricsRegistry();
  registerProcessMetrics(registry);
  return { registry, apiserver: new ApiServerMetrics(registry, sources) };
}

export interface MetricsResponse {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/**
 * The /metrics answer as promhttp gives it in kube-apiserver: text format 0.0.4, gzip whenever
 * the client accepts it (promhttp has no size threshold), and the process start time header.
 */
export async function metricsResponse(registry: MetricsRegistry, acceptEncoding: string | undefined): Promise<MetricsResponse> {
  const text = Buffer.from(await registry.expose(), 'utf8');
  const headers: Record<string, string> = {
    'content-type': EXPOSITION_CONTENT_TYPE,
    'process-start-time-unix': String(Math.floor(processStartTimeSeconds)),
  };
  if (!acceptsGzip(acceptEncoding)) return { headers, body: text };
  return { headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(text) };
}
