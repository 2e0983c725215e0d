/**
 * Server-side apply over HTTP: create and update by apply, managedFields as kube writes them,
 * conflicts, force, shared ownership, removal, status ownership, resets, dry run.
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
const applyHeaders = { 'content-type': 'application/apply-patch+yaml' };
const apply = (name: string, manager: string, data: Record<string, string>, extra = '') =>
  t.request('PATCH', `${base}/${name}?fieldManager=${manager}${extra}`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
    headers: applyHeaders,
  });
const strip = (mf: any[]) => mf.map(({ time: _t, ...rest }) => rest);

describe('server-side apply', () => {
  it('creates by apply (201) and records an Apply entry', async () => {
    const r = await apply('a1', 'alice', { x: '1', y: '2' });
    expect(r.status).toBe(201);
    expect(strip(r.json.metadata.managedFields)).toEqual([
      { manager: 'alice', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {}, 'f:y': {} } } },
    ]);
    expect(r.json.metadata.managedFields[0].time).toMatch(/Z$/);
  });

  it('requires fieldManager and refuses managedFields in the body', async () => {
    const r = await t.request('PATCH', `${base}/a1`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a1' } }, headers: applyHeaders });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const m = await t.request('PATCH', `${base}/a1?fieldManager=alice`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a1', managedFields: [{ manager: 'x' }] } },
      headers: applyHeaders,
    });
    expect(m.status).toBe(400);
    expect(m.json.message).toContain('metadata.managedFields must be nil');
  });

  it('conflicts with another manager, lists every field, and force takes them', async () => {
    const r = await apply('a1', 'bob', { x: 'changed', y: 'changed' });
    expect(r.status).toBe(409);
    expect(r.json.reason).toBe('Conflict');
    expect(r.json.message).toBe('Apply failed with 2 conflicts: conflicts with "alice":\n- .data.x\n- .data.y');
    expect(r.json.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.x' },
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.y' },
    ]);
    const forced = await apply('a1', 'bob', { x: 'changed' }, '&force=true');
    expect(forced.status).toBe(200);
    expect(forced.json.data).toEqual({ x: 'changed', y: '2' });
    const owners = Object.fromEntries(forced.json.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    expect(owners).toEqual({ alice: { 'f:data': { 'f:y': {} } }, bob: { 'f:data': { 'f:x': {} } } });
  });

  it('shares ownership of equal values and removes fields no one owns any more', async () => {
    await apply('s1', 'alice', { shared: 'v', mine: '1' });
    const same = await apply('s1', 'bob', { shared: 'v' });
    expect(same.status).toBe(200);
    const both = same.json.metadata.managedFields.filter((e: any) => e.fieldsV1['f:data']['f:shared']);
    expect(both.map((e: any) => e.manager).sort()).toEqual(['alice', 'bob']);
    // alice drops "mine": nobody else owns it, so it goes; "shared" stays because bob owns it.
    const dropped = await apply('s1', 'alice', { shared: 'v' });
    expect(dropped.json.data).toEqual({ shared: 'v' });
    const bobGone = await apply('s1', 'bob', {});
    expect(bobGone.json.data).toEqual({ shared: 'v' });
    const aliceGone = await apply('s1', 'alice', {});
    expect(aliceGone.json.data ?? {}).toEqual({});
  });

  it('records non-apply writes as Update entries by fieldManager or User-Agent, never conflicting', async () => {
    await apply('u1', 'alice', { k: '1' });
    const put = await t.request('PATCH', `${base}/u1?fieldManager=editor`, {
      body: { data: { k: '2' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(put.status).toBe(200);
    const editor = put.json.metadata.managedFields.find((e: any) => e.manager === 'editor');
    expect(editor).toMatchObject({ operation: 'Update', fieldsV1: { 'f:data': { 'f:k': {} } } });
    const ua = await t.request('PATCH', `${base}/u1`, {
      body: { data: { k: '3' } },
      headers: { 'content-type': 'application/merge-patch+json', 'user-agent': 'my-controller/v1.2 (linux)' },
    });
    expect(ua.json.metadata.managedFields.map((e: any) => e.manager)).toContain('my-controller');
  });

  it('tracks status writes separately with subresource status', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'ssa-ns' } } });
    const r = await t.request('PATCH', '/api/v1/namespaces/ssa-ns/status?fieldManager=stat', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ssa-ns' }, status: { conditions: [{ type: 'Custom', status: 'True' }] } },
      headers: applyHeaders,
    });
    expect(r.status).toBe(200);
    const entry = r.json.metadata.managedFields.find((e: any) => e.manager === 'stat');
    expect(entry).toMatchObject({ operation: 'Apply', subresource: 'status' });
    expect(entry.fieldsV1['f:status']).toBeTruthy();
  });

  it('resets managedFields with an empty list or a single empty entry (kube 1.32), not with null', async () => {
    await apply('r1', 'alice', { k: '1' });
    const nulled = await t.request('PATCH', `${base}/r1`, {
      body: { metadata: { managedFields: null } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(nulled.json.metadata.managedFields.map((e: any) => e.manager)).toContain('alice');
    const empty = await t.request('PATCH', `${base}/r1`, {
      body: { metadata: { managedFields: [] } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(empty.status).toBe(200);
    expect(empty.json.metadata.managedFields).toBeUndefined();
    // An object without managers is not tracked again until someone applies.
    const after = await t.request('PATCH', `${base}/r1`, { body: { data: { z: '1' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(after.json.metadata.managedFields).toBeUndefined();
    await apply('r2', 'alice', { k: '1' });
    const reset = await t.request('PATCH', `${base}/r2`, {
      body: { metadata: { managedFields: [{}] } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(reset.status).toBe(200);
    expect(reset.json.metadata.managedFields).toBeUndefined();
  });

  it('dry-run apply changes nothing', async () => {
    await apply('d1', 'alice', { k: '1' });
    const r = await apply('d1', 'alice', { k: '2' }, '&dryRun=All');
    expect(r.status).toBe(200);
    expect(r.json.data.k).toBe('2');
    expect((await t.request('GET', `${base}/d1`)).json.data.k).toBe('1');
  });
});
