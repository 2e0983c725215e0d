/**
 * Service-account issuer discovery, as kube-apiserver serves it: `/.well-known/openid-configuration`
 * and `/openid/v1/jwks` (every verification key as a JWK), so relying parties can verify
 * service-account tokens without talking to the API otherwise.
 */
import type { KeyObject } from 'node:crypto';
import { algorithmsForKey, keyIdOf } from './jwt.ts';

export interface StaticDocument {
  readonly body: Buffer;
  readonly contentType: string;
  readonly cacheControl: string;
}

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
const CACHE_CONTROL = 'public, max-age=3600';

/** The two documents by path; `externalUrl` is read on first use (the port is known only after listen). */
export function issuerDiscoveryDocuments(issuer: string, keys: readonly KeyObject[], externalUrl: () => string): (path: string) => StaticDocument | undefined {
  const jwks = keys.map((key) => {
    const alg = algorithmsForKey(key)[0]!;
    const { kty, n, e, crv, x, y } = key.export({ format: 'jwk' });
    return kty === 'RSA' ? { use: 'sig', kty, kid: keyIdOf(key), alg, n, e } : { use: 'sig', kty, kid: keyIdOf(key), crv, alg, x, y };
  });
  const algs = [...new Set(jwks.map((k) => k.alg))].sort();
  const jwksDoc: StaticDocument = { body: Buffer.from(JSON.stringify({ keys: jwks })), contentType: 'application/jwk-set+json', cacheControl: CACHE_CONTROL };
  let config: StaticDocument | undefined;
  return (path) => {
    if (path === JWKS_PATH) return jwksDoc;
    if (path !== OPENID_CONFIGURATION_PATH) return undefined;
    config ??= {
      body: Buffer.from(
        JSON.stringify({
          issuer,
          jwks_uri: `${externalUrl()}${JWKS_PATH}`,
          response_types_supported: ['id_token'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: algs,
        }),
      ),
      contentType: 'application/json',
      cacheControl: CACHE_CONTROL,
    };
    return config;
  };
}
