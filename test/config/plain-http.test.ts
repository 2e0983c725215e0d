/**
 * Plain HTTP on the TLS port: the exact bytes Go's net/http (kube-apiserver) writes for an
 * HTTP-looking first record, and TLS clients unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type RunningServer } from '../../src/server/api-server.ts';
import { PLAIN_HTTP_RESPONSE } from '../../src/server/plain-http.ts';

let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'kgw-plain-'));
  server = await startApiServer({
    config: { securePort: 0, bindAddress: '127.0.0.1', etcdServers: [], shutdownDelayMs: 0, anonymousAuth: true, dataDir, storageBackend: 'memory', historyMs: 300_000 },
  });
});
afterAll(async () => {
  await server.shutdown();
  await rm(dataDir, { recursive: true, force: true });
});

/** Sends the chunks (in separate writes), returns everything the server sent until it closed. */
function exchange(chunks: string[]): Promise<{ bytes: string; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const s = connect(server.port, '127.0.0.1');
    let bytes = '';
    s.on('data', (c: Buffer) => (bytes += c.toString('latin1')));
    s.on('close', () => resolve({ bytes, ended: true }));
    s.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
    s.on('connect', async () => {
      for (const c of chunks) {
        s.write(c);
        await new Promise((r) => setTimeout(r, 50));
      }
    });
  });
}

describe('plain HTTP on the TLS port', () => {
  it('is exactly what Go writes', () => {
    expect(PLAIN_HTTP_RESPONSE).toBe('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
  });

  for (const request of ['GET /api HTTP/1.1\r\nHost: x\r\n\r\n', 'HEAD / HTTP/1.1\r\n\r\n', 'POST /api/v1/namespaces HTTP/1.1\r\n\r\n', 'PUT /x HTTP/1.1\r\n\r\n', 'OPTIONS * HTTP/1.1\r\n\r\n']) {
    it(`answers ${request.split(' ')[0]} with the 400 and closes`, async () => {
      const r = await exchange([request]);
      expect(r.bytes).toBe(PLAIN_HTTP_RESPONSE);
      expect(r.ended).toBe(true);
    });
  }

  it('waits for a request line that arrives byte by byte', async () => {
    const r = await exchange(['G', 'E', 'T', ' ', '/ HTTP/1.1\r\n\r\n']);
    expect(r.bytes).toBe(PLAIN_HTTP_RESPONSE);
  });

  it('closes other plaintext without an HTTP answer, as Go does (its 5-byte check knows only those methods)', async () => {
    const r = await exchange(['PATCH /x HTTP/1.1\r\n\r\n']);
    expect(r.bytes).toBe('');
    expect(r.ended).toBe(true);
  });

  it('still serves TLS clients, HTTP/1.1 and HTTP/2 alike', async () => {
    const agent = new https.Agent({ ca: server.caCert, cert: server.adminCert, key: server.adminKey });
    const status = await new Promise<number>((resolve, reject) => {
      https.get(`${server.url}/readyz`, { agent }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(status).toBe(200);
    agent.destroy();
    const { connect: h2connect } = await import('node:http2');
    const session = h2connect(server.url, { ca: server.caCert, cert: server.adminCert, key: server.adminKey });
    const h2status = await new Promise<number>((resolve, reject) => {
      const req = session.request({ ':path': '/livez' });
      req.on('response', (h) => resolve(Number(h[':status'])));
      req.on('error', reject);
      req.resume();
    });
    session.close();
    expect(h2status).toBe(200);
  });
});
