/**
 * Requests refused below the pipeline (header overflow, bad percent escapes, broken chunked
 * bodies), `Expect: 100-continue` with an oversized body, and HTTP/2 bodies streamed without
 * Content-Length: each answered with a Status or Go's plain text, never Fastify's JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tls from 'node:tls';
import http2 from 'node:http2';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { startTestServer, type TestServer } from './harness.ts';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(async () => {
  await ts?.close();
});

/** Sends raw bytes over TLS (HTTP/1.1) and returns everything the server wrote until it closed. */
function rawExchange(chunks: readonly (string | Buffer)[], opts: { waitMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = tls.connect({ host: '127.0.0.1', port: ts.server.port, ca: ts.server.caCert, cert: ts.server.adminCert, key: ts.server.adminKey, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => {
      for (const c of chunks) sock.write(c);
    });
    const got: Buffer[] = [];
    sock.on('data', (d: Buffer) => got.push(d));
    const done = () => resolve(Buffer.concat(got).toString('utf8'));
    sock.on('end', done);
    sock.on('close', done);
    sock.on('error', (e) => (got.length > 0 ? done() : reject(e)));
    setTimeout(() => {
      sock.destroy();
    }, opts.waitMs ?? 5000).unref();
  });
}

const statusLine = (resp: string) => resp.split('\r\n')[0];
const bodyOf = (resp: string) => resp.slice(resp.indexOf('\r\n\r\n') + 4);

describe('errors below the pipeline', () => {
  it('headers up to 1 MiB are taken, as Go takes them', async () => {
    const resp = await rawExchange([`GET /api HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\nConnection: close\r\n\r\n`]);
    expect(statusLine(resp)).toBe('HTTP/1.1 200 OK');
  });

  it('headers over the limit: 431 in plain text as Go writes it', async () => {
    const resp = await rawExchange([`GET /api HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1_100_000)}\r\n\r\n`]);
    expect(statusLine(resp)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(resp).toContain('Content-Type: text/plain; charset=utf-8');
    expect(bodyOf(resp)).toBe('431 Request Header Fields Too Large');
  });

  it('a malformed request line: 400 Bad Request in plain text', async () => {
    const resp = await rawExchange(['GARBAGE\r\n\r\n']);
    expect(statusLine(resp)).toBe('HTTP/1.1 400 Bad Request');
    expect(bodyOf(resp)).toBe('400 Bad Request');
  });

  it('a bad percent escape in the path: 400 in plain text, not Fastify JSON', async () => {
    const resp = await rawExchange(['GET /api/v1/namespaces/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    expect(statusLine(resp)).toBe('HTTP/1.1 400 Bad Request');
    expect(bodyOf(resp)).toBe('400 Bad Request');
    expect(resp).not.toContain('FST_ERR');
  });

  it("a broken chunked body: kube's unwrapped 500 Status in Go's words, not Fastify JSON", async () => {
    const resp = await rawExchange([
      'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      '5\r\n{"met\r\nZZ\r\n',
    ]);
    expect(statusLine(resp)).toBe('HTTP/1.1 500 Internal Server Error');
    expect(JSON.parse(bodyOf(resp))).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'invalid byte in chunk length', code: 500 });
  });

  it('the server keeps serving after all of them', async () => {
    const r = await ts.request('GET', '/api/v1/namespaces/default');
    expect(r.status).toBe(200);
  });
});

describe('Expect: 100-continue', () => {
  it('a body over the limit gets the 413 Status before any 100 Continue, every time', async () => {
    for (let i = 0; i < 5; i++) {
      const resp = await rawExchange([
        `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${4 * 1024 * 1024}\r\nExpect: 100-continue\r\n\r\n`,
      ]);
      expect(statusLine(resp)).toBe('HTTP/1.1 413 Payload Too Large');
      expect(resp).not.toContain('100 Continue');
      expect(JSON.parse(bodyOf(resp)).reason).toBe('RequestEntityTooLarge');
    }
  });

  it('curl uploading 4 MiB with Expect gets the 413 Status', async () => {
    const file = join(ts.dataDir, 'big.json');
    await writeFile(file, JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(4 * 1024 * 1024) } }));
    const ca = join(ts.dataDir, 'ca.crt');
    const cert = join(ts.dataDir, 'admin.crt');
    const key = join(ts.dataDir, 'admin.key');
    await writeFile(ca, ts.server.caCert);
    await writeFile(cert, ts.server.adminCert);
    await writeFile(key, ts.server.adminKey);
    const out = await new Promise<string>((resolve) =>
      execFile('curl', ['-s', '--http1.1', '--cacert', ca, '--cert', cert, '--key', key, '-H', 'Content-Type: application/json', '-H', 'Expect: 100-continue', '--data-binary', `@${file}`, `${ts.server.url}/api/v1/namespaces/default/configmaps`], (_e, stdout) => resolve(stdout)),
    );
    expect(JSON.parse(out).code).toBe(413);
  });

  it('a body within the limit is invited and created', async () => {
    const body = JSON.stringify({ metadata: { name: 'expect-ok' } });
    const resp = await rawExchange([
      `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      body,
    ]);
    expect(resp).toContain('HTTP/1.1 100 Continue');
    expect(resp).toContain('HTTP/1.1 201 Created');
  });
});

describe('HTTP/2 bodies without Content-Length or Content-Type', () => {
  it('a streamed POST body is read, as kube reads it', async () => {
    const session = http2.connect(ts.server.url, { ca: ts.server.caCert, cert: ts.server.adminCert, key: ts.server.adminKey });
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps' });
        let status = 0;
        const chunks: Buffer[] = [];
        req.on('response', (h) => (status = Number(h[':status'])));
        req.on('data', (d: Buffer) => chunks.push(d));
        req.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString() }));
        req.on('error', reject);
        req.write('{"apiVersion":"v1","kind":"ConfigMap",');
        setTimeout(() => req.end('"metadata":{"name":"streamed"}}'), 20);
      });
      expect(status).toBe(201);
      expect(JSON.parse(body).metadata.name).toBe('streamed');
    } finally {
      session.close();
    }
  });

  it('kubectl create --raw -f FILE creates the object', async () => {
    const file = join(ts.dataDir, 'raw.json');
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raw-created' } }));
    const r = await ts.kubectl(['create', '--raw', '/api/v1/namespaces/default/configmaps', '-f', file]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).metadata.name).toBe('raw-created');
  });
});
