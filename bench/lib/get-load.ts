/**
 * The load side of the proxied-GET comparisons (bench/aggregator.ts against the gateway,
 * bench/aggregator-kube.ts against kube-apiserver's aggregator): GETs over HTTP/1.1 keep-alive or
 * one HTTP/2 session, and a phase of concurrent client loops with its latency percentiles.
 */
import http2 from 'node:http2';
import https from 'node:https';

export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

export function get(agent: https.Agent, url: string, headers: Record<string, string> = {}, servername?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { agent, headers, ...(servername ? { servername } : {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** GETs `path` on one HTTP/2 session to `origin` (client-go's way: every request a stream of one connection). */
export function h2Getter(origin: string, tls: { ca: string; cert: string; key: string; servername?: string }, headers: Record<string, string> = {}): { get: (path: string) => Promise<number>; close: () => void } {
  const session = http2.connect(origin, { ca: tls.ca, cert: tls.cert, key: tls.key, ...(tls.servername ? { servername: tls.servername } : {}) });
  session.on('error', () => undefined);
  return {
    get: (path) =>
      new Promise((resolve, reject) => {
        const req = session.request({ ':path': path, ...headers });
        let status = 0;
        req.on('response', (h) => (status = Number(h[':status'])));
        req.on('error', reject);
        req.on('end', () => resolve(status));
        req.resume();
      }),
    close: () => session.close(),
  };
}

export interface LoadShape {
  readonly clients: number;
  readonly perClient: number;
  /** Requests per client before the measured ones: connections, caches, compiled code. */
  readonly warmup: number;
}

/**
 * `clients` concurrent loops of `perClient` requests after `warmup` each; prints and returns the
 * latency percentiles, and the CPU time `cpu` reports (µs) over the measured requests alone.
 */
export async function loadGets(label: string, fn: () => Promise<number>, shape: LoadShape, cpu?: () => Promise<number>): Promise<{ p50: number; p99: number; cpuMsPerRequest?: number }> {
  const { clients, perClient, warmup } = shape;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < warmup; i++) await fn();
    }),
  );
  const cpu0 = cpu ? await cpu() : 0;
  const lat: number[] = [];
  const failures = new Map<number, number>();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < perClient; i++) {
        const s = performance.now();
        const code = await fn();
        lat.push(performance.now() - s);
        // Counted, not thrown: a failure is a figure of the run (see issue 16's note on backend connection resets).
        if (code !== 200) failures.set(code, (failures.get(code) ?? 0) + 1);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const cpuMsPerRequest = cpu ? ((await cpu()) - cpu0) / 1000 / (clients * perClient) : undefined;
  const r = { p50: quantile(lat, 0.5), p99: quantile(lat, 0.99), cpuMsPerRequest };
  const failed = [...failures].map(([code, n]) => `${n} x ${code}`).join(', ');
  console.log(`${label}, ${clients} client(s): ${((clients * perClient) / secs).toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${failed ? `, FAILED: ${failed}` : ''}`);
  return r;
}
