/** Namespace deletion as kube-apiserver does it: immortal namespaces, Terminating, the controller's conditions, finalize. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('immortal namespaces', () => {
  for (const name of ['default', 'kube-system', 'kube-public']) {
    it(`DELETE ${name} is 403 and the namespace stays`, async () => {
      const r = await t.request('DELETE', `/api/v1/namespaces/${name}`);
      expect(r.status).toBe(403);
      // details.group is empty for the core group (whether "" is sent is the Status encoder's business).
      expect(r.json).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        reason: 'Forbidden',
        details: { name, kind: 'namespaces' },
        code: 403,
      });
      const g = await t.request('GET', `/api/v1/namespaces/${name}`);
      expect(g.status).toBe(200);
      expect(g.json.metadata.deletionTimestamp).toBeUndefined();
      expect(g.json.status.phase).toBe('Active');
    });
  }

  it('a dry-run delete of default is refused the same way', async () => {
    const r = await t.request('DELETE', '/api/v1/namespaces/default?dryRun=All');
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });

  it('kube-node-lease can be deleted (only three namespaces are immortal)', async () => {
    const r = await t.request('DELETE', '/api/v1/namespaces/kube-node-lease');
    expect(r.status).toBe(200);
    expect(r.json.status.phase).toBe('Terminating');
  });
});

describe('namespace delete', () => {
  it('answers 200 with the Terminating namespace, a deletionTimestamp and no deletionGracePeriodSeconds', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'ns-del' }, spec: { finalizers: ['example.com/hold'] } } });
    const r = await t.request('DELETE', '/api/v1/namespaces/ns-del');
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('Namespace');
    expect(r.json.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(r.json.metadata).not.toHaveProperty('deletionGracePeriodSeconds');
    const again = await t.request('DELETE', '/api/v1/namespaces/ns-del');
    expect(again.status).toBe(200);
    expect(again.json.metadata).not.toHaveProperty('deletionGracePeriodSeconds');
  });
});
