/**
 * The credential plugin (bin/kube-gateway-oidc-login.js) run by the real kubectl through
 * `user.exec`, against the test OIDC issuer and a server trusting it: the refresh-token grant
 * gets an id_token, which is cached (a second run does not ask the issuer), ExecCredential v1 and
 * v1beta1 both work, and under interactiveMode Never without a usable refresh token kubectl
 * reports the plugin's clear message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { startTestIssuer, type TestIssuer } from './oidc-issuer.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

const plugin = join(__dirname, '../../bin/kube-gateway-oidc-login.js');
let issuer: TestIssuer;
let t: TestServer;
let dir: string;

beforeAll(async () => {
  issuer = await startTestIssuer();
  dir = await mkdtemp(join(tmpdir(), 'kgw-plugin-'));
  await writeFile(join(dir, 'oidc-ca.crt'), issuer.ca);
  await writeFile(join(dir, 'server-ca.crt'), '');
  t = await startTestServer({
    config: { authn: { oidc: { issuerUrl: issuer.url, clientId: 'kube', caFile: join(dir, 'oidc-ca.crt'), usernamePrefix: 'oidc:', requiredClaims: [], signingAlgs: [] }, enableBootstrapTokenAuth: false, anonymousAuthGiven: false } },
  });
  await writeFile(join(dir, 'server-ca.crt'), t.server.caCert);
  issuer.refreshTokens.set('rt-alice', { sub: 'alice' });
});
afterAll(async () => {
  await t?.close();
  await issuer?.close();
  await rm(dir, { recursive: true, force: true });
});

async function kubeconfig(name: string, apiVersion: string, args: string[], interactiveMode = 'Never'): Promise<string> {
  const path = join(dir, `${name}.kubeconfig`);
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: t.server.url, 'certificate-authority': join(dir, 'server-ca.crt') } }],
      users: [{ name: 'u', user: { exec: { apiVersion, command: process.execPath, args: [plugin, ...args], interactiveMode, provideClusterInfo: false } } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return path;
}

function kubectl(config: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', config, ...args], { env: { ...process.env, HOME: dir }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const common = () => [`--issuer-url=${issuer.url}`, '--client-id=kube', `--ca-file=${join(dir, 'oidc-ca.crt')}`];

describe('kube-gateway-oidc-login under kubectl', () => {
  it('gets an id_token with the refresh token (ExecCredential v1), then uses its cache', async () => {
    const cacheDir = join(dir, 'cache-v1');
    const config = await kubeconfig('v1', 'client.authentication.k8s.io/v1', [...common(), '--refresh-token=rt-alice', `--cache-dir=${cacheDir}`]);
    const first = await kubectl(config, ['auth', 'whoami', '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).status.userInfo).toEqual({ username: 'oidc:alice', groups: ['system:authenticated'] });
    expect(await readdir(cacheDir)).toHaveLength(1);
    const tokenCalls = issuer.hits.get('/token') ?? 0;
    const second = await kubectl(config, ['auth', 'whoami', '-o', 'json']);
    expect(second.code, second.stderr).toBe(0);
    expect(issuer.hits.get('/token') ?? 0).toBe(tokenCalls);
  });

  it('the example config/oidc-login.example.kubeconfig works once its placeholders are filled', async () => {
    const example = await readFile(join(__dirname, '../../config/oidc-login.example.kubeconfig'), 'utf8');
    const filled = example
      .replace('https://127.0.0.1:6443', t.server.url)
      .replace('certificate-authority: ca.crt', `certificate-authority: ${join(dir, 'server-ca.crt')}`)
      .replace('command: node', `command: ${process.execPath}`)
      .replace('/path/to/kube-gateway/bin/kube-gateway-oidc-login.js', plugin)
      .replace('--issuer-url=https://issuer.example.com', `--issuer-url=${issuer.url}\n      - --ca-file=${join(dir, 'oidc-ca.crt')}\n      - --cache-dir=${join(dir, 'cache-example')}`)
      .replace('--client-id=kubernetes', '--client-id=kube')
      .replace('--refresh-token=REFRESH', '--refresh-token=rt-alice');
    const path = join(dir, 'example.kubeconfig');
    await writeFile(path, filled);
    const r = await kubectl(path, ['auth', 'whoami', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status.userInfo).toEqual({ username: 'oidc:alice', groups: ['system:authenticated'] });
  });

  it('speaks ExecCredential v1beta1 too', async () => {
    const config = await kubeconfig('v1beta1', 'client.authentication.k8s.io/v1beta1', [...common(), '--refresh-token=rt-alice', `--cache-dir=${join(dir, 'cache-v1beta1')}`]);
    const r = await kubectl(config, ['auth', 'whoami', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status.userInfo.username).toBe('oidc:alice');
  });

  it('runs the device authorization grant when interactive on a terminal', async () => {
    issuer.deviceLogin = { sub: 'dora' };
    const cacheDir = join(dir, 'cache-device');
    const command = [process.execPath, plugin, ...common(), `--cache-dir=${cacheDir}`].map((a) => `'${a}'`).join(' ');
    const info = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: true } });
    // script(1) gives the plugin a terminal, as kubectl run from a shell would.
    const out = await new Promise<string>((resolve) =>
      execFile('script', ['-qec', command, '/dev/null'], { env: { ...process.env, KUBERNETES_EXEC_INFO: info }, timeout: 30_000 }, (_err, stdout) => resolve(stdout)),
    );
    expect(out).toContain(`To log in, open ${issuer.url}/activate and enter the code WDJB-MJHT`);
    const cred = JSON.parse(out.split(/\r?\n/).find((l) => l.startsWith('{'))!);
    expect(cred).toMatchObject({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: expect.any(String), expirationTimestamp: expect.stringMatching(/Z$/) } });
    const who = await t.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { anonymous: true, headers: { authorization: `Bearer ${cred.status.token}` }, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    expect(who.json.status.userInfo.username).toBe('oidc:dora');
    // The refresh token it got is cached for the next time.
    expect(JSON.parse(await readFile(join(cacheDir, (await readdir(cacheDir))[0]!), 'utf8')).refreshToken).toBe('rt-device');
  });

  it('fails clearly under interactiveMode Never when a person would have to log in', async () => {
    const config = await kubeconfig('never', 'client.authentication.k8s.io/v1', [...common(), '--refresh-token=revoked', `--cache-dir=${join(dir, 'cache-never')}`]);
    const r = await kubectl(config, ['get', 'ns']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('kube-gateway-oidc-login: the refresh token was refused');
    expect(r.stderr).toContain('a new login is needed, but this plugin is not running interactively (interactiveMode: Never, or no terminal)');
  });
});
