/**
 * Authentication cost (issue 12): authenticated GETs per second at 32 clients over HTTPS with
 * keep-alive, against a server in its own process (AlwaysAllow, memory store), with each
 * credential: none (anonymous: no authentication work), client certificate, service-account
 * token, OIDC token and webhook token (cache hits after the first request). Nothing is asserted.
 */
import { fork } from 'node:child_process';
import https from 'node:https';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

interface Ready { url: string; ca: string; cert: string; key: string; saToken: string; oidcToken: string; webhookToken: string }
const child = fork(fileURLToPath(new URL('./authn-server-child.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const ready = await new Promise<Ready>((resolve) => child.on('message', (m: Ready & { type: string }) => m.type === 'ready' && resolve(m)));

const CLIENTS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const path = '/api/v1/namespaces/default/configmaps/bench';

const serverCpu = () =>
  new Promise<number>((resolve) => {
    const on = (m: { type: string; micros: number }) => {
      if (m.type !== 'cpu') return;
      child.off('message', on);
      resolve(m.micros);
    };
    child.on('message', on);
    child.send({ type: 'cpu' });
  });
const cpuPerRequest = new Map<string, number>();

async function run(name: string, agent: https.Agent, token?: string): Promise<number> {
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  const get = () =>
    new Promise<number>((resolve, reject) => {
      const req = https.request(`${ready.url}${path}`, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  // Warm up (connections, caches), then count for SECONDS.
  for (let i = 0; i < 200; i++) {
    const s = await get();
    if (s !== 200) throw new Error(`${name}: status ${s}`);
  }
  let count = 0;
  const cpu0 = await serverCpu();
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        await get();
        count++;
      }
    }),
  );
  const rate = count / SECONDS;
  const cpu = ((await serverCpu()) - cpu0) / count;
  cpuPerRequest.set(name, cpu);
  console.log(`authn: ${name.padEnd(22)} ${Math.round(rate).toLocaleString('en-US').padStart(7)} GET/s at ${CLIENTS} clients, server CPU ${cpu.toFixed(0)} µs/request`);
  return rate;
}

const plain = new https.Agent({ ca: ready.ca, keepAlive: true, maxSockets: CLIENTS });
const withCert = new https.Agent({ ca: ready.ca, cert: ready.cert, key: ready.key, keepAlive: true, maxSockets: CLIENTS });
// Two rounds over every method: the first warms the server's code paths (JIT) for all of them,
// the second is the one compared.
let none = 0, cert = 0, sa = 0, oidc = 0, hook = 0;
for (const round of [1, 2]) {
  if (round === 2) console.log('authn: second round (compared):');
  none = await run('anonymous (none)', plain);
  cert = await run('client certificate', withCert);
  sa = await run('service-account token', plain, ready.saToken);
  oidc = await run('OIDC token', plain, ready.oidcToken);
  hook = await run('webhook token', plain, ready.webhookToken);
}
const rel = (x: number) => `${((x / cert) * 100).toFixed(0)}%`;
console.log(`authn: relative to certificates: none ${rel(none)}, service account ${rel(sa)}, OIDC ${rel(oidc)}, webhook ${rel(hook)}`);
const certCpu = cpuPerRequest.get('client certificate')!;
const relCpu = (name: string) => `${(((cpuPerRequest.get(name)! - certCpu) / certCpu) * 100).toFixed(1)}%`;
console.log(
  `authn: server CPU per request against certificates: service account ${relCpu('service-account token')}, OIDC ${relCpu('OIDC token')}, webhook ${relCpu('webhook token')}; ` +
    `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`,
);
plain.destroy();
withCert.destroy();
child.send({ type: 'stop' });
