/**
 * The type-confusion sweep: every metadata field (and metadata itself, apiVersion and kind) set
 * to values of every wrong JSON type, sent through every write verb (create, update, merge,
 * strategic and JSON patch, apply) for served kinds. kube decodes into Go structs, so each is a
 * 4xx (400 decode, 422 patch) or, for apply, its typed-conversion 500; never a crash.
 */
import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../../src/api/builtin.ts';
import { apiVersionOf, type ResourceType } from '../../src/api/types.ts';
import { longMode } from './fuzz-config.ts';
import { expectNoServerFaults, useFuzzServer, type Outcome } from './fuzz-harness.ts';

const FIELDS = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'];
const WRONG: readonly unknown[] = [
  55, 1.5, -1, 2 ** 64, true, 'str', '2020-13-45', null, [], [5], [null], [[]], {}, { a: 5 }, { a: null }, { a: [] },
  [{}], [{ uid: 5 }], [{ apiVersion: 'v1', kind: 'X', name: 'n', uid: 'u', controller: 'yes' }], [{ manager: 5 }], [{ fieldsType: 'FieldsV1', fieldsV1: 5 }],
];
const TOP: readonly [string, readonly unknown[]][] = [
  ['metadata', [55, 'str', true, [], [null], null]],
  ['apiVersion', [5, null, {}, []]],
  ['kind', [5, null, {}, []]],
];

// The default run covers a core and a grouped kind (about 4,000 requests, in process); the long run every kind.
const KINDS = longMode ? builtinResourceTypes : builtinResourceTypes.filter((rt) => ['configmaps', 'roles'].includes(rt.resource));

function urls(rt: ResourceType): { collection: string; item: (name: string) => string } {
  const base = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
  const collection = rt.namespaced ? `${base}/namespaces/default/${rt.resource}` : `${base}/${rt.resource}`;
  return { collection, item: (name) => `${collection}/${name}` };
}

/** A minimal valid object of the kind (so that only the confused field is wrong). */
function minimal(rt: ResourceType, name: string): Record<string, unknown> {
  const obj: Record<string, unknown> = { apiVersion: apiVersionOf(rt), kind: rt.kind, metadata: { name } };
  if (rt.resource === 'rolebindings' || rt.resource === 'clusterrolebindings') obj.roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'x' };
  if (rt.resource === 'events' && rt.group === '') obj.involvedObject = { kind: 'Pod', name: 'p', namespace: 'default' };
  if (rt.resource === 'events' && rt.group === 'events.k8s.io') {
    Object.assign(obj, { eventTime: '2024-01-01T00:00:00.000000Z', reportingController: 'fuzz/ctl', reportingInstance: 'fuzz-1', action: 'Fuzz', reason: 'Fuzzing', type: 'Normal', regarding: { kind: 'Pod', name: 'p', namespace: 'default' } });
  }
  return obj;
}

describe('type-confusion sweep over metadata and every write verb', () => {
  const fz = useFuzzServer();

  for (const rt of KINDS) {
    it(`${rt.group || 'core'}/${rt.resource}: every confused field answers 4xx (or kube's apply 500), never a crash`, async () => {
      const u = urls(rt);
      const base = `fuzz-base`;
      const created = await fz.send('seed', 'POST', u.collection, minimal(rt, base), 'application/json');
      expect([201, 409]).toContain(created.status);
      const outcomes: Outcome[] = [];
      const cases: { path: string[]; v: unknown }[] = [];
      for (const f of FIELDS) for (const v of WRONG) cases.push({ path: ['metadata', f], v });
      for (const [f, vs] of TOP) for (const v of vs) cases.push({ path: [f], v });
      let n = 0;
      for (const { path, v } of cases) {
        const tag = `${path.join('.')}=${JSON.stringify(v)}`;
        const set = (obj: Record<string, unknown>) => {
          if (path.length === 1) obj[path[0]!] = v;
          else (obj.metadata as Record<string, unknown>)[path[1]!] = v;
          return obj;
        };
        const name = `fuzz-${n++}`;
        outcomes.push(await fz.send(`create ${tag}`, 'POST', u.collection, set(minimal(rt, name)), 'application/json'));
        outcomes.push(await fz.send(`update ${tag}`, 'PUT', u.item(base), set(minimal(rt, base)), 'application/json'));
        const partial = path.length === 1 ? { [path[0]!]: v } : { metadata: { [path[1]!]: v } };
        outcomes.push(await fz.send(`merge ${tag}`, 'PATCH', u.item(base), partial, 'application/merge-patch+json'));
        outcomes.push(await fz.send(`strategic ${tag}`, 'PATCH', u.item(base), partial, 'application/strategic-merge-patch+json'));
        outcomes.push(await fz.send(`json-patch ${tag}`, 'PATCH', u.item(base), [{ op: 'add', path: `/${path.join('/')}`, value: v }], 'application/json-patch+json'));
        outcomes.push(await fz.send(`apply ${tag}`, 'PATCH', `${u.item(base)}?fieldManager=fuzz`, set(minimal(rt, base)), 'application/apply-patch+yaml'));
        // Server-generated or immutable fields are refused or reset, so successes are expected too;
        // a decode-level mismatch must never be a success.
      }
      expectNoServerFaults(outcomes, fz.uncaught);
      // Spot checks of kube's codes for the classic cases.
      const code = (label: string) => outcomes.find((o) => o.label === label)?.status;
      expect(code('create metadata.name=55')).toBe(400);
      expect(code('create metadata.finalizers=[5]')).toBe(400);
      expect(code('create metadata="str"')).toBe(400);
      expect(code('merge metadata.ownerReferences=55')).toBe(422);
      expect(code('strategic metadata.name=55')).toBe(422);
      expect(code('json-patch metadata.labels={"a":5}')).toBe(422);
      // The object is still intact and readable after the sweep.
      const after = await fz.app().inject({ method: 'GET', url: u.item(base) });
      expect(after.statusCode).toBe(200);
      expect(JSON.parse(after.body).metadata.name).toBe(base);
    }, longMode ? 600_000 : 60_000);
  }

  it('names the field and type as Go does', async () => {
    const r = await fz.send('create', 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 55 } }, 'application/json');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string');
    const o = await fz.send('create', 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'o', ownerReferences: [{ controller: 'yes' }] } }, 'application/json');
    expect(JSON.parse(o.body).message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool');
    const g = await fz.send('create', 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'g', generation: 1.5 } }, 'application/json');
    expect(JSON.parse(g.body).message).toContain('json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64');
  });

  // Messages checked against kube-apiserver v1.32.4.
  it('words patch and apply type errors as kube does', async () => {
    const base = '/api/v1/namespaces/default/configmaps/words';
    await fz.send('seed', 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'words' } }, 'application/json');
    const msg = async (ct: string, body: unknown, query = '') => {
      const r = await fz.send(ct, 'PATCH', `${base}${query}`, body, ct);
      return [r.status, JSON.parse(r.body).message];
    };
    expect(await msg('application/strategic-merge-patch+json', { metadata: { ownerReferences: [{ uid: 5 }] } })).toEqual([
      422,
      ' "" is invalid: patch: Invalid value: "map[metadata:map[ownerReferences:[map[uid:5]]]]": cannot convert int64 to types.UID',
    ]);
    expect(await msg('application/strategic-merge-patch+json', { metadata: 'str' })).toEqual([422, ' "" is invalid: patch: Invalid value: "map[metadata:str]": cannot restore struct from: string']);
    const apply = (meta: unknown) => msg('application/apply-patch+yaml', { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta }, '?fieldManager=m');
    expect(await apply({ name: 'words', finalizers: [true] })).toEqual([
      500,
      'failed to create typed patch object (/words; /v1, Kind=ConfigMap): .metadata.finalizers[=true]: expected string, got &value.valueUnstructured{Value:true}',
    ]);
    expect(await apply({ name: 'words', ownerReferences: [{ controller: 'yes' }] })).toEqual([
      500,
      'failed to create typed patch object (/words; /v1, Kind=ConfigMap): .metadata.ownerReferences[uid=""].controller: expected boolean, got &{yes}',
    ]);
    expect(await apply({ name: 'words', generation: 1.5 })).toEqual([
      500,
      'failed to convert new object (/words; /v1, Kind=ConfigMap) to proper version: unable to convert unstructured object to /v1, Kind=ConfigMap: cannot convert float64 to int64',
    ]);
    const unwrapped = await fz.send('apply', 'PATCH', `${base}?fieldManager=m`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'str' }, 'application/apply-patch+yaml');
    expect(JSON.parse(unwrapped.body)).not.toHaveProperty('reason');
  });

  it('decodes null list elements and map values to zero values, as Go does', async () => {
    const r = await fz.send('create', 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'nulls', labels: { a: null } }, data: { k: null } }, 'application/json');
    expect(r.status).toBe(201);
    const obj = JSON.parse(r.body);
    expect(obj.metadata.labels).toEqual({ a: '' });
    expect(obj.data).toEqual({ k: '' });
    const f = await fz.send('create', 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'nullfin', finalizers: [null] } }, 'application/json');
    // An empty finalizer name is then a validation error, as in kube.
    expect(f.status).toBe(422);
    expectNoServerFaults([r, f], fz.uncaught);
  });
});
