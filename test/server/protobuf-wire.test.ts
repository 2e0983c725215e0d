/**
 * Protobuf as kube writes it (bytes taken from kube-apiserver v1.32.4): errors in protobuf when
 * protobuf was asked for, every value field written even when zero, fields in number order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

function getBytes(path: string, accept: string): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const agent = new https.Agent({ ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey });
    https
      .get(`${t.server.url}${path}`, { agent, headers: { accept } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          agent.destroy();
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) });
        });
      })
      .on('error', reject);
  });
}

describe('protobuf on the wire', () => {
  it('answers an error in protobuf, byte for byte as kube', async () => {
    const r = await getBytes('/api/v1/namespaces/default/configmaps/nonexist', 'application/vnd.kubernetes.protobuf');
    expect(r.status).toBe(404);
    expect(r.type).toBe('application/vnd.kubernetes.protobuf');
    expect(r.body.toString('hex')).toBe(
      '6b3873000a0c0a0276311206537461747573125d0a060a0012001a0012074661696c7572651a1f636f6e6669676d61707320226e6f6e657869737422206e6f7420666f756e6422084e6f74466f756e642a1c0a086e6f6e657869737412001a0a636f6e6669676d617073280032003094031a002200',
    );
  });

  it('writes the zero value fields of an object (generateName, selfLink, generation)', async () => {
    await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'pbz' }, data: { a: 'b' } } });
    const r = await getBytes('/api/v1/namespaces/default/configmaps/pbz', 'application/vnd.kubernetes.protobuf');
    // ObjectMeta: name "pbz" (field 1), generateName "" (2), namespace "default" (3), selfLink "" (4).
    expect(r.body.includes(Buffer.from('0a0370627a12001a0764656661756c742200', 'hex'))).toBe(true);
    // generation 0 (field 7) follows the resourceVersion.
    expect(r.body.includes(Buffer.from('3800', 'hex'))).toBe(true);
  });
});

describe('metadata-only views in protobuf', () => {
  it('serves PartialObjectMetadata and its list in protobuf when asked, as kube', async () => {
    await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'pom' } } });
    const one = await getBytes('/api/v1/namespaces/default/configmaps/pom', 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1');
    expect(one.type).toBe('application/vnd.kubernetes.protobuf');
    // Envelope: apiVersion meta.k8s.io/v1, kind PartialObjectMetadata; then metadata (field 1) with name "pom".
    expect(one.body.subarray(0, 45).toString('hex')).toBe('6b3873000a270a0e6d6574612e6b38732e696f2f76311215506172746961 6c4f626a6563744d65746164617461'.replace(/ /g, ''));
    expect(one.body.includes(Buffer.from('0a03706f6d12001a0764656661756c74', 'hex'))).toBe(true);
    const list = await getBytes('/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dpom', 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1');
    expect(list.body.includes(Buffer.from('meta.k8s.io/v1beta1'))).toBe(true);
    expect(list.body.includes(Buffer.from('PartialObjectMetadataList'))).toBe(true);
  });
});
