/**
 * Webhook token authentication against a real TokenReview server on loopback over TLS that
 * requires the API server's client certificate: the kubeconfig-format file (relative paths),
 * v1beta1 and v1 reviews with audiences, answers cached for the TTL (success and failure),
 * retries of 5xx, the generic 401, and kubectl with a webhook token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '../../src/server/certs.ts';
import { loadWebhookKubeconfig } from '../../src/authn/webhook-client.ts';
import { createTokenWebhookAuthenticator } from '../../src/authn/token-webhook.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

let dir: string;
let server: https.Server;
let url = '';
const reviews: any[] = [];
let flakyFailures = 0;
let kubeconfigPath = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-webhook-'));
  const serverCa = await createCertificateAuthority('webhook-server-ca');
  const serving = await issueServingCertificate({ caCert: serverCa.cert, caKey: serverCa.key }, { ips: ['127.0.0.1'] });
  const clientCa = await createCertificateAuthority('webhook-client-ca');
  const client = await issueClientCertificate({ caCert: clientCa.cert, caKey: clientCa.key }, { commonName: 'kube-apiserver' });
  server = https.createServer({ key: serving.key, cert: serving.cert, ca: clientCa.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const review = JSON.parse(body);
      reviews.push(review);
      const token = review.spec.token as string;
      if (token === 'flaky' && flakyFailures++ < 1) {
        res.statusCode = 503;
        return res.end('busy');
      }
      const status =
        token === 'good' || token === 'flaky'
          ? { authenticated: true, user: { username: 'web-user', uid: 'w-1', groups: ['web'], extra: { 'example.com/team': ['a'] } } }
          : token === 'err'
            ? { authenticated: false, error: 'token revoked' }
            : { authenticated: false };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/review`;
  await writeFile(join(dir, 'ca.crt'), serverCa.cert);
  await writeFile(join(dir, 'client.crt'), client.cert);
  await writeFile(join(dir, 'client.key'), client.key);
  kubeconfigPath = join(dir, 'webhook.kubeconfig');
  await writeFile(
    kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: authn\n  cluster:\n    server: ${url}\n    certificate-authority: ca.crt`,
      'users:',
      '- name: apiserver\n  user:\n    client-certificate: client.crt\n    client-key: client.key',
      'contexts:',
      '- name: webhook\n  context: {cluster: authn, user: apiserver}',
      'current-context: webhook',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await rm(dir, { recursive: true, force: true });
});

describe('the webhook authenticator', () => {
  it('sends a v1beta1 TokenReview with the audiences and maps the answer', async () => {
    const connection = await loadWebhookKubeconfig(kubeconfigPath);
    const a = createTokenWebhookAuthenticator({ connection, version: 'v1beta1', cacheTtlMs: 0, apiAudiences: ['api'] });
    const out = await a.authenticateToken('good');
    expect(out).toEqual({ kind: 'authenticated', user: { username: 'web-user', uid: 'w-1', groups: ['web'], extra: { 'example.com/team': ['a'] } }, audiences: ['api'] });
    expect(reviews.at(-1)).toMatchObject({ apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', spec: { token: 'good', audiences: ['api'] } });
    expect(await a.authenticateToken('err')).toEqual({ kind: 'rejected', reason: 'token revoked' });
    a.close();
  });

  it('caches success and failure for the TTL, then asks again', async () => {
    let clock = 1_000_000;
    const connection = await loadWebhookKubeconfig(kubeconfigPath);
    const a = createTokenWebhookAuthenticator({ connection, version: 'v1', cacheTtlMs: 120_000, apiAudiences: [], now: () => clock });
    const before = reviews.length;
    await Promise.all([a.authenticateToken('good'), a.authenticateToken('good'), a.authenticateToken('good')]);
    await a.authenticateToken('other');
    await a.authenticateToken('other');
    expect(reviews.length - before).toBe(2);
    expect(reviews.at(-1).apiVersion).toBe('authentication.k8s.io/v1');
    clock += 120_001;
    expect((await a.authenticateToken('good')).kind).toBe('authenticated');
    expect(reviews.length - before).toBe(3);
    a.close();
  });

  it('retries a 5xx; an unreachable or unverified webhook is a rejection, not a crash', async () => {
    const connection = await loadWebhookKubeconfig(kubeconfigPath);
    const a = createTokenWebhookAuthenticator({ connection, version: 'v1', cacheTtlMs: 0, apiAudiences: [], initialBackoffMs: 10 });
    expect((await a.authenticateToken('flaky')).kind).toBe('authenticated');
    a.close();
    // Without the client certificate the webhook refuses the handshake.
    const noCert = createTokenWebhookAuthenticator({ connection: { server: url, ca: connection.ca!, insecureSkipTlsVerify: false }, version: 'v1', cacheTtlMs: 0, apiAudiences: [], initialBackoffMs: 1, retries: 1 });
    const out = await noCert.authenticateToken('good');
    expect(out.kind).toBe('rejected');
    noCert.close();
  });

  it('a bad file is refused naming the problem', async () => {
    const p = join(dir, 'bad.kubeconfig');
    await writeFile(p, 'apiVersion: v1\nkind: Config\nclusters: []\n');
    await expect(loadWebhookKubeconfig(p)).rejects.toThrow(/no cluster found/);
    await writeFile(p, `clusters: [{name: a, cluster: {server: ${url}, certificate-authority: missing.crt}}]\n`);
    await expect(loadWebhookKubeconfig(p)).rejects.toThrow(/cannot read certificate-authority/);
  });
});

describe('through the server', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: { authn: { webhook: { configFile: kubeconfigPath, cacheTtlMs: 120_000, version: 'v1beta1' }, enableBootstrapTokenAuth: false, anonymousAuthGiven: false } } });
  });
  afterAll(async () => t?.close());

  it('a webhook token authenticates; a refused one is kube\'s generic 401', async () => {
    const ok = await t.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      anonymous: true,
      headers: { authorization: 'Bearer good' },
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(ok.json.status.userInfo).toEqual({ username: 'web-user', uid: 'w-1', groups: ['web', 'system:authenticated'], extra: { 'example.com/team': ['a'] } });
    const bad = await t.request('GET', '/api', { anonymous: true, headers: { authorization: 'Bearer nobody' } });
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });

  it('TokenReview runs the webhook too', async () => {
    const r = await t.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'err' } } });
    expect(r.json.status.authenticated).toBeUndefined();
    expect(r.json.status.error).toContain('token revoked');
  });
});
