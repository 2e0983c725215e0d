/**
 * PATCH over HTTP as kube-apiserver 1.32.4 answers it. Every expected body here was read from
 * the reference server for the same requests (values that vary per run are rebuilt from ours):
 * evanphx/json-patch v4 semantics, strategic-merge-patch directives, and strict field
 * validation of patches (duplicate keys and unknown fields: warnings, or 422 under Strict).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const base = '/api/v1/namespaces/default/configmaps';
const roles = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };

async function configMap(name: string, data: Record<string, string>, labels?: Record<string, string>) {
  const r = await t.request('POST', base, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data } });
  expect(r.status).toBe(201);
  return r.json;
}

function warnings(r: { headers: Record<string, string | string[] | undefined> }): string[] {
  const w = r.headers['warning'];
  if (w === undefined) return [];
  return (Array.isArray(w) ? w : [w]).flatMap((h) => h.split(/,\s*(?=299 )/));
}

describe('JSON patch as evanphx/json-patch v4 applies it', () => {
  it('replace of a missing key adds it; copy from a missing path stores null', async () => {
    await configMap('jp1', { a: '1' });
    const r = await t.request('PATCH', `${base}/jp1`, {
      body: [
        { op: 'replace', path: '/data/b', value: '2' },
        { op: 'copy', from: '/metadata/nope', path: '/metadata/labels' },
      ],
      headers: JSON_PATCH,
    });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: '1', b: '2' });
    expect(r.json.metadata.labels).toBeUndefined();
  });

  it('tolerates a path without a leading slash (its first segment is dropped)', async () => {
    await configMap('jp2', { a: '1' });
    const r = await t.request('PATCH', `${base}/jp2`, { body: [{ op: 'add', path: 'x/data/c', value: '3' }], headers: JSON_PATCH });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: '1', c: '3' });
  });

  it('a move from a missing path fails with the generic 422', async () => {
    await configMap('jp3', { a: '1' });
    const r = await t.request('PATCH', `${base}/jp3`, { body: [{ op: 'move', from: '/data/nope', path: '/data/x' }], headers: JSON_PATCH });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
  });
});

describe('strategic merge patch directives', () => {
  it('$patch: delete on an existing map empties it; an unknown $patch where nothing exists is ignored', async () => {
    await configMap('sm1', { a: '1' }, { l: '1' });
    const del = await t.request('PATCH', `${base}/sm1`, { body: { data: { $patch: 'delete' } }, headers: SMP });
    expect(del.status).toBe(200);
    // An emptied map is dropped as Go's omitempty drops it, and so is its owner's entry.
    expect(del.json.data).toBeUndefined();
    expect(JSON.stringify(del.json.metadata.managedFields)).not.toContain('f:data');
    const ignored = await t.request('PATCH', `${base}/sm1`, { body: { metadata: { annotations: { $patch: 'bogus', x: '1' } } }, headers: SMP });
    expect(ignored.status).toBe(200);
    expect(ignored.json.metadata.annotations).toBeUndefined();
    const replaced = await t.request('PATCH', `${base}/sm1`, { body: { metadata: { annotations: { $patch: 'replace', x: '1' } } }, headers: SMP });
    expect(replaced.status).toBe(200);
    expect(replaced.json.metadata.annotations).toBeUndefined();
  });

  it('an unknown $patch on an existing map is kube 500 with the library message', async () => {
    await configMap('sm2', { a: '1' }, { l: '1' });
    const r = await t.request('PATCH', `${base}/sm2`, { body: { metadata: { labels: { $patch: 'bogus' } } }, headers: SMP });
    expect(r.status).toBe(500);
    expect(r.json.message).toBe('unknown patch type: bogus in map: map[$patch:bogus]');
  });

  it('directives inside a list without patch strategy (RBAC rules) are unknown fields', async () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r1' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    expect((await t.request('POST', roles, { body: role })).status).toBe(201);
    const patch = { rules: [{ $patch: 'delete', verbs: ['list'], apiGroups: [''], resources: ['pods'] }] };
    const warn = await t.request('PATCH', `${roles}/r1`, { body: patch, headers: SMP });
    expect(warn.status).toBe(200);
    expect(warnings(warn)).toEqual(['299 - "unknown field \\"rules[0].$patch\\""']);
    expect(warn.json.rules).toEqual([{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
    const strict = await t.request('PATCH', `${roles}/r1?fieldValidation=Strict`, { body: patch, headers: SMP });
    expect(strict.status).toBe(422);
    const detail = 'Invalid value: "map[rules:[map[$patch:delete apiGroups:[] resources:[pods] verbs:[list]]]]": strict decoding error: unknown field "rules[0].$patch"';
    expect(strict.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: ` "" is invalid: patch: ${detail}`,
      reason: 'Invalid',
      details: { causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }] },
      code: 422,
    });
  });
});

describe('strict field validation of patches', () => {
  it('duplicate keys in a merge patch warn (before unknown fields) and the last value wins', async () => {
    await configMap('fv1', { a: '1' });
    const r = await t.request('PATCH', `${base}/fv1`, { body: '{"data":{"b":"1","b":"2"},"x":{"y":1,"y":2}}', headers: MERGE });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: '1', b: '2' });
    expect(warnings(r)).toEqual(['299 - "duplicate field \\"data.b\\""', '299 - "duplicate field \\"x.y\\""', '299 - "unknown field \\"x\\""']);
  });

  it('under Strict a merge patch fails with the patched document as Go wrote it', async () => {
    const cm = await configMap('fv2', { a: '1' }, { l: '1' });
    const r = await t.request('PATCH', `${base}/fv2?fieldValidation=Strict`, { body: '{"data":{"b":"<1>"},"bogus":1}', headers: MERGE });
    expect(r.status).toBe(422);
    const m = cm.metadata;
    const mf = m.managedFields[0];
    // Top level and data were decoded by the merge (sorted keys); metadata kept its stored order.
    const doc =
      `{"apiVersion":"v1","bogus":1,"data":{"a":"1","b":"\\u003c1\\u003e"},"kind":"ConfigMap","metadata":{"name":"fv2","namespace":"default","uid":"${m.uid}",` +
      `"resourceVersion":"${m.resourceVersion}","creationTimestamp":"${m.creationTimestamp}","labels":{"l":"1"},"managedFields":[{"manager":"${mf.manager}",` +
      `"operation":"Update","apiVersion":"v1","time":"${mf.time}","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:l":{}}}}}]}}`;
    const detail = `Invalid value: ${JSON.stringify(doc)}: strict decoding error: unknown field "bogus"`;
    expect(r.json.message).toBe(` "" is invalid: patch: ${detail}`);
    expect(r.json.details).toEqual({ causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }] });
  });

  it('JSON patch operations are decoded strictly: unknown members, then duplicates', async () => {
    await configMap('fv3', { a: '1' });
    const body = '[{"op":"add","path":"/data/q","value":"1","foo":1,"op":"add"}]';
    const warn = await t.request('PATCH', `${base}/fv3`, { body, headers: JSON_PATCH });
    expect(warn.status).toBe(200);
    expect(warnings(warn)).toEqual(['299 - "json patch unknown field \\"[0].foo\\""', '299 - "json patch duplicate field \\"[0].op\\""']);
    const strict = await t.request('PATCH', `${base}/fv3?fieldValidation=Strict`, { body, headers: JSON_PATCH });
    expect(strict.status).toBe(422);
    expect(strict.json.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"data\\":\{\\"a\\":\\"1\\",\\"q\\":\\"1\\"\},\\"kind\\":\\"ConfigMap\\",\\"metadata\\":\{\\"name\\":\\"fv3\\",/);
    expect(strict.json.message).toMatch(/": strict decoding error: json patch unknown field "\[0\]\.foo", json patch duplicate field "\[0\]\.op"$/);
  });

  it('a strategic merge patch prints the patch map (%+v) under Strict; Ignore says nothing', async () => {
    await configMap('fv4', { a: '1' });
    const strict = await t.request('PATCH', `${base}/fv4?fieldValidation=Strict`, { body: '{"data":{"b":"1","b":"2"}}', headers: SMP });
    expect(strict.status).toBe(422);
    expect(strict.json.message).toBe(' "" is invalid: patch: Invalid value: "map[data:map[b:2]]": strict decoding error: duplicate field "data.b"');
    const ignore = await t.request('PATCH', `${base}/fv4?fieldValidation=Ignore`, { body: '{"data":{"b":"1","b":"2"},"zz":1}', headers: SMP });
    expect(ignore.status).toBe(200);
    expect(warnings(ignore)).toEqual([]);
    expect(ignore.json.data).toEqual({ a: '1', b: '2' });
  });
});
