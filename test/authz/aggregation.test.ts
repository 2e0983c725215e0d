/**
 * ClusterRole aggregation: the default aggregated roles (admin, edit, view) filled at start from
 * the system:aggregate-to-* roles, and kept current as labelled roles come, change and go.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { aggregatedRules, ClusterRoleAggregator } from '../../src/authz/rbac/aggregation.ts';
import { tooLarge } from '../../src/storage/errors.ts';
import type { KubeObject } from '../../src/api/types.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

async function rulesOf(name: string): Promise<unknown[]> {
  return (await t.request('GET', `${rbac}/clusterroles/${name}`)).json.rules ?? [];
}

async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe('default aggregated roles', () => {
  it('view has exactly the rules of system:aggregate-to-view at start', async () => {
    const view = await rulesOf('view');
    expect(view.length).toBeGreaterThan(5);
    expect(view).toEqual(await rulesOf('system:aggregate-to-view'));
    // view never grants secrets.
    expect(JSON.stringify(view)).not.toContain('"secrets"');
  });

  it('edit includes view, and admin includes edit (a chain settled before serving)', async () => {
    const view = await rulesOf('view');
    const edit = await rulesOf('edit');
    const admin = await rulesOf('admin');
    for (const r of view) expect(edit).toContainEqual(r);
    for (const r of await rulesOf('system:aggregate-to-edit')) expect(edit).toContainEqual(r);
    for (const r of edit) expect(admin).toContainEqual(r);
    for (const r of await rulesOf('system:aggregate-to-admin')) expect(admin).toContainEqual(r);
  });
});

describe('aggregation follows changes', () => {
  it('adds a labelled role\'s rules to view (and so to edit and admin), and removes them when it goes', async () => {
    const rule = { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] };
    const cr = { metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [rule] };
    expect((await t.request('POST', `${rbac}/clusterroles`, { body: cr })).status).toBe(201);
    expect(await eventually(async () => (await rulesOf('admin')).some((r) => JSON.stringify(r) === JSON.stringify(rule)))).toBe(true);
    expect(await rulesOf('view')).toContainEqual(rule);
    expect(await rulesOf('edit')).toContainEqual(rule);
    // Dropping the label takes the rule away again.
    const patched = await t.request('PATCH', `${rbac}/clusterroles/widgets-view`, {
      body: { metadata: { labels: { 'rbac.authorization.k8s.io/aggregate-to-view': null } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    expect(await eventually(async () => !(await rulesOf('admin')).some((r) => JSON.stringify(r) === JSON.stringify(rule)))).toBe(true);
    expect(await rulesOf('view')).not.toContainEqual(rule);
  });

  it('takes over an aggregated role\'s own rules by forced apply once a role matches, as kube\'s controller does', async () => {
    const own = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
    const cr = { metadata: { name: 'agg-own' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: 'x' } }] }, rules: own };
    expect((await t.request('POST', `${rbac}/clusterroles`, { body: cr })).status).toBe(201);
    // Nothing matches: kube's apply configuration omits the empty rule list, so rules the creator wrote stay.
    const src = { metadata: { name: 'agg-src', labels: { team: 'x' } }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] };
    await new Promise((r) => setTimeout(r, 200));
    expect(await rulesOf('agg-own')).toEqual(own);
    expect((await t.request('POST', `${rbac}/clusterroles`, { body: src })).status).toBe(201);
    expect(await eventually(async () => JSON.stringify(await rulesOf('agg-own')) === JSON.stringify(src.rules))).toBe(true);
    const mf = (await t.request('GET', `${rbac}/clusterroles/agg-own`)).json.metadata.managedFields as { manager: string; operation: string; fieldsV1: object }[];
    expect(mf.find((m) => m.manager === 'clusterrole-aggregation-controller')).toMatchObject({ operation: 'Apply', fieldsV1: { 'f:rules': {} } });
    // The creator's Update entry lost f:rules to the forced apply.
    expect(mf.find((m) => m.operation === 'Update')!.fieldsV1).toEqual({ 'f:aggregationRule': { '.': {}, 'f:clusterRoleSelectors': {} } });
    // The last matching role gone: the controller's apply without rules removes the rules it owned.
    expect((await t.request('DELETE', `${rbac}/clusterroles/agg-src`)).status).toBe(200);
    expect(await eventually(async () => (await rulesOf('agg-own')).length === 0)).toBe(true);
    const after = (await t.request('GET', `${rbac}/clusterroles/agg-own`)).json.metadata.managedFields as { manager: string }[];
    expect(after.map((m) => m.manager)).not.toContain('clusterrole-aggregation-controller');
  });
});

describe('aggregatedRules', () => {
  const role = (name: string, labels: Record<string, string>, rules: object[]): KubeObject => ({ metadata: { name, labels }, rules }) as unknown as KubeObject;
  it('takes rules per selector, roles by name, without duplicates or itself', () => {
    const agg = { metadata: { name: 'agg', labels: { a: '1' } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: '1' } }, { matchExpressions: [{ key: 'b', operator: 'Exists' }] }] }, rules: [{ verbs: ['x'] }] } as unknown as KubeObject;
    const all = [agg, role('z', { a: '1' }, [{ verbs: ['z'] }]), role('m', { a: '1' }, [{ verbs: ['m'] }, { verbs: ['z'] }]), role('b', { b: '' }, [{ verbs: ['b'] }, { verbs: ['m'] }]), role('n', { a: '2' }, [{ verbs: ['n'] }])];
    expect(aggregatedRules(agg, all)).toEqual([{ verbs: ['m'] }, { verbs: ['z'] }, { verbs: ['b'] }]);
  });
  it('leaves roles without an aggregation rule, or with an invalid selector, alone', () => {
    expect(aggregatedRules(role('r', {}, []), [])).toBeUndefined();
    const bad = { metadata: { name: 'bad' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'k', operator: 'Near' }] }] } } as unknown as KubeObject;
    expect(aggregatedRules(bad, [bad])).toBeUndefined();
  });
});

describe('a ClusterRole cache that cannot be shown current (etcd withholding progress notifications)', () => {
  /** A store whose cache holds one aggregated role and one role it selects, and never catches up. */
  function silentStore(failure: Error) {
    const roles: KubeObject[] = [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { pick: 'me' } }] } } as KubeObject,
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'picked', labels: { pick: 'me' } }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } as KubeObject,
    ];
    const watches: string[] = [];
    const updates: string[] = [];
    const store = {
      rt: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
      cache: {
        revision: 170,
        watch: () => {
          watches.push('open');
          return { close: () => watches.push('closed') };
        },
        waitUntilFresh: () => Promise.reject(failure),
        list: () => ({ entries: roles.map((value) => ({ value })) }),
      },
      update: async (_ns: string, name: string) => {
        updates.push(name);
      },
    };
    return { store, watches, updates };
  }

  it('finishes its start, says why, and aggregates from what the cache holds; a retried start keeps one watch', async () => {
    const { store, watches, updates } = silentStore(tooLarge(179, 170));
    const errors: string[] = [];
    const aggregator = new ClusterRoleAggregator(store as never, (err) => errors.push(err.message));
    await aggregator.start();
    await aggregator.settled();
    expect(errors).toEqual(['the ClusterRole cache could not be shown current (required revision 179 is a future revision (current: 170)); aggregating as changes arrive']);
    expect(updates).toEqual(['agg']);
    await aggregator.start();
    expect(watches).toEqual(['open', 'closed', 'open']);
    aggregator.stop();
  });

  it('still fails its start on any other store error (the post-start hook retries)', async () => {
    const { store } = silentStore(new Error('etcd unavailable'));
    const aggregator = new ClusterRoleAggregator(store as never);
    await expect(aggregator.start()).rejects.toThrow('etcd unavailable');
    aggregator.stop();
  });
});
