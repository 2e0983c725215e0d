/**
 * kube's generic store ignores an update whose only remaining change, after the strategy, is in
 * managedFields timestamps (IgnoreManagedFieldsTimestampsTransformer): nothing is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('updates the strategy turns into no-ops', () => {
  it('a namespace spec change through the main resource, a second later, writes nothing', async () => {
    const made = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'noop-ts' }, spec: { finalizers: ['kubernetes'] } } });
    expect(made.status).toBe(201);
    // Past the second of the create, so a re-stamped managedFields time would differ.
    await new Promise((r) => setTimeout(r, 1100));
    const patched = await t.request('PATCH', '/api/v1/namespaces/noop-ts', {
      body: { spec: { finalizers: ['kubernetes', 'example.com/x'] }, status: { phase: 'Terminating' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.spec.finalizers).toEqual(['kubernetes']);
    expect(patched.json.metadata.resourceVersion).toBe(made.json.metadata.resourceVersion);
    expect(patched.json.metadata.managedFields).toEqual(made.json.metadata.managedFields);
  });

  it('a real change still stamps the entry it changes', async () => {
    const made = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'noop-ts' }, data: { a: '1' } } });
    await new Promise((r) => setTimeout(r, 1100));
    const patched = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/noop-ts', { body: { data: { a: '2' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.json.metadata.resourceVersion).not.toBe(made.json.metadata.resourceVersion);
    expect(patched.json.metadata.managedFields[0].time).not.toBe(made.json.metadata.managedFields[0].time);
  });
});
