/**
 * CBOR over HTTP behind CBORServingAndStorage: bodies in and out, lists, watch streams as CBOR
 * sequences, server-side apply in CBOR, Status errors in CBOR; and with the gate off (kube's
 * default) the reference's 406 and 415.
 */
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCbor, encodeCbor } from '../../src/codec/cbor.ts';
import { parseFeatureGates } from '../../src/features/index.ts';
import { secretType } from '../../src/api/kinds/secret.ts';
import { startTestServer, type TestServer } from './harness.ts';

/** A request whose body and answer stay bytes. */
function rawRequest(t: TestServer, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const s = t.server;
  return new Promise((resolve, reject) => {
    const req = https.request(`${s.url}${path}`, { method, ca: s.caCert, cert: s.adminCert, key: s.adminKey, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Splits a CBOR sequence into its items (each self-described). */
function items(seq: Buffer): unknown[] {
  const out: unknown[] = [];
  const marker = Buffer.from([0xd9, 0xd9, 0xf7, 0xa2]);
  const starts: number[] = [];
  for (let i = seq.indexOf(marker); i !== -1; i = seq.indexOf(marker, i + 1)) starts.push(i);
  starts.push(seq.length);
  for (let i = 0; i + 1 < starts.length; i++) out.push(decodeCbor(seq.subarray(starts[i], starts[i + 1])));
  return out;
}

describe('CBOR with CBORServingAndStorage=true', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: { featureGates: parseFeatureGates(['CBORServingAndStorage=true']) } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates from a CBOR body and answers in CBOR', async () => {
    // As a client writes it: the []byte field as a byte string (tag 22), other strings as byte strings.
    const body = encodeCbor({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c1', labels: { a: 'b' } }, data: { k: Buffer.from('hello').toString('base64') } }, secretType.schema);
    const created = await rawRequest(t, 'POST', '/api/v1/namespaces/default/secrets', { 'content-type': 'application/cbor', accept: 'application/cbor' }, body);
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/cbor');
    expect(created.body.subarray(0, 3)).toEqual(Buffer.from([0xd9, 0xd9, 0xf7]));
    // The secret's bytes travel under tag 22, as kube writes []byte.
    expect(created.body.toString('hex')).toContain(Buffer.from([0xd6, 0x45, ...Buffer.from('hello')]).toString('hex'));
    const json = await t.request('GET', '/api/v1/namespaces/default/secrets/c1');
    expect(decodeCbor(created.body, undefined)).toMatchObject({ kind: 'Secret', metadata: { name: 'c1', labels: { a: 'b' }, uid: json.json.metadata.uid } });
    const got = await rawRequest(t, 'GET', '/api/v1/namespaces/default/secrets/c1', { accept: 'application/cbor' });
    expect(got.body.toString('hex')).toBe(encodeCbor(json.json, secretType.schema).toString('hex'));
  });

  it('lists in CBOR, and sends Status errors in CBOR', async () => {
    const list = await rawRequest(t, 'GET', '/api/v1/namespaces/default/secrets', { accept: 'application/cbor' });
    expect(list.status).toBe(200);
    expect(decodeCbor(list.body)).toMatchObject({ kind: 'SecretList', apiVersion: 'v1', items: [{ metadata: { name: 'c1' } }] });
    const missing = await rawRequest(t, 'GET', '/api/v1/namespaces/default/configmaps/nope', { accept: 'application/cbor' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/cbor');
    expect(decodeCbor(missing.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'configmaps' },
      code: 404,
    });
    // Accept lists CBOR among what is offered (kube's wording).
    const refused = await t.request('GET', '/api/v1/namespaces/default/configmaps/nope', { headers: { accept: 'application/foo' } });
    expect(refused.status).toBe(406);
    expect(refused.json.message).toBe('406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor');
  });

  it('watches as a CBOR sequence', async () => {
    const res = await rawRequest(t, 'GET', '/api/v1/namespaces/default/secrets?watch=1&timeoutSeconds=1', { accept: 'application/cbor' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/cbor-seq');
    const events = items(res.body) as { type: string; object: { metadata: { name: string } } }[];
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'c1']]);
    const seq = await t.request('GET', '/api/v1/namespaces/default/secrets?watch=1', { headers: { accept: 'application/cbor-seq' } });
    expect(seq.status).toBe(406);
    expect(seq.json.message).toBe('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor');
  });

  it('applies a CBOR apply patch', async () => {
    const patch = encodeCbor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { x: '1' } });
    const res = await rawRequest(t, 'PATCH', '/api/v1/namespaces/default/configmaps/applied?fieldManager=cbor', { 'content-type': 'application/apply-patch+cbor', accept: 'application/json' }, patch);
    expect(res.status).toBe(201);
    const obj = JSON.parse(res.body.toString('utf8'));
    expect(obj.data).toEqual({ x: '1' });
    expect(obj.metadata.managedFields[0]).toMatchObject({ manager: 'cbor', operation: 'Apply' });
    const garbage = await rawRequest(t, 'POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/cbor' }, Buffer.from('a1', 'hex'));
    expect(garbage.status).toBe(400);
  });
});

describe('CBOR with the gate off (the default)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers kube's 406 and 415", async () => {
    const get = await t.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { accept: 'application/cbor' } });
    expect(get.status).toBe(406);
    expect(get.json.message).toBe(
      '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    );
    const post = await rawRequest(t, 'POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/cbor' }, encodeCbor({ metadata: { name: 'x' } }));
    expect(post.status).toBe(415);
    expect(JSON.parse(post.body.toString()).message).toBe('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    const apply = await rawRequest(t, 'PATCH', '/api/v1/namespaces/default/configmaps/x?fieldManager=m', { 'content-type': 'application/apply-patch+cbor' }, encodeCbor({ metadata: { name: 'x' } }));
    expect(apply.status).toBe(415);
    expect(JSON.parse(apply.body.toString()).message).toBe('415: Unsupported Media Type');
  });
});
