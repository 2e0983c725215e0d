/**
 * The scale-out flags: Redis watch fanout and the leader election of the run-once controllers
 * (kube-controller-manager's `--leader-elect*` names and defaults). Kept here so that
 * src/server/config.ts only splices them in.
 */

type Kind = 'string' | 'bool' | 'duration' | 'int';

export const SCALEOUT_FLAGS: readonly { readonly name: string; readonly kind: Kind; readonly defaultText?: string; readonly help: string }[] = [
  { name: 'leader-elect', kind: 'bool', defaultText: 'true with etcd, else false', help: 'Run the controllers that must run once (namespace lifecycle, garbage collector, event TTL, token controllers) only on the replica holding the Lease kube-system/kube-gateway-controllers.' },
  { name: 'leader-elect-lease-duration', kind: 'duration', defaultText: '15s', help: 'How long other replicas wait after the last renewal before taking the controllers Lease over.' },
  { name: 'leader-elect-renew-deadline', kind: 'duration', defaultText: '10s', help: 'How long the leader keeps retrying a renewal before it stops its controllers.' },
  { name: 'leader-elect-retry-period', kind: 'duration', defaultText: '2s', help: 'How often replicas try to acquire or renew the Lease.' },
  { name: 'watch-fanout', kind: 'string', help: 'redis://host:port[/db] (or rediss://): replicas on one etcd read watch events from Redis streams that one elected replica fills, instead of each watching etcd. Only with --storage-backend=etcd.' },
  { name: 'watch-fanout-max-bytes', kind: 'int', defaultText: '67108864', help: 'Byte budget of each resource type\'s Redis stream; the stream is also trimmed to --history-duration.' },
];

export interface LeaderElectionConfig {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface ScaleoutFlags {
  /** Absent: no leader election (every controller runs in this process). */
  readonly leaderElection?: LeaderElectionConfig;
  readonly watchFanout?: { readonly url: string; readonly maxBytes: number };
}

export function scaleoutFlagsOf(
  raw: ReadonlyMap<string, unknown>,
  storageBackend: string,
  FlagErrorClass: new (message: string) => Error,
): { scaleout?: ScaleoutFlags } {
  const given = (name: string) => raw.get(name);
  const duration = (name: string, dflt: number): number => {
    const v = (given(name) as number | undefined) ?? dflt;
    if (v <= 0) throw new FlagErrorClass(`--${name} must be greater than 0`);
    return v;
  };
  const elect = (given('leader-elect') as boolean | undefined) ?? storageBackend === 'etcd';
  let leaderElection: LeaderElectionConfig | undefined;
  if (elect) {
    leaderElection = {
      leaseDurationMs: duration('leader-elect-lease-duration', 15_000),
      renewDeadlineMs: duration('leader-elect-renew-deadline', 10_000),
      retryPeriodMs: duration('leader-elect-retry-period', 2_000),
    };
    // kube's leaderelection.NewLeaderElector checks, with its messages.
    if (leaderElection.leaseDurationMs <= leaderElection.renewDeadlineMs) throw new FlagErrorClass('leaseDuration must be greater than renewDeadline');
    if (leaderElection.renewDeadlineMs <= leaderElection.retryPeriodMs * 1.2) throw new FlagErrorClass('renewDeadline must be greater than retryPeriod*JitterFactor');
  }
  const url = given('watch-fanout') as string | undefined;
  let watchFanout: ScaleoutFlags['watchFanout'];
  if (url !== undefined && url !== '') {
    if (!/^rediss?:\/\//.test(url) || !URL.canParse(url)) throw new FlagErrorClass(`invalid argument ${JSON.stringify(url)} for "--watch-fanout" flag: must be a redis:// or rediss:// URL`);
    if (storageBackend !== 'etcd') throw new FlagErrorClass('--watch-fanout needs --storage-backend=etcd: with one process, watches fan out in memory');
    const maxBytes = (given('watch-fanout-max-bytes') as number | undefined) ?? 64 * 1024 * 1024;
    if (maxBytes < 1024 * 1024) throw new FlagErrorClass('--watch-fanout-max-bytes must be at least 1048576');
    watchFanout = { url, maxBytes };
  }
  if (!leaderElection && !watchFanout) return {};
  return { scaleout: { ...(leaderElection ? { leaderElection } : {}), ...(watchFanout ? { watchFanout } : {}) } };
}
