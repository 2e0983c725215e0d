/**
 * `/openapi/v2` over HTTP (negotiation, ETag, 304, 406) and with the kubectl releases that read it
 * as gnostic protobuf: v1.27 and v1.28 apply (client-side apply needs the schema for strategic
 * merge), v1.27 explain (which reads v2); v1.32 explain keeps working from v3.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { startTestServer, writeTemp, type TestServer } from '../server/harness.ts';
import { openApiV2ProtoRoot, OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DEPRECATED } from '../../src/discovery/openapi-v2-protobuf.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** A GET that keeps the body as bytes (the harness decodes bodies as UTF-8 text). */
function getBytes(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const s = t.server;
  return new Promise((resolve, reject) => {
    const agent = new https.Agent({ ca: s.caCert, cert: s.adminCert, key: s.adminKey });
    const req = https.request(`${s.url}${path}`, { method: 'GET', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        agent.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('/openapi/v2 over HTTP', () => {
  it('serves the protobuf form to either protobuf media type and JSON otherwise, with the JSON ETag on both', async () => {
    const json = await getBytes('/openapi/v2', { accept: 'application/json' });
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toBe('application/json');
    const etag = `"${createHash('sha512').update(json.body).digest('hex').toUpperCase()}"`;
    expect(json.headers['etag']).toBe(etag);
    expect(json.headers['vary']).toBe('Accept-Encoding, Accept'); // kube's gzip handler adds the first
    const swagger = JSON.parse(json.body.toString('utf8'));

    for (const accept of [OPENAPI_V2_PROTOBUF_DEPRECATED, OPENAPI_V2_PROTOBUF]) {
      const pb = await getBytes('/openapi/v2', { accept });
      expect(pb.status).toBe(200);
      expect(pb.headers['content-type']).toBe(OPENAPI_V2_PROTOBUF);
      expect(pb.headers['etag']).toBe(etag);
      const type = openApiV2ProtoRoot().lookupType('openapi.v2.Document');
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const doc: any = type.toObject(type.decode(pb.body));
      expect(doc.swagger).toBe('2.0');
      expect(doc.definitions.additional_properties.map((d: { name: string }) => d.name)).toEqual(Object.keys(swagger.definitions));
      expect(doc.paths.path.map((p: { name: string }) => p.name)).toEqual(Object.keys(swagger.paths));
      const cm = doc.definitions.additional_properties.find((d: { name: string }) => d.name === 'io.k8s.api.core.v1.ConfigMap').value;
      const gvk = cm.vendor_extension.find((e: { name: string }) => e.name === 'x-kubernetes-group-version-kind');
      expect(JSON.parse(gvk.value.yaml)).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
      const data = cm.properties.additional_properties.find((p: { name: string }) => p.name === 'data').value;
      expect(data.type.value).toEqual(['object']);
      const item = doc.paths.path.find((p: { name: string }) => p.name === '/api/v1/namespaces/{namespace}/configmaps/{name}').value;
      expect(item.get.operation_id).toBe('readCoreV1NamespacedConfigMap');
    }
  });

  it('answers 304 to a matching If-None-Match and 406 to a type it cannot produce', async () => {
    const first = await getBytes('/openapi/v2', { accept: OPENAPI_V2_PROTOBUF });
    const again = await getBytes('/openapi/v2', { accept: OPENAPI_V2_PROTOBUF, 'if-none-match': String(first.headers['etag']) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const other = await getBytes('/openapi/v2', { accept: OPENAPI_V2_PROTOBUF, 'if-none-match': '"0"' });
    expect(other.status).toBe(200);
    expect((await getBytes('/openapi/v2', { accept: 'application/yaml' })).status).toBe(406);
    expect((await getBytes('/openapi/v2', {})).headers['content-type']).toBe('application/json');
  });
});

const kubectlDir = dirname(realpathSync(execFileSync('which', ['kubectl']).toString().trim()));
const binary = (v: string) => join(kubectlDir, `kubectl.${v}`);
const v2Clients = ['1.27', '1.28'].filter((v) => existsSync(binary(v)));

describe.each(v2Clients)('kubectl %s reads the protobuf document', (v) => {
  const ns = `oa-${v.replace('.', '-')}`;
  const run = async (args: string[]) => {
    const r = await t.kubectl(args, { binary: binary(v) });
    if (r.code !== 0) throw new Error(`kubectl ${v} ${args.join(' ')}: ${r.stderr}`);
    return r;
  };

  it('applies, then re-applies a change', async () => {
    expect((await run(['create', 'namespace', ns])).stdout).toContain(`namespace/${ns} created`);
    const cm = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: ${ns}\ndata:\n  k: ${value}\n  list: a\n`;
    const file = await writeTemp(t.dataDir, `${ns}.yaml`, cm('one'));
    const created = await run(['apply', '-f', file, '-v=6']);
    expect(created.stdout).toContain('configmap/cfg created');
    // The schema was fetched as protobuf and accepted (a failure would have fallen back or errored).
    expect(created.stderr).toMatch(/GET https:\/\/\S+\/openapi\/v2\S* 200 OK/);
    await writeTemp(t.dataDir, `${ns}.yaml`, cm('two'));
    const changed = await run(['apply', '-f', file]);
    expect(changed.stdout).toContain('configmap/cfg configured');
    const got = JSON.parse((await run(['get', 'cm', 'cfg', '-n', ns, '-o', 'json'])).stdout);
    expect(got.data).toEqual({ k: 'two', list: 'a' });
    expect(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"two"');
    expect((await run(['apply', '-f', file])).stdout).toContain('configmap/cfg unchanged');
  });
});

describe('kubectl explain', () => {
  it.runIf(existsSync(binary('1.27')))('v1.27 explains configmap.data from the v2 protobuf document', async () => {
    const r = await t.kubectl(['explain', 'configmap.data'], { binary: binary('1.27') });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/FIELD:\s+data <map\[string\]string>/);
    expect(r.stdout).toContain('Configuration data');
  });

  it.runIf(existsSync(binary('1.32')))('v1.32 explains configmap.data from v3', async () => {
    const r = await t.kubectl(['explain', 'configmap.data'], { binary: binary('1.32') });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/FIELD:\s+data <map\[string\]string>/);
    expect(r.stdout).toContain('Configuration data');
  });
});
