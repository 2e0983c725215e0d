/**
 * Reconciliation of the default policy, as kube's EnsureRBACPolicy: missing pieces are added back,
 * user additions stay, and autoupdate=false turns it off; a restart reconciles a changed store.
 */
import { describe, expect, it } from 'vitest';
import { reconciled, AUTOUPDATE_ANNOTATION } from '../../src/authz/rbac/bootstrap.ts';
import { DEFAULT_CLUSTER_ROLES, DEFAULT_CLUSTER_ROLE_BINDINGS, DEFAULT_ROLES, DEFAULT_ROLE_BINDINGS } from '../../src/authz/rbac/bootstrap-policy.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { startTestServer } from '../server/harness.ts';
import type { KubeObject } from '../../src/api/types.ts';

/** A store that outlives the server using it, so a second server starts on the same data. */
class KeepOpenStore extends MemoryStore {
  override async close(): Promise<void> {}
}

const byName = (list: readonly KubeObject[], name: string) => list.find((o) => o.metadata?.name === name)!;

describe('reconciled', () => {
  const want = byName(DEFAULT_CLUSTER_ROLES, 'system:discovery');
  it('adds back missing rules, labels and annotations, keeping what was added', () => {
    const current = { ...structuredClone(want), metadata: { name: 'system:discovery', labels: { mine: 'x' } }, rules: [{ verbs: ['get'], nonResourceURLs: ['/mine'] }] } as KubeObject;
    const next = reconciled(current, want)! as KubeObject & { rules: unknown[] };
    expect(next.metadata?.labels).toEqual({ mine: 'x', 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    expect(next.metadata?.annotations).toEqual({ [AUTOUPDATE_ANNOTATION]: 'true' });
    expect(next.rules[0]).toEqual({ verbs: ['get'], nonResourceURLs: ['/mine'] });
    expect(next.rules.slice(1)).toEqual((want as unknown as { rules: unknown[] }).rules);
  });
  it('changes nothing when all is there, or when autoupdate is "false"', () => {
    expect(reconciled(structuredClone(want), want)).toBeUndefined();
    const off = { ...structuredClone(want), metadata: { name: 'system:discovery', annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } }, rules: [] } as KubeObject;
    expect(reconciled(off, want)).toBeUndefined();
  });
  it('adds missing subjects to bindings', () => {
    const b = byName(DEFAULT_CLUSTER_ROLE_BINDINGS, 'system:public-info-viewer');
    const current = { ...structuredClone(b), subjects: [{ kind: 'User', name: 'extra' }] } as KubeObject;
    const next = reconciled(current, b) as unknown as { subjects: unknown[] };
    expect(next.subjects).toEqual([{ kind: 'User', name: 'extra' }, ...(b as unknown as { subjects: unknown[] }).subjects]);
  });
});

describe('the default policy data', () => {
  it('holds kube v1.32\'s objects, all labelled rbac-defaults', () => {
    expect(DEFAULT_CLUSTER_ROLES.length).toBe(64);
    expect(DEFAULT_CLUSTER_ROLE_BINDINGS.length).toBe(45);
    expect(DEFAULT_ROLES.map((r) => `${r.metadata?.namespace}/${r.metadata?.name}`)).toContain('kube-system/extension-apiserver-authentication-reader');
    expect(DEFAULT_ROLE_BINDINGS.length).toBe(7);
    for (const o of [...DEFAULT_CLUSTER_ROLES, ...DEFAULT_CLUSTER_ROLE_BINDINGS, ...DEFAULT_ROLES, ...DEFAULT_ROLE_BINDINGS]) {
      expect(o.metadata?.labels?.['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
    }
  });
});

describe('reconciliation at start', () => {
  it('restores a default role stripped of rules, but not one marked autoupdate=false', async () => {
    const store = new KeepOpenStore({ historyMs: false });
    const rbac = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    let t = await startTestServer({ store });
    const full = (await t.request('GET', `${rbac}/system:basic-user`)).json.rules;
    expect(full.length).toBeGreaterThan(0);
    const strip = (name: string, annotations?: object) =>
      t.request('PATCH', `${rbac}/${name}`, { body: { rules: [], metadata: annotations ? { annotations } : {} }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect((await strip('system:basic-user')).status).toBe(200);
    expect((await strip('system:public-info-viewer', { [AUTOUPDATE_ANNOTATION]: 'false' })).status).toBe(200);
    expect((await t.request('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:discovery')).status).toBe(200);
    await t.close();
    t = await startTestServer({ store });
    try {
      expect((await t.request('GET', `${rbac}/system:basic-user`)).json.rules).toEqual(full);
      expect((await t.request('GET', `${rbac}/system:public-info-viewer`)).json.rules ?? []).toEqual([]);
      expect((await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:discovery')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
