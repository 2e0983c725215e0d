/**
 * The server side of the APF benchmark: a real server (memory store) in its own process, with
 * two token users (tenant-a, tenant-b), authorization AlwaysAllow, and APF on or off and the
 * in-flight limits as the parent says (BENCH_APF, BENCH_MAX_INFLIGHT, BENCH_MAX_MUTATING).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../src/server/api-server.ts';

const dataDir = await mkdtemp(join(tmpdir(), 'kgw-bench-apf-'));
const tokens = join(dataDir, 'tokens.csv');
await writeFile(tokens, 'token-a,tenant-a,1001\ntoken-b,tenant-b,1002\n');
const server = await startApiServer({
  config: {
    securePort: 0,
    bindAddress: '127.0.0.1',
    etcdServers: [],
    shutdownDelayMs: 0,
    anonymousAuth: true,
    dataDir,
    storageBackend: 'memory',
    historyMs: 5 * 60_000,
    tokenAuthFile: tokens,
    authorizationModes: ['AlwaysAllow'],
    enablePriorityAndFairness: process.env.BENCH_APF !== 'off',
    maxRequestsInflight: Number(process.env.BENCH_MAX_INFLIGHT ?? 400),
    maxMutatingRequestsInflight: Number(process.env.BENCH_MAX_MUTATING ?? 200),
  },
});
// Measured on a settled server: the bootstrap (default RBAC policy, APF configuration) in place.
await server.waitForPostStartHooks();
process.send?.({ type: 'ready', url: server.url, ca: server.caCert, cert: server.adminCert, key: server.adminKey });
process.on('message', (msg: { type: string }) => {
  if (msg.type === 'stop') void server.shutdown().then(() => process.exit(0));
  // Process CPU time so far (user + system, microseconds): a cost per request that the machine's load does not skew.
  if (msg.type === 'cpu') {
    const u = process.cpuUsage();
    process.send?.({ type: 'cpu', micros: u.user + u.system });
  }
});
