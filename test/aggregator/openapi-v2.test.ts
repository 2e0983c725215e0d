/**
 * Remote groups in `/openapi/v2` (kube-aggregator merges the backends' Swagger documents): the
 * real sample-apiserver's flunders appear in the JSON and protobuf forms, `kubectl explain` reads
 * them from v2, and the last good copy stays when the backend dies. Plus the merge rules.
 */
import { describe, expect, test } from 'vitest';
import { waitForAvailable, type AggregatedSetup } from './sample-fixture.ts';
import { withRegisteredSample } from './registered-sample.ts';
import { mergeOpenApiV2 } from '../../src/aggregator/openapi-v2.ts';

let s: AggregatedSetup;

withRegisteredSample((setup) => (s = setup));

const FLUNDERS = '/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders';

async function v2(): Promise<{ paths: Record<string, unknown>; definitions: Record<string, unknown> }> {
  const r = await s.gw.request('GET', '/openapi/v2');
  expect(r.status).toBe(200);
  return r.json;
}

describe('the sample-apiserver\'s document in /openapi/v2', () => {
  test('flunders are in the JSON and protobuf forms, the local paths intact; kubectl explain reads them from v2', async () => {
    let doc = await v2();
    for (let i = 0; i < 100 && !(FLUNDERS in doc.paths); i++) {
      await new Promise((r) => setTimeout(r, 200));
      doc = await v2();
    }
    expect(doc.paths).toHaveProperty([FLUNDERS]);
    expect(doc.paths).toHaveProperty(['/api/v1/namespaces/{namespace}/configmaps']);
    const flunderDef = Object.keys(doc.definitions).find((d) => d.endsWith('.v1alpha1.Flunder'));
    expect(flunderDef).toBeDefined();
    expect(doc.definitions[flunderDef!]).toMatchObject({ 'x-kubernetes-group-version-kind': [{ group: 'wardle.example.com', kind: 'Flunder', version: 'v1alpha1' }] });
    const pb = await s.gw.request('GET', '/openapi/v2', { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(pb.status).toBe(200);
    expect(pb.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(pb.text).toContain(FLUNDERS);
    const explain = await s.gw.kubectl(['explain', 'flunders.spec', '--api-version=wardle.example.com/v1alpha1', '--output=plaintext-openapiv2']);
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toMatch(/KIND:\s+Flunder/);
    expect(explain.stdout).toMatch(/reference\s+<string>/);
  });

  test('the backend killed: /openapi/v2 still answers with the last good copy', async () => {
    await s.killSample();
    await waitForAvailable(s.gw, 'v1alpha1.wardle.example.com', 'False', 20_000);
    const doc = await v2();
    expect(doc.paths).toHaveProperty([FLUNDERS]);
    await s.startSample();
    await waitForAvailable(s.gw, 'v1alpha1.wardle.example.com', 'True', 30_000);
  }, 90_000);
});

describe('merge rules', () => {
  test('local paths win; a definition or parameter with other content is renamed NAME_v2 in the incoming document, its refs following', () => {
    const local = { swagger: '2.0', paths: { '/a': { get: { x: 'local' } } }, definitions: { Meta: { type: 'object', description: 'local' }, Same: { type: 'string' } } };
    const remote = {
      swagger: '2.0',
      paths: { '/a': { get: { x: 'remote' } }, '/b': { get: { parameters: [{ $ref: '#/parameters/p' }], responses: { 200: { schema: { $ref: '#/definitions/Meta' } } } } } },
      definitions: { Meta: { type: 'object', description: 'remote' }, Same: { type: 'string' }, Thing: { properties: { m: { $ref: '#/definitions/Meta' } } } },
      parameters: { p: { name: 'p', in: 'query' } },
    };
    const merged = mergeOpenApiV2(local, [remote]) as { paths: Record<string, { get: unknown }>; definitions: Record<string, unknown>; parameters: Record<string, unknown> };
    expect(merged.paths['/a']!.get).toEqual({ x: 'local' });
    expect(merged.paths['/b']!.get).toEqual({ parameters: [{ $ref: '#/parameters/p' }], responses: { 200: { schema: { $ref: '#/definitions/Meta_v2' } } } });
    expect(Object.keys(merged.definitions)).toEqual(['Meta', 'Meta_v2', 'Same', 'Thing']);
    expect(merged.definitions.Meta).toEqual({ type: 'object', description: 'local' });
    expect(merged.definitions.Thing).toEqual({ properties: { m: { $ref: '#/definitions/Meta_v2' } } });
    expect(merged.parameters).toEqual({ p: { name: 'p', in: 'query' } });
  });
});
