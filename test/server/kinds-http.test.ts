/**
 * Built-in kinds over HTTP: events served in two groups from one storage, leases, service
 * accounts, and the Event field selectors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tls from 'node:tls';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('events in two groups', () => {
  it('serves a core/v1 Event as events.k8s.io/v1 and back', async () => {
    const core = await t.request('POST', '/api/v1/namespaces/default/events', {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'ev1' },
        involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'cfg', apiVersion: 'v1' },
        reason: 'Tested',
        message: 'hello',
        type: 'Normal',
        source: { component: 'tester' },
        count: 1,
      },
    });
    expect(core.status).toBe(201);
    const v1 = await t.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events/ev1');
    expect(v1.status).toBe(200);
    expect(v1.json).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', regarding: { name: 'cfg' }, note: 'hello', reason: 'Tested' });
    const list = await t.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events');
    expect(list.json.kind).toBe('EventList');
    expect(list.json.items[0].note).toBe('hello');
    const byField = await t.request('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dcfg,reason%3DTested');
    expect(byField.json.items.map((i: any) => i.metadata.name)).toEqual(['ev1']);
    const none = await t.request('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dother');
    expect(none.json.items).toEqual([]);
  });

  it('validates events.k8s.io/v1 creates', async () => {
    const r = await t.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev2' }, note: 'x' },
    });
    expect(r.status).toBe(422);
    // kube's core event registry serves events.k8s.io too: its errors name the core Event and fields.
    expect(r.json.message).toBe(
      'Event "ev2" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: ]',
    );
    expect(r.json.details.kind).toBe('Event');
    expect(r.json.details.group ?? '').toBe('');
  });
});

describe('leases and service accounts', () => {
  it('a ServiceAccount DELETE answers with the deleted object (ReturnDeletedObject)', async () => {
    const c = await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'sa-del' } } });
    const r = await t.request('DELETE', '/api/v1/namespaces/default/serviceaccounts/sa-del');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'sa-del', uid: c.json.metadata.uid } });
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThan(Number(c.json.metadata.resourceVersion));
  });

  it('stores a Lease and renders its holder column', async () => {
    const r = await t.request('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'node-a' }, spec: { holderIdentity: 'node-a', leaseDurationSeconds: 40 } },
    });
    expect(r.status).toBe(201);
    const table = await t.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    expect(table.json.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Holder', 'Age']);
    expect(table.json.rows[0].cells.slice(0, 2)).toEqual(['node-a', 'node-a']);
    // Descriptions are kube's Go docs of the printed fields, verbatim.
    expect(table.json.columnDefinitions[1].description).toBe(
      'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
    );
    expect(table.json.columnDefinitions[2].description).toMatch(/It is represented in RFC3339 form and is in UTC\.\n\nPopulated by the system\. Read-only\. Null for lists\./);
  });

  it('stores a ServiceAccount', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'robot' }, automountServiceAccountToken: false } });
    expect(r.status).toBe(201);
    expect(r.json.automountServiceAccountToken).toBe(false);
  });
});

describe('a slow client', () => {
  it('does not block other requests while it sends half a request', async () => {
    const url = new URL(t.server.url);
    const slow = tls.connect({ host: url.hostname, port: Number(url.port), ca: t.server.caCert, ALPNProtocols: ['http/1.1'] });
    await new Promise((r) => slow.once('secureConnect', r));
    slow.write('POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"meta');
    const results = await Promise.all([0, 1, 2, 3, 4].map(() => t.request('GET', '/api/v1/namespaces/default')));
    expect(results.every((r) => r.status === 200)).toBe(true);
    slow.destroy();
    expect((await t.request('GET', '/readyz')).status).toBe(200);
  });
});
