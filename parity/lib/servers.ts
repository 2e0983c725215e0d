/**
 * Starting and stopping the two servers the harness compares: the reference kube-apiserver (through
 * parity/reference.sh) and kube-gateway (src/main.ts as a child process on a temporary data dir).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, openSync, closeSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { send, type Endpoint } from './http.ts';

export interface RunningEndpoint {
  readonly endpoint: Endpoint;
  readonly logPath: string;
  stop(): Promise<void>;
}

const parityDir = resolve(import.meta.dirname, '..');
const PARITY_CONTROLLERS = 'namespace-controller,garbage-collector-controller,clusterrole-aggregation-controller,serviceaccount-controller,root-ca-certificate-publisher-controller,validatingadmissionpolicy-status-controller';
const repoDir = resolve(parityDir, '..');

/** Finds a free loopback port (there is a small race until the server binds it; fine on a test box). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** Polls /readyz until it answers 200 or the deadline passes. */
async function waitReady(ep: Endpoint, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`${ep.label} exited before it was ready`);
    const r = await send(ep, { method: 'GET', path: '/readyz', headers: {}, timeoutMs: 3000 });
    if (r.status === 200) return;
    await new Promise((f) => setTimeout(f, 200));
  }
  throw new Error(`${ep.label} not ready within ${timeoutMs} ms`);
}

/**
 * Starts a private reference (kube-apiserver, etcd, kube-controller-manager) in `dir`, or reuses the
 * one already running there: reference.sh start is idempotent.
 */
export async function startReference(dir: string, opts: { keep: boolean }): Promise<RunningEndpoint> {
  // Only the controllers kube-gateway implements itself (namespace deletion, garbage collection,
  // ClusterRole aggregation, the `default` ServiceAccount and kube-root-ca.crt in every namespace,
  // the type checking of ValidatingAdmissionPolicies written to their status):
  // both sides then hold the same objects (the harness still drops the last two, whose CA differs).
  // A reused reference keeps the controllers it was started with.
  execFileSync(join(parityDir, 'reference.sh'), ['start', '--dir', dir, '--controllers', PARITY_CONTROLLERS], { stdio: ['ignore', 'ignore', 'inherit'] });
  const env = readFileSync(join(dir, 'env'), 'utf8');
  const url = /REF_URL=(\S+)/.exec(env)?.[1];
  if (!url) throw new Error(`no REF_URL in ${dir}/env`);
  const pki = join(dir, 'pki');
  const endpoint: Endpoint = {
    label: 'kube',
    url,
    ca: readFileSync(join(pki, 'ca.crt')),
    cert: readFileSync(join(pki, 'admin.crt')),
    key: readFileSync(join(pki, 'admin.key')),
  };
  await waitReady(endpoint, 60_000, () => true);
  return {
    endpoint,
    logPath: join(dir, 'kube-apiserver.log'),
    stop: async () => {
      if (!opts.keep) {
        execFileSync(join(parityDir, 'reference.sh'), ['stop', '--dir', dir], { stdio: 'ignore' });
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Starts kube-gateway from this checkout on a fresh data dir with the given storage backend. */
export async function startGateway(opts: { backend: 'memory' | 'sqlite'; extraFlags?: readonly string[] }): Promise<RunningEndpoint> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parity-gw-'));
  const port = await freePort();
  // Outside the data dir, which is removed at stop: the log is what explains a difference.
  const logPath = `${dataDir}.log`;
  const logFd = openSync(logPath, 'w');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(repoDir, 'src/main.ts'), '--secure-port', String(port), '--bind-address', '127.0.0.1',
      '--data-dir', dataDir, '--storage-backend', opts.backend, ...(opts.extraFlags ?? [])],
    { cwd: repoDir, stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  // The server writes its certificates to the data dir during startup; wait for them first.
  const deadline = Date.now() + 60_000;
  while (!existsSync(join(dataDir, 'admin.kubeconfig'))) {
    if (exited) throw new Error(`kube-gateway exited at start; see ${logPath}`);
    if (Date.now() > deadline) throw new Error(`kube-gateway did not start; see ${logPath}`);
    await new Promise((f) => setTimeout(f, 100));
  }
  const endpoint: Endpoint = {
    label: 'ours',
    url: `https://127.0.0.1:${port}`,
    ca: readFileSync(join(dataDir, 'ca.crt')),
    cert: readFileSync(join(dataDir, 'admin.crt')),
    key: readFileSync(join(dataDir, 'admin.key')),
  };
  await waitReady(endpoint, 60_000, () => !exited);
  return {
    endpoint,
    logPath,
    stop: async () => {
      if (!exited) {
        const gone = new Promise((f) => child.once('exit', f));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await gone;
        clearTimeout(t);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
