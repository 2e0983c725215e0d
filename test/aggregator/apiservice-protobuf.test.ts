/**
 * apiregistration.k8s.io/v1 APIService in protobuf: kube-apiserver v1.32.4's own bytes decode to
 * the JSON it serves for the same object (key order included) and that JSON encodes back to the
 * same bytes; the gateway serves APIServices and their list in protobuf.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import { decodeProtobufObject, encodeProtobufObject, isProtobufKind } from '../../src/codec/protobuf/index.ts';
import { APIREGISTRATION_REFERENCE, APISERVICE_LIST_PROTOBUF } from './apiservice-protobuf-reference.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

describe('APIService protobuf against kube-apiserver v1.32.4', () => {
  for (const ref of APIREGISTRATION_REFERENCE) {
    const name = (JSON.parse(ref.json) as { metadata: { name: string } }).metadata.name;
    it(`${name}: kube's bytes decode to kube's JSON`, () => {
      expect(JSON.stringify(decodeProtobufObject(Buffer.from(ref.protobuf, 'base64')).object)).toBe(ref.json);
    });
    it(`${name}: kube's JSON encodes to kube's bytes`, () => {
      expect(Buffer.from(encodeProtobufObject(JSON.parse(ref.json) as Record<string, unknown>)).toString('base64')).toBe(ref.protobuf);
    });
  }

  it('decodes kube\'s list', () => {
    expect(isProtobufKind('apiregistration.k8s.io/v1', 'APIServiceList')).toBe(true);
    const list = decodeProtobufObject(Buffer.from(APISERVICE_LIST_PROTOBUF, 'base64')).object as { kind: string; items: { spec: { service: { port: number }; caBundle: string } }[] };
    expect(list.kind).toBe('APIServiceList');
    expect(list.items).toHaveLength(1);
    expect(list.items[0]!.spec.service.port).toBe(8443);
    expect(list.items[0]!.spec.caBundle).toBe('LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==');
  });
});

describe('served in protobuf', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const getProtobuf = (path: string) =>
    new Promise<{ status: number; type: string; body: Buffer }>((resolve, reject) => {
      https
        .get(`${t.server.url}${path}`, { ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey, headers: { accept: 'application/vnd.kubernetes.protobuf' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });

  it('an APIService and the list answer in protobuf, decoding to the JSON answer', async () => {
    const created = await t.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.pb.example.com' }, spec: { group: 'pb.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 5, insecureSkipTLSVerify: true, service: { namespace: 'ns', name: 'api' } } },
    });
    expect(created.status).toBe(201);
    const one = await getProtobuf('/apis/apiregistration.k8s.io/v1/apiservices/v1.pb.example.com');
    expect(one.status).toBe(200);
    expect(one.type).toBe('application/vnd.kubernetes.protobuf');
    const json = (await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.pb.example.com')).json;
    const decoded = decodeProtobufObject(one.body).object as { metadata: { resourceVersion: string; managedFields?: unknown } };
    // The status may have moved between the two reads (the availability controller); the rest is the same object.
    // (managedFields aside: the harness's requests carry no User-Agent, and the JSON writes that empty manager.)
    if (decoded.metadata.resourceVersion === json.metadata.resourceVersion) {
      delete decoded.metadata.managedFields;
      delete json.metadata.managedFields;
      expect(decoded).toEqual(json);
    }
    expect(decoded).toMatchObject({ kind: 'APIService', spec: json.spec, metadata: { name: 'v1.pb.example.com', uid: json.metadata.uid } });
    const list = await getProtobuf('/apis/apiregistration.k8s.io/v1/apiservices');
    expect(list.type).toBe('application/vnd.kubernetes.protobuf');
    const items = (decodeProtobufObject(list.body).object as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    expect(items).toContain('v1.pb.example.com');
    expect(items).toContain('v1.');
  });
});
