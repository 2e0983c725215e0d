/**
 * managedFields as kube-apiserver 1.32.4 writes them. Every expected fieldsV1 here was read from
 * the reference server for the same request sequence: zero-valued struct fields get no `.`,
 * fields the strategy sets belong to nobody, events are tracked in the version written, other
 * groups' managers drop, empty maps are neither stored nor owned, no-op applies are not stamped.
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

const UA = { 'user-agent': 'curl/8.5.0' };
const APPLY = { ...UA, 'content-type': 'application/apply-patch+yaml' };
const MERGE = { ...UA, 'content-type': 'application/merge-patch+json' };
const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const coreEvents = '/api/v1/namespaces/default/events';
const v1Events = '/apis/events.k8s.io/v1/namespaces/default/events';
const cms = '/api/v1/namespaces/default/configmaps';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const entries = (obj: any) => (obj.metadata.managedFields ?? []).map(({ time: _t, ...rest }: Record<string, unknown>) => rest);
const update = (apiVersion: string, fieldsV1: unknown) => ({ manager: 'curl', operation: 'Update', apiVersion, fieldsType: 'FieldsV1', fieldsV1 });

describe('managedFields parity', () => {
  it('a struct present in the zero value (Lease spec) gets no "." node', async () => {
    const r = await t.request('POST', leases, { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1' }, spec: { holderIdentity: 'h' } }, headers: UA });
    expect(r.status).toBe(201);
    expect(entries(r.json)).toEqual([update('coordination.k8s.io/v1', { 'f:spec': { 'f:holderIdentity': {} } })]);
    const empty = await t.request('POST', leases, { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l2' } }, headers: UA });
    expect(empty.json.spec).toEqual({});
    expect(empty.json.metadata.managedFields).toBeUndefined();
  });

  it('fields set by the strategy (a namespace spec.finalizers) are not credited; defaulted labels are', async () => {
    const r = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mf-ns' } }, headers: UA });
    expect(r.status).toBe(201);
    expect(r.json.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(entries(r.json)).toEqual([update('v1', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } })]);
  });

  it('a generated namespace name gets its label from the strategy, owned by nobody', async () => {
    const r = await t.request('POST', '/api/v1/namespaces?dryRun=All', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'mf-gen-', labels: { a: 'b' } } }, headers: UA });
    expect(r.status).toBe(201);
    expect(r.json.metadata.name).toMatch(/^mf-gen-[a-z0-9]{5}$/);
    expect(r.json.metadata.labels).toEqual({ a: 'b', 'kubernetes.io/metadata.name': r.json.metadata.name });
    expect(entries(r.json)).toEqual([update('v1', { 'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:a': {} } } })]);
  });

  it('a list Go always writes (ClusterRole rules) is owned by the writer who empties it to null', async () => {
    // Read from kube: creating with no rules owns nothing there; replacing [rule] by no rules keeps f:rules
    // (the field changed to null, which is "modified", not removed).
    const crs = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    const labels = { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } };
    const meta = (name: string) => ({ name, labels: { a: 'b' } });
    const bare = await t.request('POST', crs, { body: { metadata: meta('mf-cr1') }, headers: UA });
    expect(bare.status).toBe(201);
    expect(bare.json.rules).toBeNull();
    expect(entries(bare.json)).toEqual([update('rbac.authorization.k8s.io/v1', labels)]);
    const same = await t.request('PUT', `${crs}/mf-cr1`, { body: { metadata: meta('mf-cr1') }, headers: UA });
    expect(entries(same.json)).toEqual([update('rbac.authorization.k8s.io/v1', labels)]);
    const withRules = await t.request('POST', crs, { body: { metadata: meta('mf-cr2'), rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }, headers: UA });
    expect(entries(withRules.json)).toEqual([update('rbac.authorization.k8s.io/v1', { ...labels, 'f:rules': {} })]);
    const emptied = await t.request('PUT', `${crs}/mf-cr2`, { body: { metadata: meta('mf-cr2') }, headers: UA });
    expect(emptied.status).toBe(200);
    expect(emptied.json.rules).toBeNull();
    expect(entries(emptied.json)).toEqual([update('rbac.authorization.k8s.io/v1', { ...labels, 'f:rules': {} })]);
  });

  it('an emptied ownerReferences list is a removed field (omitempty): its owner\'s entry goes', async () => {
    const parent = await t.request('POST', cms, { body: { metadata: { name: 'mf-parent' } }, headers: UA });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'mf-parent', uid: parent.json.metadata.uid };
    const child = await t.request('POST', cms, { body: { metadata: { name: 'mf-child', ownerReferences: [ref] } }, headers: UA });
    expect(entries(child.json)).toEqual([update('v1', { 'f:metadata': { 'f:ownerReferences': { '.': {}, [`k:{"uid":"${ref.uid}"}`]: {} } } })]);
    const emptied = await t.request('PUT', `${cms}/mf-child`, { body: { metadata: { name: 'mf-child', ownerReferences: [] } }, headers: { 'user-agent': 'other/1' } });
    expect(emptied.status).toBe(200);
    expect(emptied.json.metadata.ownerReferences).toBeUndefined();
    expect(emptied.json.metadata.managedFields).toBeUndefined();
  });

  it('core events: zero-valued source and reporting strings are not owned', async () => {
    const body = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ce1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'm', source: { component: 'c' }, type: 'Normal' };
    const r = await t.request('POST', coreEvents, { body, headers: UA });
    expect(r.status).toBe(201);
    expect(entries(r.json)).toEqual([
      update('v1', { 'f:involvedObject': {}, 'f:message': {}, 'f:reason': {}, 'f:source': { 'f:component': {} }, 'f:type': {} }),
    ]);
  });

  it('events.k8s.io writes are tracked with its field names; a core write drops that manager', async () => {
    const body = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 've1' },
      eventTime: '2024-01-01T00:00:00.000000Z',
      reportingController: 'c',
      reportingInstance: 'i',
      action: 'a',
      reason: 'r',
      regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
      note: 'n',
      type: 'Normal',
    };
    const r = await t.request('POST', v1Events, { body, headers: UA });
    expect(r.status).toBe(201);
    const v1Entry = update('events.k8s.io/v1', {
      'f:action': {},
      'f:eventTime': {},
      'f:note': {},
      'f:reason': {},
      'f:regarding': {},
      'f:reportingController': {},
      'f:reportingInstance': {},
      'f:type': {},
    });
    expect(entries(r.json)).toEqual([v1Entry]);
    // Read through core/v1, the entry is unchanged (it is stored once, in the writer's version).
    expect(entries((await t.request('GET', `${coreEvents}/ve1`)).json)).toEqual([v1Entry]);
    const p = await t.request('PATCH', `${coreEvents}/ve1`, { body: { message: 'n3' }, headers: MERGE });
    expect(p.status).toBe(200);
    expect(entries(p.json)).toEqual([update('v1', { 'f:message': {} })]);
  });

  it('empty maps are neither stored nor owned', async () => {
    const r = await t.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'em', labels: {} }, data: {} }, headers: UA });
    expect(r.status).toBe(201);
    expect(r.json.data).toBeUndefined();
    expect(r.json.metadata.labels).toBeUndefined();
    expect(r.json.metadata.managedFields).toBeUndefined();
  });

  it('an emptied set leaves no entry behind', async () => {
    await t.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone', labels: { a: '1' } }, data: { x: '1' } }, headers: UA });
    const r = await t.request('PATCH', `${cms}/gone`, { body: { metadata: { labels: null }, data: null }, headers: MERGE });
    expect(r.status).toBe(200);
    expect(r.json.metadata.managedFields).toBeUndefined();
  });

  it('a no-op apply takes ownership but stamps no time; a changing one does', async () => {
    const cm = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'noop' }, data });
    const one = await t.request('PATCH', `${cms}/noop?fieldManager=m1`, { body: cm({ a: '1', b: '2' }), headers: APPLY });
    expect(one.status).toBe(201);
    const m1Time = one.json.metadata.managedFields[0].time;
    const two = await t.request('PATCH', `${cms}/noop?fieldManager=m2`, { body: cm({ a: '1' }), headers: APPLY });
    expect(two.status).toBe(200);
    expect(two.json.metadata.managedFields).toEqual([
      { manager: 'm2', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
      { manager: 'm1', operation: 'Apply', apiVersion: 'v1', time: m1Time, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
    ]);
    const three = await t.request('PATCH', `${cms}/noop?fieldManager=m2`, { body: cm({ a: '1', c: '3' }), headers: APPLY });
    expect(three.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'm2').time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('an apply with a stale resourceVersion is the optimistic-lock 409', async () => {
    const cm = (rv: string | undefined, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stale', ...(rv ? { resourceVersion: rv } : {}) }, data });
    expect((await t.request('PATCH', `${cms}/stale?fieldManager=m1`, { body: cm(undefined, { a: '1' }), headers: APPLY })).status).toBe(201);
    for (const [manager, data] of [['m1', { a: '1' }], ['m2', { b: '2' }], ['m2', { a: '2' }]] as const) {
      const force = manager === 'm2' && 'a' in data ? '&force=true' : '';
      const r = await t.request('PATCH', `${cms}/stale?fieldManager=${manager}${force}`, { body: cm('1', data), headers: APPLY });
      expect(r.status).toBe(409);
      expect(r.json.message).toBe('Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again');
    }
  });

  it('an applied config is typed, not pruned: unknown fields and ill-typed scalars are 500 in any mode', async () => {
    const yaml = (extra: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typed\n${extra}`;
    const unknown = await t.request('PATCH', `${cms}/typed?fieldManager=m&fieldValidation=Ignore`, { body: yaml('  bogus: 3\ndata:\n  a: "1"\n'), headers: APPLY });
    expect(unknown.status).toBe(500);
    expect(unknown.json.message).toBe('failed to create typed patch object (/typed; /v1, Kind=ConfigMap): .metadata.bogus: field not declared in schema');
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed' }, immutable: 'yes', data: { a: true, b: null, c: [1] } };
    const typed = await t.request('PATCH', `${cms}/typed?fieldManager=m`, { body, headers: APPLY });
    expect(typed.status).toBe(500);
    expect(typed.json.message).toBe(
      'failed to create typed patch object (/typed; /v1, Kind=ConfigMap): errors:\n' +
        '  .data.a: expected string, got &value.valueUnstructured{Value:true}\n' +
        '  .data.c: expected string, got &value.valueUnstructured{Value:[]interface {}{1}}\n' +
        '  .immutable: expected boolean, got &{yes}',
    );
    expect((await t.request('GET', `${cms}/typed`)).status).toBe(404);
  });

  it('duplicate keys in an applied config warn, and fail under Strict with the YAML decoder\'s text', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\ndata:\n  a: "1"\n  a: "2"\n';
    const strict = await t.request('PATCH', `${cms}/dup?fieldManager=m&fieldValidation=Strict`, { body, headers: APPLY });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe('error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
    const warn = await t.request('PATCH', `${cms}/dup?fieldManager=m`, { body, headers: APPLY });
    expect(warn.status).toBe(201);
    expect(warn.json.data).toEqual({ a: '2' });
    expect(warn.headers['warning']).toBe('299 - "line 7: key \\"a\\" already set in map"');
  });

  it('the applied object must name the endpoint\'s kind exactly (kube\'s version check comes first)', async () => {
    const cases: ReadonlyArray<[unknown, string]> = [
      [{ apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'vc' } }, 'invalid object type: /v2, Kind=ConfigMap'],
      [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'vc' } }, 'invalid object type: /v1, Kind=Secret'],
      [{ metadata: { name: 'vc', managedFields: [{ manager: 'x' }] } }, 'invalid object type: /, Kind='],
      ['null', 'invalid object type: /, Kind='],
      ['[]', 'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ];
    for (const [body, message] of cases) {
      const r = await t.request('PATCH', `${cms}/vc?fieldManager=m`, { body, headers: APPLY });
      expect([r.status, r.json.message]).toEqual([400, message]);
    }
    expect((await t.request('GET', `${cms}/vc`)).status).toBe(404);
  });

  it('sets and associative lists may not repeat an entry; a missing key is its default', async () => {
    const dup = await t.request('PATCH', `${cms}/sets?fieldManager=m`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sets', finalizers: ['a.io/x', 'a.io/x'] } },
      headers: APPLY,
    });
    expect([dup.status, dup.json.message]).toEqual([500, 'failed to create typed patch object (/sets; /v1, Kind=ConfigMap): .metadata.finalizers: duplicate entries for key [="a.io/x"]']);
    const keyless = await t.request('PATCH', `${cms}/sets?fieldManager=m`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sets', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o' }] } },
      headers: APPLY,
    });
    expect(keyless.status).toBe(422);
  });

  it('force on a non-apply patch is 422 on PatchOptions', async () => {
    const r = await t.request('PATCH', `${cms}/noop?force=true`, { body: { data: { x: '1' } }, headers: MERGE });
    expect([r.status, r.json.message]).toEqual([422, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch']);
  });

  it('an apply body that is not YAML is kube\'s "error decoding YAML" 400', async () => {
    const r = await t.request('PATCH', `${cms}/bad-yaml?fieldManager=m`, { body: 'a: [', headers: APPLY });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/^error decoding YAML: error converting YAML to JSON: yaml: line 1: /);
  });
});

