/**
 * Startup benchmark (issue 10, the process): from spawning the executable (bin/kube-gateway.js,
 * what `npm start` execs) to the first successful `kubectl get ns`, on the embedded SQLite store;
 * and the server's idle RSS a few seconds after that. Two cases: a fresh data dir (certificates
 * generated) and a data dir from an earlier run. Prints median and range over several runs.
 *
 * `npm run bench:startup`; `-- --runs N` for more runs.
 */
import { spawn, spawnSync, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'kube-gateway.js');
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg === -1 ? 5 : Number(process.argv[runsArg + 1]);
const IDLE_SETTLE_MS = 3000;

// Compile first, as npm install's prepare step does, so no run includes a build.
const built = spawnSync(process.execPath, [join(root, 'bin', 'build.js')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(1);

function kubectlGetNs(kubeconfig: string, home: string): Promise<boolean> {
  return new Promise((resolve) => execFile('kubectl', ['--kubeconfig', kubeconfig, 'get', 'ns'], { env: { ...process.env, HOME: home } }, (err) => resolve(err === null)));
}

/** The CPU time (user + system) a process has used so far, in ms: under load, the figure wall-clock cannot give. */
function cpuMsOf(pid: number): number {
  // Fields after the command name: state is field 3, utime and stime are fields 14 and 15, in clock ticks (100/s on Linux).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/**
 * One start: ms from spawn to the first successful kubectl get ns, the server's CPU ms by then
 * and when it first listened (its kubeconfig line), and idle RSS afterwards.
 */
async function once(dataDir: string, home: string): Promise<{ ms: number; cpuMs: number; listenCpuMs: number; rss: number }> {
  const started = performance.now();
  // The executable itself, as npx and npm start run it (its #! line carries the Node flags).
  const child = spawn(bin, ['--data-dir', dataDir, '--secure-port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let listenCpuMs: number | undefined;
  const kubeconfig = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /export KUBECONFIG=(\S+)/.exec(out);
      if (m) {
        listenCpuMs ??= cpuMsOf(child.pid!);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
  // The kubeconfig is written once the server listens; kubectl's first call is the measured one.
  while (!(await kubectlGetNs(kubeconfig, home))) await new Promise((r) => setTimeout(r, 10));
  const ms = performance.now() - started;
  const cpuMs = cpuMsOf(child.pid!);
  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  const rss = rssOf(child.pid!);
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  return { ms, cpuMs, listenCpuMs: listenCpuMs!, rss };
}

function summary(label: string, values: number[], unit: string, scale = 1): void {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const f = (v: number) => (v / scale).toFixed(unit === 'ms' ? 0 : 1);
  console.log(`${label.padEnd(44)} median ${f(median)} ${unit}  (min ${f(sorted[0]!)}, max ${f(sorted[sorted.length - 1]!)}, ${values.length} runs)`);
}

type Run = Awaited<ReturnType<typeof once>>;
const fresh: Run[] = [];
const kept: Run[] = [];
const home = mkdtempSync(join(tmpdir(), 'kgw-bench-home-'));
try {
  for (let i = 0; i < runs; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'kgw-bench-start-'));
    try {
      fresh.push(await once(dataDir, home));
      kept.push(await once(dataDir, home));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
summary('start to first kubectl get ns, fresh data dir', fresh.map((r) => r.ms), 'ms');
summary('start to first kubectl get ns, existing data dir', kept.map((r) => r.ms), 'ms');
summary('server CPU to listening, fresh data dir', fresh.map((r) => r.listenCpuMs), 'ms');
summary('server CPU to listening, existing data dir', kept.map((r) => r.listenCpuMs), 'ms');
summary('server CPU to first kubectl get ns, fresh', fresh.map((r) => r.cpuMs), 'ms');
summary('server CPU to first kubectl get ns, existing', kept.map((r) => r.cpuMs), 'ms');
console.log(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
summary(`idle RSS ${IDLE_SETTLE_MS / 1000}s after start`, [...fresh, ...kept].map((r) => r.rss), 'MB', 1024 * 1024);
