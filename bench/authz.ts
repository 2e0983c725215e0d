/**
 * RBAC decision throughput in-process, at the scale: 5,000 ClusterRoles, 5,000
 * RoleBindings in 500 namespaces, 1,000 subjects (users in 10 groups). Prints decisions per second
 * and latency percentiles for a mix of allowed and unallowed requests. Then over HTTPS: GETs per
 * second at 32 clients for a user allowed by RBAC beside a system:masters user (same token
 * authentication), alternating runs so the machine's load falls on both alike. Nothing is asserted.
 */
import https from 'node:https';
import { loadavg } from 'node:os';
import { forkServer, median } from './lib/driver.ts';
import { RbacIndex, bindingOf } from '../src/authz/rbac/index.ts';
import { RbacAuthorizer } from '../src/authz/rbac/authorizer.ts';
import { AuthorizerChain, type Attributes, type Decision } from '../src/authz/authorizer.ts';

const ix = new RbacIndex();
const resources = ['pods', 'configmaps', 'secrets', 'services', 'deployments', 'jobs', 'leases', 'events'];
const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
for (let i = 0; i < 5000; i++) {
  ix.setClusterRole(`role-${i}`, {
    rules: [
      { verbs: [verbs[i % verbs.length], verbs[(i + 3) % verbs.length]], apiGroups: ['', 'apps'], resources: [resources[i % resources.length], `${resources[(i + 1) % resources.length]}/status`] },
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [`cm-${i}`] },
    ],
  });
}
for (let i = 0; i < 5000; i++) {
  const ns = `ns-${i % 500}`;
  const subject = i % 2 === 0 ? { kind: 'User', name: `user-${i % 1000}` } : { kind: 'Group', name: `group-${i % 10}` };
  ix.setBinding(bindingOf('RoleBinding', { metadata: { name: `rb-${i}`, namespace: ns }, roleRef: { kind: 'ClusterRole', name: `role-${i}` }, subjects: [subject] })!);
}
// A few cluster-wide bindings, as real clusters have (the default policy's ~45).
for (let i = 0; i < 45; i++) {
  ix.setBinding(bindingOf('ClusterRoleBinding', { metadata: { name: `crb-${i}` }, roleRef: { kind: 'ClusterRole', name: `role-${i}` }, subjects: [{ kind: 'Group', name: `sys-${i}` }] })!);
}
const authz = new AuthorizerChain([new RbacAuthorizer(ix)]);

const N = 200_000;
const reqs: Attributes[] = [];
// Half allowed (the verb and resource of one of the caller's role bindings), half not (every rule visited).
for (let i = 0; i < 1000; i++) {
  const b = (i * 10) % 5000; // an even (User-subject) binding
  reqs.push({
    user: { username: `user-${b % 1000}`, groups: [`group-${i % 10}`, 'system:authenticated'], extra: {} },
    verb: i % 2 === 0 ? verbs[b % verbs.length]! : 'deletecollection',
    isResourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: resources[b % resources.length]!,
    subresource: '',
    namespace: `ns-${b % 500}`,
    name: `obj-${i}`,
  });
}
let allowed = 0;
const decide = (a: Attributes) => authz.authorize(a) as Decision; // RBAC only: never a promise
for (let i = 0; i < 50_000; i++) decide(reqs[i % reqs.length]!); // warm-up

// Throughput: a tight loop, timed as a whole, in wall time and in CPU time of this process (the
// machine is shared: CPU time is the figure that does not depend on what else runs).
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
for (let i = 0; i < N; i++) if (decide(reqs[i % reqs.length]!).decision === 'allow') allowed++;
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
const cpuSecs = (cpu.user + cpu.system) / 1e6;

// Latency: each decision timed on its own (the timer's own cost is included).
const lat = new Float64Array(N);
for (let i = 0; i < N; i++) {
  const s = process.hrtime.bigint();
  decide(reqs[i % reqs.length]!);
  lat[i] = Number(process.hrtime.bigint() - s) / 1000;
}
lat.sort();
const pct = (p: number) => lat[Math.min(N - 1, Math.floor(N * p))]!.toFixed(1);
const rate = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(
  `authz: ${N} RBAC decisions (${((allowed / N) * 100).toFixed(0)}% allowed): ${rate(N / secs)} decisions/s wall, ${rate(N / cpuSecs)} per CPU-second; ` +
    `p50 ${pct(0.5)} µs, p99 ${pct(0.99)} µs, max ${lat[N - 1]!.toFixed(1)} µs`,
);

// HTTP: RBAC user against system:masters, in a server of its own process.
const server = await forkServer(new URL('./authz-server-child.ts', import.meta.url));
const ready = server.ready;
const CLIENTS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const agent = new https.Agent({ ca: ready.ca, keepAlive: true, maxSockets: CLIENTS });
const serverCpu = server.cpu;
async function httpRun(token: string): Promise<{ rate: number; cpuMicrosPerRequest: number }> {
  const get = () =>
    new Promise<number>((resolve, reject) => {
      const req = https.request(`${ready.url}/api/v1/namespaces/default/configmaps/bench`, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  for (let i = 0; i < 200; i++) {
    const st = await get();
    if (st !== 200) throw new Error(`${token}: status ${st}`);
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
  return { rate: count / SECONDS, cpuMicrosPerRequest: ((await serverCpu()) - cpu0) / count };
}
const masters: { rate: number; cpuMicrosPerRequest: number }[] = [];
const rbac: { rate: number; cpuMicrosPerRequest: number }[] = [];
for (let round = 0; round < 3; round++) {
  masters.push(await httpRun('masters-token'));
  rbac.push(await httpRun('rbac-token'));
}
const m = median(masters.map((x) => x.rate));
const r = median(rbac.map((x) => x.rate));
const mc = median(masters.map((x) => x.cpuMicrosPerRequest));
const rc = median(rbac.map((x) => x.cpuMicrosPerRequest));
console.log(
  `authz: HTTPS GET at ${CLIENTS} clients (medians of 3 alternating runs): system:masters ${rate(m)}/s, RBAC user ${rate(r)}/s ` +
    `(${((r / m) * 100).toFixed(0)}%); server CPU per request: system:masters ${mc.toFixed(0)} µs, RBAC user ${rc.toFixed(0)} µs ` +
    `(RBAC ${rc >= mc ? '+' : ''}${(((rc - mc) / mc) * 100).toFixed(1)}%); load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`,
);
agent.destroy();
await server.stop();
