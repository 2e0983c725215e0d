/**
 * Server CPU per request, verb by verb (issue 19): load-independent, unlike rates on a shared
 * machine. Starts the built server (bin/kube-gateway.js, as `npm start` does) on a fresh data dir,
 * warms each verb up, then reads the server process's user+system CPU from /proc before and after
 * a fixed number of requests sent over one HTTP/2 connection at 32 streams.
 *
 * `npx tsx bench/api-cpu.ts [--requests N] [--only create,update,apply,get] [--profile DIR] [--root DIR]`
 * --root runs the build of another checkout (an A/B comparison on a loaded machine: alternate
 * runs of both, same load). With --profile the server runs with `node --cpu-prof` and writes its profile into DIR when it
 * stops (the whole run: start, warm-up and the measured verbs).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const requests = Number(argOf('requests') ?? 3000);
const only = new Set((argOf('only') ?? 'create,update,apply,get').split(','));
const profileDir = argOf('profile');
const root = argOf('root') ?? fileURLToPath(new URL('..', import.meta.url));
const CLIENTS = 32;

const built = spawnSync(process.execPath, [join(root, 'bin', 'build.js')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(1);

const dataDir = mkdtempSync(join(tmpdir(), 'kgw-cpu-'));
const nodeFlags = ['--v8-pool-size=2', ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])];
const child: ChildProcess = spawn(process.execPath, [...nodeFlags, join(root, 'bin', 'kube-gateway.js'), '--data-dir', dataDir, '--secure-port', '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
const url = await new Promise<string>((resolve, reject) => {
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    const m = /listening on (https:\/\/\S+)/.exec(out);
    if (m && out.includes('KUBECONFIG')) resolve(m[1]!);
  });
  child.on('exit', (code) => reject(new Error(`kube-gateway exited (${code}): ${out}`)));
});
const session = http2.connect(url, {
  ca: readFileSync(join(dataDir, 'ca.crt')),
  cert: readFileSync(join(dataDir, 'admin.crt')),
  key: readFileSync(join(dataDir, 'admin.key')),
});
session.on('error', () => {});

function request(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(body);
    const stream = session.request({ ':method': method, ':path': path, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}), ...headers });
    const chunks: Buffer[] = [];
    let status = 0;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString() }));
    stream.on('error', reject);
    stream.end(payload);
  });
}

async function ok(p: Promise<{ status: number; body: string }>, what: string): Promise<string> {
  const r = await p;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.body.slice(0, 300)}`);
  return r.body;
}

/** The server's user+system CPU so far, in ms (clock ticks of 10 ms). */
function serverCpuMs(): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function run(total: number, op: (i: number, client: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = next++; i < total; i = next++) await op(i, c);
    }),
  );
}

async function measure(verb: string, op: (i: number, client: number) => Promise<void>): Promise<void> {
  if (!only.has(verb)) return;
  await run(Math.min(500, requests), op);
  const before = serverCpuMs();
  await run(requests, op);
  const after = serverCpuMs();
  console.log(`${verb.padEnd(8)} ${((after - before) / requests).toFixed(3)} ms server CPU per request (${requests} requests, ${CLIENTS} streams)`);
}

const cm = (name: string, extra: Record<string, string> = {}, rv?: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(rv ? { resourceVersion: rv } : {}) }, data: { a: 'x'.repeat(100), ...extra } });

const base = '/api/v1/namespaces/bench/configmaps';
try {
  await ok(request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } })), 'namespace');
  console.log(`bench api-cpu: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  let seq = 0;
  await measure('create', async () => void (await ok(request('POST', base, cm(`c-${seq++}`)), 'create')));

  const versions: string[] = [];
  for (let i = 0; i < CLIENTS; i++) versions[i] = JSON.parse(await ok(request('POST', base, cm(`upd-${i}`)), 'create')).metadata.resourceVersion;
  let n = 0;
  await measure('update', async (_, c) => {
    const body = await ok(request('PUT', `${base}/upd-${c}`, cm(`upd-${c}`, { n: String(n++) }, versions[c])), 'update');
    versions[c] = JSON.parse(body).metadata.resourceVersion;
  });
  await measure('get', async (_, c) => void (await ok(request('GET', `${base}/upd-${c}`), 'get')));

  // Server-side apply as bench:compare does it: 3 managers taking turns over 50 fields.
  const applyBody = (c: number, m: number) => {
    const data: Record<string, string> = {};
    for (let k = 0; k < 50; k++) if (k % 3 === m) data[`k${k}`] = `v${k}`;
    return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `apply-${c}` }, data });
  };
  const turns: number[] = Array.from({ length: CLIENTS }, () => 0);
  await measure('apply', async (_, c) => {
    const m = turns[c]!++ % 3;
    await ok(request('PATCH', `${base}/apply-${c}?fieldManager=m${m}`, applyBody(c, m), { 'content-type': 'application/apply-patch+yaml' }), 'apply');
  });
} finally {
  session.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
