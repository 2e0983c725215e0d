/** A request with raw bytes in and out (protobuf bodies), as the test server's admin. */
import https from 'node:https';
import type { TestServer } from '../../server/harness.ts';

export function rawRequest(t: TestServer, method: string, path: string, body: Uint8Array, type: string): Promise<{ status: number; type: string; body: Buffer }> {
  const server = t.server;
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${server.url}${path}`,
      { method, ca: server.caCert, cert: server.adminCert, key: server.adminKey, headers: { ...(body.length > 0 ? { 'content-type': type, 'content-length': String(body.length) } : {}), accept: type } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
