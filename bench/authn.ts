/**
 * Authentication cost (issue 12): authenticated GETs per second at 32 clients over HTTPS with
 * keep-alive, against a server in its own process (AlwaysAllow, memory store), with each
 * credential: none (anonymous: no authentication work), client certificate, service-account
 * token, OIDC token and webhook token (each token after its first request is a hit of kube's
 * token cache; the webhook is asked once). Nothing is asserted.
 *
 * Under a shared machine's load requests per second mean little; the server's CPU time per request
 * is the figure compared, as the median over BENCH_ROUNDS interleaved rounds (a first, uncounted
 * round warms every path). The target: each token method within 10% of certificates.
 * BENCH_METHODS=cert,sa (none, cert, sa, oidc, webhook) runs some; BENCH_CPU_PROF=DIR writes the
 * server's CPU profile there.
 */
import https from 'node:https';
import { loadavg } from 'node:os';
import { forkServer, type Ready as ServerReady } from './lib/driver.ts';

interface Ready extends ServerReady { saToken: string; oidcToken: string; webhookToken: string }
const profileDir = process.env.BENCH_CPU_PROF;
const server = await forkServer<Ready>(new URL('./authn-server-child.ts', import.meta.url), { execArgv: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] });
const ready = server.ready;

const CLIENTS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const path = '/api/v1/namespaces/default/configmaps/bench';

const serverCpu = server.cpu;

/** One timed run of one credential: requests per second and server CPU µs per request. */
async function run(name: string, agent: https.Agent, token?: string): Promise<{ rate: number; cpu: number }> {
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
  console.log(`authn:   ${name.padEnd(22)} ${Math.round(rate).toLocaleString('en-US').padStart(7)} GET/s at ${CLIENTS} clients, server CPU ${cpu.toFixed(0)} µs/request`);
  return { rate, cpu };
}

const plain = new https.Agent({ ca: ready.ca, keepAlive: true, maxSockets: CLIENTS });
const withCert = new https.Agent({ ca: ready.ca, cert: ready.cert, key: ready.key, keepAlive: true, maxSockets: CLIENTS });
const methods = [
  { id: 'none', name: 'anonymous (none)', agent: plain },
  { id: 'cert', name: 'client certificate', agent: withCert },
  { id: 'sa', name: 'service-account token', agent: plain, token: ready.saToken },
  { id: 'oidc', name: 'OIDC token', agent: plain, token: ready.oidcToken },
  { id: 'webhook', name: 'webhook token', agent: plain, token: ready.webhookToken },
].filter((m) => !process.env.BENCH_METHODS || process.env.BENCH_METHODS.split(',').includes(m.id));

const results = new Map<string, { rate: number; cpu: number }[]>(methods.map((m) => [m.id, []]));
// Round 0 warms the server's code paths (JIT) for every method and is not counted; the methods
// take turns in every round, so a change of machine load falls on all of them alike.
for (let round = 0; round <= ROUNDS; round++) {
  console.log(round === 0 ? 'authn: warm-up round (not counted):' : `authn: round ${round} of ${ROUNDS}:`);
  for (const m of methods) {
    const r = await run(m.name, m.agent, m.token);
    if (round > 0) results.get(m.id)!.push(r);
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
console.log(`authn: medians of ${ROUNDS} rounds (load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}, ${CLIENTS} clients):`);
const cert = results.has('cert') ? median(results.get('cert')!.map((r) => r.cpu)) : undefined;
let worst = -Infinity;
for (const m of methods) {
  const cpu = median(results.get(m.id)!.map((r) => r.cpu));
  const rate = median(results.get(m.id)!.map((r) => r.rate));
  const against = cert !== undefined && m.id !== 'cert' ? ` (${cpu >= cert ? '+' : ''}${(((cpu - cert) / cert) * 100).toFixed(1)}% against certificates)` : '';
  if (cert !== undefined && m.token) worst = Math.max(worst, (cpu - cert) / cert);
  console.log(`authn:   ${m.name.padEnd(22)} ${Math.round(rate).toLocaleString('en-US').padStart(7)} GET/s, server CPU ${cpu.toFixed(0)} µs/request${against}`);
}
if (cert !== undefined && worst > -Infinity) {
  console.log(`authn: target (each token method within 10% of certificates in server CPU per GET): ${worst <= 0.1 ? 'met' : 'not met'} (worst ${worst >= 0 ? '+' : ''}${(worst * 100).toFixed(1)}%)`);
}
plain.destroy();
withCert.destroy();
await server.stop();
