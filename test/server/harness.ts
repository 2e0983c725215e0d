/**
 * Test fixture: an in-process API server on a random loopback port, with an HTTPS client that
 * authenticates as the admin certificate and a kubectl runner pointed at it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { execFile } from 'node:child_process';
import { startApiServer, type RunningServer, type StartOptions } from '../../src/server/api-server.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import type { Store } from '../../src/storage/types.ts';
import type { ServerConfig } from '../../src/server/config.ts';
import type { NamespaceControllerTiming } from '../../src/controllers/namespace-lifecycle.ts';
import type { AdmissionPlugin } from '../../src/admission/types.ts';

export interface Response {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Send as the anonymous user (no client certificate). */
  readonly anonymous?: boolean;
}

export interface TestServer {
  readonly server: RunningServer;
  readonly dataDir: string;
  request(method: string, path: string, opts?: RequestOptions): Promise<Response>;
  kubectl(args: readonly string[], opts?: { input?: string; binary?: string }): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

/** A test server's configuration: loopback, a random port, the memory store, no shutdown delay. */
export function testServerConfig(dataDir: string, overrides: Partial<ServerConfig> = {}): ServerConfig {
  return {
    securePort: 0,
    bindAddress: '127.0.0.1',
    etcdServers: [],
    shutdownDelayMs: 0,
    anonymousAuth: true,
    dataDir,
    storageBackend: 'memory',
    historyMs: 5 * 60_000,
    // Tests count the objects of their namespaces; what the identity controllers add is tested in test/authn.
    identityControllers: false,
    ...overrides,
  };
}

export async function startTestServer(
  opts: {
    store?: Store;
    config?: Partial<ServerConfig>;
    namespaceControllerTiming?: NamespaceControllerTiming;
    extraAdmissionPlugins?: readonly AdmissionPlugin[];
    /** The aggregation layer's service resolver and probe interval (test/aggregator). */
    aggregation?: Pick<StartOptions, 'serviceResolver' | 'aggregatorProbeIntervalMs'>;
  } = {},
): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'kgw-test-'));
  const config = testServerConfig(dataDir, opts.config);
  const server = await startApiServer({
    config,
    store: opts.store ?? new MemoryStore({ historyMs: false }),
    namespaceControllerTiming: opts.namespaceControllerTiming,
    extraAdmissionPlugins: opts.extraAdmissionPlugins,
    ...opts.aggregation,
  });
  // Tests act at once: the bootstrap (default RBAC policy, system namespaces, ...) is in place first, as a client waiting for /readyz sees it.
  await server.waitForPostStartHooks();
  const agent = new https.Agent({ ca: server.caCert, cert: server.adminCert, key: server.adminKey, keepAlive: true });
  const anonAgent = new https.Agent({ ca: server.caCert, keepAlive: true });

  const request = (method: string, path: string, ro: RequestOptions = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...(ro.headers ?? {}) };
      let payload: Buffer | undefined;
      if (ro.body !== undefined) {
        payload = typeof ro.body === 'string' || Buffer.isBuffer(ro.body) ? Buffer.from(ro.body as string) : Buffer.from(JSON.stringify(ro.body));
        headers['content-type'] ??= 'application/json';
        headers['content-length'] = String(payload.length);
      }
      const req = https.request(`${server.url}${path}`, { method, headers, agent: ro.anonymous ? anonAgent : agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });

  const kubectl = (args: readonly string[], ko: { input?: string; binary?: string } = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        ko.binary ?? 'kubectl',
        args.includes('--kubeconfig') ? [...args] : ['--kubeconfig', server.kubeconfigPath, ...args],
        { env: { ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: dataDir }, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => {
          const code = err ? ((err as { code?: number }).code ?? 1) : 0;
          resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
        },
      );
      if (ko.input !== undefined) {
        child.stdin?.end(ko.input);
      }
    });

  return {
    server,
    dataDir,
    request,
    kubectl,
    async close() {
      agent.destroy();
      anonAgent.destroy();
      await server.shutdown();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Writes a file into the test's data dir and returns its path. */
export async function writeTemp(dir: string, name: string, text: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
}

/** Reads a chunked watch response line by line until `until` says stop or the time runs out. */
export function collectWatch(
  server: RunningServer,
  path: string,
  until: (events: { type: string; object: any }[]) => boolean,
  opts: { timeoutMs?: number; onOpen?: () => void; headers?: Record<string, string> } = {},
): Promise<{ status: number; events: { type: string; object: any }[]; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const agent = new https.Agent({ ca: server.caCert, cert: server.adminCert, key: server.adminKey });
    const events: { type: string; object: any }[] = [];
    let buf = '';
    const req = https.request(`${server.url}${path}`, { method: 'GET', agent, headers: opts.headers }, (res) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        req.destroy();
        agent.destroy();
        resolve({ status: res.statusCode ?? 0, events, headers: res.headers });
      };
      const timer = setTimeout(finish, opts.timeoutMs ?? 10_000);
      opts.onOpen?.();
      res.on('data', (chunk: Buffer) => {
        buf += chunk.toString('utf8');
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (line) events.push(JSON.parse(line));
        }
        if (until(events)) finish();
      });
      res.on('end', () => {
        if (buf.trim()) {
          try {
            events.push(JSON.parse(buf.trim()));
          } catch {
            // A non-event body (an error Status) is kept as text by callers.
          }
        }
        finish();
      });
    });
    req.on('error', (err) => {
      if (events.length > 0) return;
      reject(err);
    });
    req.end();
  });
}
