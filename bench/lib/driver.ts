/**
 * The load side of the benchmarks that run the server in a process of its own: fork the child
 * (bench/lib/server-child.ts speaks the other end), wait for `ready`, ask it for its CPU time and
 * memory, stop it; an HTTPS client on a keep-alive pool; percentiles.
 */
import { fork, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What every benchmark child sends when it serves: its URL and the admin's credentials (PEM). */
export interface Ready {
  url: string;
  ca: string;
  cert: string;
  key: string;
}

export interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

export interface ChildServer<R = Ready> {
  readonly child: ChildProcess;
  readonly ready: R;
  /** The child's CPU time so far (user + system, µs). */
  cpu(): Promise<number>;
  /** The child's memory after a forced GC (the child needs --expose-gc for the GC). */
  mem(): Promise<Memory>;
  /** Clean shutdown; resolves when the child has exited. */
  stop(): Promise<void>;
}

/** One answer of the given type from a child, to a message asking for it. */
export function ask<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== type) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
    child.send({ type });
  });
}

/** The child's CPU time so far in µs (any child that answers `cpu`, a webhook's too). */
export async function cpuOf(child: ChildProcess): Promise<number> {
  return (await ask<{ micros: number }>(child, 'cpu')).micros;
}

/**
 * A benchmark child bundled as bin/build.js bundles src/ (no keepNames), beside build/main.cjs
 * (whose worker scripts it finds there), to be run by plain Node: the figures are then the shipped
 * server's. Under tsx, esbuild's transform keeps function names by redefining `name` on every
 * closure, which costs each closure made per request a property store and a slower call.
 */
export async function bundledChild(file: URL): Promise<string> {
  const { build, buildDir } = (await import('../../bin/build.js')) as { build(): Promise<string | undefined>; buildDir: string };
  const error = await build();
  if (error !== undefined) throw new Error(error);
  const esbuild = await import('esbuild');
  const outfile = join(buildDir, `bench-${basename(fileURLToPath(file), '.ts')}.mjs`);
  await esbuild.build({
    entryPoints: [fileURLToPath(file)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    // ES module (the child awaits at top level); CommonJS packages inside it still call require().
    format: 'esm',
    minifyWhitespace: true,
    external: ['better-sqlite3', 'etcd3', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'],
    banner: { js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);" },
    logLevel: 'error',
  });
  return outfile;
}

/**
 * Forks `file` (a URL, e.g. `new URL('./api-server-child.ts', import.meta.url)`) under tsx, or
 * bundled (`built`, see bundledChild) under plain Node, and waits for its `ready`. The child goes
 * with this process, however this one ends.
 */
export async function forkServer<R = Ready>(file: URL, opts: { env?: Record<string, string>; execArgv?: string[]; built?: boolean } = {}): Promise<ChildServer<R>> {
  const script = opts.built ? await bundledChild(file) : fileURLToPath(file);
  const child = fork(script, [], {
    execArgv: [...(opts.built ? [] : ['--import', 'tsx']), ...(opts.execArgv ?? [])],
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const kill = () => child.kill();
  process.on('exit', kill);
  const ready = await new Promise<R>((resolve) => child.on('message', (m: R & { type: string }) => m.type === 'ready' && resolve(m)));
  return {
    child,
    ready,
    cpu: () => cpuOf(child),
    mem: () => ask<Memory>(child, 'mem'),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'stop' });
      await exited;
      process.off('exit', kill);
    },
  };
}

export interface Response {
  status: number;
  text: string;
}

/** HTTPS requests to a benchmark server as its admin (client certificate) or with a bearer token, on a keep-alive pool. */
export function httpsClient(ready: Ready, opts: { token?: string; maxSockets?: number } = {}) {
  const agent = new https.Agent({ ca: ready.ca, ...(opts.token ? {} : { cert: ready.cert, key: ready.key }), keepAlive: true, maxSockets: opts.maxSockets ?? 64 });
  const request = (method: string, path: string, body?: unknown): Promise<Response> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers: Record<string, string | number> = {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
      };
      const req = https.request(`${ready.url}${path}`, { method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  return { agent, request, close: () => agent.destroy() };
}

/** The p-th percentile (0..100) of the values. */
export function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}
