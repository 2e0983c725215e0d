import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http2 from 'node:http2';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('content negotiation', () => {
  it('serves YAML when asked and takes YAML bodies', async () => {
    const c = await t.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  k: v\n',
      headers: { 'content-type': 'application/yaml' },
    });
    expect(c.status).toBe(201);
    const r = await t.request('GET', '/api/v1/namespaces/default/configmaps/y1', { headers: { accept: 'application/yaml' } });
    expect(r.headers['content-type']).toContain('application/yaml');
    expect(r.text).toMatch(/^apiVersion: v1\n/m);
    expect(r.text).toContain('name: y1');
  });

  it('detects duplicate keys in YAML bodies', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y2\ndata:\n  k: v\n  k: w\n',
      headers: { 'content-type': 'application/yaml' },
    });
    expect(r.status).toBe(400);
    // kube reports YAML duplicates in the YAML decoder's words.
    expect(r.json.message).toContain('strict decoding error');
    expect(r.json.message).toContain('key "k" already set in map');
  });

  it('serves Tables with the default and kind columns', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    const r = await t.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { accept } });
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('Table');
    expect(r.json.apiVersion).toBe('meta.k8s.io/v1');
    expect(r.json.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Data', 'Age']);
    const roles = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { headers: { accept } });
    expect(roles.json.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Created At']);
  });

  it('falls back along the Accept list and answers 406 when nothing fits', async () => {
    const fb = await t.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { accept: 'application/vnd.unknown, application/json' } });
    expect(fb.status).toBe(200);
    expect(fb.json.kind).toBe('ConfigMapList');
    const no = await t.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { accept: 'text/html' } });
    expect(no.status).toBe(406);
    expect(no.json.reason).toBe('NotAcceptable');
  });

  it('answers 415 for a body type it does not take', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: '<x/>', headers: { 'content-type': 'application/xml' } });
    expect(r.status).toBe(415);
  });

  it('gzips large lists when asked', async () => {
    const big = 'x'.repeat(200 * 1024);
    await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'big' }, data: { big } } });
    const r = await t.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers['content-encoding']).toBe('gzip');
  });

  it('pretty-prints with pretty=true', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/default?pretty=true');
    expect(r.text).toContain('\n  "kind": "Namespace"');
  });
});

describe('limits and bad input', () => {
  it('answers 413 for bodies over 3 MiB', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ metadata: { name: 'huge' }, data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) } }) });
    expect(r.status).toBe(413);
    expect(r.json.kind).toBe('Status');
  });

  it('rejects a YAML alias bomb with 400 and keeps serving', async () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`);
    }
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: lines.join('\n'), headers: { 'content-type': 'application/yaml' } });
    expect(r.status).toBe(400);
    expect((await t.request('GET', '/readyz')).status).toBe(200);
  });

  it('rejects absurdly deep nesting with 400', async () => {
    const deep = '['.repeat(100000) + ']'.repeat(100000);
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: deep });
    expect(r.status).toBe(400);
    const y = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: '['.repeat(50000), headers: { 'content-type': 'application/yaml' } });
    expect(y.status).toBe(400);
  });

  it('rejects malformed JSON and non-object bodies with 400', async () => {
    expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: '{"metadata":' })).status).toBe(400);
    expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: '42' })).status).toBe(400);
  });
});

describe('authentication', () => {
  it('treats a request without credentials as anonymous and a bad bearer token as 401', async () => {
    const anon = await t.request('GET', '/readyz', { anonymous: true });
    expect(anon.status).toBe(200);
    const bad = await t.request('GET', '/api/v1/namespaces', { anonymous: true, headers: { authorization: 'Bearer not-a-token' } });
    expect(bad.status).toBe(401);
    expect(bad.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});

describe('HTTP/2', () => {
  it('multiplexes several watches and requests on one connection', async () => {
    const session = http2.connect(t.server.url, { ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey });
    const open = (path: string) =>
      new Promise<{ status: number; firstLine: string; stream: http2.ClientHttp2Stream }>((resolve, reject) => {
        const stream = session.request({ ':path': path });
        let status = 0;
        let buf = '';
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.on('data', (c: Buffer) => {
          buf += c.toString();
          const i = buf.indexOf('\n');
          if (i >= 0) resolve({ status, firstLine: buf.slice(0, i), stream });
        });
        stream.on('error', reject);
      });
    const watches = await Promise.all([0, 1, 2].map(() => open('/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3Ddefault')));
    for (const w of watches) {
      expect(w.status).toBe(200);
      expect(JSON.parse(w.firstLine).type).toBe('ADDED');
    }
    const get = await new Promise<number>((resolve) => {
      const s = session.request({ ':path': '/version' });
      s.on('response', (h) => resolve(Number(h[':status'])));
      s.resume();
    });
    expect(get).toBe(200);
    for (const w of watches) w.stream.close();
    session.close();
  });
});
