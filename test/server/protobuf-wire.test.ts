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

describe('discovery in protobuf', () => {
  const PB = 'application/vnd.kubernetes.protobuf';

  it('serves a group version\'s APIResourceList and its APIGroup byte for byte as kube', async () => {
    const list = await getBytes('/apis/coordination.k8s.io/v1', PB);
    expect(list.status).toBe(200);
    expect(list.type).toBe(PB);
    // Verbs travel as the message Verbs{items} (field 4); group and version "" are written (8, 9).
    expect(list.body.toString('hex')).toBe(
      '6b3873000a150a027631120f4150495265736f757263654c6973741289010a16636f6f7264696e6174696f6e2e6b38732e696f2f7631126f0a066c656173657310011a054c6561736522430a066372656174650a0664656c6574650a1064656c657465636f6c6c656374696f6e0a036765740a046c6973740a0570617463680a067570646174650a05776174636832056c6561736542004a00520c67716b4d4d622f5971464d3d1a002200',
    );
    const group = await getBytes('/apis/coordination.k8s.io', PB);
    expect(group.body.toString('hex')).toBe(
      '6b3873000a0e0a027631120841504947726f757012510a13636f6f7264696e6174696f6e2e6b38732e696f121c0a16636f6f7264696e6174696f6e2e6b38732e696f2f7631120276311a1c0a16636f6f7264696e6174696f6e2e6b38732e696f2f7631120276311a002200',
    );
  });

  it('sends the legacy documents with an empty envelope apiVersion, as their JSON has none', async () => {
    const api = await getBytes('/api', PB);
    expect(api.type).toBe(PB);
    // Envelope TypeMeta {apiVersion "", kind "APIVersions"}, then versions ["v1"] and the 0.0.0.0/0 address.
    expect(api.body.subarray(0, 21).toString('hex')).toBe('6b3873000a0f0a00120b41504956657273696f6e73');
    // raw (field 2): versions "v1" (1), then serverAddressByClientCIDRs (2) starting with clientCIDR 0.0.0.0/0.
    expect(api.body.subarray(23, 40).toString('hex')).toBe('0a02763112' + api.body.subarray(28, 29).toString('hex') + '0a09302e302e302e302f30');
    const core = await getBytes('/api/v1', PB);
    expect(core.body.subarray(0, 25).toString('hex')).toBe('6b3873000a130a00120f4150495265736f757263654c697374');
    const apis = await getBytes('/apis', PB);
    expect(apis.body.subarray(0, 24).toString('hex')).toBe('6b3873000a120a027631120c41504947726f75704c697374');
  });
});
