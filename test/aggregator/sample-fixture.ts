/**
 * Test fixture: the gateway with its front-proxy identity configured, and the real
 * k8s.io/sample-apiserver v0.32.4 (wardle.example.com) behind it, on its own etcd, doing delegated
 * authentication and authorization against the gateway, registered by an APIService whose
 * service reference resolves through a StaticServiceResolver. The sample can be killed and
 * restarted on the same port (the availability and stale-discovery tests do). Free of vitest, so
 * the benchmarks use it too; the test-file lifecycle is in registered-sample.ts.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { startEtcd, type EtcdServer } from '../storage/etcd-server.ts';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type CertKeyPair } from '../../src/server/certs.ts';
import { StaticServiceResolver, type ServiceRouting } from '../../src/aggregator/service-resolver.ts';
import { DEFAULT_TRAFFIC, type TrafficContract } from '../../src/aggregator/traffic.ts';
import type { NamespaceControllerTiming } from '../../src/controllers/namespace-lifecycle.ts';
import { auditFlags } from '../audit/flags.ts';

export const SAMPLE_NAMESPACE = 'wardle';
export const SAMPLE_SERVICE = 'api';

/** Builds (once, cached) and returns the sample-apiserver binary. */
export function sampleApiserverBinary(): string {
  return execFileSync(join(import.meta.dirname, 'build-sample-apiserver.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

export interface AggregatedSetup {
  readonly gw: TestServer;
  readonly resolver: StaticServiceResolver;
  readonly dir: string;
  /** PEM of the CA that signed the front-proxy client certificate (the gateway's --requestheader-client-ca-file). */
  readonly frontProxyCa: CertKeyPair;
  readonly frontProxyClient: CertKeyPair;
  readonly sampleCa: CertKeyPair;
  readonly samplePort: number;
  /** Starts the sample-apiserver (again) on its port; resolves once it answers /readyz. */
  startSample(): Promise<void>;
  /** Kills the sample-apiserver (SIGKILL: a crash, not a graceful stop). */
  killSample(): Promise<void>;
  /** Creates the APIService for wardle.example.com/v1alpha1 and waits until it is Available. */
  register(opts?: { annotations?: Record<string, string>; waitAvailable?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export interface AggregatedSetupOptions {
  readonly traffic?: TrafficContract;
  readonly probeIntervalMs?: number;
  readonly namespaceControllerTiming?: NamespaceControllerTiming;
  readonly routing?: ServiceRouting;
  readonly bindAddress?: string;
  /**
   * Who the sample is against the gateway: the admin (default), or the service account
   * `wardle/apiserver` with only the RBAC the README's registration steps grant it.
   */
  readonly identity?: 'admin' | 'serviceaccount';
  /** An audit policy (YAML): the gateway audits to `audit.log` in the setup's dir. */
  readonly auditPolicy?: string;
}

/**
 * The README's step 2, run with kubectl against the gateway: the service account `wardle/apiserver`
 * bound to what an extension server needs; returns a kubeconfig of a token for it.
 */
async function serviceAccountKubeconfig(gw: TestServer, dir: string): Promise<string> {
  const sa = `${SAMPLE_NAMESPACE}:apiserver`;
  const steps = [
    ['create', 'namespace', SAMPLE_NAMESPACE],
    ['-n', SAMPLE_NAMESPACE, 'create', 'serviceaccount', 'apiserver'],
    ['create', 'clusterrolebinding', 'wardle:auth-delegator', '--clusterrole=system:auth-delegator', `--serviceaccount=${sa}`],
    ['-n', 'kube-system', 'create', 'rolebinding', 'wardle:auth-reader', '--role=extension-apiserver-authentication-reader', `--serviceaccount=${sa}`],
    [
      'create',
      'clusterrole',
      'wardle:watcher',
      '--verb=get,list,watch',
      '--resource=namespaces,mutatingwebhookconfigurations,validatingwebhookconfigurations,validatingadmissionpolicies,validatingadmissionpolicybindings,flowschemas,prioritylevelconfigurations',
    ],
    ['create', 'clusterrolebinding', 'wardle:watcher', '--clusterrole=wardle:watcher', `--serviceaccount=${sa}`],
  ];
  for (const args of steps) {
    const out = await gw.kubectl(args);
    if (out.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${out.stderr}`);
  }
  const token = await gw.kubectl(['-n', SAMPLE_NAMESPACE, 'create', 'token', 'apiserver', '--duration=2h']);
  if (token.code !== 0) throw new Error(`kubectl create token: ${token.stderr}`);
  const path = join(dir, 'wardle.kubeconfig');
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'gateway', cluster: { server: gw.server.url, 'certificate-authority-data': Buffer.from(gw.server.caCert).toString('base64') } }],
    users: [{ name: 'wardle', user: { token: token.stdout.trim() } }],
    contexts: [{ name: 'wardle', context: { cluster: 'gateway', user: 'wardle' } }],
    'current-context': 'wardle',
  };
  await writeFile(path, JSON.stringify(kubeconfig));
  return path;
}

/**
 * `bindAddress`: where the sample listens (default 127.0.0.1; kube refuses loopback Endpoints).
 * `routing`: resolve the APIService's service reference through the gateway's own resolver (the
 * Services and Endpoints it stores, routed this way) instead of the static map of `resolver`.
 */
export async function startAggregatedSetup(opts: AggregatedSetupOptions = {}): Promise<AggregatedSetup> {
  const bin = sampleApiserverBinary();
  const dir = await mkdtemp(join(tmpdir(), 'kgw-agg-'));
  const frontProxyCa = await createCertificateAuthority('front-proxy-ca');
  const frontProxyClient = await issueClientCertificate({ caCert: frontProxyCa.cert, caKey: frontProxyCa.key }, { commonName: 'front-proxy-client' });
  const sampleCa = await createCertificateAuthority('wardle-ca');
  const sampleServing = await issueServingCertificate({ caCert: sampleCa.cert, caKey: sampleCa.key }, { dnsNames: [`${SAMPLE_SERVICE}.${SAMPLE_NAMESPACE}.svc`], ips: [] });
  const file = async (name: string, text: string) => {
    const p = join(dir, name);
    await writeFile(p, text);
    return p;
  };
  const frontProxyCaFile = await file('front-proxy-ca.crt', frontProxyCa.cert);
  const proxyCertFile = await file('front-proxy-client.crt', frontProxyClient.cert);
  const proxyKeyFile = await file('front-proxy-client.key', frontProxyClient.key);
  const sampleCertFile = await file('wardle.crt', sampleServing.cert);
  const sampleKeyFile = await file('wardle.key', sampleServing.key);
  const resolver = new StaticServiceResolver();
  const audit = opts.auditPolicy === undefined ? undefined : auditFlags({ policyFile: await file('audit-policy.yaml', opts.auditPolicy), logPath: join(dir, 'audit.log') });
  const gw = await startTestServer({
    config: {
      ...(audit ? { audit } : {}),
      requestheaderClientCaFile: frontProxyCaFile,
      requestheaderAllowedNames: ['front-proxy-client'],
      requestheaderUsernameHeaders: ['X-Remote-User'],
      requestheaderGroupHeaders: ['X-Remote-Group'],
      requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
      aggregator: { proxyClientCertFile: proxyCertFile, proxyClientKeyFile: proxyKeyFile, serviceAddresses: [], serviceRouting: opts.routing ?? 'cluster-ip', traffic: opts.traffic ?? DEFAULT_TRAFFIC },
    },
    aggregation: { ...(opts.routing ? {} : { serviceResolver: resolver }), aggregatorProbeIntervalMs: opts.probeIntervalMs ?? 1000 },
    ...(opts.namespaceControllerTiming ? { namespaceControllerTiming: opts.namespaceControllerTiming } : {}),
  });
  let etcd: EtcdServer | undefined;
  let child: ChildProcess | undefined;
  let log = '';
  const samplePort = await freePort();
  resolver.set(SAMPLE_NAMESPACE, SAMPLE_SERVICE, '127.0.0.1', samplePort);
  let kubeconfig: string | undefined;
  const startSample = async () => {
    etcd ??= await startEtcd();
    kubeconfig ??= opts.identity === 'serviceaccount' ? await serviceAccountKubeconfig(gw, dir) : gw.server.kubeconfigPath;
    child = spawn(
      bin,
      [
        `--etcd-servers=${etcd.endpoint}`,
        `--secure-port=${samplePort}`,
        `--bind-address=${opts.bindAddress ?? '127.0.0.1'}`,
        `--tls-cert-file=${sampleCertFile}`,
        `--tls-private-key-file=${sampleKeyFile}`,
        `--kubeconfig=${kubeconfig}`,
        `--authentication-kubeconfig=${kubeconfig}`,
        `--authorization-kubeconfig=${kubeconfig}`,
        '--v=1',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr?.on('data', (c: Buffer) => {
      log = (log + c.toString()).slice(-20_000);
    });
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`sample-apiserver exited ${child.exitCode}:\n${log}`);
      const ok = await new Promise<boolean>((resolve) => {
        void import('node:https').then(({ default: https }) => {
          const req = https.get({ host: '127.0.0.1', port: samplePort, path: '/readyz', ca: sampleCa.cert, servername: `${SAMPLE_SERVICE}.${SAMPLE_NAMESPACE}.svc`, timeout: 1000 }, (res) => {
            res.resume();
            resolve(res.statusCode === 200);
          });
          req.on('error', () => resolve(false));
          req.on('timeout', () => req.destroy());
        });
      });
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`sample-apiserver not ready within 60s:\n${log}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const killSample = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  const register = async (ro: { annotations?: Record<string, string>; waitAvailable?: boolean } = {}) => {
    const res = await gw.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', { body: sampleApiService(443, sampleCa.cert, ro.annotations) });
    if (res.status !== 201) throw new Error(`APIService create: ${res.status} ${res.text}`);
    if (ro.waitAvailable === false) return;
    await waitForAvailable(gw, 'v1alpha1.wardle.example.com', 'True', 30_000);
  };
  return {
    gw,
    resolver,
    dir,
    frontProxyCa,
    frontProxyClient,
    sampleCa,
    samplePort,
    startSample,
    killSample,
    register,
    async close() {
      await killSample();
      await etcd?.stop();
      await gw.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls the APIService until its Available condition has `status`; returns the condition. */
/** The APIService registering the sample's wardle.example.com/v1alpha1 behind SAMPLE_SERVICE on `port`. */
export function sampleApiService(port: number, caCert: string, annotations?: Record<string, string>) {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1alpha1.wardle.example.com', ...(annotations ? { annotations } : {}) },
    spec: {
      group: 'wardle.example.com',
      version: 'v1alpha1',
      groupPriorityMinimum: 1000,
      versionPriority: 15,
      service: { namespace: SAMPLE_NAMESPACE, name: SAMPLE_SERVICE, port },
      caBundle: Buffer.from(caCert).toString('base64'),
    },
  };
}

export async function waitForAvailable(gw: TestServer, name: string, status: 'True' | 'False', timeoutMs: number): Promise<{ status: string; reason: string; message: string }> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const res = await gw.request('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
    const cond = (res.json?.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Available');
    last = cond;
    if (cond?.status === status) return cond;
    if (Date.now() > deadline) throw new Error(`APIService ${name} not Available=${status} within ${timeoutMs}ms: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
