import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearerTokenOf,
  composeAuthenticators,
  createAuthenticator,
  createX509Authenticator,
  CREDENTIAL_ID_KEY,
  type AuthRequest,
  type AuthResult,
  type PeerCertificateInfo,
} from '../../src/authn/index.ts';
import {
  createCertificateAuthority,
  ensureCertificates,
  issueClientCertificate,
  type ClusterCertificates,
} from '../../src/server/certs.ts';

const dir = mkdtempSync(join(tmpdir(), 'kg-authn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tokenFile = join(dir, 'tokens.csv');
writeFileSync(tokenFile, ['good-token,alice,uid-1,"dev,ops"', 'masters-token,root,uid-0,"system:masters,system:authenticated"'].join('\n'));

function request(headers: AuthRequest['headers'] = {}, peerCertificate: PeerCertificateInfo | null = null, peerAuthorized = false): AuthRequest {
  return { headers, peerCertificate, peerAuthorized };
}

function peerOf(pem: string, subject: PeerCertificateInfo['subject']): PeerCertificateInfo {
  return { subject, raw: new X509Certificate(pem).raw };
}

function expectUnauthorized(result: AuthResult): string {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.error.toStatus()).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Unauthorized',
    reason: 'Unauthorized',
    code: 401,
  });
  return result.reason;
}

describe('bearerTokenOf', () => {
  it('reads the Bearer scheme case-insensitively and ignores other schemes and empty tokens', () => {
    expect(bearerTokenOf({ authorization: 'Bearer abc' })).toBe('abc');
    expect(bearerTokenOf({ authorization: '  bearer abc  ' })).toBe('abc');
    expect(bearerTokenOf({ authorization: 'BEARER abc extra words' })).toBe('abc');
    expect(bearerTokenOf({ authorization: ['Bearer first', 'Bearer second'] })).toBe('first');
    expect(bearerTokenOf({ authorization: 'Basic YTpi' })).toBeUndefined();
    expect(bearerTokenOf({ authorization: 'Bearer' })).toBeUndefined();
    expect(bearerTokenOf({ authorization: 'Bearer  abc' })).toBeUndefined();
    expect(bearerTokenOf({})).toBeUndefined();
  });
});

describe('createAuthenticator with a token file', () => {
  const authn = createAuthenticator({ tokenFile, anonymous: true });

  it('authenticates a known bearer token and appends system:authenticated', async () => {
    const result = await authn.authenticate(request({ authorization: 'Bearer good-token' }));
    expect(result).toEqual({
      ok: true,
      user: { username: 'alice', uid: 'uid-1', groups: ['dev', 'ops', 'system:authenticated'], extra: {} },
    });
  });

  it('does not add system:authenticated twice', async () => {
    const result = await authn.authenticate(request({ authorization: 'Bearer masters-token' }));
    expect(result.ok && result.user.groups).toEqual(['system:masters', 'system:authenticated']);
  });

  it('answers an unknown bearer token with 401, not anonymous', async () => {
    const reason = expectUnauthorized(await authn.authenticate(request({ authorization: 'Bearer wrong' })));
    expect(reason).toContain('invalid bearer token');
  });

  it('treats a request without credentials, or with another scheme, as system:anonymous', async () => {
    const anonymous = { username: 'system:anonymous', groups: ['system:unauthenticated'], extra: {} };
    expect(await authn.authenticate(request())).toEqual({ ok: true, user: anonymous });
    expect(await authn.authenticate(request({ authorization: 'Basic YTpi' }))).toEqual({ ok: true, user: anonymous });
  });

  it('answers 401 to a request without credentials when anonymous access is off', async () => {
    const strict = createAuthenticator({ tokenFile, anonymous: false });
    expectUnauthorized(await strict.authenticate(request()));
    expect((await strict.authenticate(request({ authorization: 'Bearer good-token' }))).ok).toBe(true);
  });

  it('rejects any bearer token when no token source is configured', async () => {
    const none = createAuthenticator({ anonymous: true });
    expectUnauthorized(await none.authenticate(request({ authorization: 'Bearer good-token' })));
  });

  it('refuses to build with a malformed token file', () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'only,two\n');
    expect(() => createAuthenticator({ tokenFile: bad, anonymous: true })).toThrow(/at least 3 columns/);
  });

  it('reports token file warnings through warn', () => {
    const dup = join(dir, 'dup.csv');
    writeFileSync(dup, 'a,u1,1\na,u2,2\n');
    const warnings: string[] = [];
    createAuthenticator({ tokenFile: dup, anonymous: true, warn: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('duplicate token');
  });
});

describe('createAuthenticator with client certificates', () => {
  let certs: ClusterCertificates;
  let foreignCa: { caCert: string; caKey: string };

  beforeAll(async () => {
    certs = await ensureCertificates(join(dir, 'pki'));
    const other = await createCertificateAuthority('someone-else');
    foreignCa = { caCert: other.cert, caKey: other.key };
  });

  it('maps CN to the username and O entries to groups, recording the certificate fingerprint', async () => {
    const authn = createAuthenticator({ clientCa: [certs.caCert], anonymous: true });
    const result = await authn.authenticate(
      request({}, peerOf(certs.adminCert, { CN: 'admin', O: 'system:masters' }), true),
    );
    const fingerprint = new X509Certificate(certs.adminCert).fingerprint256.replace(/:/g, '').toLowerCase();
    expect(result).toEqual({
      ok: true,
      user: {
        username: 'admin',
        groups: ['system:masters', 'system:authenticated'],
        extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${fingerprint}`] },
      },
    });
  });

  it('verifies the chain itself rather than trusting the TLS layer flag', async () => {
    const authn = createAuthenticator({ clientCa: [certs.caCert], anonymous: true });
    const user = await issueClientCertificate(certs, { commonName: 'jane', organizations: ['a', 'b'] });
    const ok = await authn.authenticate(request({}, peerOf(user.cert, { CN: 'jane', O: ['a', 'b'] }), false));
    expect(ok.ok && ok.user.groups).toEqual(['a', 'b', 'system:authenticated']);

    const stranger = await issueClientCertificate(foreignCa, { commonName: 'mallory', organizations: ['system:masters'] });
    const reason = expectUnauthorized(
      await authn.authenticate(request({}, peerOf(stranger.cert, { CN: 'mallory', O: 'system:masters' }), true)),
    );
    expect(reason).toMatch(/^x509: verifying certificate SN=\d+ failed: x509: certificate signed by unknown authority$/);
  });

  it('accepts a CA bundle holding several authorities', async () => {
    const authn = createAuthenticator({ clientCa: [foreignCa.caCert + certs.caCert], anonymous: false });
    const user = await issueClientCertificate(certs, { commonName: 'bundled' });
    const result = await authn.authenticate(request({}, peerOf(user.cert, { CN: 'bundled' })));
    expect(result.ok && result.user.username).toBe('bundled');
  });

  it('follows a presented intermediate CA up to a client CA, and refuses the leaf without it', async () => {
    const intermediate = await createCertificateAuthority('team-ca', certs);
    const user = await issueClientCertificate({ caCert: intermediate.cert, caKey: intermediate.key }, { commonName: 'via-intermediate' });
    const authn = createAuthenticator({ clientCa: [certs.caCert], anonymous: true });
    const leaf = peerOf(user.cert, { CN: 'via-intermediate' });
    const withChain = { ...leaf, issuerCertificate: peerOf(intermediate.cert, { CN: 'team-ca' }) };
    const ok = await authn.authenticate(request({}, withChain));
    expect(ok.ok && ok.user.username).toBe('via-intermediate');
    const reason = expectUnauthorized(await authn.authenticate(request({}, leaf, true)));
    expect(reason).toContain('signed by unknown authority');
  });

  it('refuses a certificate made for serving, not client authentication', async () => {
    const authn = createAuthenticator({ clientCa: [certs.caCert], anonymous: true });
    const reason = expectUnauthorized(
      await authn.authenticate(request({}, peerOf(certs.serverCert, { CN: 'kube-apiserver' }), true)),
    );
    expect(reason).toContain('incompatible key usage');
  });

  it('refuses an expired certificate', async () => {
    const user = await issueClientCertificate(certs, { commonName: 'old', lifetimeMs: 60 * 60 * 1000 });
    const twoHoursLater = () => Date.now() + 2 * 60 * 60 * 1000;
    const authn = composeAuthenticators([createX509Authenticator({ clientCa: [certs.caCert], now: twoHoursLater })], {
      anonymous: true,
    });
    const reason = expectUnauthorized(await authn.authenticate(request({}, peerOf(user.cert, { CN: 'old' }))));
    expect(reason).toContain('certificate has expired or is not yet valid');
  });

  it('treats a verified certificate without a common name as no credential, as kube does', async () => {
    const authn = createAuthenticator({ clientCa: [certs.caCert], anonymous: true });
    const nameless = await issueClientCertificate(certs, { commonName: '', organizations: ['x'] });
    const result = await authn.authenticate(request({}, peerOf(nameless.cert, { O: 'x' }), true));
    expect(result.ok && result.user.username).toBe('system:anonymous');
  });

  it('ignores client certificates when no client CA is configured, and an empty peer object', async () => {
    const noCa = createAuthenticator({ anonymous: true });
    const viaCert = await noCa.authenticate(request({}, peerOf(certs.adminCert, { CN: 'admin', O: 'system:masters' }), true));
    expect(viaCert.ok && viaCert.user.username).toBe('system:anonymous');
    const withCa = createAuthenticator({ clientCa: [certs.caCert], anonymous: true });
    const empty = await withCa.authenticate(request({}, {}, false));
    expect(empty.ok && empty.user.username).toBe('system:anonymous');
  });

  it('without the DER falls back to the TLS layer verdict', async () => {
    const authn = createAuthenticator({ clientCa: [certs.caCert], anonymous: true });
    const trusted = await authn.authenticate(request({}, { subject: { CN: 'admin', O: ['system:masters'] } }, true));
    expect(trusted).toEqual({ ok: true, user: { username: 'admin', groups: ['system:masters', 'system:authenticated'], extra: {} } });
    expectUnauthorized(await authn.authenticate(request({}, { subject: { CN: 'admin' } }, false)));
  });

  it('lets a valid token win over a bad certificate, and a bad token fail even with a good certificate absent', async () => {
    const authn = createAuthenticator({ clientCa: [certs.caCert], tokenFile, anonymous: true });
    const stranger = await issueClientCertificate(foreignCa, { commonName: 'mallory' });
    const peer = peerOf(stranger.cert, { CN: 'mallory' });
    const viaToken = await authn.authenticate(request({ authorization: 'Bearer good-token' }, peer, false));
    expect(viaToken.ok && viaToken.user.username).toBe('alice');
    const viaCert = await authn.authenticate(
      request({ authorization: 'Bearer wrong' }, peerOf(certs.adminCert, { CN: 'admin', O: 'system:masters' })),
    );
    // The first step that authenticates decides: the certificate, before the token is looked at.
    expect(viaCert.ok && viaCert.user.username).toBe('admin');
    expectUnauthorized(await authn.authenticate(request({ authorization: 'Bearer wrong' }, peer, false)));
  });
});
