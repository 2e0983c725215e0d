/**
 * The server side of the authorization HTTP benchmark, in its own process: a server with RBAC
 * (the default mode, kube's default policy reconciled), a static token file with two users whose
 * authentication costs the same: `bench-masters` in system:masters (allowed before any mode is
 * asked) and `bench-rbac`, allowed to get the ConfigMap by a RoleBinding.
 */
import https from 'node:https';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../src/server/api-server.ts';

const dir = await mkdtemp(join(tmpdir(), 'kgw-bench-authz-'));
await writeFile(join(dir, 'tokens.csv'), 'masters-token,bench-masters,1,"system:masters"\nrbac-token,bench-rbac,2,"bench-readers"\n');
const server = await startApiServer({
  config: {
    securePort: 0,
    bindAddress: '127.0.0.1',
    etcdServers: [],
    shutdownDelayMs: 0,
    anonymousAuth: false,
    dataDir: join(dir, 'data'),
    storageBackend: 'memory',
    historyMs: 5 * 60_000,
    tokenAuthFile: join(dir, 'tokens.csv'),
  },
});
// Measured on a settled server: the bootstrap (default RBAC policy, APF configuration) in place.
await server.waitForPostStartHooks();

const admin = new https.Agent({ ca: server.caCert, cert: server.adminCert, key: server.adminKey });
const post = (path: string, body: unknown) =>
  new Promise<unknown>((resolve, reject) => {
    const req = https.request(`${server.url}${path}`, { method: 'POST', agent: admin, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'bench' }, data: { k: 'v' } });
await post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'cm-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] });
await post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
  metadata: { name: 'cm-readers' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'bench-readers' }],
});
process.send?.({ type: 'ready', url: server.url, ca: server.caCert });
process.on('message', (msg: { type: string }) => {
  if (msg.type === 'stop') void server.shutdown().then(() => process.exit(0));
  // The server's CPU time so far: on a shared machine, CPU per request is the figure load does not skew.
  if (msg.type === 'cpu') {
    const u = process.cpuUsage();
    process.send?.({ type: 'cpu', micros: u.user + u.system });
  }
});
