import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enabledPluginNames } from '../../src/admission/chain.ts';
import '../../src/admission/plugins/index.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../../src/admission/types.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { startApiServer } from '../../src/server/api-server.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('enabled plugins', () => {
  it('are kube default-on ones this server implements, in kube order whatever the flag order', () => {
    const names = enabledPluginNames([], []);
    expect(names).toContain('NamespaceLifecycle');
    expect(names).not.toContain('AlwaysDeny');
    expect(enabledPluginNames(['AlwaysDeny', 'NamespaceExists', 'AlwaysAdmit'], ['NamespaceLifecycle']).slice(0, 2)).toEqual(['AlwaysAdmit', 'NamespaceExists']);
    expect(enabledPluginNames(['AlwaysDeny', 'AlwaysAdmit'], []).at(-1)).toBe('AlwaysDeny');
    expect(enabledPluginNames([], ['NamespaceLifecycle'])).not.toContain('NamespaceLifecycle');
  });

  it('refuses unknown, overlapping and unserved names with kube wording', () => {
    expect(() => enabledPluginNames(['Nope'], [])).toThrow('enable-admission-plugins plugin "Nope" is unknown');
    expect(() => enabledPluginNames([], ['Nope'])).toThrow('disable-admission-plugins plugin "Nope" is unknown');
    expect(() => enabledPluginNames(['AlwaysDeny'], ['AlwaysDeny'])).toThrow('[AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped');
    expect(() => enabledPluginNames(['LimitRanger'], [])).toThrow(/LimitRanger act only on kinds kube-gateway does not serve/);
    // Disabling a plugin that is not served is harmless.
    expect(enabledPluginNames([], ['LimitRanger'])).toContain('NamespaceLifecycle');
  });

  it('a server with an unserved plugin enabled does not start, with a clear message', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kgw-adm-'));
    try {
      await expect(
        startApiServer({
          config: { securePort: 0, bindAddress: '127.0.0.1', etcdServers: [], shutdownDelayMs: 0, anonymousAuth: true, dataDir, storageBackend: 'memory', historyMs: 60_000, enableAdmissionPlugins: ['PodSecurity'] },
          store: new MemoryStore({ historyMs: false }),
        }),
      ).rejects.toThrow(/PodSecurity act only on kinds kube-gateway does not serve/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/** Records every attribute set it sees; mutates config maps labelled `mutate: me` in the mutating phase. */
function recorder(): AdmissionPlugin & { seen: Array<{ phase: string; attrs: AdmissionAttributes; object: unknown }> } {
  const seen: Array<{ phase: string; attrs: AdmissionAttributes; object: unknown }> = [];
  return {
    name: 'Recorder',
    seen,
    handles: () => true,
    admit(a) {
      seen.push({ phase: 'admit', attrs: a, object: structuredClone(a.object) });
      if (a.object?.metadata?.labels?.mutate === 'me') {
        a.object.data = { ...(a.object.data as object), added: 'by-admission' };
        a.warnings.push('mutated by the recorder');
      }
    },
    validate(a) {
      seen.push({ phase: 'validate', attrs: a, object: structuredClone(a.object) });
      if (a.object?.metadata?.labels?.deny === 'me') throw new Error('must not be reached: schema check first');
    },
  };
}

describe('the chain on the write path', () => {
  let ts: TestServer;
  const rec = recorder();
  beforeAll(async () => {
    ts = await startTestServer({ extraAdmissionPlugins: [rec] });
  });
  afterAll(async () => {
    await ts.close();
  });
  const last = (phase: string) => [...rec.seen].reverse().find((s) => s.phase === phase)!;

  it('create: both phases, full attributes, the mutation is stored and its warning sent', async () => {
    rec.seen.length = 0;
    const res = await ts.request('POST', '/api/v1/namespaces/default/configmaps?fieldManager=me&fieldValidation=Strict', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { mutate: 'me' } }, data: { k: 'v' } },
    });
    expect(res.status).toBe(201);
    expect(res.json.data).toEqual({ k: 'v', added: 'by-admission' });
    expect(String(res.headers.warning)).toContain('mutated by the recorder');
    const a = last('admit').attrs;
    expect(a.operation).toBe('CREATE');
    expect(a.kind).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(a.resource).toEqual({ group: '', version: 'v1', resource: 'configmaps' });
    expect(a.namespace).toBe('default');
    expect(a.name).toBe('a');
    expect(a.oldObject).toBeNull();
    expect(a.options).toEqual({ kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'me', fieldValidation: 'Strict' });
    expect(a.userInfo.username).toBe('admin');
    expect(a.dryRun).toBe(false);
    expect((last('validate').object as { data: unknown }).data).toEqual({ k: 'v', added: 'by-admission' });
    const got = await ts.request('GET', '/api/v1/namespaces/default/configmaps/a');
    expect(got.json.data.added).toBe('by-admission');
  });

  it('the mutated object is validated by the schema again before the validating phase', async () => {
    rec.seen.length = 0;
    const bad: AdmissionPlugin = { name: 'Bad', handles: () => true, admit: (a) => void (a.object!.metadata!.name = 'Not_A_Name') };
    const other = await startTestServer({ extraAdmissionPlugins: [bad, rec] });
    try {
      const res = await other.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } } });
      expect(res.status).toBe(422);
      expect(res.json.message).toContain('Not_A_Name');
      expect(rec.seen.filter((s) => s.phase === 'validate')).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('update, patch, apply and status writes are UPDATE with the old object and UpdateOptions', async () => {
    await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u' }, data: { k: '1' } } });
    rec.seen.length = 0;
    const put = await ts.request('PUT', '/api/v1/namespaces/default/configmaps/u', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u' }, data: { k: '2' } } });
    expect(put.status).toBe(200);
    let a = last('validate').attrs;
    expect(a.operation).toBe('UPDATE');
    expect((a.oldObject as { data: unknown }).data).toEqual({ k: '1' });
    expect((a.object as { data: unknown }).data).toEqual({ k: '2' });
    expect(a.options).toEqual({ kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });

    rec.seen.length = 0;
    const patch = await ts.request('PATCH', '/api/v1/namespaces/default/configmaps/u?dryRun=All', {
      body: { data: { k: '3' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patch.status).toBe(200);
    a = last('admit').attrs;
    expect(a.operation).toBe('UPDATE');
    expect(a.dryRun).toBe(true);
    expect((a.object as { data: unknown }).data).toEqual({ k: '3' });
    expect(a.options).toEqual({ kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });

    rec.seen.length = 0;
    const apply = await ts.request('PATCH', '/api/v1/namespaces/default/configmaps/applied?fieldManager=tool', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { x: 'y' } }),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(apply.status).toBe(201);
    a = last('admit').attrs;
    expect(a.operation).toBe('CREATE');
    expect(a.options).toMatchObject({ kind: 'CreateOptions', fieldManager: 'tool' });

    rec.seen.length = 0;
    const ns = await ts.request('GET', '/api/v1/namespaces/default');
    const status = await ts.request('PUT', '/api/v1/namespaces/default/status', { body: ns.json });
    expect(status.status).toBe(200);
    a = last('validate').attrs;
    expect(a.subresource).toBe('status');
    expect(a.kind.kind).toBe('Namespace');
    expect(a.namespace).toBe('');
  });

  it('delete and deletecollection: both phases per object, no object, the old one, DeleteOptions', async () => {
    rec.seen.length = 0;
    const del = await ts.request('DELETE', '/api/v1/namespaces/default/configmaps/u', { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    expect(del.status).toBe(200);
    for (const phase of ['admit', 'validate']) {
      const a = last(phase).attrs;
      expect(a.operation).toBe('DELETE');
      expect(a.object).toBeNull();
      expect(a.oldObject?.metadata?.name).toBe('u');
      expect(a.name).toBe('u');
      expect(a.options).toEqual({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' });
    }
    rec.seen.length = 0;
    const dc = await ts.request('DELETE', '/api/v1/namespaces/default/configmaps');
    expect(dc.status).toBe(200);
    const deletes = rec.seen.filter((s) => s.phase === 'validate');
    expect(deletes.map((s) => s.attrs.oldObject?.metadata?.name).sort()).toEqual(['a', 'applied', 'kube-root-ca.crt'].filter((n) => dc.json.items.some((i: { metadata: { name: string } }) => i.metadata.name === n)).sort());
    expect(deletes.every((s) => s.attrs.name === '' && s.attrs.operation === 'DELETE')).toBe(true);
  });

  it('the token subresource is admitted as a CREATE of serviceaccounts/token with the TokenRequest', async () => {
    await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } });
    rec.seen.length = 0;
    const res = await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['x'] } },
    });
    expect(res.status).toBe(201);
    const a = last('validate').attrs;
    expect(a.operation).toBe('CREATE');
    expect(a.resource).toEqual({ group: '', version: 'v1', resource: 'serviceaccounts' });
    expect(a.subresource).toBe('token');
    expect(a.kind).toEqual({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' });
    expect(a.name).toBe('robot');
    expect((a.object as { spec: { audiences: string[] } }).spec.audiences).toEqual(['x']);
  });

  it('reads pass no admission', async () => {
    rec.seen.length = 0;
    await ts.request('GET', '/api/v1/namespaces/default/configmaps');
    await ts.request('GET', '/api/v1/namespaces/default');
    expect(rec.seen).toHaveLength(0);
  });
});

describe('built-in plugins over HTTP', () => {
  it('AlwaysDeny refuses every write with kube wording; reads still work', async () => {
    const ts = await startTestServer({ config: { enableAdmissionPlugins: ['AlwaysDeny'] } });
    try {
      const res = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ reason: 'Forbidden', message: 'configmaps "x" is forbidden: admission control is denying all modifications' });
      expect((await ts.request('GET', '/api/v1/namespaces')).status).toBe(200);
    } finally {
      await ts.close();
    }
  });

  it('NamespaceLifecycle: creates in a missing namespace are 404 naming the namespace; immortal namespaces stay', async () => {
    const ts = await startTestServer();
    try {
      const res = await ts.request('POST', '/api/v1/namespaces/nowhere/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
      expect(res.status).toBe(404);
      expect(res.json.message).toBe('namespaces "nowhere" not found');
      const del = await ts.request('DELETE', '/api/v1/namespaces/kube-system');
      expect(del.status).toBe(403);
      expect(del.json.message).toBe('namespaces "kube-system" is forbidden: this namespace may not be deleted');
    } finally {
      await ts.close();
    }
  });

  it('NamespaceAutoProvision creates the missing namespace (not on dry run); NamespaceExists refuses', async () => {
    const ts = await startTestServer({ config: { enableAdmissionPlugins: ['NamespaceAutoProvision'] } });
    try {
      const dry = await ts.request('POST', '/api/v1/namespaces/auto/configmaps?dryRun=All', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
      expect(dry.status).toBe(404);
      expect((await ts.request('GET', '/api/v1/namespaces/auto')).status).toBe(404);
      const res = await ts.request('POST', '/api/v1/namespaces/auto/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
      expect(res.status).toBe(201);
      expect((await ts.request('GET', '/api/v1/namespaces/auto')).status).toBe(200);
    } finally {
      await ts.close();
    }
    const ex = await startTestServer({ config: { enableAdmissionPlugins: ['NamespaceExists'], disableAdmissionPlugins: ['NamespaceLifecycle'] } });
    try {
      const res = await ex.request('POST', '/api/v1/namespaces/absent/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
      expect(res.status).toBe(404);
      expect(res.json.message).toBe('namespaces "absent" not found');
    } finally {
      await ex.close();
    }
  });

  it('--admission-control-config-file must be an AdmissionConfiguration', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kgw-adm-'));
    const file = join(dataDir, 'adm.yaml');
    await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\n');
    try {
      await expect(
        startApiServer({
          config: { securePort: 0, bindAddress: '127.0.0.1', etcdServers: [], shutdownDelayMs: 0, anonymousAuth: true, dataDir, storageBackend: 'memory', historyMs: 60_000, admissionControlConfigFile: file },
          store: new MemoryStore({ historyMs: false }),
        }),
      ).rejects.toThrow(/expected kind AdmissionConfiguration/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
