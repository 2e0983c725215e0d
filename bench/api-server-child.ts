/**
 * The server side of the API benchmark: a real server on the embedded store in its own process,
 * answering memory questions over IPC so the load process can measure it from outside.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { startApiServer } from '../src/server/api-server.ts';
import { benchServerConfig, serveParent } from './lib/server-child.ts';

const dataDir = await mkdtemp(join(tmpdir(), 'kgw-bench-'));
const server = await startApiServer({
  config: benchServerConfig(dataDir, {
    storageBackend: (process.env.BENCH_BACKEND as 'sqlite' | 'memory' | undefined) ?? 'sqlite',
    // bench/audit.ts: audit events to a file under the given policy.
    ...(process.env.BENCH_AUDIT_POLICY && process.env.BENCH_AUDIT_LOG
      ? {
          audit: {
            policyFile: process.env.BENCH_AUDIT_POLICY,
            logPath: process.env.BENCH_AUDIT_LOG,
            logMaxAgeDays: 0,
            logMaxBackups: 0,
            logMaxSizeMB: 0,
            logBufferSize: 10_000,
            webhookBatchBufferSize: 10_000,
            webhookBatchMaxSize: 400,
            webhookBatchMaxWaitMs: 30_000,
            webhookBatchThrottleQps: 10,
            webhookBatchThrottleBurst: 15,
            webhookInitialBackoffMs: 10_000,
          },
        }
      : {}),
  }),
  // bench:metrics runs one server with per-request metrics and one without.
  recordMetrics: process.env.BENCH_METRICS !== '0',
});
// Measured on a settled server: the bootstrap (system namespaces, default RBAC policy, APF configuration) in place.
await server.waitForPostStartHooks();
serveParent(server);
process.on('message', (msg: { type: string }) => {
  if (msg.type !== 'snapshot') return;
  // bench/api-watch-memory.ts --snapshots: a heap snapshot to compare (after collecting garbage).
  for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ type: 'snapshot', file: writeHeapSnapshot() });
});
