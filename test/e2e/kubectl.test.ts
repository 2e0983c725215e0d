/**
 * End to end with the real kubectl (v1.32 on PATH) against a server the test starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { startTestServer, writeTemp, type TestServer } from '../server/harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const ns = 'e2e';

async function k(args: string[], input?: string) {
  const r = await t.kubectl(args, { input });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

const manifest = (value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: ${ns}
  labels:
    app: demo
data:
  mode: ${value}
`;

describe('kubectl v1.32', () => {
  it('creates a namespace', async () => {
    expect(await k(['create', 'namespace', ns])).toContain(`namespace/${ns} created`);
  });

  it('applies a manifest, then re-applies a change', async () => {
    const file = await writeTemp(t.dataDir, 'cm.yaml', manifest('one'));
    expect(await k(['apply', '-f', file])).toContain('configmap/app-config created');
    await writeTemp(t.dataDir, 'cm.yaml', manifest('two'));
    expect(await k(['apply', '-f', file])).toContain('configmap/app-config configured');
    const obj = JSON.parse(await k(['get', 'configmap', 'app-config', '-n', ns, '-o', 'json']));
    expect(obj.data.mode).toBe('two');
    expect(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"two"');
    expect(await k(['apply', '-f', file])).toContain('configmap/app-config unchanged');
  });

  it('gets as yaml, json and wide', async () => {
    const yaml = await k(['get', 'cm', 'app-config', '-n', ns, '-o', 'yaml']);
    expect(yaml).toContain('mode: two');
    expect(yaml).toContain('kind: ConfigMap');
    const list = JSON.parse(await k(['get', 'cm', '-n', ns, '-o', 'json']));
    expect(list.kind).toBe('List');
    expect(list.items.map((i: any) => i.metadata.name)).toContain('app-config');
    const wide = await k(['get', 'cm', '-n', ns, '-o', 'wide']);
    expect(wide.split('\n')[0]).toMatch(/^NAME\s+DATA\s+AGE/);
    expect(wide).toMatch(/app-config\s+1\s+\d+s/);
    const plain = await k(['get', 'namespaces']);
    expect(plain.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+AGE/);
    expect(plain).toMatch(/default\s+Active/);
  });

  it('prints the same columns as against kube-apiserver for events and RBAC bindings', async () => {
    const ev = await t.request('POST', `/api/v1/namespaces/${ns}/events`, {
      body: { metadata: { name: 'ev1' }, involvedObject: { kind: 'ConfigMap', name: 'app-config', namespace: ns }, reason: 'Checked', message: 'fine', type: 'Normal', count: 1 },
    });
    expect(ev.status).toBe(201);
    const events = await k(['get', 'events', '-n', ns]);
    expect(events.split('\n')[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    expect(events).toMatch(/Normal\s+Checked\s+configmap\/app-config\s+fine/);
    await k(['create', 'rolebinding', 'rb', '-n', ns, '--clusterrole=view', '--user=bob', '--serviceaccount=e2e:robot']);
    const wide = await k(['get', 'rolebindings', '-n', ns, '-o', 'wide']);
    expect(wide.split('\n')[0]).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/);
    expect(wide).toMatch(/rb\s+ClusterRole\/view\s+\S+\s+bob\s+e2e\/robot/);
  });

  it('lists api-resources and api-versions', async () => {
    const res = await k(['api-resources']);
    expect(res).toMatch(/configmaps\s+cm\s+v1\s+true\s+ConfigMap/);
    expect(res).toMatch(/leases\s+coordination.k8s.io\/v1\s+true\s+Lease/);
    expect(res).toMatch(/clusterroles\s+rbac.authorization.k8s.io\/v1\s+false\s+ClusterRole/);
    const versions = await k(['api-versions']);
    expect(versions.split('\n')).toEqual(expect.arrayContaining(['v1', 'coordination.k8s.io/v1', 'rbac.authorization.k8s.io/v1', 'events.k8s.io/v1']));
  });

  it('explains fields from the OpenAPI documents', async () => {
    const out = await k(['explain', 'configmap.data']);
    expect(out).toContain('KIND:');
    expect(out).toContain('ConfigMap');
    expect(out).toMatch(/FIELD:\s+data/);
  });

  it('labels, annotates and patches with each patch type', async () => {
    await k(['label', 'cm', 'app-config', '-n', ns, 'tier=backend']);
    await k(['annotate', 'cm', 'app-config', '-n', ns, 'note=hello']);
    await k(['patch', 'cm', 'app-config', '-n', ns, '--type=merge', '-p', '{"data":{"merge":"yes"}}']);
    await k(['patch', 'cm', 'app-config', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/data/json","value":"yes"}]']);
    await k(['patch', 'cm', 'app-config', '-n', ns, '--type=strategic', '-p', '{"data":{"smp":"yes"}}']);
    const obj = JSON.parse(await k(['get', 'cm', 'app-config', '-n', ns, '-o', 'json']));
    expect(obj.metadata.labels.tier).toBe('backend');
    expect(obj.metadata.annotations.note).toBe('hello');
    expect(obj.data).toMatchObject({ merge: 'yes', json: 'yes', smp: 'yes' });
  });

  it('replaces an object', async () => {
    const obj = JSON.parse(await k(['get', 'cm', 'app-config', '-n', ns, '-o', 'json']));
    obj.data = { replaced: 'true' };
    const file = await writeTemp(t.dataDir, 'replace.json', JSON.stringify(obj));
    expect(await k(['replace', '-f', file])).toContain('configmap/app-config replaced');
    const after = JSON.parse(await k(['get', 'cm', 'app-config', '-n', ns, '-o', 'json']));
    expect(after.data).toEqual({ replaced: 'true' });
  });

  it('creates secrets and configmaps from literals', async () => {
    expect(await k(['create', 'secret', 'generic', 'creds', '-n', ns, '--from-literal=user=admin'])).toContain('secret/creds created');
    const s = JSON.parse(await k(['get', 'secret', 'creds', '-n', ns, '-o', 'json']));
    expect(Buffer.from(s.data.user, 'base64').toString()).toBe('admin');
    expect(await k(['create', 'configmap', 'lit', '-n', ns, '--from-literal=a=b'])).toContain('configmap/lit created');
    const secrets = await k(['get', 'secrets', '-n', ns]);
    expect(secrets.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE/);
    expect(secrets).toMatch(/creds\s+Opaque\s+1/);
  });

  it('diffs and applies with server-side dry run', async () => {
    const file = await writeTemp(t.dataDir, 'lit.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lit\n  namespace: ${ns}\ndata:\n  a: changed\n`);
    const d = await t.kubectl(['diff', '-f', file]);
    expect(d.code).toBe(1);
    expect(d.stdout).toContain('changed');
    expect(await k(['apply', '--dry-run=server', '-f', file])).toContain('(server dry run)');
    const obj = JSON.parse(await k(['get', 'cm', 'lit', '-n', ns, '-o', 'json']));
    expect(obj.data.a).toBe('b');
  });

  it('pages with --chunk-size=2 over 10 objects', async () => {
    await k(['create', 'namespace', 'chunks']);
    for (let i = 0; i < 10; i++) await k(['create', 'configmap', `c${i}`, '-n', 'chunks', `--from-literal=i=${i}`]);
    const out = await k(['get', 'cm', '-n', 'chunks', '--chunk-size=2', '-o', 'name']);
    const names = out.trim().split('\n').filter((l) => l.startsWith('configmap/c'));
    expect(names).toHaveLength(10);
    const verbose = await t.kubectl(['get', 'cm', '-n', 'chunks', '--chunk-size=2', '-v=6']);
    expect((verbose.stderr.match(/limit=2/g) ?? []).length).toBeGreaterThanOrEqual(5);
  });

  it('watches with get -w and sees ADDED, MODIFIED, DELETED', async () => {
    const child = spawn('kubectl', ['--kubeconfig', t.server.kubeconfigPath, 'get', 'cm', '-n', ns, '-w', '--output-watch-events', '-l', 'watch=me'], {
      env: { ...process.env, HOME: t.dataDir },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c.toString()));
    child.stderr.on('data', (c) => (out += c.toString()));
    const waitFor = async (re: RegExp) => {
      for (let i = 0; i < 100 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 100));
      return re.test(out);
    };
    await new Promise((r) => setTimeout(r, 1000));
    await k(['create', 'configmap', 'watched', '-n', ns, '--from-literal=a=1']);
    await k(['label', 'cm', 'watched', '-n', ns, 'watch=me']);
    expect(await waitFor(/ADDED\s+watched/)).toBe(true);
    await k(['annotate', 'cm', 'watched', '-n', ns, 'x=y']);
    expect(await waitFor(/MODIFIED\s+watched/)).toBe(true);
    await k(['delete', 'cm', 'watched', '-n', ns]);
    expect(await waitFor(/DELETED\s+watched/)).toBe(true);
    child.kill();
  });

  it('deletes an object and a namespace with content', async () => {
    expect(await k(['delete', 'cm', 'lit', '-n', ns])).toContain('configmap "lit" deleted');
    const missing = await t.kubectl(['get', 'cm', 'lit', '-n', ns]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('Error from server (NotFound): configmaps "lit" not found');
    expect(await k(['delete', 'namespace', 'chunks'])).toContain('namespace "chunks" deleted');
    const gone = await t.kubectl(['get', 'namespace', 'chunks']);
    expect(gone.stderr).toContain('NotFound');
  });

  it('prints kube-style errors for invalid objects', async () => {
    const r = await t.kubectl(['create', 'configmap', 'Bad_Name', '-n', ns]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain');
    const file = await writeTemp(t.dataDir, 'bad.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n  namespace: ${ns}\n`);
    const applied = await t.kubectl(['apply', '-f', file]);
    expect(applied.code).not.toBe(0);
    expect(applied.stderr).toContain('The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"');
  });

  it('reads raw health', async () => {
    const out = await k(['get', '--raw', '/readyz?verbose']);
    expect(out).toContain('[+]etcd ok');
    expect(out).toContain('readyz check passed');
  });
});
