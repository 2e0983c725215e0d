import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { startApiServer } from '../../src/server/api-server.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-adm-plugins-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function admissionConfig(name: string, plugins: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n${plugins}`);
  return p;
}

const event = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
  reason: 'Test',
  message: 'hello',
});

describe('EventRateLimit', () => {
  it('refuses core events beyond the namespace burst with 429, not dry runs; its configuration comes from a file by path', async () => {
    await writeFile(join(dir, 'erl.yaml'), 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Namespace\n  qps: 0.001\n  burst: 2\n');
    const cfg = await admissionConfig('erl-adm.yaml', '- name: EventRateLimit\n  path: erl.yaml\n');
    const ts = await startTestServer({ config: { enableAdmissionPlugins: ['EventRateLimit'], admissionControlConfigFile: cfg } });
    try {
      const post = (n: string, q = '') => ts.request('POST', `/api/v1/namespaces/default/events${q}`, { body: event(n) });
      expect((await post('e1')).status).toBe(201);
      expect((await post('e2')).status).toBe(201);
      const third = await post('e3');
      expect(third.status).toBe(429);
      expect(third.json).toMatchObject({ reason: 'TooManyRequests', code: 429, message: 'Too many requests: limit reached on type Namespace for key default' });
      expect((await post('e4', '?dryRun=All')).status).toBe(201);
      // Other namespaces have their own bucket.
      const other = await ts.request('POST', '/api/v1/namespaces/kube-public/events', { body: { ...event('e5'), involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'kube-public' } } });
      expect(other.status).toBe(201);
    } finally {
      await ts.close();
    }
  });

  it('without a valid configuration the server does not start', async () => {
    const bad = await admissionConfig('erl-bad.yaml', '- name: EventRateLimit\n  configuration:\n    apiVersion: eventratelimit.admission.k8s.io/v1alpha1\n    kind: Configuration\n    limits:\n    - type: Galaxy\n      qps: 0\n      burst: 1\n');
    const dataDir = await mkdtemp(join(tmpdir(), 'kgw-erl-'));
    try {
      await expect(
        startApiServer({
          config: { securePort: 0, bindAddress: '127.0.0.1', etcdServers: [], shutdownDelayMs: 0, anonymousAuth: true, dataDir, storageBackend: 'memory', historyMs: 60_000, enableAdmissionPlugins: ['EventRateLimit'], admissionControlConfigFile: bad },
          store: new MemoryStore({ historyMs: false }),
        }),
      ).rejects.toThrow(/limits\[0\]\.type: Unsupported value: "Galaxy".*limits\[0\]\.qps: Invalid value: 0: must be positive/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('OwnerReferencesPermissionEnforcement', () => {
  let ts: TestServer;
  const asBob = { anonymous: true, headers: { authorization: 'Bearer token-bob' } };
  beforeAll(async () => {
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, 'token-bob,bob,uid-bob,"devs"\n');
    ts = await startTestServer({ config: { tokenAuthFile: tokens, enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'] } });
    await ts.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cm-writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update', 'patch'] }] },
    });
    await ts.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'bob' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-writer' }, subjects: [{ kind: 'User', name: 'bob' }] },
    });
    for (const name of ['owner', 'owner2']) {
      const o = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
      uids[name] = o.json.metadata.uid;
    }
  });
  // Real owners: the garbage collector removes dependents whose owner does not exist.
  const uids: Record<string, string> = {};
  afterAll(async () => {
    await ts?.close();
  });

  const ref = (name: string, block?: boolean) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid: uids[name], ...(block !== undefined ? { blockOwnerDeletion: block } : {}) });

  it('creating with owner references needs no delete permission; changing them does', async () => {
    const create = async () => ts.request('POST', '/api/v1/namespaces/default/configmaps', { ...asBob, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dep', ownerReferences: [ref('owner')] } } });
    let res = await create();
    for (let i = 0; i < 100 && res.status === 403 && !res.json.message.includes('ownerRef'); i++) {
      await new Promise((r) => setTimeout(r, 20));
      res = await create();
    }
    expect(res.status, res.text).toBe(201);
    const patch = await ts.request('PATCH', '/api/v1/namespaces/default/configmaps/dep', {
      ...asBob,
      headers: { ...asBob.headers, 'content-type': 'application/merge-patch+json' },
      body: { metadata: { ownerReferences: [ref('owner2')] } },
    });
    expect(patch.status).toBe(403);
    expect(patch.json.message).toMatch(/^configmaps "dep" is forbidden: cannot set an ownerRef on a resource you can't delete: .*, <nil>$/);
    // An update that leaves them alone is fine.
    const data = await ts.request('PATCH', '/api/v1/namespaces/default/configmaps/dep', { ...asBob, headers: { ...asBob.headers, 'content-type': 'application/merge-patch+json' }, body: { data: { a: 'b' } } });
    expect(data.status).toBe(200);
  });

  it('blockOwnerDeletion needs permission to update the owner finalizers; the admin has it', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'blocking', ownerReferences: [ref('owner', true)] } };
    const bob = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { ...asBob, body });
    expect(bob.status).toBe(403);
    expect(bob.json.message).toContain(`configmaps "blocking" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on`);
    expect((await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body })).status).toBe(201);
  });
});
