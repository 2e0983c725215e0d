/**
 * The Helm chart (charts/kube-gateway) with the real Helm: lint and template for every storage
 * mode and a few values sets, checks on the rendered objects (every file a flag names is mounted
 * there, probes on served paths and the declared port, no empty values, the bad combinations
 * refused with a message), and one start of gateway processes with exactly the rendered
 * command, arguments, environment and mounted files (mapped to a temporary directory) against
 * a real etcd and Redis on loopback, then kubectl through the admin token the chart made.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartDir, ensureHelm, renderChart, runHelm, type K8sObject } from './helm.ts';
import { startEtcd, type EtcdServer } from '../storage/etcd-server.ts';
import { freePort, startRedis, type RedisServer } from '../storage/redis-server.ts';

/** helm lint and template take seconds each, much longer on a loaded machine. */
const HELM_TIMEOUT = 180_000;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let work: string;

beforeAll(() => {
  ensureHelm();
  work = mkdtempSync(join(tmpdir(), 'kgw-chart-'));
}, 25 * 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const VALUE_SETS: Record<string, unknown> = {
  default: {},
  sqlite: { storage: { mode: 'sqlite', sqlite: { size: '5Gi', storageClassName: 'fast' } } },
  bundled: { storage: { mode: 'etcd-bundled' }, redis: { mode: 'bundled' }, replicas: 3 },
  full: {
    storage: { mode: 'etcd', etcd: { servers: ['http://10.0.0.1:2379', 'http://10.0.0.2:2379'] } },
    redis: { mode: 'external', url: 'redis://redis.infra:6379/0', maxBytes: 33554432 },
    tls: { mode: 'certManager', certManager: { issuerRef: { name: 'ca-issuer', kind: 'ClusterIssuer' } }, extraDnsNames: ['api.example.com'] },
    auth: {
      tokens: [{ token: 'abc', user: 'ci', groups: ['deployers'] }],
      authenticationConfig: 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt: []\n',
      authorizationConfig: 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: RBAC\n  name: rbac\n',
    },
    admission: {
      enablePlugins: ['EventRateLimit'],
      config: 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: eventratelimit.yaml\n',
      files: { 'eventratelimit.yaml': 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 50\n  burst: 100\n' },
    },
    audit: { enabled: true, policy: 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n' },
    serviceMonitor: { enabled: true },
  },
  existingTls: { tls: { mode: 'existingSecret', secretName: 'my-tls' }, apf: { enabled: false } },
};

function valuesFile(name: string, values: unknown): string {
  const p = join(work, `${name}.values.json`);
  writeFileSync(p, JSON.stringify(values));
  return p;
}

/** Flags whose value is a file the gateway reads. */
const FILE_FLAGS = new Set([
  'tls-cert-file', 'tls-private-key-file', 'client-ca-file', 'token-auth-file', 'service-account-signing-key-file', 'service-account-key-file',
  'authentication-config', 'authorization-config', 'admission-control-config-file', 'audit-policy-file',
]);

const workloadOf = (objs: K8sObject[]) => objs.find((o) => (o.kind === 'Deployment' || o.kind === 'StatefulSet') && o.metadata.name === 'gw-kube-gateway')!;
const gatewayContainer = (w: K8sObject) => w.spec.template.spec.containers.find((c: { name: string }) => c.name === 'kube-gateway');
const flagValue = (args: string[], flag: string) => args.find((a) => a.startsWith(`--${flag}=`))?.slice(flag.length + 3);

/** Every empty string anywhere in an object, by path. */
function emptyStrings(v: unknown, path: string, out: string[]): string[] {
  if (v === '') out.push(path);
  else if (Array.isArray(v)) v.forEach((x, i) => emptyStrings(x, `${path}[${i}]`, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) emptyStrings(x, `${path}.${k}`, out);
  return out;
}

/** The keys a Secret or ConfigMap of the release provides, or undefined when made outside the chart. */
function keysOf(objs: K8sObject[], kind: 'Secret' | 'ConfigMap', name: string): string[] | undefined {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) return undefined;
  return [...Object.keys(o.data ?? {}), ...Object.keys(o.stringData ?? {})];
}

describe('helm lint and template', () => {
  for (const [name, values] of Object.entries(VALUE_SETS)) {
    it(`${name}: lints, renders, and every file a flag names is mounted at that path`, async () => {
      const file = valuesFile(name, values);
      const lint = await runHelm(['lint', chartDir, '-f', file]);
      expect(lint.code, lint.stdout + lint.stderr).toBe(0);
      const objs = await renderChart(file);
      const w = workloadOf(objs);
      const c = gatewayContainer(w);
      const pod = w.spec.template.spec;
      expect(c.command).toEqual(['node', '--v8-pool-size=2', '/app/bin/kube-gateway.js']);
      const args: string[] = c.args;
      for (const a of args) expect(a, 'a flag without a value').not.toMatch(/=$/);
      for (const a of args) {
        const m = /^--([a-z-]+)=(.*)$/.exec(a);
        if (!m || !FILE_FLAGS.has(m[1]!)) continue;
        const path = m[2]!;
        const mount = c.volumeMounts.find((vm: { mountPath: string }) => path.startsWith(`${vm.mountPath}/`));
        expect(mount, `${a}: no volume mounted there`).toBeDefined();
        const volume = pod.volumes.find((v: { name: string }) => v.name === mount.name);
        expect(volume, `${a}: volume ${mount.name} missing`).toBeDefined();
        const key = path.slice(mount.mountPath.length + 1);
        const keys = volume.secret ? keysOf(objs, 'Secret', volume.secret.secretName) : volume.configMap ? keysOf(objs, 'ConfigMap', volume.configMap.name) : undefined;
        // Secrets made outside the chart (an existing TLS Secret, cert-manager's) have kube's TLS keys.
        expect(keys ?? ['tls.crt', 'tls.key', 'ca.crt'], `${a}: ${key} is not in the mounted volume`).toContain(key);
      }
      // Probes on the gateway's health paths, on the declared port.
      expect(c.ports.map((p: { name: string }) => p.name)).toContain('https');
      expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'https', scheme: 'HTTPS' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'https', scheme: 'HTTPS' });
      expect(c.startupProbe.httpGet.path).toBe('/livez');
      // Non-root, read-only, nothing to escalate.
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toEqual(expect.arrayContaining(['/var/lib/kube-gateway', '/tmp']));
      for (const e of c.env) expect(e.value ?? e.valueFrom, `env ${e.name} is empty`).toBeTruthy();
      expect(emptyStrings(objs, 'rendered', [])).toEqual([]);
      const svc = objs.find((o) => o.kind === 'Service' && o.metadata.name === 'gw-kube-gateway')!;
      expect(svc.spec.ports[0]).toMatchObject({ port: 443, targetPort: 'https' });
    }, HELM_TIMEOUT);
  }

  it('storage modes: sqlite is one StatefulSet replica with a claim; etcd modes are Deployments with a PDB and anti-affinity', async () => {
    const sqlite = await renderChart(valuesFile('sqlite', VALUE_SETS.sqlite));
    const ss = workloadOf(sqlite);
    expect([ss.kind, ss.spec.replicas]).toEqual(['StatefulSet', 1]);
    expect(ss.spec.volumeClaimTemplates[0]).toMatchObject({ metadata: { name: 'data' }, spec: { storageClassName: 'fast', resources: { requests: { storage: '5Gi' } } } });
    expect(gatewayContainer(ss).args).toContain('--storage-backend=sqlite');
    expect(gatewayContainer(ss).args.some((a: string) => a.startsWith('--etcd-servers'))).toBe(false);
    expect(sqlite.some((o) => o.kind === 'PodDisruptionBudget')).toBe(false);

    const bundled = await renderChart(valuesFile('bundled', VALUE_SETS.bundled));
    const d = workloadOf(bundled);
    expect([d.kind, d.spec.replicas]).toEqual(['Deployment', 3]);
    const args: string[] = gatewayContainer(d).args;
    expect(flagValue(args, 'etcd-servers')).toBe('http://gw-kube-gateway-etcd:2379');
    expect(flagValue(args, 'watch-fanout')).toBe('redis://gw-kube-gateway-redis:6379');
    expect(bundled.filter((o) => o.kind === 'StatefulSet').map((o) => o.metadata.name)).toEqual(['gw-kube-gateway-etcd']);
    expect(bundled.find((o) => o.kind === 'Service' && o.metadata.name === 'gw-kube-gateway-redis')).toBeDefined();
    expect(bundled.find((o) => o.kind === 'PodDisruptionBudget')?.spec.minAvailable).toBe(1);
    expect(d.spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey).toBe('kubernetes.io/hostname');

    const full = await renderChart(valuesFile('full', VALUE_SETS.full));
    const fargs: string[] = gatewayContainer(workloadOf(full)).args;
    expect(flagValue(fargs, 'etcd-servers')).toBe('http://10.0.0.1:2379,http://10.0.0.2:2379');
    expect(flagValue(fargs, 'watch-fanout')).toBe('redis://redis.infra:6379/0');
    expect(flagValue(fargs, 'watch-fanout-max-bytes')).toBe('33554432');
    expect(flagValue(fargs, 'authorization-mode')).toBeUndefined();
    expect(full.find((o) => o.kind === 'Certificate')?.spec).toMatchObject({ secretName: 'gw-kube-gateway-tls', issuerRef: { name: 'ca-issuer', kind: 'ClusterIssuer' } });
    expect(full.find((o) => o.kind === 'ServiceMonitor')?.spec.endpoints[0]).toMatchObject({ port: 'https', path: '/metrics', scheme: 'https' });
    const cm = full.find((o) => o.kind === 'ConfigMap')!;
    expect(Object.keys(cm.data).sort()).toEqual(['admission-config.yaml', 'audit-policy.yaml', 'authentication-config.yaml', 'authorization-config.yaml', 'eventratelimit.yaml']);
    const auth = full.find((o) => o.kind === 'Secret' && o.metadata.name === 'gw-kube-gateway-auth')!;
    expect(auth.stringData['tokens.csv']).toMatch(/^[A-Za-z0-9]{48},admin,admin,"system:masters"\nabc,ci,ci,"deployers"\n$/);
  }, HELM_TIMEOUT);

  it('refuses bad combinations with a message naming the value', async () => {
    const bad = async (values: unknown) => (await runHelm(['template', 'gw', chartDir, '-f', valuesFile('bad', values)])).stderr;
    expect(await bad({ storage: { mode: 'sqlite' }, redis: { mode: 'bundled' } })).toContain('redis watch fanout needs etcd storage');
    expect(await bad({ storage: { mode: 'postgres' } })).toContain('storage.mode must be sqlite, etcd or etcd-bundled');
    expect(await bad({ redis: { mode: 'external' } })).toContain('redis.url is required with redis.mode=external');
    expect(await bad({ storage: { etcd: { tls: { secretName: 'etcd-client' } } } })).toContain('storage.etcd.tls');
    expect(await bad({ tls: { mode: 'existingSecret' } })).toContain('tls.secretName is required');
  }, HELM_TIMEOUT);
});

describe('the rendered configuration starts gateways', () => {
  let etcd: EtcdServer;
  let redis: RedisServer;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    [etcd, redis] = await Promise.all([startEtcd(), startRedis()]);
  }, 60_000);
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await Promise.all([etcd?.stop(), redis?.stop()]);
  });

  /** The files of one pod: each mounted Secret's and ConfigMap's keys, empty dirs for emptyDir; paths under `root`. */
  function materializePod(objs: K8sObject[], w: K8sObject, root: string): void {
    const pod = w.spec.template.spec;
    for (const m of gatewayContainer(w).volumeMounts as { name: string; mountPath: string }[]) {
      const v = pod.volumes.find((x: { name: string }) => x.name === m.name);
      const dir = join(root, m.mountPath);
      mkdirSync(dir, { recursive: true });
      const source = v.secret ? objs.find((o) => o.kind === 'Secret' && o.metadata.name === v.secret.secretName) : v.configMap ? objs.find((o) => o.kind === 'ConfigMap' && o.metadata.name === v.configMap.name) : undefined;
      if (!v.emptyDir && !source) throw new Error(`volume ${m.name}: its source is not rendered by the chart`);
      for (const [k, val] of Object.entries<string>(source?.data ?? {})) writeFileSync(join(dir, k), v.secret ? Buffer.from(val, 'base64') : val);
      for (const [k, val] of Object.entries<string>(source?.stringData ?? {})) writeFileSync(join(dir, k), val);
    }
  }

  it('two replicas from the rendered Deployment (external etcd, Redis fanout) serve kubectl with the chart\'s admin token', async () => {
    const objs = await renderChart(valuesFile('e2e', { storage: { mode: 'etcd', etcd: { servers: [etcd.endpoint] } }, redis: { mode: 'external', url: redis.url }, replicas: 2 }));
    const w = workloadOf(objs);
    const c = gatewayContainer(w);
    const mountPaths: string[] = c.volumeMounts.map((m: { mountPath: string }) => m.mountPath);
    const urls: string[] = [];
    for (let i = 0; i < w.spec.replicas; i++) {
      const root = join(work, `pod-${i}`);
      materializePod(objs, w, root);
      const port = await freePort();
      // The only mappings: the image's /app is this checkout, a mounted path lives under the pod's
      // directory, and each replica listens on its own free port (pods have their own network).
      const map = (s: string) => {
        // The image's paths are mapped, never the checkout's own (which may itself lie under /tmp).
        if (s.startsWith('/app/')) return `${repoRoot}/${s.slice('/app/'.length)}`;
        let out = s;
        for (const mp of mountPaths) if (out === mp || out.includes(`=${mp}`) || out.startsWith(`${mp}/`)) out = out.replace(mp, join(root, mp));
        return out === '--secure-port=6443' ? `--secure-port=${port}` : out;
      };
      const [cmd, ...cmdArgs] = (c.command as string[]).map(map);
      const env = Object.fromEntries((c.env as { name: string; value?: string }[]).map((e) => [e.name, e.value ?? '']));
      const child = spawn(cmd!, [...cmdArgs, ...(c.args as string[]).map(map)], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let log = '';
      child.stdout!.on('data', (d) => (log += d));
      child.stderr!.on('data', (d) => (log += d));
      const url = `https://127.0.0.1:${port}`;
      const ca = objs.find((o) => o.kind === 'Secret' && o.metadata.name === 'gw-kube-gateway-tls')!.data['ca.crt'];
      // Ready when /readyz says so (anonymous, as the kubelet's probe).
      const deadline = Date.now() + 90_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`replica ${i} exited: ${log}`);
        const status = await new Promise<number>((resolve) => {
          const req = https.get(`${url}/readyz`, { ca: Buffer.from(ca, 'base64') }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', () => resolve(0));
        });
        if (status === 200) break;
        if (Date.now() > deadline) throw new Error(`replica ${i} not ready: ${log}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      urls.push(url);
    }
    // A kubeconfig as NOTES.txt builds it: the CA of the TLS Secret, the admin token of the auth Secret.
    const caFile = join(work, 'ca.crt');
    writeFileSync(caFile, Buffer.from(objs.find((o) => o.kind === 'Secret' && o.metadata.name === 'gw-kube-gateway-tls')!.data['ca.crt'], 'base64'));
    const token = objs.find((o) => o.kind === 'Secret' && o.metadata.name === 'gw-kube-gateway-auth')!.stringData['admin-token'];
    const kubectl = (url: string, args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile('kubectl', ['--server', url, '--certificate-authority', caFile, '--token', token, ...args], { env: { ...process.env, KUBECONFIG: '/dev/null', HOME: work } }, (err, stdout, stderr) =>
          resolve({ code: err ? 1 : 0, stdout, stderr }),
        ),
      );
    const created = await kubectl(urls[0]!, ['create', 'namespace', 'chart-e2e']);
    expect(created.stderr).toBe('');
    expect(created.stdout).toBe('namespace/chart-e2e created\n');
    // The other replica sees it (one etcd), and serves its API as kube does.
    const got = await kubectl(urls[1]!, ['get', 'namespace', 'chart-e2e', '-o', 'jsonpath={.status.phase}']);
    expect(got.stdout).toBe('Active');
    const who = await kubectl(urls[1]!, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(who.stdout).toBe('admin');
    const ready = await kubectl(urls[1]!, ['get', '--raw', '/readyz?verbose']);
    expect(ready.stdout).toContain('[+]watch-fanout ok');
    expect(ready.stdout).toContain('readyz check passed');
  }, 240_000);
});
