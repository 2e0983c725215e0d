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
  /** Requests seen per path (discovery, jwks). */
  readonly hits: Map<string, number>;
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
  let url = '';
  const server = https.createServer({ key: serving.key, cert: serving.cert }, (req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const base = opts.path ?? '';
    if (path === `${base}/.well-known/openid-configuration`) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks`, id_token_signing_alg_values_supported: [alg] }));
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
  return {
    url,
    ca: caPair.cert,
    hits,
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
}
