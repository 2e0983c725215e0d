import { describe, expect, it } from 'vitest';
import { builtinResourceTypes, findResourceType } from '../../src/api/builtin.ts';
import type { KubeObject, ResourceType } from '../../src/api/types.ts';

const now = new Date('2024-05-03T12:00:00Z');
const created = '2024-05-03T11:54:50Z'; // 5m10s before now
const rt = (group: string, resource: string): ResourceType => findResourceType(builtinResourceTypes, group, 'v1', resource)!;
const header = (t: ResourceType) => t.tableColumns.map((c) => (c.priority ? `${c.name}*` : c.name));
const row = (t: ResourceType, obj: KubeObject) => t.tableColumns.map((c) => c.cell(obj, now));

describe('table columns', () => {
  it('define kube printer columns, Name first with format name', () => {
    expect(header(rt('', 'namespaces'))).toEqual(['Name', 'Status', 'Age']);
    expect(header(rt('', 'configmaps'))).toEqual(['Name', 'Data', 'Age']);
    expect(header(rt('', 'secrets'))).toEqual(['Name', 'Type', 'Data', 'Age']);
    expect(header(rt('', 'serviceaccounts'))).toEqual(['Name', 'Secrets', 'Age']);
    expect(header(rt('', 'events'))).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*']);
    expect(header(rt('events.k8s.io', 'events'))).toEqual(header(rt('', 'events')));
    expect(header(rt('coordination.k8s.io', 'leases'))).toEqual(['Name', 'Holder', 'Age']);
    expect(header(rt('rbac.authorization.k8s.io', 'roles'))).toEqual(['Name', 'Created At']);
    expect(header(rt('rbac.authorization.k8s.io', 'clusterroles'))).toEqual(['Name', 'Created At']);
    expect(header(rt('rbac.authorization.k8s.io', 'rolebindings'))).toEqual(['Name', 'Role', 'Age', 'Users*', 'Groups*', 'ServiceAccounts*']);
    expect(header(rt('rbac.authorization.k8s.io', 'clusterrolebindings'))).toEqual(['Name', 'Role', 'Age', 'Users*', 'Groups*', 'ServiceAccounts*']);
    for (const t of builtinResourceTypes) {
      const name = t.tableColumns.find((c) => c.name === 'Name')!;
      expect(name.type).toBe('string');
      expect(name.format).toBe('name');
    }
  });

  it('carry the full API field documentation as column descriptions, as kube-apiserver v1.32 sends them', () => {
    const desc = (t: ResourceType, col: string) => t.tableColumns.find((c) => c.name === col)!.description;
    expect(desc(rt('', 'configmaps'), 'Data')).toBe(
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    );
    expect(desc(rt('', 'configmaps'), 'Age')).toMatch(/in UTC\.\n\nPopulated by the system\. Read-only\. Null for lists\. More info: https:\/\/git\.k8s\.io\/.*#metadata$/);
    expect(desc(rt('', 'events'), 'First Seen')).toBe('The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)');
    expect(desc(rt('coordination.k8s.io', 'leases'), 'Holder')).toMatch(/^holderIdentity contains the identity of the holder of a current lease\. If Coordinated Leader Election/);
    // The two binding kinds document their roleRef and subjects differently.
    expect(desc(rt('rbac.authorization.k8s.io', 'clusterrolebindings'), 'Role')).toMatch(/^RoleRef can only reference a ClusterRole in the global namespace\./);
    expect(desc(rt('rbac.authorization.k8s.io', 'clusterrolebindings'), 'Users')).toBe('Users in the clusterRoleBinding');
    expect(desc(rt('rbac.authorization.k8s.io', 'rolebindings'), 'Users')).toBe('Users in the roleBinding');
  });

  it('renders namespace, configmap, secret, service account and lease rows', () => {
    const meta = { name: 'x', creationTimestamp: created };
    expect(row(rt('', 'namespaces'), { metadata: meta, status: { phase: 'Active' } })).toEqual(['x', 'Active', '5m10s']);
    expect(row(rt('', 'configmaps'), { metadata: meta, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } })).toEqual(['x', 3, '5m10s']);
    expect(row(rt('', 'secrets'), { metadata: meta, type: 'Opaque', data: { a: 'AA==' } })).toEqual(['x', 'Opaque', 1, '5m10s']);
    expect(row(rt('', 'serviceaccounts'), { metadata: meta, secrets: [{ name: 's' }] })).toEqual(['x', 1, '5m10s']);
    expect(row(rt('coordination.k8s.io', 'leases'), { metadata: meta, spec: { holderIdentity: 'node-1' } })).toEqual(['x', 'node-1', '5m10s']);
    expect(row(rt('coordination.k8s.io', 'leases'), { metadata: { name: 'y' } })).toEqual(['y', '', '<unknown>']);
  });

  it('renders roles with Created At and bindings with their subjects', () => {
    expect(row(rt('rbac.authorization.k8s.io', 'roles'), { metadata: { name: 'r', creationTimestamp: '2024-05-01T00:00:00.000Z' } })).toEqual([
      'r',
      '2024-05-01T00:00:00Z',
    ]);
    const binding: KubeObject = {
      metadata: { name: 'b', creationTimestamp: created },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
      ],
    };
    expect(row(rt('rbac.authorization.k8s.io', 'rolebindings'), binding)).toEqual(['b', 'ClusterRole/view', '5m10s', 'alice, bob', 'devs', 'build/ci']);
  });

  it('renders old-style and new-style events like kubectl', () => {
    const oldStyle: KubeObject = {
      apiVersion: 'v1',
      metadata: { name: 'p.1' },
      involvedObject: { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{app}' },
      reason: 'Pulled',
      message: ' pulled \n',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2024-05-01T09:00:00Z',
      lastTimestamp: '2024-05-03T11:59:15Z',
      count: 7,
      type: 'Normal',
    };
    expect(row(rt('', 'events'), oldStyle)).toEqual(['45s', 'Normal', 'Pulled', 'pod/p', 'spec.containers{app}', 'kubelet, node-1', 'pulled', '2d3h', 7, 'p.1']);
    const newStyle: KubeObject = {
      apiVersion: 'events.k8s.io/v1',
      metadata: { name: 'n.1' },
      regarding: { kind: 'Node', name: '' },
      eventTime: '2024-05-03T11:59:00.000000Z',
      reportingController: 'ctrl',
      reportingInstance: 'ctrl-0',
      reason: 'Ready',
      note: 'ok',
      type: 'Warning',
    };
    expect(row(rt('events.k8s.io', 'events'), newStyle)).toEqual(['60s', 'Warning', 'Ready', 'node', '', 'ctrl, ctrl-0', 'ok', '60s', 1, 'n.1']);
    const series = { ...newStyle, series: { count: 5, lastObservedTime: '2024-05-03T11:59:50.000000Z' } };
    expect(row(rt('events.k8s.io', 'events'), series).filter((_, i) => i === 0 || i === 8)).toEqual(['10s', 5]);
  });
});
