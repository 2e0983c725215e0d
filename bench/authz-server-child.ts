/**
 * The server side of the authorization HTTP benchmark, in its own process: a server with RBAC
 * (the default mode, kube's default policy reconciled), a static token file with two users whose
 * authentication costs the same: `bench-masters` in system:masters (allowed before any mode is
 * asked) and `bench-rbac`, allowed to get the ConfigMap by a RoleBinding.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../src/server/api-server.ts';
import { adminPost, benchServerConfig, serveParent } from './lib/server-child.ts';

const dir = await mkdtemp(join(tmpdir(), 'kgw-bench-authz-'));
await writeFile(join(dir, 'tokens.csv'), 'masters-token,bench-masters,1,"system:masters"\nrbac-token,bench-rbac,2,"bench-readers"\n');
const server = await startApiServer({
  config: benchServerConfig(join(dir, 'data'), { anonymousAuth: false, tokenAuthFile: join(dir, 'tokens.csv') }),
});
// Measured on a settled server: the bootstrap (system namespaces, default RBAC policy, APF configuration) in place.
await server.waitForPostStartHooks();
const post = adminPost(server);
await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'bench' }, data: { k: 'v' } });
await post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'cm-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] });
await post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
  metadata: { name: 'cm-readers' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'bench-readers' }],
});
serveParent(server);
