/**
 * Real TLS: a Node HTTPS server on loopback with the generated serving certificate asks for
 * client certificates; clients (Node, and the kubectl on the machine) connect with the
 * generated CA and admin certificate, and the gate names the user.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as http2Connect, createSecureServer, type Http2SecureServer } from 'node:http2';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, peerOfSocket } from '../../src/authn/index.ts';
import { createCertificateAuthority, ensureCertificates, issueClientCertificate, type ClusterCertificates } from '../../src/server/certs.ts';
import { renderKubeconfig } from '../../src/server/kubeconfig.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'kg-tls-'));
let certs: ClusterCertificates;
let server: Server;
let port: number;

beforeAll(async () => {
  certs = await ensureCertificates(join(dir, 'data'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, 'tok-123,bob,uid-b,viewers\n');
  const authn = createAuthenticator({ clientCa: [certs.caCert], tokenFile, anonymous: true });
  server = createServer(
    // Ask for a certificate but let the gate decide: a missing or foreign one must reach it.
    { cert: certs.serverCert, key: certs.serverKey, ca: certs.caCert, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      Promise.resolve(authn.authenticate({ headers: req.headers, ...peerOfSocket(req.socket) }))
        .then((result) => {
          const body = result.ok ? { user: result.user } : result.error.toStatus();
          res.writeHead(result.ok ? 200 : result.error.code, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        })
        .catch((err: unknown) => {
          res.writeHead(500);
          res.end(String(err));
        });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function get(opts: { cert?: string; key?: string; headers?: Record<string, string>; host?: string }): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: opts.host ?? '127.0.0.1',
        port,
        path: '/',
        ca: certs.caCert,
        cert: opts.cert,
        key: opts.key,
        headers: opts.headers,
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('TLS handshake with the generated certificates', () => {
  it('authenticates the admin client certificate as admin in system:masters', async () => {
    const res = await get({ cert: certs.adminCert, key: certs.adminKey });
    expect(res.status).toBe(200);
    expect(res.body.user.username).toBe('admin');
    expect(res.body.user.groups).toEqual(['system:masters', 'system:authenticated']);
    expect(res.body.user.extra['authentication.kubernetes.io/credential-id'][0]).toMatch(/^X509SHA256=[0-9a-f]{64}$/);
  });

  it('serves a certificate valid for the loopback IPv4 address and localhost', async () => {
    const viaName = await get({ host: 'localhost', cert: certs.adminCert, key: certs.adminKey });
    expect(viaName.body.user.username).toBe('admin');
  });

  it('authenticates a freshly issued user certificate', async () => {
    const user = await issueClientCertificate(certs, { commonName: 'jane', organizations: ['dev', 'ops'] });
    const res = await get(user);
    expect(res.body.user).toMatchObject({ username: 'jane', groups: ['dev', 'ops', 'system:authenticated'] });
  });

  it('answers 401 to a client certificate from another authority', async () => {
    const other = await createCertificateAuthority('other-ca');
    const stranger = await issueClientCertificate({ caCert: other.cert, caKey: other.key }, { commonName: 'admin', organizations: ['system:masters'] });
    const res = await get(stranger);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('treats a client without a certificate as anonymous, and uses its bearer token when it has one', async () => {
    const anon = await get({});
    expect(anon.body.user).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'], extra: {} });
    const bob = await get({ headers: { authorization: 'Bearer tok-123' } });
    expect(bob.body.user).toEqual({ username: 'bob', uid: 'uid-b', groups: ['viewers', 'system:authenticated'], extra: {} });
    const bad = await get({ headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
  });

  it('presents a client chain through an intermediate CA', async () => {
    const intermediate = await createCertificateAuthority('team-ca', certs);
    const user = await issueClientCertificate({ caCert: intermediate.cert, caKey: intermediate.key }, { commonName: 'chained', organizations: ['team'] });
    const res = await get({ cert: user.cert + intermediate.cert, key: user.key });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ username: 'chained', groups: ['team', 'system:authenticated'] });
  });

  it('is accepted by kubectl (Go crypto/tls): get --raw / with a rendered kubeconfig', async () => {
    const kubeconfig = join(dir, 'admin.kubeconfig');
    writeFileSync(
      kubeconfig,
      renderKubeconfig({ server: `https://127.0.0.1:${port}`, caPem: certs.caCert, certPem: certs.adminCert, keyPem: certs.adminKey }),
    );
    const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/'], { timeout: 20_000 });
    const body = JSON.parse(stdout);
    expect(body.user.username).toBe('admin');
    expect(body.user.groups).toEqual(['system:masters', 'system:authenticated']);

    // The in-cluster name is in the certificate too; kubectl checks it against tls-server-name.
    const byName = join(dir, 'by-name.kubeconfig');
    writeFileSync(
      byName,
      renderKubeconfig({ server: `https://localhost:${port}`, caPem: certs.caCert, certPem: certs.adminCert, keyPem: certs.adminKey }),
    );
    const second = await run('kubectl', ['--kubeconfig', byName, '--tls-server-name', 'kubernetes.default.svc', 'get', '--raw', '/'], {
      timeout: 20_000,
    });
    expect(JSON.parse(second.stdout).user.username).toBe('admin');
  });

  it('kubectl with a bearer token, and kubectl refusing a server name the certificate lacks', async () => {
    const kubeconfig = join(dir, 'token.kubeconfig');
    writeFileSync(kubeconfig, renderKubeconfig({ server: `https://127.0.0.1:${port}`, caPem: certs.caCert, token: 'tok-123', userName: 'bob' }));
    const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/'], { timeout: 20_000 });
    expect(JSON.parse(stdout).user.username).toBe('bob');

    const failure = await run('kubectl', ['--kubeconfig', kubeconfig, '--tls-server-name', 'example.com', 'get', '--raw', '/'], {
      timeout: 20_000,
    }).then(
      () => undefined,
      (err: { stderr?: string }) => err.stderr ?? '',
    );
    expect(failure).toMatch(/certificate is valid for .*kubernetes.*, not example\.com/);
  });
});

describe('HTTP/2 (what kubectl negotiates)', () => {
  let h2: Http2SecureServer;
  let h2Port: number;

  beforeAll(async () => {
    const authn = createAuthenticator({ clientCa: [certs.caCert], anonymous: false });
    h2 = createSecureServer(
      { cert: certs.serverCert, key: certs.serverKey, ca: certs.caCert, requestCert: true, rejectUnauthorized: false, allowHTTP1: true },
      (req, res) => {
        // The compatibility request's socket proxies to the TLS socket of the session.
        void Promise.resolve(authn.authenticate({ headers: req.headers, ...peerOfSocket(req.socket) })).then((result) => {
          res.writeHead(result.ok ? 200 : 401, { 'content-type': 'application/json' });
          res.end(JSON.stringify(result.ok ? { user: result.user, proto: req.httpVersion } : result.error.toStatus()));
        });
      },
    );
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
    h2Port = (h2.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => h2?.close(() => resolve()));
  });

  it('authenticates the client certificate on an HTTP/2 stream', async () => {
    const session = http2Connect(`https://127.0.0.1:${h2Port}`, { ca: certs.caCert, cert: certs.adminCert, key: certs.adminKey });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':path': '/' });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (c: string) => (text += c));
        stream.on('end', () => resolve(text));
        stream.on('error', reject);
      });
      const parsed = JSON.parse(body);
      expect(parsed.proto).toBe('2.0');
      expect(parsed.user.username).toBe('admin');
      expect(parsed.user.groups).toEqual(['system:masters', 'system:authenticated']);
    } finally {
      session.close();
    }
  });

  it('kubectl over HTTP/2 gets the admin identity, and 401 for an unknown token', async () => {
    const kubeconfig = join(dir, 'h2.kubeconfig');
    writeFileSync(
      kubeconfig,
      renderKubeconfig({ server: `https://127.0.0.1:${h2Port}`, caPem: certs.caCert, certPem: certs.adminCert, keyPem: certs.adminKey }),
    );
    const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/'], { timeout: 20_000 });
    expect(JSON.parse(stdout)).toMatchObject({ proto: '2.0', user: { username: 'admin' } });

    // (Without any credential kubectl may prompt for a password on 401, so use a token nobody knows.)
    const unknown = join(dir, 'h2-unknown.kubeconfig');
    writeFileSync(unknown, renderKubeconfig({ server: `https://127.0.0.1:${h2Port}`, caPem: certs.caCert, token: 'nope' }));
    const stderr = await run('kubectl', ['--kubeconfig', unknown, 'get', '--raw', '/'], { timeout: 20_000 }).then(
      () => '',
      (err: { stderr?: string }) => err.stderr ?? '',
    );
    expect(stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  });
});
