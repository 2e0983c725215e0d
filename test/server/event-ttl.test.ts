/**
 * Events expire --event-ttl after their last write, as kube-apiserver's etcd lease makes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';
import { lastWriteMs } from '../../src/controllers/event-ttl.ts';

let t: TestServer;
const base = '/api/v1/namespaces/default/events';
beforeAll(async () => {
  t = await startTestServer({ config: { eventTtlMs: 2000 } });
});
afterAll(async () => {
  await t?.close();
});

const event = (name: string) => ({
  metadata: { name },
  involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
  reason: 'Test',
  message: name,
  type: 'Normal',
});

describe('event TTL', () => {
  it('takes the last write from the latest timestamp an event carries', () => {
    expect(
      lastWriteMs({
        metadata: { creationTimestamp: '2026-01-01T00:00:00Z', managedFields: [{ time: '2026-01-01T00:05:00Z' }] },
        lastTimestamp: '2026-01-01T00:03:00Z',
      }),
    ).toBe(Date.parse('2026-01-01T00:05:00Z'));
  });

  it('deletes an event once its TTL has passed, and keeps younger ones', async () => {
    expect((await t.request('POST', base, { body: event('old') })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await t.request('POST', base, { body: event('young') })).status).toBe(201);
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      gone = (await t.request('GET', `${base}/old`)).status === 404;
      if (!gone) await new Promise((r) => setTimeout(r, 50));
    }
    expect(gone).toBe(true);
    expect((await t.request('GET', `${base}/young`)).status).toBe(200);
    // ConfigMaps are not events: they never expire.
    expect((await t.request('GET', '/api/v1/namespaces/default')).status).toBe(200);
  });
});
