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

describe('patched objects are checked as kube checks them', () => {
  it('names: removed or changed is 400 with kube\'s texts; a removed namespace is the URL\'s', async () => {
    await configMap('nm1', { a: '1' });
    const gone = await t.request('PATCH', `${base}/nm1`, { body: { metadata: { name: null } }, headers: MERGE });
    expect([gone.status, gone.json.message]).toEqual([400, 'the name of the object (nm1 based on URL) was undeterminable: name must be provided']);
    const renamed = await t.request('PATCH', `${base}/nm1`, { body: [{ op: 'replace', path: '/metadata/name', value: 'nm2' }], headers: JSON_PATCH });
    expect([renamed.status, renamed.json.message]).toEqual([400, 'the name of the object (nm2) does not match the name on the URL (nm1)']);
    const moved = await t.request('PATCH', `${base}/nm1`, { body: { metadata: { namespace: 'x' } }, headers: MERGE });
    expect([moved.status, moved.json.message]).toEqual([400, 'the namespace of the provided object does not match the namespace sent on the request']);
    const dropped = await t.request('PATCH', `${base}/nm1`, { body: [{ op: 'remove', path: '/metadata/namespace' }], headers: JSON_PATCH });
    expect(dropped.status).toBe(200);
    expect(dropped.json.metadata.namespace).toBe('default');
  });

  it('an apply that creates without a name is 400', async () => {
    const r = await t.request('PATCH', `${base}/nm3?fieldManager=m`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } },
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect([r.status, r.json.message]).toEqual([400, 'the name of the object (nm3 based on URL) was undeterminable: name must be provided']);
  });

  it('a result that does not decode is 422 on patch with the document as the patch library wrote it', async () => {
    const cm = await configMap('dec1', { a: '1' });
    const r = await t.request('PATCH', `${base}/dec1`, { body: { data: { x: 1 } }, headers: MERGE });
    expect(r.status).toBe(422);
    const m = cm.metadata;
    const mf = m.managedFields[0];
    const doc =
      `{"apiVersion":"v1","data":{"a":"1","x":1},"kind":"ConfigMap","metadata":{"name":"dec1","namespace":"default","uid":"${m.uid}",` +
      `"resourceVersion":"${m.resourceVersion}","creationTimestamp":"${m.creationTimestamp}","managedFields":[{"manager":"${mf.manager}",` +
      `"operation":"Update","apiVersion":"v1","time":"${mf.time}","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{}}}}]}}`;
    expect(r.json.message).toBe(` "" is invalid: patch: Invalid value: ${JSON.stringify(doc)}: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`);
  });

  it('a strategic merge patch result is converted as kube\'s unstructured converter words it', async () => {
    await configMap('dec3', { a: '1' });
    const cases: ReadonlyArray<[unknown, string]> = [
      [{ data: 'x' }, 'map[data:x]": cannot restore map from string'],
      [{ data: { x: 1 } }, 'map[data:map[x:1]]": cannot convert int64 to string'],
      [{ data: { x: true } }, 'map[data:map[x:true]]": unrecognized type: string'],
      [{ immutable: 'yes' }, 'map[immutable:yes]": unrecognized type: bool'],
      [{ metadata: { generation: 1.5 } }, 'map[metadata:map[generation:1.5]]": cannot convert float64 to int64'],
      [{ metadata: { finalizers: 'a' } }, 'map[metadata:map[finalizers:a]]": cannot restore slice from string'],
      [{ metadata: 'x' }, 'map[metadata:x]": cannot restore struct from: string'],
      [{ binaryData: { b: 5 } }, 'map[binaryData:map[b:5]]": cannot restore slice from int64'],
    ];
    for (const [patch, tail] of cases) {
      const r = await t.request('PATCH', `${base}/dec3`, { body: patch, headers: SMP });
      expect([r.status, r.json.message]).toEqual([422, ` "" is invalid: patch: Invalid value: "${tail}`]);
    }
  });

  it('a merge patch that is not an object is 400 when fields are validated', async () => {
    await configMap('dec2', { a: '1' });
    const r = await t.request('PATCH', `${base}/dec2`, { body: '[1]', headers: MERGE });
    expect([r.status, r.json.message]).toEqual([400, 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}']);
  });
});

describe('patch bodies are decoded where kube decodes them', () => {
  it('a body that is not JSON: strict decode when validating, else the patch library', async () => {
    await configMap('syn1', { a: '1' });
    const cases: ReadonlyArray<[Record<string, string>, string, string]> = [
      [JSON_PATCH, '', 'error decoding patch: unexpected end of JSON input'],
      [JSON_PATCH, '?fieldValidation=Ignore', 'unexpected end of JSON input'],
      [MERGE, '', 'error decoding patch: unexpected end of JSON input'],
      [MERGE, '?fieldValidation=Ignore', 'Invalid JSON Patch'],
      [SMP, '', 'unexpected end of JSON input'],
      [SMP, '?fieldValidation=Ignore', 'unexpected end of JSON input'],
    ];
    for (const [headers, q, message] of cases) {
      const r = await t.request('PATCH', `${base}/syn1${q}`, { body: '{"data":', headers });
      expect([r.status, r.json.message]).toEqual([400, message]);
    }
  });

  it('JSON patch operations are typed strictly when validating (jsonPatchOp), loosely otherwise', async () => {
    await configMap('syn2', { a: '1' });
    const cases: ReadonlyArray<[string, unknown, number, string]> = [
      ['', [{ op: 'add', path: '/data/z', value: '1', from: 7 }], 400, 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.from of type string'],
      ['', [5], 400, 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'],
      ['', { op: 'add' }, 400, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
      ['?fieldValidation=Ignore', { op: 'add' }, 400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
      ['?fieldValidation=Ignore', [{ op: 'add', path: 5, value: '1' }], 422, 'the server rejected our request due to an error in our request'],
      ['', [{ op: 'add', path: null, value: '1' }], 422, 'the server rejected our request due to an error in our request'],
    ];
    for (const [q, body, code, message] of cases) {
      const r = await t.request('PATCH', `${base}/syn2${q}`, { body, headers: JSON_PATCH });
      expect([r.status, r.json.message]).toEqual([code, message]);
    }
  });
});
