/**
 * The OpenAPI documents are answered as kube-openapi answers them: Go's http.ServeContent
 * (Last-Modified, Accept-Ranges, conditional requests, byte ranges), /openapi/v2 inside kube's gzip
 * handler (Vary: Accept-Encoding first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import https from 'node:https';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

/** A raw request (no decoding), to see headers and bytes exactly as sent. */
function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; rawHeaders: string[]; body: Buffer }> {
  const s = t.server;
  return new Promise((resolve, reject) => {
    const req = https.request(`${s.url}${path}`, { method, ca: s.caCert, cert: s.adminCert, key: s.adminKey, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const varyValues = (rawHeaders: string[]) => rawHeaders.flatMap((v, i) => (i % 2 === 0 && v.toLowerCase() === 'vary' ? [rawHeaders[i + 1]!] : []));

describe('/openapi/v2 as http.ServeContent', () => {
  it('answers HEAD and GET with Accept-Ranges, Last-Modified, ETag and Vary: Accept-Encoding, Accept', async () => {
    const head = await raw('HEAD', '/openapi/v2');
    expect(head.status).toBe(200);
    expect(head.headers['accept-ranges']).toBe('bytes');
    expect(head.headers['last-modified']).toMatch(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    expect(head.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(varyValues(head.rawHeaders)).toEqual(['Accept-Encoding', 'Accept']);
    expect(head.body.length).toBe(0);
    const get = await raw('GET', '/openapi/v2');
    expect(Number(get.headers['content-length'])).toBe(get.body.length);
    expect(Number(head.headers['content-length'])).toBe(get.body.length);
    expect(JSON.parse(get.body.toString()).swagger).toBe('2.0');
    const gz = await raw('GET', '/openapi/v2', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(get.body)).toBe(true);
  });

  it('answers conditional requests and byte ranges as Go does', async () => {
    const first = await raw('HEAD', '/openapi/v2');
    const etag = String(first.headers.etag);
    const lastModified = String(first.headers['last-modified']);
    const size = Number(first.headers['content-length']);

    const byTag = await raw('GET', '/openapi/v2', { 'if-none-match': `W/${etag}` });
    expect(byTag.status).toBe(304);
    expect(byTag.headers['last-modified']).toBeUndefined(); // dropped when there is an ETag
    expect(byTag.headers.etag).toBe(etag);
    expect((await raw('GET', '/openapi/v2', { 'if-modified-since': lastModified })).status).toBe(304);
    expect((await raw('GET', '/openapi/v2', { 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(200);
    expect((await raw('GET', '/openapi/v2', { 'if-match': '"other"' })).status).toBe(412);

    const part = await raw('GET', '/openapi/v2', { range: 'bytes=0-10' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-10/${size}`);
    expect(part.body.toString()).toBe('{"swagger":');
    const suffix = await raw('GET', '/openapi/v2', { range: 'bytes=-2' });
    expect(suffix.headers['content-range']).toBe(`bytes ${size - 2}-${size - 1}/${size}`);
    // A range for another version of the document is ignored (If-Range).
    expect((await raw('GET', '/openapi/v2', { range: 'bytes=0-10', 'if-range': '"stale"' })).status).toBe(200);

    const beyond = await raw('GET', '/openapi/v2', { range: `bytes=${size + 10}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${size}`);
    expect(beyond.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(beyond.body.toString()).toBe('invalid range: failed to overlap\n');
    const bad = await raw('GET', '/openapi/v2', { range: 'bytes=9-1' });
    expect(bad.status).toBe(416);
    expect(bad.body.toString()).toBe('invalid range\n');
  });
});

describe('/openapi/v3', () => {
  it('serves the index as Go sniffs it (text/plain), with sorted keys, and documents without gzip', async () => {
    const idx = await raw('GET', '/openapi/v3', { 'accept-encoding': 'gzip' });
    expect(idx.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(idx.headers['accept-ranges']).toBe('bytes');
    const keys = Object.keys(JSON.parse(idx.body.toString()).paths);
    expect(keys).toEqual([...keys].sort());
    const doc = await raw('GET', '/openapi/v3/api/v1', { 'accept-encoding': 'gzip' });
    expect(doc.status).toBe(200);
    expect(doc.headers['content-encoding']).toBeUndefined();
    expect(doc.headers['last-modified']).toBeDefined();
    expect(varyValues(doc.rawHeaders)).toEqual(['Accept']);
    expect((await raw('GET', '/openapi/v3/api/v1', { 'if-none-match': String(doc.headers.etag) })).status).toBe(304);
    // The handler's own prefix and unknown documents: an empty 404, no content type.
    for (const p of ['/openapi/v3/', '/openapi/v3/apis/nope/v1']) {
      const missing = await raw('GET', p);
      expect([p, missing.status, missing.body.length, missing.headers['content-type']]).toEqual([p, 404, 0, undefined]);
    }
  });
});
