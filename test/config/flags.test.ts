import { describe, expect, it } from 'vitest';
import { FlagError, parseFlags, usage, type ServerConfig } from '../../src/server/config.ts';
import { parseGoDuration } from '../../src/schema/go-duration.ts';

function config(argv: string[]): ServerConfig {
  const result = parseFlags(argv);
  if ('help' in result) throw new Error('unexpected help');
  return result;
}

describe('parseFlags', () => {
  it('has the documented defaults', () => {
    expect(config([])).toEqual({
      securePort: 6443,
      bindAddress: '127.0.0.1',
      etcdServers: [],
      shutdownDelayMs: 0,
      anonymousAuth: true,
      dataDir: './data',
      storageBackend: 'sqlite',
      historyMs: 300_000,
      eventTtlMs: 3_600_000,
      maxRequestsInflight: 400,
      maxMutatingRequestsInflight: 200,
      serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'],
      serviceAccountKeyFiles: [],
      apiAudiences: ['https://kubernetes.default.svc.cluster.local'],
      serviceAccountLookup: true,
      serviceAccountMaxTokenExpirationSeconds: 0,
      authorizationModes: ['RBAC'],
    });
  });

  it('checks the service-account flags as kube-apiserver does', () => {
    expect(() => config(['--service-account-issuer=1a:b'])).toThrow('service-account-issuer "1a:b" contained a \':\' but was not a valid URL');
    expect(() => config(['--service-account-max-token-expiration=30m'])).toThrow('must be >= 3600 (1 hour)');
  });

  it('reads every flag in --flag=value form', () => {
    const c = config([
      '--secure-port=8443',
      '--bind-address=0.0.0.0',
      '--tls-cert-file=/etc/tls.crt',
      '--tls-private-key-file=/etc/tls.key',
      '--client-ca-file=/etc/ca.crt',
      '--token-auth-file=/etc/tokens.csv',
      '--etcd-servers=http://127.0.0.1:2379,http://127.0.0.1:22379',
      '--shutdown-delay-duration=1m30s',
      '--anonymous-auth=false',
      '--data-dir=/var/lib/gw',
      '--storage-backend=etcd',
      '--history-duration=10m',
      '--event-ttl=30m',
      '--max-requests-inflight=100',
      '--max-mutating-requests-inflight=50',
      '--service-account-issuer=https://a.example,with-comma',
      '--service-account-issuer=https://b.example',
      '--service-account-key-file=/etc/sa1.pub',
      '--service-account-key-file=/etc/sa2.pub',
      '--service-account-signing-key-file=/etc/sa.key',
      '--api-audiences=api,other',
      '--service-account-lookup=false',
      '--service-account-max-token-expiration=48h',
    ]);
    expect(c).toEqual({
      securePort: 8443,
      bindAddress: '0.0.0.0',
      tlsCertFile: '/etc/tls.crt',
      tlsPrivateKeyFile: '/etc/tls.key',
      clientCaFile: '/etc/ca.crt',
      tokenAuthFile: '/etc/tokens.csv',
      etcdServers: ['http://127.0.0.1:2379', 'http://127.0.0.1:22379'],
      shutdownDelayMs: 90_000,
      anonymousAuth: false,
      dataDir: '/var/lib/gw',
      storageBackend: 'etcd',
      historyMs: 600_000,
      eventTtlMs: 1_800_000,
      maxRequestsInflight: 100,
      // etcd: the run-once controllers are elected (kube-controller-manager's --leader-elect defaults).
      scaleout: { leaderElection: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } },
      maxMutatingRequestsInflight: 50,
      // StringArray flags keep commas; --api-audiences is a comma-separated slice.
      serviceAccountIssuers: ['https://a.example,with-comma', 'https://b.example'],
      serviceAccountKeyFiles: ['/etc/sa1.pub', '/etc/sa2.pub'],
      serviceAccountSigningKeyFile: '/etc/sa.key',
      apiAudiences: ['api', 'other'],
      serviceAccountLookup: false,
      serviceAccountMaxTokenExpirationSeconds: 172_800,
      authorizationModes: ['RBAC'],
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads every flag in --flag value form', () => {
    const c = config([
      '--secure-port', '0',
      '--bind-address', '::1',
      '--tls-cert-file', 'a.crt',
      '--tls-private-key-file', 'a.key',
      '--client-ca-file', 'ca.crt',
      '--token-auth-file', 't.csv',
      '--etcd-servers', 'http://e:2379',
      '--shutdown-delay-duration', '5s',
      '--data-dir', 'd',
      '--storage-backend', 'memory',
      '--history-duration', '1h',
    ]);
    expect(c).toMatchObject({
      securePort: 0,
      bindAddress: '::1',
      tlsCertFile: 'a.crt',
      tlsPrivateKeyFile: 'a.key',
      clientCaFile: 'ca.crt',
      tokenAuthFile: 't.csv',
      etcdServers: ['http://e:2379'],
      shutdownDelayMs: 5000,
      dataDir: 'd',
      storageBackend: 'memory',
      historyMs: 3_600_000,
    });
  });

  it('reads booleans as bare flags and Go bool literals, and a bare boolean does not eat the next argument', () => {
    expect(config(['--anonymous-auth']).anonymousAuth).toBe(true);
    expect(config(['--anonymous-auth=false']).anonymousAuth).toBe(false);
    expect(config(['--anonymous-auth=0']).anonymousAuth).toBe(false);
    expect(config(['--anonymous-auth=F']).anonymousAuth).toBe(false);
    expect(config(['--anonymous-auth=TRUE']).anonymousAuth).toBe(true);
    expect(config(['--anonymous-auth', '--secure-port=1']).securePort).toBe(1);
    expect(() => config(['--anonymous-auth', 'false'])).toThrow(/does not take any arguments, got "false"/);
    expect(() => config(['--anonymous-auth=yes'])).toThrow(
      'invalid argument "yes" for "--anonymous-auth" flag: strconv.ParseBool: parsing "yes": invalid syntax',
    );
  });

  it('lets the last value of a flag win, and accumulates repeated --etcd-servers', () => {
    expect(config(['--secure-port=1', '--secure-port=2']).securePort).toBe(2);
    expect(config(['--etcd-servers=a', '--etcd-servers', 'b,c']).etcdServers).toEqual(['a', 'b', 'c']);
  });

  it('chooses the storage backend from --etcd-servers unless it is set', () => {
    expect(config(['--etcd-servers=http://e:2379']).storageBackend).toBe('etcd');
    expect(config(['--etcd-servers=http://e:2379', '--storage-backend=memory']).storageBackend).toBe('memory');
    expect(() => config(['--storage-backend=etcd'])).toThrow('--etcd-servers must be specified');
    expect(() => config(['--storage-backend=mysql'])).toThrow(/invalid argument "mysql" for "--storage-backend" flag/);
  });

  it('names the unknown flag', () => {
    expect(() => parseFlags(['--secure-prot=1'])).toThrow(FlagError);
    expect(() => parseFlags(['--secure-prot=1'])).toThrow('unknown flag: --secure-prot');
    expect(() => parseFlags(['--port', '1'])).toThrow('unknown flag: --port');
  });

  it('rejects missing values, bad numbers, bad addresses and half a key pair', () => {
    expect(() => parseFlags(['--data-dir'])).toThrow('flag needs an argument: --data-dir');
    expect(() => parseFlags(['--secure-port=abc'])).toThrow(
      'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax',
    );
    expect(() => parseFlags(['--secure-port=70000'])).toThrow(/--secure-port 70000 must be between 0 and 65535/);
    expect(() => parseFlags(['--bind-address=localhost'])).toThrow(/invalid IP address/);
    expect(() => parseFlags(['--tls-cert-file=a.crt'])).toThrow('--tls-cert-file and --tls-private-key-file must be given together');
    expect(() => parseFlags(['--shutdown-delay-duration=5'])).toThrow(
      'invalid argument "5" for "--shutdown-delay-duration" flag: time: missing unit in duration "5"',
    );
    expect(() => parseFlags(['--shutdown-delay-duration=-5s'])).toThrow('--shutdown-delay-duration can not be a negative value');
    expect(() => parseFlags(['serve'])).toThrow('kube-gateway does not take any arguments, got "serve"');
  });

  it('returns the help text for --help and -h, one line per flag', () => {
    for (const argv of [['--help'], ['-h'], ['--secure-port=1', '--help=true']]) {
      const result = parseFlags(argv);
      expect(result).toEqual({ help: usage() });
    }
    const text = usage();
    const names = [
      'anonymous-auth', 'bind-address', 'client-ca-file', 'data-dir', 'etcd-servers', 'help', 'history-duration',
      'secure-port', 'shutdown-delay-duration', 'storage-backend', 'tls-cert-file', 'tls-private-key-file', 'token-auth-file',
    ];
    for (const name of names) {
      const lines = text.split('\n').filter((l) => l.trimStart().startsWith(`--${name} `) || l.trim() === `--${name}`);
      expect(lines, name).toHaveLength(1);
    }
    expect(text).toMatch(/--secure-port int +.*\(default 6443\)/);
    expect(text).toMatch(/--history-duration duration +.*\(default 5m\)/);
    expect(text).toMatch(/--anonymous-auth +.*\(default true\)/);
  });
});

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['5s', 5000],
    ['1m30s', 90_000],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['.5s', 500],
    ['1.s', 1000],
    ['-1m', -60_000],
    ['+2s', 2000],
    ['1000us', 1],
    ['1000µs', 1],
    ['1000μs', 1],
    ['2000000ns', 2],
    ['1h1m1s1ms', 3_661_001],
  ])('%s is %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['1', 'time: missing unit in duration "1"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['.', 'time: invalid duration "."'],
    ['s', 'time: invalid duration "s"'],
    ['-', 'time: invalid duration "-"'],
    ['1.2.3s', 'time: missing unit in duration "1.2.3s"'],
    ['1s 2s', 'time: unknown unit "s " in duration "1s 2s"'],
  ])('%j is refused', (text, message) => {
    expect(() => parseGoDuration(text)).toThrow(message);
  });
});

describe('scale-out flags', () => {
  const etcd = ['--etcd-servers=http://127.0.0.1:2379'];
  it('reads --watch-fanout and --leader-elect* and checks them as kube does', () => {
    const c = parseFlags([...etcd, '--watch-fanout=redis://r:6379/2', '--watch-fanout-max-bytes=2097152', '--leader-elect-lease-duration=20s', '--leader-elect-renew-deadline=15s', '--leader-elect-retry-period=3s']);
    expect('help' in c ? undefined : c.scaleout).toEqual({
      leaderElection: { leaseDurationMs: 20_000, renewDeadlineMs: 15_000, retryPeriodMs: 3_000 },
      watchFanout: { url: 'redis://r:6379/2', maxBytes: 2_097_152 },
    });
    expect(() => parseFlags([...etcd, '--leader-elect-lease-duration=10s'])).toThrow('leaseDuration must be greater than renewDeadline');
    expect(() => parseFlags([...etcd, '--watch-fanout=http://r'])).toThrow(/must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => parseFlags(['--watch-fanout=redis://r:6379'])).toThrow(/needs --storage-backend=etcd/);
    // One process on SQLite elects nothing unless asked.
    const plain = parseFlags([]);
    expect('help' in plain ? 'help' : plain.scaleout).toBeUndefined();
    const off = parseFlags([...etcd, '--leader-elect=false']);
    expect('help' in off ? 'help' : off.scaleout).toBeUndefined();
  });
});
