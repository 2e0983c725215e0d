/**
 * RBAC decisions as kube's RBACAuthorizer makes them, table-driven over an index built directly:
 * wildcards, subresources, resourceNames, non-resource URLs, subjects, cross-namespace bindings,
 * missing roles, and the index following updates and deletes.
 */
import { describe, expect, it } from 'vitest';
import { RbacIndex, bindingOf } from '../../src/authz/rbac/index.ts';
import { RbacAuthorizer } from '../../src/authz/rbac/authorizer.ts';
import { AuthorizerChain, alwaysAllow, alwaysDeny, isPromise, type Attributes, type Authorizer, type Decision } from '../../src/authz/authorizer.ts';

/** A decision of in-memory modes, which must never need to wait. */
function decide(a: Authorizer, at: Attributes): Decision {
  const d = a.authorize(at);
  if (isPromise(d)) throw new Error('an in-memory chain answered asynchronously');
  return d;
}
import { nonResourceURLMatches, resourceMatches, type PolicyRule } from '../../src/authz/rbac/rules.ts';

type Who = { username: string; groups?: string[] };
function attrs(who: Who, verb: string, spec: string, name = ''): Attributes {
  const user = { username: who.username, groups: who.groups ?? ['system:authenticated'], extra: {} };
  if (spec.startsWith('/')) return { user, verb, isResourceRequest: false, path: spec, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  // spec: "[ns:]group|resource[/sub]"
  const [nsPart, rest] = spec.includes(':') ? spec.split(':') : ['', spec];
  const [group, res] = rest!.split('|');
  const [resource, subresource = ''] = res!.split('/');
  return { user, verb, isResourceRequest: true, path: '', apiGroup: group!, apiVersion: 'v1', resource: resource!, subresource, namespace: nsPart!, name };
}

function clusterRole(name: string, rules: PolicyRule[]) {
  return { metadata: { name }, rules };
}

function crb(name: string, role: string, subjects: object[]) {
  return bindingOf('ClusterRoleBinding', { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects })!;
}
function rb(ns: string, name: string, kind: string, role: string, subjects: object[]) {
  return bindingOf('RoleBinding', { metadata: { name, namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role }, subjects })!;
}

function fixture(): RbacIndex {
  const ix = new RbacIndex();
  ix.setClusterRole('pod-reader', clusterRole('pod-reader', [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }]));
  ix.setClusterRole('all', clusterRole('all', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]));
  ix.setClusterRole('status-any', clusterRole('status-any', [{ verbs: ['get', 'update'], apiGroups: ['*'], resources: ['*/status'] }]));
  ix.setClusterRole('deploy-scale', clusterRole('deploy-scale', [{ verbs: ['patch'], apiGroups: ['apps'], resources: ['deployments/scale'] }]));
  ix.setClusterRole('named-cm', clusterRole('named-cm', [{ verbs: ['get', 'update', 'list', 'delete'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] }]));
  ix.setClusterRole('health', clusterRole('health', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/healthz/*', '/logs**'] }]));
  ix.setClusterRole('secrets-all-verbs', clusterRole('secrets-all-verbs', [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }]));
  ix.setClusterRole('any-group-leases', clusterRole('any-group-leases', [{ verbs: ['create'], apiGroups: ['*'], resources: ['leases'] }]));
  ix.setRole('ns1', 'cm-writer', { rules: [{ verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'], apiGroups: [''], resources: ['configmaps'] }] });
  ix.setBinding(crb('alice-pods', 'pod-reader', [{ kind: 'User', name: 'alice' }]));
  ix.setBinding(crb('root-all', 'all', [{ kind: 'User', name: 'root' }]));
  ix.setBinding(crb('ops-status', 'status-any', [{ kind: 'Group', name: 'ops' }]));
  ix.setBinding(crb('scalers', 'deploy-scale', [{ kind: 'Group', name: 'scalers' }]));
  ix.setBinding(crb('monitor-health', 'health', [{ kind: 'Group', name: 'monitors' }]));
  ix.setBinding(crb('sa-leases', 'any-group-leases', [{ kind: 'ServiceAccount', name: 'robot', namespace: 'kube-system' }]));
  // A ServiceAccount subject without a namespace in a cluster binding never matches.
  ix.setBinding(crb('sa-no-ns', 'all', [{ kind: 'ServiceAccount', name: 'ghost' }]));
  ix.setBinding(crb('missing-role', 'does-not-exist', [{ kind: 'User', name: 'mallory' }]));
  ix.setBinding(rb('ns1', 'bob-cm', 'Role', 'cm-writer', [{ kind: 'User', name: 'bob' }]));
  ix.setBinding(rb('ns1', 'bob-named', 'ClusterRole', 'named-cm', [{ kind: 'User', name: 'bob' }]));
  ix.setBinding(rb('ns2', 'bob-secrets', 'ClusterRole', 'secrets-all-verbs', [{ kind: 'User', name: 'bob' }]));
  // A ServiceAccount without a namespace in a RoleBinding is one of the binding's namespace.
  ix.setBinding(rb('ns1', 'sa-local', 'ClusterRole', 'pod-reader', [{ kind: 'ServiceAccount', name: 'builder' }]));
  ix.setBinding(rb('ns1', 'missing-role', 'Role', 'nope', [{ kind: 'User', name: 'mallory' }]));
  ix.setBinding(rb('ns1', 'wrong-kind', 'Thing', 'x', [{ kind: 'User', name: 'trudy' }]));
  ix.setBinding(rb('ns3', 'cm-writer-elsewhere', 'Role', 'cm-writer', [{ kind: 'User', name: 'carol' }]));
  ix.setBinding(rb('ns3', 'unknown-subject-kind', 'ClusterRole', 'all', [{ kind: 'Robot', name: 'carol' }]));
  // More shapes: several subjects on one binding, groups of service accounts, verb and group wildcards
  // with resourceNames, a ClusterRole filled by aggregation (its rules as the aggregator writes them).
  ix.setClusterRole('multi', clusterRole('multi', [{ verbs: ['get', 'watch'], apiGroups: ['batch'], resources: ['jobs', 'cronjobs'] }]));
  ix.setBinding(rb('ns4', 'multi', 'ClusterRole', 'multi', [{ kind: 'User', name: 'dave' }, { kind: 'Group', name: 'batchers' }, { kind: 'ServiceAccount', name: 'cron', namespace: 'ns9' }]));
  ix.setClusterRole('sa-readers', clusterRole('sa-readers', [{ verbs: ['list'], apiGroups: [''], resources: ['serviceaccounts'] }]));
  ix.setBinding(crb('all-sas-in-ns5', 'sa-readers', [{ kind: 'Group', name: 'system:serviceaccounts:ns5' }]));
  ix.setClusterRole('star-named', clusterRole('star-named', [{ verbs: ['*'], apiGroups: ['*'], resources: ['leases'], resourceNames: ['leader'] }]));
  ix.setBinding(crb('electors', 'star-named', [{ kind: 'Group', name: 'electors' }]));
  ix.setClusterRole('aggregated', {
    metadata: { name: 'aggregated' },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-aggregated': 'true' } }] },
    rules: [
      { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] },
      { verbs: ['list'], apiGroups: ['example.com'], resources: ['gadgets'] },
    ],
  });
  ix.setBinding(crb('agg', 'aggregated', [{ kind: 'User', name: 'erin' }]));
  ix.setClusterRole('nonres-verbs', clusterRole('nonres-verbs', [{ verbs: ['get', 'post'], nonResourceURLs: ['/apis/*', '/version'] }]));
  ix.setBinding(crb('nonres', 'nonres-verbs', [{ kind: 'User', name: 'frank' }]));
  return ix;
}

const alice = { username: 'alice' };
const bob = { username: 'bob' };
const carol = { username: 'carol' };
const root = { username: 'root' };
const op = { username: 'olga', groups: ['ops', 'system:authenticated'] };
const scaler = { username: 'sam', groups: ['scalers'] };
const monitor = { username: 'mon', groups: ['monitors'] };
const robot = { username: 'system:serviceaccount:kube-system:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'] };
const robotElsewhere = { username: 'system:serviceaccount:default:robot' };
const builder = { username: 'system:serviceaccount:ns1:builder' };
const builder2 = { username: 'system:serviceaccount:ns2:builder' };
const ghost = { username: 'system:serviceaccount:default:ghost' };
const nobody = { username: 'nobody' };
const dave = { username: 'dave' };
const batcher = { username: 'bea', groups: ['batchers'] };
const daveInBatchers = { username: 'dave', groups: ['batchers'] };
const cron = { username: 'system:serviceaccount:ns9:cron' };
const saInNs5 = { username: 'system:serviceaccount:ns5:a', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns5'] };
const elector = { username: 'el', groups: ['electors'] };
const erin = { username: 'erin' };
const frank = { username: 'frank' };

// [who, verb, spec, name, allowed]
const cases: Array<[Who, string, string, string, boolean]> = [
  // verbs and the core group
  [alice, 'get', 'ns1:|pods', 'p', true],
  [alice, 'list', 'ns1:|pods', '', true],
  [alice, 'watch', 'ns1:|pods', '', true],
  [alice, 'get', '|pods', 'p', true],
  [alice, 'list', '|pods', '', true],
  [alice, 'create', 'ns1:|pods', '', false],
  [alice, 'update', 'ns1:|pods', 'p', false],
  [alice, 'patch', 'ns1:|pods', 'p', false],
  [alice, 'delete', 'ns1:|pods', 'p', false],
  [alice, 'deletecollection', 'ns1:|pods', '', false],
  [alice, 'get', 'ns1:apps|pods', 'p', false],
  [alice, 'get', 'ns1:|pods/log', 'p', false],
  [alice, 'get', 'ns1:|pods/status', 'p', false],
  [alice, 'get', 'ns1:|podsx', 'p', false],
  [alice, 'get', 'ns1:|configmaps', 'p', false],
  [alice, 'get', '/healthz', '', false],
  // everything
  [root, 'get', 'ns1:|pods', 'p', true],
  [root, 'escalate', '|clusterroles', 'x', true],
  [root, 'impersonate', '|users', 'x', true],
  [root, 'deletecollection', 'ns9:apps|deployments', '', true],
  [root, 'get', 'ns9:apps|deployments/scale', 'd', true],
  [root, 'get', '/anything/at/all', '', true],
  [root, 'post', '/', '', true],
  [root, 'get', 'x.example.com|widgets', '', true],
  // */subresource
  [op, 'get', 'ns1:|pods/status', 'p', true],
  [op, 'update', 'apps|deployments/status', 'd', true],
  [op, 'update', 'ns5:apps|deployments/status', 'd', true],
  [op, 'patch', 'ns1:|pods/status', 'p', false],
  [op, 'get', 'ns1:|pods', 'p', false],
  [op, 'get', 'ns1:|pods/statusx', 'p', false],
  [op, 'get', 'ns1:|pods/xstatus', 'p', false],
  [op, 'get', 'ns1:|pods/log', 'p', false],
  // resource/subresource
  [scaler, 'patch', 'ns1:apps|deployments/scale', 'd', true],
  [scaler, 'patch', 'apps|deployments/scale', 'd', true],
  [scaler, 'patch', 'ns1:apps|deployments', 'd', false],
  [scaler, 'patch', 'ns1:apps|replicasets/scale', 'r', false],
  [scaler, 'patch', 'ns1:extensions|deployments/scale', 'd', false],
  [scaler, 'get', 'ns1:apps|deployments/scale', 'd', false],
  // resourceNames
  [bob, 'get', 'ns1:|configmaps', 'a', true],
  [bob, 'get', 'ns1:|configmaps', 'b', true],
  [bob, 'get', 'ns1:|configmaps', 'c', false],
  [bob, 'update', 'ns1:|configmaps', 'a', true],
  [bob, 'delete', 'ns1:|configmaps', 'b', true],
  [bob, 'list', 'ns1:|configmaps', '', false],
  [bob, 'list', 'ns1:|configmaps', 'a', true],
  [bob, 'watch', 'ns1:|configmaps', 'a', false],
  [bob, 'get', 'ns2:|configmaps', 'a', false],
  // Role in its namespace, create without a name
  [bob, 'create', 'ns1:|configmaps', '', true],
  [bob, 'deletecollection', 'ns1:|configmaps', '', true],
  [bob, 'patch', 'ns1:|configmaps', 'zzz', true],
  [bob, 'create', 'ns2:|configmaps', '', false],
  [bob, 'create', '|configmaps', '', false],
  [bob, 'create', 'ns1:|secrets', '', false],
  // ClusterRole bound in one namespace only
  [bob, 'get', 'ns2:|secrets', 's', true],
  [bob, 'list', 'ns2:|secrets', '', true],
  [bob, 'delete', 'ns2:|secrets', 's', true],
  [bob, 'get', 'ns1:|secrets', 's', false],
  [bob, 'list', '|secrets', '', false],
  [bob, 'get', 'ns2:|secrets/status', 's', false],
  // a Role is namespace-local: carol's binding in ns3 names ns3's cm-writer, which does not exist
  [carol, 'create', 'ns3:|configmaps', '', false],
  [carol, 'create', 'ns1:|configmaps', '', false],
  // unknown subject kinds never match
  [carol, 'get', 'ns3:|pods', 'p', false],
  // non-resource URLs
  [monitor, 'get', '/healthz', '', true],
  [monitor, 'get', '/healthz/ping', '', true],
  [monitor, 'get', '/healthz/', '', true],
  [monitor, 'get', '/healthzz', '', false],
  [monitor, 'post', '/healthz', '', false],
  [monitor, 'get', '/logs', '', true],
  [monitor, 'get', '/logs/kube.log', '', true],
  [monitor, 'get', '/logsx', '', true],
  [monitor, 'get', '/log', '', false],
  [monitor, 'get', '/', '', false],
  [monitor, 'get', '|healthz', '', false],
  // service accounts
  [robot, 'create', 'ns1:coordination.k8s.io|leases', '', true],
  [robot, 'create', 'ns1:|leases', '', true],
  [robot, 'create', 'x.io|leases', '', true],
  [robot, 'get', 'ns1:coordination.k8s.io|leases', 'l', false],
  [robot, 'create', 'ns1:coordination.k8s.io|leases/status', '', false],
  [robotElsewhere, 'create', 'ns1:coordination.k8s.io|leases', '', false],
  [builder, 'get', 'ns1:|pods', 'p', true],
  [builder, 'list', 'ns1:|pods', '', true],
  [builder, 'get', 'ns2:|pods', 'p', false],
  [builder, 'list', '|pods', '', false],
  [builder2, 'get', 'ns1:|pods', 'p', false],
  [ghost, 'get', 'ns1:|pods', 'p', false],
  [ghost, 'get', '/', '', false],
  // nobody
  [nobody, 'get', 'ns1:|pods', 'p', false],
  [nobody, 'get', '/healthz', '', false],
  [{ username: 'alice2' }, 'get', 'ns1:|pods', 'p', false],
  [{ username: 'ALICE' }, 'get', 'ns1:|pods', 'p', false],
  // a group named like a user grants nothing to the user, and vice versa
  [{ username: 'ops' }, 'get', 'ns1:|pods/status', 'p', false],
  [{ username: 'x', groups: ['alice'] }, 'get', 'ns1:|pods', 'p', false],
  [{ username: 'x', groups: ['ops'] }, 'get', 'ns1:|pods/status', 'p', true],
  [{ username: 'x', groups: ['system:serviceaccounts:kube-system'] }, 'create', 'ns1:|leases', '', false],
  // one binding, several subjects
  [dave, 'get', 'ns4:batch|jobs', 'j', true],
  [dave, 'watch', 'ns4:batch|cronjobs', '', true],
  [dave, 'list', 'ns4:batch|jobs', '', false],
  [dave, 'get', 'ns5:batch|jobs', 'j', false],
  [dave, 'get', 'batch|jobs', 'j', false],
  [batcher, 'get', 'ns4:batch|jobs', 'j', true],
  [batcher, 'get', 'ns4:batch|jobs/status', 'j', false],
  [batcher, 'get', 'ns4:apps|jobs', 'j', false],
  [cron, 'watch', 'ns4:batch|jobs', '', true],
  [{ username: 'system:serviceaccount:ns4:cron' }, 'watch', 'ns4:batch|jobs', '', false],
  [daveInBatchers, 'get', 'ns4:batch|cronjobs', 'c', true],
  [daveInBatchers, 'delete', 'ns4:batch|cronjobs', 'c', false],
  // groups of service accounts
  [saInNs5, 'list', 'ns5:|serviceaccounts', '', true],
  [saInNs5, 'list', '|serviceaccounts', '', true],
  [saInNs5, 'get', 'ns5:|serviceaccounts', 'x', false],
  [{ username: 'system:serviceaccount:ns5:a' }, 'list', 'ns5:|serviceaccounts', '', false],
  [{ username: 'system:serviceaccount:ns6:a', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns6'] }, 'list', 'ns5:|serviceaccounts', '', false],
  // every verb and group, one name
  [elector, 'update', 'ns1:coordination.k8s.io|leases', 'leader', true],
  [elector, 'delete', 'kube-system:coordination.k8s.io|leases', 'leader', true],
  [elector, 'get', 'ns1:x.io|leases', 'leader', true],
  [elector, 'get', 'ns1:coordination.k8s.io|leases', 'other', false],
  [elector, 'list', 'ns1:coordination.k8s.io|leases', '', false],
  [elector, 'create', 'ns1:coordination.k8s.io|leases', '', false],
  [elector, 'watch', 'ns1:coordination.k8s.io|leases', 'leader', true],
  [elector, 'update', 'ns1:coordination.k8s.io|leases/status', 'leader', false],
  // an aggregated ClusterRole grants the rules it was filled with
  [erin, 'get', 'ns1:example.com|widgets', 'w', true],
  [erin, 'get', 'example.com|widgets', 'w', true],
  [erin, 'list', 'ns1:example.com|gadgets', '', true],
  [erin, 'list', 'ns1:example.com|widgets', '', false],
  [erin, 'get', 'ns1:example.com|gadgets', 'g', false],
  [erin, 'get', 'ns1:example.org|widgets', 'w', false],
  // non-resource URLs with several verbs
  [frank, 'get', '/apis/apps', '', true],
  [frank, 'post', '/apis/apps/v1', '', true],
  [frank, 'get', '/apis', '', false],
  [frank, 'get', '/apis/', '', true],
  [frank, 'put', '/apis/apps', '', false],
  [frank, 'get', '/version', '', true],
  [frank, 'post', '/version', '', true],
  [frank, 'get', '/version/', '', false],
  [frank, 'get', 'apps|deployments', '', false],
  // a caller listing the same group twice is still one caller
  [{ username: 'x', groups: ['ops', 'ops'] }, 'update', 'ns1:apps|deployments/status', 'd', true],
  [{ username: 'x', groups: ['ops', 'ops'] }, 'delete', 'ns1:apps|deployments/status', 'd', false],
];

describe('RBAC decision table', () => {
  const authz = new RbacAuthorizer(fixture());
  it.each(cases.map(([who, verb, spec, name, allowed]) => ({ who: who.username, groups: who.groups, verb, spec, name, allowed, w: who })))(
    '$who $verb $spec "$name" -> $allowed',
    ({ w, verb, spec, name, allowed }) => {
      const d = decide(authz, attrs(w, verb, spec, name));
      expect(d.decision).toBe(allowed ? 'allow' : 'noOpinion');
    },
  );
});

describe('RBAC reasons', () => {
  const authz = new RbacAuthorizer(fixture());
  it('names the cluster binding, role and subject that allowed', () => {
    expect(decide(authz, attrs(alice, 'get', 'ns1:|pods', 'p')).reason).toBe('RBAC: allowed by ClusterRoleBinding "alice-pods" of ClusterRole "pod-reader" to User "alice"');
    expect(decide(authz, attrs(op, 'get', 'ns1:|pods/status', 'p')).reason).toBe('RBAC: allowed by ClusterRoleBinding "ops-status" of ClusterRole "status-any" to Group "ops"');
    expect(decide(authz, attrs(robot, 'create', '|leases', '')).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "sa-leases" of ClusterRole "any-group-leases" to ServiceAccount "robot/kube-system"',
    );
  });
  it('names a role binding as name/namespace and defaults a service account to its namespace', () => {
    expect(decide(authz, attrs(bob, 'create', 'ns1:|configmaps', '')).reason).toBe('RBAC: allowed by RoleBinding "bob-cm/ns1" of Role "cm-writer" to User "bob"');
    expect(decide(authz, attrs(builder, 'get', 'ns1:|pods', 'p')).reason).toBe('RBAC: allowed by RoleBinding "sa-local/ns1" of ClusterRole "pod-reader" to ServiceAccount "builder/ns1"');
  });
  it('lists the missing roles of bindings that apply, else says nothing', () => {
    expect(decide(authz, attrs({ username: 'mallory' }, 'get', '|pods', 'p')).reason).toBe('RBAC: clusterrole.rbac.authorization.k8s.io "does-not-exist" not found');
    expect(decide(authz, attrs({ username: 'mallory' }, 'get', 'ns1:|pods', 'p')).reason).toBe(
      'RBAC: [clusterrole.rbac.authorization.k8s.io "does-not-exist" not found, role.rbac.authorization.k8s.io "nope" not found]',
    );
    expect(decide(authz, attrs({ username: 'trudy' }, 'get', 'ns1:|pods', 'p')).reason).toBe('RBAC: unsupported role reference kind: "Thing"');
    expect(decide(authz, attrs(carol, 'create', 'ns3:|configmaps', '')).reason).toBe('RBAC: role.rbac.authorization.k8s.io "cm-writer" not found');
    expect(decide(authz, attrs(nobody, 'get', 'ns1:|pods', 'p')).reason).toBe('');
  });
});

describe('RBAC index updates', () => {
  it('follows role changes, binding changes and deletes', () => {
    const ix = fixture();
    const authz = new RbacAuthorizer(ix);
    const a = attrs(alice, 'create', 'ns1:|pods', '');
    expect(decide(authz, a).decision).toBe('noOpinion');
    ix.setClusterRole('pod-reader', clusterRole('pod-reader', [{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }]));
    expect(decide(authz, a).decision).toBe('allow');
    expect(decide(authz, attrs(alice, 'get', 'ns1:|pods', 'p')).decision).toBe('noOpinion');
    // The binding now names someone else: alice loses it.
    ix.setBinding(crb('alice-pods', 'pod-reader', [{ kind: 'User', name: 'dave' }]));
    expect(decide(authz, a).decision).toBe('noOpinion');
    expect(decide(authz, attrs({ username: 'dave' }, 'create', 'ns1:|pods', '')).decision).toBe('allow');
    ix.deleteBinding('ClusterRoleBinding', '', 'alice-pods');
    expect(decide(authz, attrs({ username: 'dave' }, 'create', 'ns1:|pods', '')).decision).toBe('noOpinion');
    ix.deleteRole('ns1', 'cm-writer');
    expect(decide(authz, attrs(bob, 'create', 'ns1:|configmaps', '')).reason).toBe('RBAC: role.rbac.authorization.k8s.io "cm-writer" not found');
    ix.deleteBinding('RoleBinding', 'ns1', 'bob-cm');
    ix.deleteBinding('RoleBinding', 'ns1', 'bob-named');
    expect(decide(authz, attrs(bob, 'create', 'ns1:|configmaps', '')).reason).toBe('');
    ix.deleteClusterRole('all');
    expect(decide(authz, attrs(root, 'get', '/', '')).reason).toBe('RBAC: clusterrole.rbac.authorization.k8s.io "all" not found');
  });

  it('ignores malformed stored objects instead of throwing', () => {
    const ix = new RbacIndex();
    ix.setClusterRole('bad', { rules: 'nope' });
    ix.setClusterRole('bad2', { rules: [null, 3, { verbs: 'get' }] });
    expect(bindingOf('ClusterRoleBinding', { metadata: { name: 'x' } })).toBeUndefined();
    expect(bindingOf('ClusterRoleBinding', null)).toBeUndefined();
    const b = bindingOf('ClusterRoleBinding', { metadata: { name: 'x' }, roleRef: { kind: 'ClusterRole', name: 'bad2' }, subjects: [null, { kind: 'User' }, { kind: 'User', name: 'u' }] })!;
    expect(b.subjects).toEqual([{ kind: 'User', name: 'u' }]);
    ix.setBinding(b);
    expect(new RbacAuthorizer(ix).authorize(attrs({ username: 'u' }, 'get', '|pods', 'p')).decision).toBe('noOpinion');
  });
});

describe('rules of a caller', () => {
  it('visits each binding once, whichever subjects match', () => {
    const ix = fixture();
    const { rules } = ix.rulesFor({ username: 'dave', groups: ['batchers', 'batchers'] }, 'ns4');
    expect(rules).toEqual([{ verbs: ['get', 'watch'], apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], resourceNames: [], nonResourceURLs: [] }]);
    expect(ix.rulesFor({ username: 'bea', groups: ['batchers', 'batchers'] }, 'ns4').rules).toHaveLength(1);
  });

  it('answers the same after bindings are replaced and deleted', () => {
    const ix = fixture();
    const authz = new RbacAuthorizer(ix);
    ix.setBinding(rb('ns4', 'multi', 'ClusterRole', 'multi', [{ kind: 'Group', name: 'batchers' }]));
    expect(decide(authz, attrs(dave, 'get', 'ns4:batch|jobs', 'j')).decision).toBe('noOpinion');
    expect(decide(authz, attrs(batcher, 'get', 'ns4:batch|jobs', 'j')).decision).toBe('allow');
    ix.deleteBinding('RoleBinding', 'ns4', 'multi');
    expect(decide(authz, attrs(batcher, 'get', 'ns4:batch|jobs', 'j')).decision).toBe('noOpinion');
    ix.deleteRole('ns1', 'cm-writer');
    expect(decide(authz, attrs(bob, 'create', 'ns1:|configmaps', '')).reason).toBe('RBAC: role.rbac.authorization.k8s.io "cm-writer" not found');
  });
});

describe('rule matchers', () => {
  it.each([
    [['*'], 'anything', '', true],
    [['pods'], 'pods', '', true],
    [['pods'], 'pods/log', 'log', false],
    [['pods/log'], 'pods/log', 'log', true],
    [['*/log'], 'pods/log', 'log', true],
    [['*/log'], 'pods', '', false],
    [['*/lo'], 'pods/log', 'log', false],
    [['*/*'], 'pods/log', 'log', false],
    [['pods/*'], 'pods/log', 'log', false],
    [['pods/logx'], 'pods/log', 'log', false],
    [['podsxlog'], 'pods/log', 'log', false],
  ] as const)('resources %j match %s: %s', (resources, combined, sub, want) => {
    expect(resourceMatches({ verbs: [], resources }, combined.split('/')[0]!, sub)).toBe(want);
  });
  it.each([
    [['*'], '/x', true],
    [['/api'], '/api', true],
    [['/api'], '/api/', false],
    [['/api/*'], '/api/v1', true],
    [['/api/*'], '/api', false],
    [['/api*'], '/apis', true],
    [['/a/*/b'], '/a/x/b', false],
    [['/a/*/b'], '/a/*/b', true],
    [[], '/', false],
  ] as const)('nonResourceURLs %j match %s: %s', (urls, path, want) => {
    expect(nonResourceURLMatches({ verbs: [], nonResourceURLs: urls }, path)).toBe(want);
  });
});

describe('the chain', () => {
  const masters = { username: 'm', groups: ['system:masters'], extra: {} };
  const someone = { username: 's', groups: [], extra: {} };
  const base = { verb: 'get', isResourceRequest: false, path: '/x', apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  const silent = { authorize: () => ({ decision: 'noOpinion' as const, reason: 'no idea' }) };
  it('allows system:masters before asking any mode', () => {
    expect(decide(new AuthorizerChain([alwaysDeny]), { ...base, user: masters }).decision).toBe('allow');
    expect(decide(new AuthorizerChain([]), { ...base, user: masters }).decision).toBe('allow');
  });
  it('lets the first mode with an opinion decide, in order', () => {
    const denier = { authorize: () => ({ decision: 'deny' as const, reason: 'no' }) };
    expect(decide(new AuthorizerChain([denier, alwaysAllow]), { ...base, user: someone })).toEqual({ decision: 'deny', reason: 'no' });
    expect(decide(new AuthorizerChain([alwaysAllow, denier]), { ...base, user: someone }).decision).toBe('allow');
    // kube's AlwaysDeny has no opinion: a later mode may allow.
    expect(decide(new AuthorizerChain([alwaysDeny, alwaysAllow]), { ...base, user: someone }).decision).toBe('allow');
    expect(decide(new AuthorizerChain([alwaysDeny]), { ...base, user: someone })).toEqual({ decision: 'noOpinion', reason: 'Everything is forbidden.' });
    expect(decide(new AuthorizerChain([silent, alwaysAllow]), { ...base, user: someone }).decision).toBe('allow');
  });
  it('has no opinion (a denial) when no mode has one, joining reasons by newline', () => {
    expect(decide(new AuthorizerChain([silent, silent]), { ...base, user: someone })).toEqual({ decision: 'noOpinion', reason: 'no idea\nno idea' });
    expect(decide(new AuthorizerChain([]), { ...base, user: someone }).decision).toBe('noOpinion');
  });
});
