/**
 * Zero values as kube writes them (checked against kube-apiserver v1.32.4): empty omitempty lists
 * and maps left out, non-omitempty lists null, struct times null, omitempty strings left out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goWire, goWireForm } from '../../src/codec/go-zero.ts';
import type { Schema } from '../../src/schema/types.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

describe('goWireForm', () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      a: { type: 'string' },
      always: goWire.always({ type: 'array', items: { type: 'string' } }),
      opt: { type: 'array', items: { type: 'string' } },
      map: { type: 'object', additionalProperties: { type: 'string' } },
      t: goWire.always({ type: 'string', format: 'date-time' }),
      s: goWire.omitZero({ type: 'string' }),
      z: { type: 'string' },
    },
  };

  it('renders zero values per field and keeps Go field order for added ones', () => {
    const obj = { a: 'x', always: [], opt: [], map: {}, s: '', z: '' };
    const out = goWireForm(obj, schema);
    expect(JSON.stringify(out)).toBe('{"a":"x","always":null,"t":null,"z":""}');
    // The input is not changed; a rendering of a rendering is the same.
    expect(obj.opt).toEqual([]);
    expect(goWireForm(out, schema)).toBe(out);
  });

  it('returns the same object when nothing changes', () => {
    const obj = { a: 'x', always: ['v'], t: '2024-01-01T00:00:00Z', s: 'y' };
    expect(goWireForm(obj, schema)).toBe(obj);
  });
});

describe('zero values over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('writes Events, Roles and ServiceAccounts as kube does', async () => {
    const ev = await t.request('POST', '/api/v1/namespaces/default/events', {
      body: { metadata: { name: 'ev1' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', message: 'm' },
    });
    expect(ev.status).toBe(201);
    const { metadata: _m, ...core } = ev.json;
    expect(JSON.stringify(core)).toBe(
      '{"kind":"Event","apiVersion":"v1","involvedObject":{"kind":"Pod","name":"p"},"reason":"R","message":"m","source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,"reportingComponent":"","reportingInstance":""}',
    );
    const v1 = await t.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events/ev1');
    const { metadata: _m2, ...events } = v1.json;
    expect(JSON.stringify(events)).toBe(
      '{"kind":"Event","apiVersion":"events.k8s.io/v1","eventTime":null,"reason":"R","regarding":{"kind":"Pod","name":"p"},"note":"m","deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}',
    );
    const role = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { body: { metadata: { name: 'r' }, rules: [] } });
    expect(role.json.rules).toBeNull();
    const bare = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { body: { metadata: { name: 'r2' } } });
    expect(bare.text).toContain('"rules":null');
    const cr = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: { metadata: { name: 'zero-cr' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }] },
    });
    expect(cr.json.rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    const sa = await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'sa0' }, secrets: [], imagePullSecrets: [] } });
    expect(sa.json.secrets).toBeUndefined();
    expect(sa.json.imagePullSecrets).toBeUndefined();
    // Decoded as Go decodes it, the empty lists were never set: nobody manages them.
    expect(sa.json.metadata.managedFields).toBeUndefined();
    expect(role.json.metadata.managedFields[0].fieldsV1).toEqual({ 'f:rules': {} });
    // Lists read the same rendering.
    const list = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles');
    expect(list.json.items.map((i: any) => i.rules)).toEqual([null, null]);
  });
});
