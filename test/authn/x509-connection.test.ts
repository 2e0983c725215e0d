/**
 * Client-certificate answers kept per TLS connection (src/authn/x509.ts): later requests on the
 * same connection reuse the verified chain but still check its validity window at the current
 * time, as kube verifies each request; the authenticating-proxy step (request-header.ts) alike.
 * Over real TLS, many keep-alive requests on one connection authenticate as the same user.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createX509Authenticator, type PeerCertificateInfo } from '../../src/authn/index.ts';
import { createRequestHeaderAuthenticator } from '../../src/authn/request-header.ts';
import { createCertificateAuthority, issueClientCertificate, type CertKeyPair } from '../../src/server/certs.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

const HOUR = 60 * 60 * 1000;
let ca: { caCert: string; caKey: string };
let foreign: CertKeyPair;

beforeAll(async () => {
  const root = await createCertificateAuthority('conn-ca');
  ca = { caCert: root.cert, caKey: root.key };
  const other = await createCertificateAuthority('other-ca');
  foreign = await issueClientCertificate({ caCert: other.cert, caKey: other.key }, { commonName: 'mallory' });
});

/** A peer object as the front door keeps it for one connection; `raw` may be swapped to show what is re-read. */
function connectionPeer(pem: string, cn: string, o: string[] = []): { raw?: Uint8Array; subject: { CN: string; O: string[] } } {
  return { subject: { CN: cn, O: o }, raw: new X509Certificate(pem).raw };
}

describe('x509 answers per connection', () => {
  it('answers later requests on a connection from its verified chain, not by verifying again', async () => {
    const user = await issueClientCertificate(ca, { commonName: 'jane', organizations: ['dev'] });
    const authn = createX509Authenticator({ clientCa: [ca.caCert] });
    const peer = connectionPeer(user.cert, 'jane', ['dev']);
    const first = await authn.authenticate({ headers: {}, peerCertificate: peer, peerAuthorized: false });
    expect(first).toMatchObject({ kind: 'authenticated', user: { username: 'jane', groups: ['dev'] } });
    // Were the chain verified again, these foreign bytes would be refused.
    peer.raw = new X509Certificate(foreign.cert).raw;
    for (let i = 0; i < 5; i++) expect(await authn.authenticate({ headers: {}, peerCertificate: peer, peerAuthorized: false })).toEqual(first);
    // Another connection presenting the foreign certificate is verified, and refused; its refusal
    // is kept for the connection too (the front-proxy step sees every user's certificate and
    // refuses it: that must not cost a verification per request).
    const strangerPeer = connectionPeer(foreign.cert, 'mallory');
    const other = await authn.authenticate({ headers: {}, peerCertificate: strangerPeer, peerAuthorized: false });
    expect(other).toMatchObject({ kind: 'rejected', reason: expect.stringContaining('signed by unknown authority') });
    strangerPeer.raw = new X509Certificate(user.cert).raw;
    expect(await authn.authenticate({ headers: {}, peerCertificate: strangerPeer, peerAuthorized: false })).toEqual(other);
  });

  it('refuses a certificate that expires while its connection is open, with the current time', async () => {
    const user = await issueClientCertificate(ca, { commonName: 'brief', lifetimeMs: HOUR });
    let clock = Date.now();
    const authn = createX509Authenticator({ clientCa: [ca.caCert], now: () => clock });
    const peer: PeerCertificateInfo = connectionPeer(user.cert, 'brief');
    const ask = () => authn.authenticate({ headers: {}, peerCertificate: peer, peerAuthorized: false });
    expect(await ask()).toMatchObject({ kind: 'authenticated', user: { username: 'brief' } });
    clock += 2 * HOUR;
    const expired = await ask();
    expect(expired).toMatchObject({ kind: 'rejected', reason: expect.stringContaining('certificate has expired or is not yet valid') });
    expect(expired.kind === 'rejected' && expired.reason).toContain(new Date(clock).toISOString());
    expect((await ask()).kind).toBe('rejected');
    // The clock set back into the window: verified again, and valid again.
    clock -= 2 * HOUR;
    expect((await ask()).kind).toBe('authenticated');
  });

  it('refuses the authenticating proxy once its certificate expires mid-connection', async () => {
    const proxy = await issueClientCertificate(ca, { commonName: 'front-proxy-client', lifetimeMs: HOUR });
    let clock = Date.now();
    const authn = createRequestHeaderAuthenticator({
      clientCa: [ca.caCert],
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
      now: () => clock,
    });
    const peer = connectionPeer(proxy.cert, 'front-proxy-client');
    const ask = (user: string) => authn.authenticate({ headers: {}, rawHeaders: ['X-Remote-User', user, 'X-Remote-Group', 'g'], peerCertificate: peer, peerAuthorized: false });
    // Each request names its own user; the proxy's certificate is verified once for the connection.
    expect(await ask('alice')).toEqual({ kind: 'authenticated', user: { username: 'alice', groups: ['g'], extra: {} } });
    expect(await ask('bob')).toEqual({ kind: 'authenticated', user: { username: 'bob', groups: ['g'], extra: {} } });
    clock += 2 * HOUR;
    expect(await ask('carol')).toMatchObject({ kind: 'rejected', reason: expect.stringContaining('certificate has expired or is not yet valid') });
  });
});

describe('keep-alive requests over real TLS', () => {
  let t: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'kg-x509conn-'));
  beforeAll(async () => {
    const clientCaFile = join(dir, 'client-ca.crt');
    writeFileSync(clientCaFile, ca.caCert);
    t = await startTestServer({ config: { authorizationModes: ['AlwaysAllow'], clientCaFile } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('authenticates every request on one connection as the certificate user', async () => {
    const user = await issueClientCertificate(ca, { commonName: 'keepalive-user', organizations: ['team'] });
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: t.server.caCert, cert: user.cert, key: user.key });
    const sockets = new Set<TLSSocket>();
    const whoami = () =>
      new Promise<{ username: string; groups: string[] }>((resolve, reject) => {
        const req = https.request(`${t.server.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => {
            if (res.statusCode !== 201) return reject(new Error(`${res.statusCode}: ${body}`));
            resolve(JSON.parse(body).status.userInfo);
          });
        });
        req.on('socket', (s) => sockets.add(s as TLSSocket));
        req.on('error', reject);
        req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
      });
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await whoami());
    agent.destroy();
    expect(sockets.size).toBe(1);
    for (const a of answers) expect(a).toEqual({ username: 'keepalive-user', groups: ['team', 'system:authenticated'], extra: expect.any(Object) });
  });
});
