/** Values as Go decodes and re-encodes them: metav1.Time / MicroTime formats, and null for any field. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';
import { encodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../../src/codec/protobuf/index.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const lease = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec });

describe('MicroTime', () => {
  it('accepts exactly six fractional digits and stores the UTC instant', async () => {
    const r = await t.request('POST', leases, { body: lease('mt-ok', { holderIdentity: 'a', renewTime: '2024-01-02T04:04:05.123456+01:00', acquireTime: '2024-01-02T03:04:05,000001Z' }) });
    expect(r.status).toBe(201);
    expect(r.json.spec.renewTime).toBe('2024-01-02T03:04:05.123456Z');
    expect(r.json.spec.acquireTime).toBe('2024-01-02T03:04:05.000001Z');
    const g = await t.request('GET', `${leases}/mt-ok`);
    expect(g.json.spec.renewTime).toBe('2024-01-02T03:04:05.123456Z');
  });

  for (const [value, rest, elem] of [
    ['2024-01-02T03:04:05Z', 'Z', '.000000'],
    ['2024-01-02T03:04:05.123Z', '.123Z', '.000000'],
    ['2024-01-02T03:04:05.1234567Z', '7Z', 'Z07:00'],
  ] as const) {
    it(`refuses ${value} with 400 and Go's parse error`, async () => {
      const r = await t.request('POST', leases, { body: lease('mt-bad', { renewTime: value }) });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'BadRequest',
        code: 400,
        message: `Lease in version "v1" cannot be handled as a Lease: parsing time "${value}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "${rest}" as "${elem}"`,
      });
      expect((await t.request('GET', `${leases}/mt-bad`)).status).toBe(404);
    });
  }

  it('a merge patch with a bad MicroTime is 422 on the patch field', async () => {
    await t.request('POST', leases, { body: lease('mt-patch', { holderIdentity: 'a' }) });
    const r = await t.request('PATCH', `${leases}/mt-patch`, { body: { spec: { renewTime: '2024-01-02T03:04:05Z' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.details.causes).toEqual([
      expect.objectContaining({
        reason: 'FieldValueInvalid',
        field: 'patch',
        message: expect.stringContaining('parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'),
      }),
    ]);
  });
});

describe('Time', () => {
  it('drops fractional seconds and normalizes to UTC, as Go re-encodes metav1.Time', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/events', {
      body: {
        metadata: { name: 'ev-time' },
        involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
        reason: 'R',
        firstTimestamp: '2024-01-02T03:04:05.999Z',
        lastTimestamp: '2024-01-02T05:04:05+02:00',
        eventTime: '2024-01-02T03:04:05.123456Z',
        reportingComponent: 'c',
        reportingInstance: 'i',
        action: 'A',
      },
    });
    expect(r.status).toBe(201);
    expect(r.json.firstTimestamp).toBe('2024-01-02T03:04:05Z');
    expect(r.json.lastTimestamp).toBe('2024-01-02T03:04:05Z');
    expect(r.json.eventTime).toBe('2024-01-02T03:04:05.123456Z');
  });

  it('an unparsable Time is 400 with Go words', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/events', {
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev-bad' }, involvedObject: { name: 'x' }, firstTimestamp: '2024-02-30T00:00:00Z' },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('Event in version "v1" cannot be handled as a Event: parsing time "2024-02-30T00:00:00Z": day out of range');
  });
});

describe('null decodes to the zero value', () => {
  const v1Event = (name: string, extra: Record<string, unknown>) => ({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name },
    eventTime: '2024-01-02T03:04:05.000000Z',
    reportingController: 'example.com/c',
    reportingInstance: 'i',
    action: 'Act',
    reason: 'Why',
    type: 'Normal',
    regarding: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
    ...extra,
  });

  it('events.k8s.io/v1 Events with deprecatedFirstTimestamp/deprecatedLastTimestamp null are accepted (JSON)', async () => {
    const r = await t.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      body: v1Event('ev-null', { deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null, series: null, related: null, deprecatedSource: null }),
    });
    expect(r.status).toBe(201);
    expect(r.json.deprecatedFirstTimestamp ?? null).toBeNull();
    expect(r.json.eventTime).toBe('2024-01-02T03:04:05.000000Z');
  });

  it('the same Event in protobuf, as client-go sends a zero time, is accepted', async () => {
    const obj = v1Event('ev-null-pb', {});
    const r = await t.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      body: Buffer.from(encodeProtobufObject(obj)),
      headers: { 'content-type': PROTOBUF_MEDIA_TYPE },
    });
    expect(r.status).toBe(201);
  });

  it('null for any field of a built-in kind is accepted as absent', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'cm-null', labels: null, annotations: null, finalizers: null }, data: null, binaryData: null, immutable: null },
    });
    expect(r.status).toBe(201);
    expect(r.json.data).toBeUndefined();
    expect(r.json.metadata.labels).toBeUndefined();
    const role = await t.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      body: { metadata: { name: 'role-null' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: null, nonResourceURLs: null }] },
    });
    expect(role.status).toBe(201);
  });
});
