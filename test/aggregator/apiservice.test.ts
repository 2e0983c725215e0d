/**
 * apiregistration.k8s.io/v1 APIService: kube's validation messages (compared with kube-apiserver
 * v1.32.4), defaults, the automanaged local APIServices (built-in groups `onstart`, CRD groups
 * `true`, removed with their CRD) and `kubectl get apiservices` as kube prints it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ aggregation: { aggregatorProbeIntervalMs: 500 } });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const create = (body: string) => t.kubectl(['create', '--dry-run=server', '-f', '-'], { input: body });

test('validation: every spec rule with kube\'s messages, local APIServices', async () => {
  const k = await create(`apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.foo.example.com}
spec: {group: "Bad_Group", version: "V1", groupPriorityMinimum: 0, versionPriority: 1001, caBundle: "YWJj", insecureSkipTLSVerify: true}
`);
  expect(k.stderr).toBe(`The APIService "v1.foo.example.com" is invalid: 
* metadata.name: Invalid value: "v1.foo.example.com": must be \`spec.version+"."+spec.group\`: "V1.Bad_Group"
* spec.group: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
* spec.version: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')
* spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000
* spec.versionPriority: Invalid value: 1001: must be positive and less than 1000
* spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle
* spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify
`);
});

test('validation: service references', async () => {
  const k = await create(`apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.foo.example.com}
spec: {group: "foo.example.com", version: "v1", groupPriorityMinimum: 20001, versionPriority: 1, caBundle: "YWJj", insecureSkipTLSVerify: true, service: {port: 70000}}
`);
  expect(k.stderr).toBe(`The APIService "v1.foo.example.com" is invalid: 
* spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000
* spec.service.namespace: Required value
* spec.service.name: Required value
* spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive
* spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present
`);
  const core = await create(`apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v2.}
spec: {version: v2, groupPriorityMinimum: 1, versionPriority: 1}
`);
  expect(core.stderr).toBe('The APIService "v2." is invalid: spec.group: Required value: only v1 may have an empty group and it better be legacy kube\n');
});

test('defaults: service port 443, an empty status; status is written only through the status subresource', async () => {
  const k = await t.kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.foo.example.com' },
      spec: { group: 'foo.example.com', version: 'v1', groupPriorityMinimum: 20000, versionPriority: 1000, insecureSkipTLSVerify: true, service: { name: 'x', namespace: 'ns' } },
      status: { conditions: [{ type: 'Available', status: 'True' }] },
    }),
  });
  const obj = JSON.parse(k.stdout);
  expect(obj.spec).toEqual({ service: { namespace: 'ns', name: 'x', port: 443 }, group: 'foo.example.com', version: 'v1', insecureSkipTLSVerify: true, groupPriorityMinimum: 20000, versionPriority: 1000 });
  expect(obj.status).toEqual({});
});

test('a local APIService is Available as it is created: no status write follows, no status managedFields entry (as kube-aggregator)', async () => {
  const created = await t.kubectl(['create', '-o', 'json', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.local.example.com' }, spec: { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } }),
  });
  const obj = JSON.parse(created.stdout);
  expect(obj.status.conditions).toEqual([{ type: 'Available', status: 'True', lastTransitionTime: obj.metadata.creationTimestamp, reason: 'Local', message: 'Local APIServices are always available' }]);
  // The availability controller's passes leave it alone (kube-apiserver v1.32.4: one kubectl-create entry, same resourceVersion).
  await new Promise((r) => setTimeout(r, 300));
  const again = (await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.local.example.com')).json;
  expect(again.metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
  expect(again.metadata.managedFields.map((m: { manager: string; subresource?: string }) => [m.manager, m.subresource])).toEqual([['kubectl-create', undefined]]);
  expect(Object.keys(again.metadata.managedFields[0].fieldsV1)).toEqual(['f:spec']);
  await t.request('DELETE', '/apis/apiregistration.k8s.io/v1/apiservices/v1.local.example.com');
});

test('automanaged: one Local APIService per served group/version, kube\'s priorities; CRD groups come and go', async () => {
  const k = await t.kubectl(['get', 'apiservices']);
  expect(k.stdout).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/m);
  expect(k.stdout).toMatch(/^v1\.\s+Local\s+True\s+\d+s$/m);
  expect(k.stdout).toMatch(/^v1\.rbac\.authorization\.k8s\.io\s+Local\s+True\s+\d+s$/m);
  expect(k.stdout).not.toContain('apiregistration.k8s.io');
  const core = (await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps')).status;
  expect(core).toBe(404);
  const events = (await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.events.k8s.io')).json;
  expect(events.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
  expect(events.spec).toEqual({ group: 'events.k8s.io', version: 'v1', groupPriorityMinimum: 17750, versionPriority: 15 });
  // The core group's is empty, left out as Go's omitempty leaves it (kube-apiserver v1.32.4).
  const legacy = (await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.')).json;
  expect(legacy.spec).toEqual({ version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
  expect(events.status.conditions).toEqual([{ type: 'Available', status: 'True', lastTransitionTime: expect.any(String), reason: 'Local', message: 'Local APIServices are always available' }]);

  const crd = await t.kubectl(['apply', '-f', 'test/fixtures/crd-databases.yaml']);
  expect(crd.code).toBe(0);
  let got = await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.ops.example.com');
  for (let i = 0; i < 40 && got.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 100));
    got = await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.ops.example.com');
  }
  expect(got.status).toBe(200);
  expect(got.json.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
  expect(got.json.spec).toEqual({ group: 'ops.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
  // A hand edit of an automanaged spec is put back.
  const patched = await t.request('PATCH', '/apis/apiregistration.k8s.io/v1/apiservices/v1.ops.example.com', { body: { spec: { versionPriority: 7 } }, headers: { 'content-type': 'application/merge-patch+json' } });
  expect(patched.status).toBe(200);
  for (let i = 0; i < 40 && got.json.spec.versionPriority !== 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    got = await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.ops.example.com');
  }
  expect(got.json.spec.versionPriority).toBe(100);
  await t.kubectl(['delete', '-f', 'test/fixtures/crd-databases.yaml', '--wait=true']);
  let gone = await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.ops.example.com');
  for (let i = 0; i < 100 && gone.status !== 404; i++) {
    await new Promise((r) => setTimeout(r, 100));
    gone = await t.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.ops.example.com');
  }
  expect(gone.status).toBe(404);
}, 60_000);
