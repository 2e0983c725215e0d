/**
 * `npm run bench:robustness`: RSS and /readyz latency of a real server (its own process, embedded
 * store) under two memory attacks: slow watchers that never read while objects are written, and
 * many concurrent bodies near the 3 MiB limit. Prints figures; asserts nothing.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

interface Ready {
  url: string;
  ca: string;
  cert: string;
  key: string;
}

const watchers = Number(process.env.BENCH_WATCHERS ?? 40);
const writes = Number(process.env.BENCH_WRITES ?? 300);
const bodies = Number(process.env.BENCH_BODIES ?? 24);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const child = fork(fileURLToPath(new URL('./api-server-child.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ready = await new Promise<Ready>((resolve) => child.on('message', (m: Ready & { type: string }) => m.type === 'ready' && resolve(m)));
const url = new URL(ready.url);
const agent = new https.Agent({ ca: ready.ca, cert: ready.cert, key: ready.key, keepAlive: true, maxSockets: 64 });

function request(method: string, path: string, body?: string | Buffer, a: https.Agent = agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const req = https.request({ host: url.hostname, port: url.port, path, method, agent: a, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** RSS now and peak (VmHWM) of the server process, in MiB. */
function rss(): { now: number; peak: number } {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * Probes /readyz back to back while `work` runs, from a worker thread: the attack itself keeps this
 * thread busy (encrypting megabytes), which must not count as the server's latency.
 */
async function probeDuring(work: () => Promise<void>): Promise<{ latencies: number[]; failures: number; peak: number }> {
  const probe = new Worker(
    `
    const https = require('node:https');
    const { parentPort, workerData } = require('node:worker_threads');
    const agent = new https.Agent({ ca: workerData.ca, cert: workerData.cert, key: workerData.key, keepAlive: true, maxSockets: 1 });
    let done = false;
    const latencies = [];
    let failures = 0;
    parentPort.on('message', () => { done = true; });
    (async () => {
      while (!done) {
        const t = performance.now();
        const status = await new Promise((resolve) => {
          const req = https.request({ host: workerData.host, port: workerData.port, path: '/readyz', agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
          req.on('error', () => resolve(0));
          req.end();
        });
        latencies.push(performance.now() - t);
        if (status !== 200) failures++;
        await new Promise((r) => setTimeout(r, 20));
      }
      agent.destroy();
      parentPort.postMessage({ latencies, failures });
    })();
    `,
    { eval: true, workerData: { ca: ready.ca, cert: ready.cert, key: ready.key, host: url.hostname, port: Number(url.port) } },
  );
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rss().now)), 50);
  await work();
  clearInterval(sampler);
  const result = new Promise<{ latencies: number[]; failures: number }>((resolve) => probe.once('message', resolve));
  probe.postMessage('stop');
  const { latencies, failures } = await result;
  await probe.terminate();
  return { latencies, failures, peak };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

const fmt = (n: number) => n.toFixed(1);
const report = (name: string, r: { latencies: number[]; failures: number; peak: number }, extra: string) =>
  console.log(
    `${name}: /readyz p50 ${fmt(pct(r.latencies, 50))} ms, p99 ${fmt(pct(r.latencies, 99))} ms, max ${fmt(Math.max(...r.latencies))} ms over ${r.latencies.length} probes (${r.failures} not 200); RSS peak sampled ${fmt(r.peak)} MiB, process high-water ${fmt(rss().peak)} MiB; ${extra}`,
  );

console.log(`robustness: idle RSS ${fmt(rss().now)} MiB`);

// Attack 1: watchers that never read, while objects are written.
const sockets: tls.TLSSocket[] = [];
const watchOutcome = { closedByServer: 0 };
for (let i = 0; i < watchers; i++) {
  const s = tls.connect({ host: url.hostname, port: Number(url.port), ca: ready.ca, cert: ready.cert, key: ready.key, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
  await new Promise((r) => s.once('secureConnect', r));
  s.write(`GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n\r\n`);
  s.pause();
  s.on('error', () => {});
  s.on('close', () => watchOutcome.closedByServer++);
  sockets.push(s);
}
const payload = 'x'.repeat(20 * 1024);
const slow = await probeDuring(async () => {
  for (let i = 0; i < writes; i++) {
    await request('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: `slow-${i}` }, data: { a: payload } }));
  }
});
// A closed watcher shows once its socket is read again: resume them and give the resets a moment.
for (const s of sockets) s.resume();
await new Promise((r) => setTimeout(r, 1000));
report(`slow watchers (${watchers} never reading, ${writes} writes of 20 KiB)`, slow, `${watchOutcome.closedByServer} watchers closed by the server`);
for (const s of sockets) s.destroy();

// Attack 2: many concurrent bodies just under the limit.
// Valid objects: 900 KiB of data (a ConfigMap holds at most 1 MiB) and 2 MiB in an unknown field (pruned, one warning).
const big = JSON.stringify({ metadata: { name: 'PLACEHOLDER' }, data: { a: 'y'.repeat(900 * 1024) }, extra: 'z'.repeat(2 * 1024 * 1024) });
const codes = new Map<number, number>();
const large = await probeDuring(async () => {
  for (let r = 0; r < rounds; r++) {
    await Promise.all(
      Array.from({ length: bodies }, async (_, i) => {
        const res = await request('POST', '/api/v1/namespaces/default/configmaps', big.replace('PLACEHOLDER', `big-${r}-${i}`)).catch(() => ({ status: 0, text: '' }));
        codes.set(res.status, (codes.get(res.status) ?? 0) + 1);
      }),
    );
  }
});
report(`large bodies (${rounds} rounds of ${bodies} concurrent 3 MiB creates)`, large, `answers ${JSON.stringify(Object.fromEntries(codes))}`);

agent.destroy();
child.send({ type: 'stop' });
await new Promise((r) => child.once('exit', r));
