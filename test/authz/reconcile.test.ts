/**
 * `kubectl auth reconcile -f` against kube-gateway: as an administrator (create, then an update
 * adding the missing rule), and as a restricted user, whose escalation is refused with the output
 * kube-apiserver v1.32.4 gives for the same file and policy (captured from the reference).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, writeTemp, type TestServer } from '../server/harness.ts';
import { renderKubeconfig } from '../../src/server/kubeconfig.ts';

let t: TestServer;
let dir: string;

const roleAndBinding = (verbs: string) => `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: rec-role
  namespace: rec
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ${verbs}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: rec-binding
  namespace: rec
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: rec-role
subjects:
- kind: User
  name: someone
  apiGroup: rbac.authorization.k8s.io
`;
const clusterRole = `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: rec-cr
rules:
- nonResourceURLs: ["/x"]
  verbs: ["get"]
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-reconcile-'));
  await writeFile(join(dir, 'tokens.csv'), 'tok-u1,u1,1\n');
  t = await startTestServer({ config: { tokenAuthFile: join(dir, 'tokens.csv') } });
  const admin = async (path: string, body: unknown) => {
    const r = await t.request('POST', path, { body });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.json)}`);
  };
  await admin('/api/v1/namespaces', { metadata: { name: 'rec' } });
  await admin('/api/v1/namespaces', { metadata: { name: 'rec2' } });
  for (const ns of ['rec', 'rec2']) {
    await admin(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, { metadata: { name: 'lim' }, rules: [{ verbs: ['create', 'get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'] }] });
  }
  await admin('/apis/rbac.authorization.k8s.io/v1/namespaces/rec2/rolebindings', {
    metadata: { name: 'u1-lim' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'lim' },
    subjects: [{ kind: 'User', name: 'u1' }],
  });
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('kubectl auth reconcile', () => {
  it('creates, then adds missing rules, as against kube-apiserver', async () => {
    const file = await writeTemp(dir, 'rec.yaml', roleAndBinding('["get", "list"]') + clusterRole);
    const first = await t.kubectl(['auth', 'reconcile', '-f', file]);
    expect(first.code, first.stderr).toBe(0);
    // kubectl prints the objects on stdout and what reconciliation did on stderr.
    expect(first.stdout).toBe('role.rbac.authorization.k8s.io/rec-role reconciled\nrolebinding.rbac.authorization.k8s.io/rec-binding reconciled\nclusterrole.rbac.authorization.k8s.io/rec-cr reconciled\n');
    expect(first.stderr).toBe(
      [
        '\treconciliation required create',
        '\tmissing rules added:',
        '\t\t{Verbs:[get list] APIGroups:[] Resources:[configmaps] ResourceNames:[] NonResourceURLs:[]}',
        '\treconciliation required create',
        '\tmissing subjects added:',
        '\t\t{Kind:User APIGroup:rbac.authorization.k8s.io Name:someone Namespace:}',
        '\treconciliation required create',
        '\tmissing rules added:',
        '\t\t{Verbs:[get] APIGroups:[] Resources:[] ResourceNames:[] NonResourceURLs:[/x]}',
        '',
      ].join('\n'),
    );
    const file2 = await writeTemp(dir, 'rec2.yaml', roleAndBinding('["get", "list", "watch"]') + clusterRole);
    const second = await t.kubectl(['auth', 'reconcile', '-f', file2]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('role.rbac.authorization.k8s.io/rec-role reconciled\nrolebinding.rbac.authorization.k8s.io/rec-binding reconciled\nclusterrole.rbac.authorization.k8s.io/rec-cr reconciled\n');
    expect(second.stderr).toBe('\treconciliation required update\n\tmissing rules added:\n\t\t{Verbs:[watch] APIGroups:[] Resources:[configmaps] ResourceNames:[] NonResourceURLs:[]}\n');
  });

  it('is refused for a restricted user with kube\'s escalation message', async () => {
    const cfg = await writeTemp(t.dataDir, 'u1.kubeconfig', renderKubeconfig({ server: t.server.url, caPem: t.server.caCert, token: 'tok-u1' }));
    const file = await writeTemp(dir, 'rec-u1.yaml', roleAndBinding('["get", "list", "watch"]').replaceAll('namespace: rec\n', 'namespace: rec2\n'));
    let r = await t.kubectl(['--kubeconfig', cfg, 'auth', 'reconcile', '-f', file]);
    for (let i = 0; i < 50 && r.stderr.includes('cannot get resource'); i++) {
      await new Promise((res) => setTimeout(res, 50)); // the RBAC index has not seen u1's binding yet
      r = await t.kubectl(['--kubeconfig', cfg, 'auth', 'reconcile', '-f', file]);
    }
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "rec-role" is forbidden: user "u1" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list" "watch"]}\n' +
        // The binding's role was not created: kube reads it through the binding's storage.
        'Error from server (NotFound): rolebindings.rbac.authorization.k8s.io "rec-role" not found\n',
    );
  });
});
