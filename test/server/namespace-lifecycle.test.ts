/** Namespace deletion as kube-apiserver does it: immortal namespaces, Terminating, the controller's conditions, finalize. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  // The controller acts at once here; kube's own delays are tested below on a server of their own.
  t = await startTestServer({ namespaceControllerTiming: { graceMs: 0, remainingMs: 200, errorMs: 100 } });
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

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, tries = 100): Promise<T> {
  let v = await read();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 50));
    v = await read();
  }
  return v;
}

const conditionsOf = (ns: any): Record<string, { status: string; reason: string; message: string }> =>
  Object.fromEntries((ns.status?.conditions ?? []).map((c: any) => [c.type, { status: c.status, reason: c.reason, message: c.message }]));

describe('namespace controller conditions', () => {
  it('reports content held by finalizers, then removes the namespace once it is released', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'cond-held' } } });
    await t.request('POST', '/api/v1/namespaces/cond-held/configmaps', { body: { metadata: { name: 'stuck', finalizers: ['example.com/x'] }, data: {} } });
    await t.request('POST', '/api/v1/namespaces/cond-held/configmaps', { body: { metadata: { name: 'free' }, data: {} } });
    expect((await t.request('DELETE', '/api/v1/namespaces/cond-held')).status).toBe(200);
    const ns = await eventually(
      async () => (await t.request('GET', '/api/v1/namespaces/cond-held')).json,
      (n) => (n.status?.conditions ?? []).length === 5,
    );
    expect(ns.status.conditions.map((c: any) => c.type)).toEqual([
      'NamespaceDeletionDiscoveryFailure',
      'NamespaceDeletionGroupVersionParsingFailure',
      'NamespaceDeletionContentFailure',
      'NamespaceContentRemaining',
      'NamespaceFinalizersRemaining',
    ]);
    for (const c of ns.status.conditions) expect(c.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(conditionsOf(ns)).toEqual({
      NamespaceDeletionDiscoveryFailure: { status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
      NamespaceDeletionGroupVersionParsingFailure: { status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
      NamespaceDeletionContentFailure: { status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
      NamespaceContentRemaining: { status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances' },
      NamespaceFinalizersRemaining: {
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message: 'Some content in the namespace has finalizers remaining: example.com/x in 1 resource instances',
      },
    });
    expect(ns.spec.finalizers).toEqual(['kubernetes']);
    expect((await t.request('GET', '/api/v1/namespaces/cond-held/configmaps/free')).status).toBe(404);
    await t.request('PATCH', '/api/v1/namespaces/cond-held/configmaps/stuck', {
      body: { metadata: { finalizers: null } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    const gone = await eventually(async () => (await t.request('GET', '/api/v1/namespaces/cond-held')).status, (s) => s === 404);
    expect(gone).toBe(404);
  });

  it('an empty namespace held by its own finalizer shows every condition False', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'cond-empty' }, spec: { finalizers: ['example.com/hold'] } } });
    await t.request('DELETE', '/api/v1/namespaces/cond-empty');
    const ns = await eventually(
      async () => (await t.request('GET', '/api/v1/namespaces/cond-empty')).json,
      (n) => !n.spec.finalizers.includes('kubernetes'),
    );
    expect(ns.spec.finalizers).toEqual(['example.com/hold']);
    expect(Object.values(conditionsOf(ns)).map((c) => c.status)).toEqual(['False', 'False', 'False', 'False', 'False']);
    expect(conditionsOf(ns).NamespaceContentRemaining).toEqual({ status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' });
    expect(ns.status.phase).toBe('Terminating');
  });
});

describe('namespace subresources', () => {
  it('finalize validates finalizer names with indexed paths', async () => {
    const c = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'fin-bad' } } });
    const r = await t.request('PUT', '/api/v1/namespaces/fin-bad/finalize', {
      body: { ...c.json, spec: { finalizers: ['kubernetes', 'bogus'] } },
    });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      reason: 'Invalid',
      message: 'Namespace "fin-bad" is invalid: spec.finalizers[1]: Invalid value: "bogus": name is neither a standard finalizer name nor is it fully qualified',
      details: { name: 'fin-bad', kind: 'Namespace', causes: [{ reason: 'FieldValueInvalid', field: 'spec.finalizers[1]' }] },
    });
    const ok = await t.request('PUT', '/api/v1/namespaces/fin-bad/finalize', { body: { ...c.json, spec: { finalizers: ['kubernetes', 'example.com/x'] } } });
    expect(ok.status).toBe(200);
    expect(ok.json.spec.finalizers).toEqual(['kubernetes', 'example.com/x']);
  });

  it('a merge patch of /status applies metadata.annotations and labels, but never spec', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'st-meta' } } });
    const r = await t.request('PATCH', '/api/v1/namespaces/st-meta/status', {
      body: { metadata: { annotations: { note: 'x' }, labels: { team: 'a' } }, spec: { finalizers: [] } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(200);
    expect(r.json.metadata.annotations).toEqual({ note: 'x' });
    expect(r.json.metadata.labels).toEqual({ team: 'a', 'kubernetes.io/metadata.name': 'st-meta' });
    expect(r.json.spec.finalizers).toEqual(['kubernetes']);
    const g = await t.request('GET', '/api/v1/namespaces/st-meta');
    expect(g.json.metadata.annotations).toEqual({ note: 'x' });
  });

  it('a status write must keep the phase consistent with deletionTimestamp', async () => {
    const c = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'st-phase' } } });
    const r = await t.request('PUT', '/api/v1/namespaces/st-phase/status', { body: { ...c.json, status: { phase: 'Terminating' } } });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('Namespace "st-phase" is invalid: status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty');
  });
});

describe('terminating objects', () => {
  it('deletionGracePeriodSeconds cannot change once set', async () => {
    const base = '/api/v1/namespaces/default/configmaps';
    await t.request('POST', base, { body: { metadata: { name: 'term-grace', finalizers: ['example.com/x'] }, data: {} } });
    const del = await t.request('DELETE', `${base}/term-grace`);
    expect(del.json.metadata.deletionGracePeriodSeconds).toBe(0);
    const r = await t.request('PATCH', `${base}/term-grace`, {
      body: { metadata: { deletionGracePeriodSeconds: 30 } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('ConfigMap "term-grace" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable');
    const kept = await t.request('PATCH', `${base}/term-grace`, {
      body: { metadata: { labels: { a: 'b' } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(kept.status).toBe(200);
    expect(kept.json.metadata.deletionGracePeriodSeconds).toBe(0);
    await t.request('PATCH', `${base}/term-grace`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
  });
});

describe('namespace controller timing (kube-controller-manager defaults)', () => {
  it('a deleted namespace keeps its content for the grace period, then goes', async () => {
    const k = await startTestServer();
    try {
      await k.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'slow' } } });
      await k.request('POST', '/api/v1/namespaces/slow/configmaps', { body: { metadata: { name: 'c' } } });
      expect((await k.request('DELETE', '/api/v1/namespaces/slow')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      const ns = await k.request('GET', '/api/v1/namespaces/slow');
      expect(ns.status).toBe(200);
      expect(ns.json.status).toEqual({ phase: 'Terminating' });
      expect((await k.request('GET', '/api/v1/namespaces/slow/configmaps/c')).status).toBe(200);
      const gone = await eventually(async () => (await k.request('GET', '/api/v1/namespaces/slow')).status, (s) => s === 404, 200);
      expect(gone).toBe(404);
    } finally {
      await k.close();
    }
  });
});
