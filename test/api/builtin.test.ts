import { describe, expect, it } from 'vitest';
import { builtinResourceTypes, findResourceType } from '../../src/api/builtin.ts';
import { fieldErrorString } from '../../src/api/field-errors.ts';
import { leaseType } from '../../src/api/kinds/lease.ts';
import { namespaceType } from '../../src/api/kinds/namespace.ts';
import { serviceAccountType } from '../../src/api/kinds/serviceaccount.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { apiVersionOf } from '../../src/api/types.ts';

describe('builtinResourceTypes', () => {
  it('lists each group/version/resource once, in a stable order', () => {
    const ids = builtinResourceTypes.map((t) => `${apiVersionOf(t)}/${t.resource}`);
    expect(ids).toEqual([
      'v1/configmaps',
      'v1/events',
      'v1/namespaces',
      'v1/secrets',
      'v1/serviceaccounts',
      'admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
      'admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      'apiextensions.k8s.io/v1/customresourcedefinitions',
      'coordination.k8s.io/v1/leases',
      'events.k8s.io/v1/events',
      'flowcontrol.apiserver.k8s.io/v1/flowschemas',
      'flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations',
      'rbac.authorization.k8s.io/v1/clusterrolebindings',
      'rbac.authorization.k8s.io/v1/clusterroles',
      'rbac.authorization.k8s.io/v1/rolebindings',
      'rbac.authorization.k8s.io/v1/roles',
      'admissionregistration.k8s.io/v1/validatingadmissionpolicies',
      'admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
    ]);
  });

  it('publishes kube short names and storage prefixes', () => {
    const by = (g: string, r: string) => findResourceType(builtinResourceTypes, g, 'v1', r)!;
    expect(by('', 'namespaces').shortNames).toEqual(['ns']);
    expect(by('', 'configmaps').shortNames).toEqual(['cm']);
    expect(by('', 'serviceaccounts').shortNames).toEqual(['sa']);
    expect(by('', 'events').shortNames).toEqual(['ev']);
    expect(by('', 'secrets').shortNames).toEqual([]);
    expect(builtinResourceTypes.every((t) => !t.categories.includes('all'))).toBe(true);
    expect(by('', 'configmaps').storagePrefix).toBe('/registry/configmaps/');
    expect(by('coordination.k8s.io', 'leases').storagePrefix).toBe('/registry/coordination.k8s.io/leases/');
    expect(by('events.k8s.io', 'events').storagePrefix).toBe('/registry/events/');
    expect(findResourceType(builtinResourceTypes, 'apps', 'v1', 'deployments')).toBeUndefined();
  });

  it('declares the list and patch markers of the real OpenAPI', () => {
    const meta = by('', 'configmaps').schema.properties!.metadata!.properties!;
    expect(meta.finalizers!['x-kubernetes-list-type']).toBe('set');
    expect(meta.finalizers!['x-kubernetes-patch-strategy']).toBe('merge');
    expect(meta.ownerReferences!['x-kubernetes-list-map-keys']).toEqual(['uid']);
    expect(meta.ownerReferences!['x-kubernetes-patch-merge-key']).toBe('uid');
    expect(meta.managedFields!['x-kubernetes-list-type']).toBe('atomic');
    expect(meta.managedFields!.items!.properties!.fieldsV1!['x-kubernetes-preserve-unknown-fields']).toBe(true);
    const sa = by('', 'serviceaccounts').schema.properties!;
    expect(sa.secrets!['x-kubernetes-patch-merge-key']).toBe('name');
    expect(by('', 'secrets').schema.properties!.data!.additionalProperties).toMatchObject({ format: 'byte' });
    expect(by('rbac.authorization.k8s.io', 'roles').schema.properties!.rules!['x-kubernetes-list-type']).toBe('atomic');
    function by(g: string, r: string) {
      return findResourceType(builtinResourceTypes, g, 'v1', r)!;
    }
  });
});

describe('Namespace strategy', () => {
  it('adds the kubernetes finalizer, Active phase and name label on create', () => {
    const ns: KubeObject = { metadata: { name: 'team', labels: { a: 'b' } }, spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } };
    namespaceType.strategy.prepareForCreate?.(ns);
    expect(ns.spec).toEqual({ finalizers: ['example.com/x', 'kubernetes'] });
    expect(ns.status).toEqual({ phase: 'Active' });
    expect(ns.metadata!.labels).toEqual({ a: 'b', 'kubernetes.io/metadata.name': 'team' });
  });

  it('keeps finalizers and status on update and restores the name label', () => {
    const old: KubeObject = { metadata: { name: 'team' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } };
    const next: KubeObject = { metadata: { name: 'team', labels: { 'kubernetes.io/metadata.name': 'other' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } };
    namespaceType.strategy.prepareForUpdate?.(next, old);
    expect(next.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(next.status).toEqual({ phase: 'Active' });
    expect(next.metadata!.labels).toEqual({ 'kubernetes.io/metadata.name': 'team' });
  });

  it('rejects unqualified non-standard spec finalizers', () => {
    const errs = namespaceType.strategy.validate?.({ metadata: { name: 'n' }, spec: { finalizers: ['custom', 'kubernetes', 'a.io/b'] } }) ?? [];
    expect(errs.map(fieldErrorString)).toEqual(['spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified']);
    expect(namespaceType.fieldSelectors['status.phase']!({ status: { phase: 'Active' } })).toBe('Active');
  });
});

describe('gated and cleaned fields', () => {
  it('drops the alpha Lease fields (CoordinatedLeaderElection is off) unless already stored', () => {
    const lease = (): KubeObject => ({ metadata: { name: 'l' }, spec: { holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'p' } });
    const created = lease();
    leaseType.strategy.prepareForCreate?.(created);
    expect(created.spec).toEqual({ holderIdentity: 'a' });
    const updated = lease();
    leaseType.strategy.prepareForUpdate?.(updated, { metadata: { name: 'l' }, spec: { strategy: 'OldestEmulationVersion' } });
    expect(updated.spec).toEqual({ holderIdentity: 'a', strategy: 'OldestEmulationVersion' });
  });

  it('keeps only the name of a ServiceAccount secret reference', () => {
    const sa: KubeObject = { metadata: { name: 'sa' }, secrets: [{ name: 's', namespace: 'other', uid: 'u' }, { kind: 'Secret' }] };
    serviceAccountType.strategy.prepareForCreate?.(sa);
    expect(sa.secrets).toEqual([{ name: 's' }, {}]);
  });
});

describe('Lease validation', () => {
  it('checks durations, transitions and strategy', () => {
    const errs = leaseType.strategy.validate?.({ metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: 'x' } }) ?? [];
    expect(errs.map(fieldErrorString)).toEqual([
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
      'spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined',
    ]);
    expect(leaseType.strategy.validate?.({ metadata: { name: 'l' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } })).toEqual([]);
  });
});
