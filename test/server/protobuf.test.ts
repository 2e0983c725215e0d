/**
 * The protobuf encoding over HTTP, as client-go's typed clients and informers use it: bodies in,
 * objects and lists out, and length-delimited watch streams.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import { startTestServer, type TestServer } from './harness.ts';
import { decodeProtobufObject, decodeProtobufWatchEvent, encodeProtobufObject, splitFrames } from '../../src/codec/protobuf/index.ts';

const PB = 'application/vnd.kubernetes.protobuf';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

function raw(method: string, path: string, headers: Record<string, string>, body?: Uint8Array): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const agent = new https.Agent({ ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey });
    const req = https.request(`${t.server.url}${path}`, { method, agent, headers: body ? { ...headers, 'content-length': String(body.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        agent.destroy();
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

describe('protobuf', () => {
  it('takes a protobuf body and answers in protobuf when asked', async () => {
    const body = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb1' }, data: { a: 'b' } });
    const r = await raw('POST', '/api/v1/namespaces/default/configmaps', { 'content-type': PB, accept: `${PB}, application/json` }, body);
    expect(r.status).toBe(201);
    expect(r.type).toBe(PB);
    const obj = decodeProtobufObject(r.body).object as any;
    expect(obj.data).toEqual({ a: 'b' });
    expect(obj.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('lists in protobuf', async () => {
    const r = await raw('GET', '/api/v1/namespaces/default/configmaps', { accept: PB });
    expect(r.status).toBe(200);
    const list = decodeProtobufObject(r.body).object as any;
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((i: any) => i.metadata.name)).toContain('pb1');
  });

  it('streams watch events as length-delimited protobuf frames', async () => {
    const start = JSON.parse((await raw('GET', '/api/v1/namespaces/default/configmaps', { accept: 'application/json' })).body.toString()).metadata.resourceVersion;
    const events: { type: string; name: string }[] = [];
    await new Promise<void>((resolve, reject) => {
      const agent = new https.Agent({ ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey });
      const req = https.get(`${t.server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${start}`, { agent, headers: { accept: PB } }, (res) => {
        expect(res.headers['content-type']).toBe(`${PB};stream=watch`);
        let pending: Uint8Array = new Uint8Array(0);
        res.on('data', (c: Buffer) => {
          const { frames, rest } = splitFrames(Buffer.concat([pending, c]));
          pending = rest;
          for (const f of frames) {
            const ev = decodeProtobufWatchEvent(f);
            events.push({ type: ev.type, name: String((ev.object.object as any).metadata.name) });
          }
          if (events.length >= 2) {
            req.destroy();
            agent.destroy();
            resolve();
          }
        });
      });
      req.on('error', (e) => (events.length >= 2 ? resolve() : reject(e)));
      setTimeout(() => void t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'pb2' } } }).then(() => t.request('DELETE', '/api/v1/namespaces/default/configmaps/pb2')), 200);
    });
    expect(events).toEqual([
      { type: 'ADDED', name: 'pb2' },
      { type: 'DELETED', name: 'pb2' },
    ]);
  });
});
