/**
 * How the server assembles its scale-out parts from the flags: the Redis watch fanout around the
 * etcd store, and the election of the run-once controllers. Kept here so that
 * src/server/api-server.ts only calls in.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { ResourceCatalog } from '../registry/resource-catalog.ts';
import type { Store } from '../storage/types.ts';
import type { HealthCheck } from '../metrics/slis.ts';
import { LeaderElector, type LeaseStore } from './lease-elector.ts';
import type { RunOnceControllers } from './run-once.ts';
import type { ScaleoutFlags } from './flags.ts';

/** The part of the server's configuration the scale-out parts read. */
export interface ScaleoutConfig {
  readonly scaleout?: ScaleoutFlags;
  /** --history-duration in milliseconds. */
  readonly historyMs: number;
}

/** The Lease the run-once controllers are elected by (kube-controller-manager uses kube-system/kube-controller-manager). */
export const CONTROLLERS_LEASE = { namespace: 'kube-system', name: 'kube-gateway-controllers' } as const;

const log = (level: 'info' | 'warn', msg: string) => process.stderr.write(`${JSON.stringify({ level, msg })}\n`);

/** client-go's default identity: the host name and a unique suffix. */
export function replicaIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** Starts the run-once controllers now, or under a Lease when leader election is on; returns the elector. */
export function startRunOnceControllers(config: ScaleoutConfig, catalog: ResourceCatalog, controllers: RunOnceControllers, store: Store): LeaderElector | undefined {
  const election = config.scaleout?.leaderElection;
  if (!election) {
    controllers.start();
    return undefined;
  }
  const leases = catalog.lookup('coordination.k8s.io', 'v1', 'leases')?.store;
  if (!leases) throw new Error('the leases.coordination.k8s.io resource type is missing');
  const elector = new LeaderElector({
    ...election,
    leases: leases as unknown as LeaseStore,
    ...CONTROLLERS_LEASE,
    // One name per replica: the watch fanout's pump identity when there is one.
    identity: (store as { identity?: string }).identity ?? replicaIdentity(),
    onStartedLeading: () => controllers.start(),
    onStoppedLeading: () => controllers.stop(),
    log,
  });
  elector.start();
  return elector;
}

/** The etcd store, wrapped in the Redis watch fanout when --watch-fanout names a Redis. */
export async function withWatchFanout(store: Store, config: ScaleoutConfig): Promise<Store> {
  const fanout = config.scaleout?.watchFanout;
  if (!fanout) return store;
  const { FanoutStore } = await import('../storage/fanout/fanout-store.ts');
  // A Redis that is down at start is no startup error: watches read etcd directly until it is up (readyz says so).
  return FanoutStore.connect(store, { url: fanout.url, historyMs: config.historyMs, maxBytes: fanout.maxBytes, log });
}

/**
 * readyz's `watch-fanout` check: it passes while Redis is down (the replica still serves every
 * watch, from etcd directly) and says which way watches are served in its verbose line.
 */
export function watchFanoutCheck(store: Store): HealthCheck | undefined {
  const status = (store as { status?: () => { mode: string; detail: string } }).status;
  if (typeof status !== 'function') return undefined;
  return { name: 'watch-fanout', check: () => {}, detail: () => status.call(store).detail };
}
