import { describe, expect, it } from 'vitest';
import { aggregateFieldErrors, fieldErrorString } from '../../src/api/field-errors.ts';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from '../../src/api/kinds/rbac.ts';
import type { KubeObject } from '../../src/api/types.ts';

const strings = (errs: readonly { type: string }[] | undefined) => (errs ?? []).map((e) => fieldErrorString(e as never));

describe('policy rules', () => {
  it('requires verbs, and api groups and resources unless non-resource URLs are given', () => {
    const role: KubeObject = { metadata: { name: 'r', namespace: 'd' }, rules: [{}, { verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
    expect(strings(roleType.strategy.validate?.(role))).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
    ]);
  });

  it('forbids non-resource URLs in namespaced roles and mixing them with resources', () => {
    const rules = [{ verbs: ['get'], nonResourceURLs: ['/healthz'], resources: ['pods'] }];
    expect(strings(roleType.strategy.validate?.({ metadata: { name: 'r' }, rules }))).toEqual([
      'rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
      'rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: rules cannot apply to both regular resources and non-resource URLs',
    ]);
    expect(strings(clusterRoleType.strategy.validate?.({ metadata: { name: 'r' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] }))).toEqual([]);
  });

  it('requires selectors in an aggregation rule and validates them', () => {
    expect(strings(clusterRoleType.strategy.validate?.({ metadata: { name: 'r' }, aggregationRule: {} }))).toEqual([
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
    const agg = { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }, { matchLabels: { 'rbac.example.com/aggregate': 'true' } }] };
    expect(strings(clusterRoleType.strategy.validate?.({ metadata: { name: 'r' }, aggregationRule: agg }))).toEqual([
      "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      // The failed conversion of the same selector, as kube-apiserver v1.32.4 adds it.
      'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
    ]);
  });
});

describe('bindings', () => {
  const binding = (roleRef: Record<string, string>, subjects: unknown[] = []): KubeObject => ({
    metadata: { name: 'b', namespace: 'd', resourceVersion: '3' },
    roleRef,
    subjects,
  });

  it('defaults roleRef and User/Group subject API groups', () => {
    const b = binding({ kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'd' }]);
    roleBindingType.strategy.defaults?.(b);
    expect(b.roleRef).toEqual({ kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' });
    expect(b.subjects).toEqual([
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'sa', namespace: 'd' },
    ]);
    expect(roleBindingType.strategy.validate?.(b)).toEqual([]);
  });

  it('validates roleRef kind and subjects', () => {
    const b = binding({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, [
      { kind: 'ServiceAccount', name: 'Bad_Name' },
      { kind: 'Robot', name: 'x' },
      { kind: 'User', name: '', apiGroup: 'other' },
    ]);
    const errs = strings(clusterRoleBindingType.strategy.validate?.(b));
    expect(errs[0]).toBe('roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"');
    expect(errs[1]).toMatch(/^subjects\[0\]\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    expect(errs.slice(2)).toEqual([
      'subjects[0].namespace: Required value',
      'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      'subjects[2].name: Required value',
      'subjects[2].apiGroup: Unsupported value: "other": supported values: "rbac.authorization.k8s.io"',
    ]);
  });

  it('refuses to change roleRef on update', () => {
    const old = binding({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' });
    const changed = binding({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' });
    const errs = roleBindingType.strategy.validateUpdate?.(changed, old) ?? [];
    expect(errs).toHaveLength(1);
    expect(errs[0]!.field).toBe('roleRef');
    // kube prints the internal struct with Go's %#v.
    expect(aggregateFieldErrors(errs)).toBe(
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    );
    expect(roleBindingType.strategy.validateUpdate?.(binding({ ...old.roleRef as Record<string, string> }, [{ kind: 'Group', name: 'g', apiGroup: 'rbac.authorization.k8s.io' }]), old)).toEqual([]);
  });

  it('describes the binding columns with the Go docs of each binding type', () => {
    const desc = (t: typeof roleBindingType) => t.tableColumns?.map((c) => c.description);
    expect(desc(roleBindingType)?.[1]).toBe('RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.');
    expect(desc(clusterRoleBindingType)?.[1]).toBe('RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.');
    expect(desc(roleBindingType)?.slice(3)).toEqual(['Users in the roleBinding', 'Groups in the roleBinding', 'ServiceAccounts in the roleBinding']);
    expect(desc(clusterRoleBindingType)?.slice(3)).toEqual(['Users in the clusterRoleBinding', 'Groups in the clusterRoleBinding', 'ServiceAccounts in the clusterRoleBinding']);
    expect(desc(roleType)?.[1]).toMatch(/\n\nPopulated by the system\. Read-only\. Null for lists\. More info: https:\/\/git\.k8s\.io\//);
  });

  it('uses path-segment names and RBAC storage prefixes', () => {
    expect(roleType.nameValidation).toBe('path-segment');
    expect(roleBindingType.storagePrefix).toBe('/registry/rbac.authorization.k8s.io/rolebindings/');
    expect(clusterRoleType.namespaced).toBe(false);
  });
});
