/**
 * The server side of the authentication benchmark, in its own process: an OIDC issuer and a
 * TokenReview webhook on loopback, and a server (memory store, AlwaysAllow, so only authentication
 * differs) trusting both; it hands the load process one credential of each kind.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../src/server/api-server.ts';
import { adminPost, benchServerConfig, serveParent } from './lib/server-child.ts';
import { createCertificateAuthority, issueServingCertificate } from '../src/server/certs.ts';
import { startTestIssuer } from '../test/authn/oidc-issuer.ts';

const dir = await mkdtemp(join(tmpdir(), 'kgw-bench-authn-'));
const issuer = await startTestIssuer();
await writeFile(join(dir, 'oidc-ca.crt'), issuer.ca);

// The webhook: accepts the token `webhook-token`.
const ca = await createCertificateAuthority('bench-webhook-ca');
const serving = await issueServingCertificate({ caCert: ca.cert, caKey: ca.key }, { ips: ['127.0.0.1'] });
const webhook = https.createServer({ key: serving.key, cert: serving.cert }, (req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    const review = JSON.parse(body) as { apiVersion: string; spec: { token: string } };
    const ok = review.spec.token === 'webhook-token';
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status: ok ? { authenticated: true, user: { username: 'web', groups: ['web'] } } : { authenticated: false } }));
  });
});
await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
await writeFile(join(dir, 'webhook-ca.crt'), ca.cert);
await writeFile(
  join(dir, 'webhook.kubeconfig'),
  `clusters: [{name: w, cluster: {server: "https://127.0.0.1:${(webhook.address() as AddressInfo).port}/", certificate-authority: webhook-ca.crt}}]\n`,
);

const server = await startApiServer({
  config: benchServerConfig(join(dir, 'data'), {
    authorizationModes: ['AlwaysAllow'],
    // Flow control off: with it on, the certificate's admin (system:masters) lands in the exempt level while
    // every other identity is classified and queued (catch-all/global-default), a cost of flow control, not
    // of authentication. Off, every request takes the same in-flight path and only authentication differs.
    enablePriorityAndFairness: false,
    authn: {
      oidc: { issuerUrl: issuer.url, clientId: 'kube', caFile: join(dir, 'oidc-ca.crt'), requiredClaims: [], signingAlgs: [] },
      webhook: { configFile: join(dir, 'webhook.kubeconfig'), cacheTtlMs: 120_000, version: 'v1' },
      enableBootstrapTokenAuth: false,
      anonymousAuthGiven: false,
    },
  }),
});
// Measured on a settled server: the bootstrap (system namespaces, default RBAC policy, APF configuration) in place.
await server.waitForPostStartHooks();

const post = adminPost(server);
await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'bench' }, data: { k: 'v' } });
await post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'bench' } });
const tr = await post('/api/v1/namespaces/default/serviceaccounts/bench/token', { spec: { expirationSeconds: 3600 } });
const now = Math.floor(Date.now() / 1000);
const oidcToken = await issuer.sign({ sub: 'bench', aud: 'kube', exp: now + 3600, iat: now });
serveParent(server, { saToken: tr.status.token, oidcToken, webhookToken: 'webhook-token' });
