/** Starts a real single-member etcd (/usr/bin/etcd) on free loopback ports with a temp data dir. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EtcdServer {
  readonly endpoint: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function healthy(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    if (!res.ok) return false;
    const body = (await res.json()) as { health?: string };
    return body.health === 'true';
  } catch {
    return false;
  }
}

/** Spawns etcd and resolves once /health says true; progress notifications every 200 ms by default. */
export async function startEtcd(opts: { progressNotifyMs?: number; binary?: string } = {}): Promise<EtcdServer> {
  const dir = mkdtempSync(join(tmpdir(), 'etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child: ChildProcess = spawn(
    opts.binary ?? '/usr/bin/etcd',
    [
      '--name', 'test',
      '--data-dir', join(dir, 'data'),
      '--listen-client-urls', client,
      '--advertise-client-urls', client,
      '--listen-peer-urls', peer,
      '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `test=${peer}`,
      '--initial-cluster-state', 'new',
      `--experimental-watch-progress-notify-interval=${opts.progressNotifyMs ?? 200}ms`,
      '--log-level', 'error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let exited = false;
  // However the test process ends (a failed hook, a worker torn down), its etcd goes with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => {
    exited = true;
    process.off('exit', killOnExit);
  });
  const stop = async (): Promise<void> => {
    if (!exited) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  while (!(await healthy(client))) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`etcd did not become healthy: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { endpoint: client, stop };
}

/** etcd v3.5.17 as Kubernetes 1.32 ships it, built by parity/build-reference.sh (`.ci/run` builds it). */
export const ETCD_35_BINARY = join(process.env.KUBE_REF_CACHE ?? join(homedir(), '.cache', 'kube-ref'), 'bin', 'etcd');
