/**
 * Several versions (conversion None), deprecation warnings, field selectors from selectableFields,
 * name conflicts between CRDs of a group, and watches of custom resources.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { createCrd, crdManifest, crdVersion, waitFor } from './crd-setup.ts';

const things = crdManifest(
  'crdh.example.com',
  { plural: 'things', kind: 'Thing' },
  [
    crdVersion('v1beta1', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, { storage: false, deprecated: true }),
    crdVersion('v1', { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'integer', default: 1 } } } } }, { selectableFields: [{ jsonPath: '.spec.color' }] }),
  ],
  'Cluster',
);
const others = {
  ...things,
  metadata: { name: 'others.crdh.example.com' },
  spec: { ...things.spec, names: { plural: 'others', kind: 'Thing', singular: 'thing' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
};

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const crdStatus = async (name: string) => (await t.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).json?.status;

describe('versions, selectors, conflicts, watches', () => {
  it('serves every version of one stored object, pruned and defaulted per version', async () => {
    await createCrd(t, things);
    const created = await t.request('POST', '/apis/crdh.example.com/v1beta1/things', { body: { apiVersion: 'crdh.example.com/v1beta1', kind: 'Thing', metadata: { name: 't1' }, spec: { color: 'red', x: 1 } } });
    expect(created.status).toBe(201);
    expect(created.json.apiVersion).toBe('crdh.example.com/v1beta1');
    // Stored in v1: pruned to and defaulted by the storage version's schema, as kube does.
    expect(created.json.spec).toEqual({ color: 'red', size: 1 });
    expect(created.headers['warning']).toBe('299 - "crdh.example.com/v1beta1 Thing is deprecated; use crdh.example.com/v1 Thing"');
    const v1 = await t.request('GET', '/apis/crdh.example.com/v1/things/t1');
    expect(v1.json.apiVersion).toBe('crdh.example.com/v1');
    expect(v1.json.spec).toEqual({ color: 'red', size: 1 });
    expect(v1.headers['warning']).toBeUndefined();
  });

  it('filters by selectable fields and refuses other field labels', async () => {
    await t.request('POST', '/apis/crdh.example.com/v1/things', { body: { apiVersion: 'crdh.example.com/v1', kind: 'Thing', metadata: { name: 't2' }, spec: { color: 'blue' } } });
    const red = await t.request('GET', '/apis/crdh.example.com/v1/things?fieldSelector=spec.color%3Dred');
    expect(red.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['t1']);
    const bad = await t.request('GET', '/apis/crdh.example.com/v1/things?fieldSelector=spec.size%3D1');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe('field label not supported: spec.size');
  });

  it('refuses names taken in the group, and accepts them once freed', async () => {
    expect((await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: others })).status).toBe(201);
    const st = await waitFor(async () => {
      const s = await crdStatus('others.crdh.example.com');
      return s?.conditions ? s : undefined;
    });
    expect(st.acceptedNames).toEqual({ plural: 'others', kind: '' });
    expect(st.conditions.map((c: { type: string; status: string; reason: string; message: string }) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['NamesAccepted', 'False', 'ListKindConflict', '"ThingList" is already in use'],
      ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
    ]);
    expect((await t.request('GET', '/apis/crdh.example.com/v1/others')).status).toBe(404);
    await t.request('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.crdh.example.com');
    const freed = await waitFor(async () => {
      const s = await crdStatus('others.crdh.example.com');
      return s?.conditions?.[1]?.status === 'True' ? s : undefined;
    });
    expect(freed.acceptedNames).toEqual({ plural: 'others', singular: 'thing', kind: 'Thing', listKind: 'ThingList' });
    expect((await t.request('GET', '/apis/crdh.example.com/v1/others')).status).toBe(200);
  });

  it('watches custom resources, and the watch ends when the CRD goes', async () => {
    const events: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      const req = https.request(`${t.server.url}/apis/crdh.example.com/v1/others?watch=1`, { ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey }, (res) => {
        let buf = '';
        res.on('data', (c: Buffer) => {
          buf += c.toString();
          let nl;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line) {
              const ev = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
              events.push(`${ev.type} ${ev.object.metadata?.name ?? ''}`);
            }
          }
        });
        res.on('end', () => resolve());
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    await new Promise((r) => setTimeout(r, 100));
    await t.request('POST', '/apis/crdh.example.com/v1/others', { body: { apiVersion: 'crdh.example.com/v1', kind: 'Thing', metadata: { name: 'o1' } } });
    await waitFor(async () => (events.includes('ADDED o1') ? true : undefined));
    await t.request('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/others.crdh.example.com');
    await ended;
    expect(events).toContain('DELETED o1');
  });

  it('defaults in the storage version when reading, before conversion, and not in the version read (kube-apiserver answers)', async () => {
    const schema = (props: Record<string, unknown>) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } } });
    const gadgets = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.crdnone.example.com' },
      spec: {
        group: 'crdnone.example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: schema({ a: { type: 'string' }, s: { type: 'string', default: 'stored-default' } }) },
          { name: 'v2', served: true, storage: false, schema: schema({ b: { type: 'string', default: 'v2-default' }, s: { type: 'string' } }) },
        ],
      },
    };
    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.crdnone.example.com';
    await createCrd(t, gadgets);
    const path = (v: string) => `/apis/crdnone.example.com/${v}/namespaces/default/gadgets`;
    const created = await t.request('POST', path('v1'), { body: { apiVersion: 'crdnone.example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { a: 'x' } } });
    expect(created.json.spec).toEqual({ a: 'x', s: 'stored-default' });
    // Read in v2: pruned to v2's schema; v2's own default is not applied on read.
    expect((await t.request('GET', `${path('v2')}/g1`)).json.spec).toEqual({ s: 'stored-default' });
    // A default added to the storage version later shows on objects stored before it, in every version.
    const crd = (await t.request('GET', crdPath)).json;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.n = { type: 'integer', default: 7 };
    crd.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.n = { type: 'integer' };
    expect((await t.request('PUT', crdPath, { body: crd })).status).toBe(200);
    const v1 = await waitFor(async () => {
      const r = await t.request('GET', `${path('v1')}/g1`);
      return r.json.spec.n === 7 ? r.json.spec : undefined;
    });
    expect(v1).toEqual({ a: 'x', n: 7, s: 'stored-default' });
    expect((await t.request('GET', `${path('v2')}/g1`)).json.spec).toEqual({ n: 7, s: 'stored-default' });
    expect((await t.request('GET', path('v2'))).json.items[0].spec).toEqual({ n: 7, s: 'stored-default' });
    // v2 becomes the storage version: g1 stays stored in v1 and is served in v2 with v2's apiVersion.
    const again = (await t.request('GET', crdPath)).json;
    again.spec.versions[0].storage = false;
    again.spec.versions[1].storage = true;
    expect((await t.request('PUT', crdPath, { body: again })).status).toBe(200);
    // The new types serve once a write in v1 is stored in v2 (pruned of v1's own field).
    let i = 0;
    await waitFor(async () => {
      const r = await t.request('POST', path('v1'), { body: { apiVersion: 'crdnone.example.com/v1', kind: 'Gadget', metadata: { name: `probe-${i++}` }, spec: { a: 'y' } } });
      return r.status === 201 && r.json.spec.a === undefined ? true : undefined;
    });
    const v2 = await t.request('GET', `${path('v2')}/g1`);
    expect(v2.json.apiVersion).toBe('crdnone.example.com/v2');
    expect(v2.json.spec).toEqual({ n: 7, s: 'stored-default' });
  });
});
