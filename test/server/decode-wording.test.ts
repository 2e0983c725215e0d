/**
 * Bodies kube-apiserver cannot decode, answered in its words (each checked against v1.32.4):
 * empty, null and non-object object bodies; patch documents of each type; YAML duplicate keys
 * under Strict; MicroTime fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
  await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'base' } } });
});
afterAll(async () => {
  await ts?.close();
});

const cms = '/api/v1/namespaces/default/configmaps';
const typeMetaStruct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

describe('object bodies', () => {
  it('an empty body fails reading the type meta', async () => {
    const r = await ts.request('POST', cms, { body: '' , headers: { 'content-type': 'application/json' } });
    expect([r.status, r.json.message]).toEqual([400, "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)"]);
  });

  it('null decodes to an empty object, which validation then refuses', async () => {
    const r = await ts.request('POST', cms, { body: 'null' });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
  });

  it('an array or a string is not an object', async () => {
    const a = await ts.request('POST', cms, { body: '[]' });
    expect([a.status, a.json.message]).toEqual([400, `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${typeMetaStruct} (5b5d)`]);
    const s = await ts.request('POST', cms, { body: '"str"' });
    expect(s.json.message).toContain('json: cannot unmarshal string into Go value of type struct {');
  });

  it('a MicroTime that does not parse names the microsecond layout', async () => {
    const r = await ts.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { body: { metadata: { name: 'l' }, spec: { renewTime: 'yesterday' } } });
    expect(r.json.message).toBe('Lease in version "v1" cannot be handled as a Lease: parsing time "yesterday" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "yesterday" as "2006"');
  });

  it('type meta of another kind or version fails in the scheme, for POST and PUT alike', async () => {
    const scheme = (k: string, v: string) => `no kind "${k}" is registered for version "${v}" in scheme "pkg/runtime/scheme.go:100"`;
    const cases: [Record<string, unknown>, string][] = [
      [{ apiVersion: 'v1', kind: 'Secret' }, 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion'],
      [{ kind: 'Secret' }, 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion'],
      [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' }, 'Role in version "v1" cannot be handled as a ConfigMap: converting (v1.Role) to (core.ConfigMap): unknown conversion'],
      [{ apiVersion: 'apps/v1', kind: 'ConfigMap' }, `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${scheme('ConfigMap', 'apps/v1')}`],
      [{ apiVersion: 'v2', kind: 'ConfigMap' }, `ConfigMap in version "v2" cannot be handled as a ConfigMap: ${scheme('ConfigMap', 'v2')}`],
      [{ apiVersion: 'v1', kind: 'Foo' }, `Foo in version "v1" cannot be handled as a ConfigMap: ${scheme('Foo', 'v1')}`],
    ];
    for (const [typeMeta, message] of cases) {
      const body = { ...typeMeta, metadata: { name: 'base' } };
      for (const r of [await ts.request('POST', `${cms}?dryRun=All`, { body }), await ts.request('PUT', `${cms}/base?dryRun=All`, { body })]) {
        expect([r.status, r.json.reason, r.json.message]).toEqual([400, 'BadRequest', message]);
      }
    }
    // Empty type meta takes the endpoint's.
    const ok = await ts.request('POST', `${cms}?dryRun=All`, { body: { apiVersion: '', kind: '', metadata: { name: 'empty-tm' } } });
    expect([ok.status, ok.json.kind, ok.json.apiVersion]).toEqual([201, 'ConfigMap', 'v1']);
  });

  it('YAML duplicate keys under Strict are one go-yaml error', async () => {
    const r = await ts.request('POST', `${cms}?fieldValidation=Strict`, { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dup}\ndata:\n  a: x1\n  a: x2\n', headers: { 'content-type': 'application/yaml' } });
    expect(r.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 6: key "a" already set in map');
  });
});

describe('patch documents', () => {
  const patch = (ct: string, body: string) => ts.request('PATCH', `${cms}/base`, { body, headers: { 'content-type': ct } });
  it.each([
    ['application/merge-patch+json', '[1,2]', 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['application/merge-patch+json', '{', 'error decoding patch: unexpected end of JSON input'],
    ['application/strategic-merge-patch+json', '"x"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['application/strategic-merge-patch+json', '{', 'unexpected end of JSON input'],
    ['application/json-patch+json', '{', 'error decoding patch: unexpected end of JSON input'],
  ])('%s %s', async (ct, body, message) => {
    const r = await patch(ct, body);
    expect([r.status, r.json.message]).toEqual([400, message]);
  });
});
