/**
 * Test peer: an OpenID issuer on loopback over TLS with its own CA, serving the discovery
 * document and the JWKS, signing ID tokens with jose. Keys can be rotated while it runs.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload, type CryptoKey } from 'jose';
import { createCertificateAuthority, issueServingCertificate, type CertKeyPair } from '../../src/server/certs.ts';

export interface TestIssuer {
  readonly url: string;
  readonly ca: string;
  /** Requests seen per path (discovery, jwks, token). */
  readonly hits: Map<string, number>;
  /** Refresh tokens the token endpoint accepts, with the claims of the id_token it then issues (10 minutes). */
  readonly refreshTokens: Map<string, JWTPayload>;
  /** Distributed claim endpoints at `<url>/claims/<name>`: the JWT answered (only to `Bearer accessToken` when set). */
  readonly claimEndpoints: Map<string, { jwt: string; accessToken?: string }>;
  /** The device grant: the claims a completed device login gets; the first poll is always pending. */
  deviceLogin?: JWTPayload;
  /** Signs claims (iss defaults to the issuer) with the current key, or with `kid`/`alg` overridden. */
  sign(claims: JWTPayload, opts?: { kid?: string; alg?: string; key?: CryptoKey }): Promise<string>;
  /** Adds a new current key (served in the JWKS from now on); the old ones stay unless `dropOld`. */
  rotate(opts?: { dropOld?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIssuer(opts: { path?: string; alg?: 'RS256' | 'ES256' } = {}): Promise<TestIssuer> {
  const alg = opts.alg ?? 'RS256';
  const caPair: CertKeyPair = await createCertificateAuthority('test-oidc-ca');
  const serving = await issueServingCertificate({ caCert: caPair.cert, caKey: caPair.key }, { dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  const keys: { kid: string; privateKey: CryptoKey; jwk: Record<string, unknown> }[] = [];
  let counter = 0;
  const addKey = async () => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = `key-${++counter}`;
    keys.push({ kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } });
    return kid;
  };
  await addKey();
  const hits = new Map<string, number>();
  const refreshTokens = new Map<string, JWTPayload>();
  let url = '';
  let signer: (claims: JWTPayload) => Promise<string> = async () => '';
  let devicePolls = 0;
  const server = https.createServer({ key: serving.key, cert: serving.cert }, (req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const base = opts.path ?? '';
    if (path === `${base}/.well-known/openid-configuration`) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks`, token_endpoint: `${url}/token`, device_authorization_endpoint: `${url}/device`, id_token_signing_alg_values_supported: [alg] }));
    } else if (path === `${base}/device` && req.method === 'POST') {
      req.resume();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ device_code: 'dev-1', user_code: 'WDJB-MJHT', verification_uri: `${url}/activate`, expires_in: 60, interval: 0 }));
    } else if (path === `${base}/token` && req.method === 'POST') {
      // The refresh-token grant (enough for the credential plugin's tests).
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        res.setHeader('content-type', 'application/json');
        if (form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:device_code') {
          if (form.get('device_code') !== 'dev-1' || !issuer.deviceLogin || devicePolls++ === 0) {
            res.statusCode = 400;
            return res.end(JSON.stringify({ error: 'authorization_pending' }));
          }
          const now = Math.floor(Date.now() / 1000);
          refreshTokens.set('rt-device', issuer.deviceLogin);
          return void signer({ aud: form.get('client_id') ?? '', iat: now, exp: now + 600, ...issuer.deviceLogin }).then((idToken) => res.end(JSON.stringify({ id_token: idToken, refresh_token: 'rt-device' })));
        }
        const claims = form.get('grant_type') === 'refresh_token' ? refreshTokens.get(form.get('refresh_token') ?? '') : undefined;
        if (!claims) {
          res.statusCode = 400;
          return res.end(JSON.stringify({ error: 'invalid_grant' }));
        }
        const now = Math.floor(Date.now() / 1000);
        void signer({ aud: form.get('client_id') ?? '', iat: now, exp: now + 600, ...claims }).then((idToken) => res.end(JSON.stringify({ id_token: idToken, token_type: 'Bearer', refresh_token: form.get('refresh_token') })));
      });
    } else if (path.startsWith(`${base}/claims/`)) {
      const ep = issuer.claimEndpoints.get(path.slice(`${base}/claims/`.length));
      if (!ep || (ep.accessToken !== undefined && req.headers.authorization !== `Bearer ${ep.accessToken}`)) {
        res.statusCode = ep ? 401 : 404;
        return res.end();
      }
      res.setHeader('content-type', 'application/jwt');
      res.end(ep.jwt);
    } else if (path === `${base}/jwks`) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
    } else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${opts.path ?? ''}`;
  signer = (claims) => issuer.sign(claims);
  const issuer: TestIssuer = {
    url,
    ca: caPair.cert,
    hits,
    refreshTokens,
    claimEndpoints: new Map(),
    async sign(claims, o = {}) {
      const current = keys[keys.length - 1]!;
      return new SignJWT({ iss: url, ...claims })
        .setProtectedHeader({ alg: o.alg ?? alg, kid: o.kid ?? current.kid })
        .sign(o.key ?? current.privateKey);
    },
    async rotate(o = {}) {
      const kid = await addKey();
      if (o.dropOld) keys.splice(0, keys.length - 1);
      return kid;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return issuer;
}
