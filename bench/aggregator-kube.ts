/**
 * The reference for issue 16's proxy figure: the same flunder GET as bench/aggregator.ts, sent
 * through kube-apiserver v1.32.4's own aggregator (kube-aggregator) beside the same GET sent to the
 * sample-apiserver directly, on this machine. What kube adds is what the gateway's added latency is
 * to be read against. Development tool, outside `npm test`; prints figures, asserts nothing.
 *
 * kube-apiserver runs from parity/reference.sh (built by parity/build-reference.sh) with the
 * front-proxy flags; the sample-apiserver (test/aggregator/build-sample-apiserver.sh) on its own
 * etcd delegates authentication and authorization to it. The APIService's Service is of type
 * ExternalName `localhost`: kube-aggregator resolves an ExternalName service to that host and the
 * APIService's port, while Endpoints may not name a loopback address.
 *
 * `npx tsx bench/aggregator-kube.ts`; BENCH_AGG_H2=1 sends the GETs over HTTP/2 (one session), and
 * BENCH_AGG_PER_CLIENT / BENCH_AGG_WARMUP size the phases as in bench/aggregator.ts.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '../src/server/certs.ts';
import { SAMPLE_NAMESPACE, SAMPLE_SERVICE, sampleApiService, sampleApiserverBinary } from '../test/aggregator/sample-fixture.ts';
import { startEtcd } from '../test/storage/etcd-server.ts';
import { freePort } from '../test/storage/redis-server.ts';
import { get, h2Getter, loadGets } from './lib/get-load.ts';

const CLIENTS = 32;
const PER_CLIENT = Number(process.env.BENCH_AGG_PER_CLIENT ?? 100);
const WARMUP = Number(process.env.BENCH_AGG_WARMUP ?? 20);
const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kgw-agg-kube-'));
const refDir = join(dir, 'ref');

const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const frontProxyCa = await createCertificateAuthority('front-proxy-ca');
const frontProxyClient = await issueClientCertificate({ caCert: frontProxyCa.cert, caKey: frontProxyCa.key }, { commonName: 'front-proxy-client' });
const sampleCa = await createCertificateAuthority('wardle-ca');
const sampleName = `${SAMPLE_SERVICE}.${SAMPLE_NAMESPACE}.svc`;
const sampleServing = await issueServingCertificate({ caCert: sampleCa.cert, caKey: sampleCa.key }, { dnsNames: [sampleName], ips: [] });

const reference = join(root, 'parity', 'reference.sh');
const started = spawnSync(
  'bash',
  [
    reference,
    'start',
    '--dir',
    refDir,
    '--no-controller-manager',
    ...[
      `--requestheader-client-ca-file=${file('front-proxy-ca.crt', frontProxyCa.cert)}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--proxy-client-cert-file=${file('front-proxy-client.crt', frontProxyClient.cert)}`,
      `--proxy-client-key-file=${file('front-proxy-client.key', frontProxyClient.key)}`,
    ].flatMap((f) => ['--extra-flag', f]),
  ],
  { encoding: 'utf8' },
);
if (started.status !== 0) throw new Error(`reference did not start (build it with parity/build-reference.sh):\n${started.stderr}`);
const kubeconfig = join(refDir, 'kubeconfig');
const refUrl = /REF_URL=(\S+)/.exec(readFileSync(join(refDir, 'env'), 'utf8'))![1]!;
const kubectl = (...args: string[]): string => execFileSync('kubectl', ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });

const etcd = await startEtcd();
const samplePort = await freePort();
const sample = spawn(
  sampleApiserverBinary(),
  [
    `--etcd-servers=${etcd.endpoint}`,
    `--secure-port=${samplePort}`,
    '--bind-address=127.0.0.1',
    `--tls-cert-file=${file('wardle.crt', sampleServing.cert)}`,
    `--tls-private-key-file=${file('wardle.key', sampleServing.key)}`,
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
  ],
  { stdio: ['ignore', 'ignore', 'ignore'] },
);

async function stop(): Promise<void> {
  sample.kill('SIGKILL');
  await etcd.stop();
  spawnSync('bash', [reference, 'stop', '--dir', refDir]);
  rmSync(dir, { recursive: true, force: true });
}

try {
  const apiservice = sampleApiService(samplePort, sampleCa.cert);
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: SAMPLE_NAMESPACE, name: SAMPLE_SERVICE }, spec: { type: 'ExternalName', externalName: 'localhost' } };
  kubectl('create', 'namespace', SAMPLE_NAMESPACE);
  kubectl('apply', '-f', file('objects.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [service, apiservice] })));
  kubectl('wait', '--for=condition=Available', '--timeout=90s', 'apiservice/v1alpha1.wardle.example.com');
  kubectl('apply', '-f', file('flunder.json', JSON.stringify({ apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', metadata: { name: 'bench', namespace: 'default' } })));

  const path = '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/bench';
  const admin = { ca: readFileSync(join(refDir, 'pki', 'ca.crt'), 'utf8'), cert: readFileSync(join(refDir, 'pki', 'admin.crt'), 'utf8'), key: readFileSync(join(refDir, 'pki', 'admin.key'), 'utf8') };
  const kubeAgent = new https.Agent({ ...admin, keepAlive: true, maxSockets: CLIENTS });
  const directAgent = new https.Agent({ ca: sampleCa.cert, cert: frontProxyClient.cert, key: frontProxyClient.key, keepAlive: true, maxSockets: CLIENTS });
  const identity = { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' };
  const h2 = process.env.BENCH_AGG_H2 === '1';
  const h2Direct = h2 ? h2Getter(`https://127.0.0.1:${samplePort}`, { ca: sampleCa.cert, cert: frontProxyClient.cert, key: frontProxyClient.key, servername: sampleName }, identity) : undefined;
  const h2Kube = h2 ? h2Getter(refUrl, admin) : undefined;
  const viaDirect = () => (h2Direct ? h2Direct.get(path) : get(directAgent, `https://127.0.0.1:${samplePort}${path}`, identity, sampleName));
  const viaKube = () => (h2Kube ? h2Kube.get(path) : get(kubeAgent, `${refUrl}${path}`));
  const protocol = h2 ? 'HTTP/2' : 'HTTP/1.1';
  for (const clients of [CLIENTS, 1]) {
    const shape = { clients, perClient: PER_CLIENT, warmup: WARMUP };
    const direct = await loadGets(`direct GET (sample-apiserver, ${protocol})`, viaDirect, shape);
    const proxied = await loadGets(`proxied GET (through kube-apiserver v1.32.4, ${protocol})`, viaKube, shape);
    console.log(`added by kube-apiserver's aggregator at ${clients} client(s): p50 ${(proxied.p50 - direct.p50).toFixed(2)} ms, p99 ${(proxied.p99 - direct.p99).toFixed(2)} ms (load average ${loadavg()[0]!.toFixed(2)})`);
  }
  h2Direct?.close();
  h2Kube?.close();
  kubeAgent.destroy();
  directAgent.destroy();
} finally {
  await stop();
}
