/**
 * Warning headers are capped as kube-apiserver caps them, and deep or wide bodies fail with a
 * Status (400/413) or succeed, never overflow the stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http2 from 'node:http2';
import { startTestServer, type TestServer } from './harness.ts';
import { addWarnings, WARNING_ITEM_RUNES, WARNING_TOTAL_RUNES } from '../../src/server/respond.ts';
import type { FastifyReply } from 'fastify';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(async () => {
  await ts?.close();
});

function warningsOf(h: Record<string, unknown>): string[] {
  const w = h.warning;
  if (w === undefined) return [];
  return Array.isArray(w) ? w.map(String) : String(w).split(/,(?=\s*299 )/);
}

/** A fake reply that records headers, to drive the recorder directly. */
function fakeReply(): { reply: FastifyReply; headers: () => string[] } {
  let value: string[] = [];
  const reply = { header: (_k: string, v: string[]) => ((value = v), reply) } as unknown as FastifyReply;
  return { reply, headers: () => value };
}

describe('Warning header recorder', () => {
  it('deduplicates and keeps everything while within the total', () => {
    const f = fakeReply();
    addWarnings(f.reply, ['a', 'b', 'a']);
    addWarnings(f.reply, ['c']);
    expect(f.headers()).toEqual(['299 - "a"', '299 - "b"', '299 - "c"']);
  });

  it('once over the total, replays everything cut to the item limit, then stops', () => {
    const f = fakeReply();
    const long = 'x'.repeat(1000);
    const items = Array.from({ length: 30 }, (_, i) => `${i}${long}`);
    addWarnings(f.reply, items);
    const texts = f.headers().map((h) => JSON.parse(h.slice('299 - '.length)) as string);
    // Four 1001-rune items fit (4004 runes); the fifth starts truncation: all cut to 256 runes,
    // and items are added until the total reaches 4096 runes (16 of them).
    expect(texts.every((t) => t.length === WARNING_ITEM_RUNES)).toBe(true);
    const total = texts.reduce((n, t) => n + t.length, 0);
    expect(total).toBeGreaterThanOrEqual(WARNING_TOTAL_RUNES);
    expect(total).toBeLessThan(WARNING_TOTAL_RUNES + WARNING_ITEM_RUNES);
    expect(texts).toHaveLength(16);
    expect(texts[0]).toBe(items[0]!.slice(0, WARNING_ITEM_RUNES));
  });

  it('drops warnings with control characters and sends UTF-8 text as bytes', () => {
    const f = fakeReply();
    addWarnings(f.reply, ['bad\u0001', 'é']);
    expect(f.headers()).toEqual([Buffer.from('299 - "é"', 'utf8').toString('latin1')]);
  });
});

describe('bodies with many unknown fields', () => {
  it('1,000 unknown fields: about 4 KiB of warnings over HTTP/1.1', async () => {
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many-unknown' }, data: { a: 'b' } };
    for (let i = 0; i < 1000; i++) body[`unknownField${i}`] = i;
    const r = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body });
    expect(r.status).toBe(201);
    const ws = warningsOf(r.headers);
    expect(ws.length).toBeGreaterThan(10);
    expect(ws.join('').length).toBeLessThan(WARNING_TOTAL_RUNES * 2);
    expect(ws[0]).toBe('299 - "unknown field \\"unknownField0\\""');
  });

  it('150,000 unknown fields over HTTP/2: 201 with capped warnings, no stack overflow, no frame error', async () => {
    const parts = ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"wide"}'];
    for (let i = 0; i < 150_000; i++) parts.push(`,"f${i}":1`);
    parts.push('}');
    const payload = Buffer.from(parts.join(''));
    // Node's client takes 128 header fields by default (Go's clients take far more); kube sends as many as we do.
    const session = http2.connect(ts.server.url, { ca: ts.server.caCert, cert: ts.server.adminCert, key: ts.server.adminKey, maxHeaderListPairs: 4096 });
    try {
      const { status, headers } = await new Promise<{ status: number; headers: http2.IncomingHttpHeaders }>((resolve, reject) => {
        const req = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json' });
        req.on('response', (h) => {
          req.resume();
          req.on('end', () => resolve({ status: Number(h[':status']), headers: h }));
        });
        req.on('error', reject);
        req.end(payload);
      });
      expect(status).toBe(201);
      const ws = warningsOf(headers as Record<string, unknown>);
      expect(ws.length).toBeGreaterThan(10);
      expect(ws.join('').length).toBeLessThan(WARNING_TOTAL_RUNES * 2);
    } finally {
      session.close();
    }
  });
});

// Checked against kube-apiserver v1.32.4.
describe('strict field validation of create and update bodies', () => {
  it('names unknown fields in body order (JSON) after kube\'s decode preamble, at most 100', async () => {
    const r = await ts.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { body: '{"metadata":{"name":"s1"},"zz":1,"aa":2,"metadata2":3}' });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "zz", unknown field "aa", unknown field "metadata2"');
    const many: Record<string, unknown> = { metadata: { name: 's2' } };
    for (let i = 0; i < 1000; i++) many[`u${i}`] = i;
    const m = await ts.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { body: many });
    expect(m.json.message.match(/unknown field/g)).toHaveLength(100);
    expect(m.json.message).toMatch(/unknown field "u0", unknown field "u1", unknown field "u2",/);
  });

  it('YAML bodies name them in Go map order (sorted), as sigs.k8s.io/yaml hands them on', async () => {
    const r = await ts.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s3}\nzz: 1\naa: 2\n', headers: { 'content-type': 'application/yaml' } });
    expect(r.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "aa", unknown field "zz"');
  });
});

describe('deep and wide bodies', () => {
  it('a JSON body nested 100,000 deep is 400', async () => {
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const r = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: deep });
    expect(r.status).toBe(400);
    expect(r.json.kind).toBe('Status');
  });

  it('a YAML body nested 100,000 deep is 400', async () => {
    const deep = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    const r = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: deep, headers: { 'content-type': 'application/yaml' } });
    expect(r.status).toBe(400);
    expect(r.json.kind).toBe('Status');
  });

  it('a merge patch nested 5,000 deep is 400', async () => {
    await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'deep-patch' } } });
    const deep = `{"metadata":{"annotations":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}}`;
    const r = await ts.request('PATCH', '/api/v1/namespaces/default/configmaps/deep-patch', { body: deep, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(400);
  });

  it('a body over 3 MiB is 413 with a Status', async () => {
    const big = JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(3 * 1024 * 1024) } });
    const r = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: big });
    expect(r.status).toBe(413);
    expect(r.json.reason).toBe('RequestEntityTooLarge');
  });
});
