/**
 * Compact JWS (JWT) signing and verification over node:crypto, limited to the asymmetric
 * algorithms kube-apiserver accepts for service-account tokens: RS256/384/512 and
 * ES256/384/512. The algorithm is chosen by the key, never by the token, so `alg: none` and
 * HMAC-with-a-public-key confusion cannot pass.
 */
import { createHash, createPublicKey, createPrivateKey, sign, verify, type KeyObject } from 'node:crypto';

export type JwsAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'ES256' | 'ES384' | 'ES512';

/** A parsed, not yet verified, compact JWS. */
export interface ParsedJws {
  readonly header: Readonly<Record<string, unknown>>;
  readonly claims: Readonly<Record<string, unknown>>;
  /** `header.payload`, the bytes the signature covers. */
  readonly signingInput: string;
  readonly signature: Buffer;
}

/** Tokens beyond this size are not parsed at all (kube's limit on headers is far above real JWTs). */
export const MAX_JWT_BYTES = 64 * 1024;

const EC_CURVE_ALGORITHM: Readonly<Record<string, JwsAlgorithm>> = { 'prime256v1': 'ES256', 'secp384r1': 'ES384', 'secp521r1': 'ES512' };
const HASH_OF: Readonly<Record<JwsAlgorithm, string>> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

/** The algorithms a key may verify: RSA keys the RS family, EC keys the ES algorithm of their curve. */
export function algorithmsForKey(key: KeyObject): readonly JwsAlgorithm[] {
  if (key.asymmetricKeyType === 'rsa') return ['RS256', 'RS384', 'RS512'];
  if (key.asymmetricKeyType === 'ec') {
    const alg = EC_CURVE_ALGORITHM[key.asymmetricKeyDetails?.namedCurve ?? ''];
    return alg ? [alg] : [];
  }
  return [];
}

/** The algorithm a private key signs with (RS256 for RSA, as kube does). Throws for other key types. */
export function signingAlgorithmFor(key: KeyObject): JwsAlgorithm {
  const algs = algorithmsForKey(key);
  if (algs.length === 0) throw new Error(`unsupported signing key type ${key.asymmetricKeyType ?? 'unknown'}`);
  return algs[0]!;
}

/** kube's key id: base64url (unpadded) SHA-256 of the public key's PKIX DER. */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('base64url');
}

/** Signs `claims` into a compact JWS with the key's algorithm and kid. */
export function signJwt(claims: Record<string, unknown>, key: KeyObject, kid = keyIdOf(key)): string {
  const alg = signingAlgorithmFor(key);
  const header = base64url(JSON.stringify({ alg, kid }));
  const payload = base64url(JSON.stringify(claims));
  const input = `${header}.${payload}`;
  const sig = sign(HASH_OF[alg], Buffer.from(input), alg.startsWith('ES') ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${input}.${sig.toString('base64url')}`;
}

/**
 * Whether `token` has the shape of a compact JWS (three parts). Authenticators ask this before
 * decoding, so tokens of other kinds (static, bootstrap, webhook) cost no failed parse each.
 */
export function looksLikeJws(token: string): boolean {
  const first = token.indexOf('.');
  if (first <= 0) return false;
  const second = token.indexOf('.', first + 1);
  return second > first + 1 && token.indexOf('.', second + 1) === -1;
}

/** Splits and decodes a compact JWS; undefined when `token` is not one (so it is not a JWT at all). */
export function parseJws(token: string): ParsedJws | undefined {
  if (token.length > MAX_JWT_BYTES) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h, p, s] = parts as [string, string, string];
  const B64URL = /^[A-Za-z0-9_-]*$/;
  if (!B64URL.test(h) || !B64URL.test(p) || !B64URL.test(s)) return undefined;
  const header = decodeJsonObject(h);
  const claims = decodeJsonObject(p);
  if (!header || !claims) return undefined;
  return { header, claims, signingInput: `${h}.${p}`, signature: Buffer.from(s, 'base64url') };
}

/**
 * Whether one of `keys` verifies the token's signature under the algorithm its header names,
 * which must be one the key supports. Keys whose kid matches are tried first; a kid that
 * matches none still tries all keys, as kube does for keys loaded without ids.
 */
export function verifyJws(jws: ParsedJws, keys: readonly { readonly kid: string; readonly key: KeyObject }[]): boolean {
  const alg = jws.header.alg;
  if (typeof alg !== 'string' || !(alg in HASH_OF)) return false;
  const kid = typeof jws.header.kid === 'string' ? jws.header.kid : undefined;
  const ordered = kid === undefined ? keys : [...keys.filter((k) => k.kid === kid), ...keys.filter((k) => k.kid !== kid)];
  const input = Buffer.from(jws.signingInput);
  for (const { key } of ordered) {
    if (!algorithmsForKey(key).includes(alg as JwsAlgorithm)) continue;
    const ec = alg.startsWith('ES');
    try {
      if (verify(HASH_OF[alg as JwsAlgorithm], input, ec ? { key, dsaEncoding: 'ieee-p1363' } : key, jws.signature)) return true;
    } catch {
      // A malformed signature for this key type: not verified by this key.
    }
  }
  return false;
}

/**
 * Reads every key of PEM text as kube's keyutil does: public keys (PKIX or PKCS#1), private
 * keys (PKCS#1, SEC 1, PKCS#8; their public half is used) and certificates (their public key).
 * Throws when the text holds no usable RSA or ECDSA key.
 */
export function parsePublicKeysPem(pem: string, what = 'key file'): KeyObject[] {
  const blocks = pem.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g) ?? [];
  const keys: KeyObject[] = [];
  for (const block of blocks) {
    const type = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(block)![1]!;
    let key: KeyObject | undefined;
    if (type === 'PUBLIC KEY' || type === 'RSA PUBLIC KEY' || type === 'CERTIFICATE') key = createPublicKey(block);
    else if (type === 'RSA PRIVATE KEY' || type === 'EC PRIVATE KEY' || type === 'PRIVATE KEY') key = createPublicKey(createPrivateKey(block));
    if (key && algorithmsForKey(key).length > 0) keys.push(key);
  }
  if (keys.length === 0) throw new Error(`data does not contain any valid RSA or ECDSA public keys (${what})`);
  return keys;
}

/** The one RSA or ECDSA private key of PEM text. Throws otherwise. */
export function parsePrivateKeyPem(pem: string, what = 'key file'): KeyObject {
  const block = /-----BEGIN (RSA PRIVATE KEY|EC PRIVATE KEY|PRIVATE KEY)-----[\s\S]+?-----END \1-----/.exec(pem)?.[0];
  if (!block) throw new Error(`data does not contain a valid RSA or ECDSA private key (${what})`);
  const key = createPrivateKey(block);
  signingAlgorithmFor(key);
  return key;
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

function decodeJsonObject(segment: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
