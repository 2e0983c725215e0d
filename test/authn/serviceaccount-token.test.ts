import { createHmac, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdOf, parseJws, parsePrivateKeyPem, parsePublicKeysPem, signJwt } from '../../src/authn/jwt.ts';
import {
  createServiceAccountTokenAuthenticator,
  ServiceAccountTokenIssuer,
  type LiveObject,
  type ServiceAccountGetter,
} from '../../src/authn/serviceaccount-token.ts';
import { CREDENTIAL_ID_KEY, type AuthnOutcome } from '../../src/authn/types.ts';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

const sa = { name: 'builder', uid: 'sa-uid-1' };
function getter(objects: Record<string, LiveObject> = { 'sa/ns1/builder': { uid: 'sa-uid-1' } }): ServiceAccountGetter {
  return {
    serviceAccount: async (ns, name) => objects[`sa/${ns}/${name}`],
    secret: async (ns, name) => objects[`secret/${ns}/${name}`],
  };
}

function authn(opts: { keys?: KeyObject[]; get?: ServiceAccountGetter; now?: number; audiences?: string[] } = {}) {
  return createServiceAccountTokenAuthenticator({
    issuers: [ISSUER, 'https://old.example'],
    audiences: opts.audiences ?? [ISSUER],
    keys: (opts.keys ?? [rsa, ec]).map((k) => createPublicKey(k)),
    getter: opts.get ?? getter(),
    now: () => opts.now ?? Date.now(),
  });
}

function rejected(outcome: AuthnOutcome): string {
  expect(outcome.kind).toBe('rejected');
  return outcome.kind === 'rejected' ? outcome.reason : '';
}

const issue = (key: KeyObject = rsa, extra: Partial<Parameters<ServiceAccountTokenIssuer['issue']>[0]> = {}) =>
  new ServiceAccountTokenIssuer(ISSUER, key).issue({ namespace: 'ns1', serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 3600, ...extra });

describe('service-account tokens', () => {
  it('issues kube-shaped claims and a kid of the public key', () => {
    const now = new Date('2026-01-02T03:04:05.678Z');
    const { token, expirationTimestamp } = issue(rsa, { now, audiences: ['a', 'b'] });
    expect(expirationTimestamp).toBe('2026-01-02T04:04:05Z');
    const jws = parseJws(token)!;
    expect(jws.header).toEqual({ alg: 'RS256', kid: keyIdOf(rsa) });
    expect(keyIdOf(rsa)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const t = Math.floor(now.getTime() / 1000);
    expect(jws.claims).toEqual({
      aud: ['a', 'b'],
      exp: t + 3600,
      iat: t,
      iss: ISSUER,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'kubernetes.io': { namespace: 'ns1', serviceaccount: { name: 'builder', uid: 'sa-uid-1' } },
      nbf: t,
      sub: 'system:serviceaccount:ns1:builder',
    });
    expect(Object.keys(jws.claims)).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
  });

  it('authenticates RS256 and ES256 tokens as the service account', async () => {
    for (const key of [rsa, ec]) {
      const { token } = issue(key);
      expect(parseJws(token)!.header.alg).toBe(key === rsa ? 'RS256' : 'ES256');
      const outcome = await authn().authenticateToken(token);
      expect(outcome).toEqual({
        kind: 'authenticated',
        audiences: [ISSUER],
        user: {
          username: 'system:serviceaccount:ns1:builder',
          uid: 'sa-uid-1',
          groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1'],
          extra: { [CREDENTIAL_ID_KEY]: [`JTI=${parseJws(token)!.claims.jti as string}`] },
        },
      });
    }
  });

  it('leaves non-JWTs and foreign issuers to other authenticators', async () => {
    const a = authn();
    expect(await a.authenticateToken('opaque-token')).toEqual({ kind: 'no-credentials' });
    expect(await a.authenticateToken('a.b.c')).toEqual({ kind: 'no-credentials' });
    expect(await a.authenticateToken('x'.repeat(100_000))).toEqual({ kind: 'no-credentials' });
    const foreign = signJwt({ iss: 'https://idp.example', sub: 'x' }, rsa);
    expect(await a.authenticateToken(foreign)).toEqual({ kind: 'no-credentials' });
  });

  it('rejects bad signatures, alg none and HMAC keyed with the public key', async () => {
    const a = authn();
    expect(rejected(await a.authenticateToken(issue(other).token))).toMatch(/cryptographic primitive/);
    const good = issue().token;
    const [h, p] = good.split('.') as [string, string];
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    expect(rejected(await a.authenticateToken(`${b64({ alg: 'none' })}.${p}.`))).toMatch(/cryptographic/);
    const pubPem = createPublicKey(rsa).export({ type: 'spki', format: 'pem' });
    const hsHeader = b64({ alg: 'HS256', kid: keyIdOf(rsa) });
    const mac = createHmac('sha256', pubPem).update(`${hsHeader}.${p}`).digest('base64url');
    expect(rejected(await a.authenticateToken(`${hsHeader}.${p}.${mac}`))).toMatch(/cryptographic/);
    // An ES256 header over an RSA signature is refused too.
    const esHeader = b64({ alg: 'ES256' });
    expect(rejected(await a.authenticateToken(`${esHeader}.${p}.${good.split('.')[2]}`))).toMatch(/cryptographic/);
    expect(h).not.toBe(esHeader);
  });

  it('checks audience, expiry, not-before and issued-at with a minute of leeway', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const { token } = issue(rsa, { now: new Date(now) });
    expect(rejected(await authn({ audiences: ['api'], now }).authenticateToken(token))).toBe(
      `token audiences ["${ISSUER}"] is invalid for the target audiences ["api"]`,
    );
    expect((await authn({ audiences: ['api'], now }).authenticateToken(token, { audiences: ['x', ISSUER] })).kind).toBe('authenticated');
    expect((await authn({ now: now + 3600_000 + 59_000 }).authenticateToken(token)).kind).toBe('authenticated');
    expect(rejected(await authn({ now: now + 3600_000 + 61_000 }).authenticateToken(token))).toBe('service account token has expired');
    expect(rejected(await authn({ now: now - 120_000 }).authenticateToken(token))).toBe('service account token is not valid yet');
  });

  it('rejects tokens whose service account or bound secret is gone or replaced', async () => {
    const { token } = issue();
    expect(rejected(await authn({ get: getter({}) }).authenticateToken(token))).toBe('serviceaccounts "builder" not found');
    expect(rejected(await authn({ get: getter({ 'sa/ns1/builder': { uid: 'new' } }) }).authenticateToken(token))).toBe(
      'service account UID (new) does not match claim (sa-uid-1)',
    );
    expect(
      rejected(await authn({ get: getter({ 'sa/ns1/builder': { uid: 'sa-uid-1', deletionTimestamp: '2026-01-01T00:00:00Z' } }) }).authenticateToken(token)),
    ).toBe('service account ns1/builder has been deleted');
    const bound = issue(rsa, { boundSecret: { name: 's1', uid: 'sec-1' } }).token;
    expect(parseJws(bound)!.claims['kubernetes.io']).toEqual({ namespace: 'ns1', secret: { name: 's1', uid: 'sec-1' }, serviceaccount: sa });
    expect(rejected(await authn().authenticateToken(bound))).toBe('secrets "s1" not found');
    const withSecret = getter({ 'sa/ns1/builder': { uid: 'sa-uid-1' }, 'secret/ns1/s1': { uid: 'sec-1' } });
    expect((await authn({ get: withSecret }).authenticateToken(bound)).kind).toBe('authenticated');
  });

  it('fails the token, without throwing, when the lookup itself fails', async () => {
    const broken: ServiceAccountGetter = {
      serviceAccount: async () => {
        throw new Error('storage unavailable');
      },
      secret: async () => undefined,
    };
    expect(rejected(await authn({ get: broken }).authenticateToken(issue().token))).toBe('error looking up service account ns1/builder: storage unavailable');
  });

  it('reads public keys from public, private and certificate PEM blocks and refuses files without keys', () => {
    const rsaPub = createPublicKey(rsa).export({ type: 'spki', format: 'pem' }) as string;
    const rsaPkcs1 = rsa.export({ type: 'pkcs1', format: 'pem' }) as string;
    const ecSec1 = ec.export({ type: 'sec1', format: 'pem' }) as string;
    const keys = parsePublicKeysPem(rsaPub + rsaPkcs1 + ecSec1);
    expect(keys.map((k) => keyIdOf(k))).toEqual([keyIdOf(rsa), keyIdOf(rsa), keyIdOf(ec)]);
    expect(() => parsePublicKeysPem('nothing here', 'sa.pub')).toThrow('data does not contain any valid RSA or ECDSA public keys (sa.pub)');
    expect(keyIdOf(parsePrivateKeyPem(ecSec1))).toBe(keyIdOf(ec));
    expect(() => parsePrivateKeyPem(rsaPub, 'sa.pub')).toThrow('does not contain a valid RSA or ECDSA private key (sa.pub)');
  });
});
