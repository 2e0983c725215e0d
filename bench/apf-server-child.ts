/**
 * The server side of the APF benchmark: a real server (memory store) in its own process, with
 * two token users (tenant-a, tenant-b), authorization AlwaysAllow, and APF on or off and the
 * in-flight limits as the parent says (BENCH_APF, BENCH_MAX_INFLIGHT, BENCH_MAX_MUTATING).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../src/server/api-server.ts';
import { benchServerConfig, serveParent } from './lib/server-child.ts';

const dataDir = await mkdtemp(join(tmpdir(), 'kgw-bench-apf-'));
const tokens = join(dataDir, 'tokens.csv');
await writeFile(tokens, 'token-a,tenant-a,1001\ntoken-b,tenant-b,1002\n');
const server = await startApiServer({
  config: benchServerConfig(dataDir, {
    tokenAuthFile: tokens,
    authorizationModes: ['AlwaysAllow'],
    enablePriorityAndFairness: process.env.BENCH_APF !== 'off',
    maxRequestsInflight: Number(process.env.BENCH_MAX_INFLIGHT ?? 400),
    maxMutatingRequestsInflight: Number(process.env.BENCH_MAX_MUTATING ?? 200),
  }),
});
// Measured on a settled server: the bootstrap (system namespaces, default RBAC policy, APF configuration) in place.
await server.waitForPostStartHooks();
serveParent(server);
