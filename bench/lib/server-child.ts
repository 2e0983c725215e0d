/**
 * The child side of the benchmarks that run the server in a process of its own (bench/*-child.ts):
 * the configuration every benchmark server shares, and the IPC protocol the load process drives
 * (bench/lib/driver.ts): `ready` once serving; `cpu` (process CPU time, load-independent cost),
 * `mem` (memory after a forced GC, with --expose-gc), `stop` (clean shutdown, then exit).
 */
import https from 'node:https';
import type { ServerConfig } from '../../src/server/config.ts';
import { testServerConfig } from '../../test/server/harness.ts';
import type { startApiServer } from '../../src/server/api-server.ts';

type Server = Awaited<ReturnType<typeof startApiServer>>;

/**
 * A benchmark server's configuration: the test servers' (loopback, a random port, the memory store,
 * no shutdown delay), with the identity controllers a real server runs.
 */
export function benchServerConfig(dataDir: string, overrides: Partial<ServerConfig> = {}): ServerConfig {
  return testServerConfig(dataDir, { identityControllers: true, ...overrides });
}

/** Tells the parent the server is up (with its URL and admin credentials, plus `extra`), then answers its messages. */
export function serveParent(server: Server, extra: Record<string, unknown> = {}): void {
  process.send?.({ type: 'ready', url: server.url, ca: server.caCert, cert: server.adminCert, key: server.adminKey, ...extra });
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'stop') void server.shutdown().then(() => process.exit(0));
    // Process CPU time so far (user + system, µs): on a shared machine, CPU per request is the figure load does not skew.
    if (msg.type === 'cpu') {
      const u = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: u.user + u.system });
    }
    if (msg.type === 'mem') {
      for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      process.send?.({ type: 'mem', rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers });
    }
  });
}

/** POSTs JSON as the server's admin (fixtures a benchmark creates before it starts); resolves with the parsed response. */
export function adminPost(server: Server): (path: string, body: unknown) => Promise<any> {
  const agent = new https.Agent({ ca: server.caCert, cert: server.adminCert, key: server.adminKey });
  return (path, body) =>
    new Promise((resolve, reject) => {
      const req = https.request(`${server.url}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(JSON.parse(text)));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
}
