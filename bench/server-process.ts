/**
 * A benchmark's server in a process of its own (bench/api-server-child.ts), so that what the
 * server costs is measured apart from the load generator: JSON requests over one keep-alive
 * agent, and the server process's CPU time. (Other benchmarks repeat this setup inline; they can
 * move to this module.)
 */
import { fork } from 'node:child_process';
import https from 'node:https';
import { fileURLToPath } from 'node:url';

export interface ServerProcess {
  request(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
  /** The server process's CPU time so far (user + system, all threads), in microseconds. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

interface Ready { url: string; ca: string; cert: string; key: string }

/** Starts the server; `execArgv` adds Node options (a CPU profile: `--cpu-prof`). */
export async function startServerProcess(execArgv: readonly string[] = []): Promise<ServerProcess> {
  const child = fork(fileURLToPath(new URL('./api-server-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', '--expose-gc', ...execArgv],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve) => child.on('message', (m: Ready & { type: string }) => m.type === 'ready' && resolve(m)));
  const agent = new https.Agent({ ca: ready.ca, cert: ready.cert, key: ready.key, keepAlive: true, maxSockets: 64 });
  return {
    request: (method, path, body) =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
        const headers = payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {};
        const req = https.request(`${ready.url}${path}`, { method, agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        if (payload) req.write(payload);
        req.end();
      }),
    cpuMicros: () =>
      new Promise((resolve) => {
        const on = (m: { type: string; micros: number }) => {
          if (m.type !== 'cpu') return;
          child.off('message', on);
          resolve(m.micros);
        };
        child.on('message', on);
        child.send({ type: 'cpu' });
      }),
    stop: async () => {
      agent.destroy();
      child.send({ type: 'stop' });
      await new Promise((r) => child.once('exit', r));
    },
  };
}
