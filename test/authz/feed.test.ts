/**
 * The RBAC index follows the watch caches: events apply, and a relist after a broken watch drops
 * what was deleted in the gap (else its grants would outlive it).
 */
import { describe, expect, it } from 'vitest';
import { feedRbacIndex, type RbacCaches } from '../../src/authz/rbac/feed.ts';
import { RbacIndex } from '../../src/authz/rbac/index.ts';
import { RbacAuthorizer } from '../../src/authz/rbac/authorizer.ts';
import type { KubeObject } from '../../src/api/types.ts';
import type { Attributes } from '../../src/authz/authorizer.ts';

type Listener = { onEvent(ev: { type: string; entry: unknown }): void; onError(err: Error): void };

/** A watch cache with just what the feed uses: list, watch, and a way to break the watch. */
function fakeCache(objects: KubeObject[]) {
  let listener: Listener | undefined;
  const entry = (o: KubeObject) => ({ key: o.metadata!.name!, value: o, createRevision: 1, modRevision: 1, encode: () => new Uint8Array() });
  return {
    objects,
    list: () => ({ entries: objects.map(entry), revision: 1 }),
    watch: (_o: unknown, l: Listener) => {
      listener = l;
      return { close: () => (listener = undefined) };
    },
    emit: (type: string, o: KubeObject) => listener?.onEvent({ type, entry: entry(o) }),
    fail: () => listener?.onError(new Error('too old')),
  };
}

const role = { metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } as KubeObject;
const binding = (name: string, user: string) =>
  ({ metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'User', name: user }] }) as KubeObject;
const get = (user: string): Attributes => ({ user: { username: user, groups: [], extra: {} }, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', namespace: 'n', name: 'p' });

describe('feeding the RBAC index', () => {
  it('applies events, and relists without what was deleted meanwhile', async () => {
    const clusterRoles = fakeCache([role]);
    const crbs = fakeCache([binding('a', 'alice'), binding('b', 'bob')]);
    const empty = () => fakeCache([]);
    const ix = new RbacIndex();
    const stop = feedRbacIndex(ix, { roles: empty(), clusterRoles, roleBindings: empty(), clusterRoleBindings: crbs } as unknown as RbacCaches);
    const authz = new RbacAuthorizer(ix);
    try {
      expect(authz.authorize(get('alice')).decision).toBe('allow');
      expect(authz.authorize(get('bob')).decision).toBe('allow');
      crbs.emit('ADDED', binding('c', 'carol'));
      expect(authz.authorize(get('carol')).decision).toBe('allow');
      // bob's binding goes while the watch is broken: the relist must take it away.
      crbs.objects.splice(1, 1);
      crbs.objects.push(binding('c', 'carol'));
      crbs.fail();
      await new Promise((r) => setTimeout(r, 150));
      expect(authz.authorize(get('bob')).decision).toBe('noOpinion');
      expect(authz.authorize(get('alice')).decision).toBe('allow');
      expect(authz.authorize(get('carol')).decision).toBe('allow');
    } finally {
      stop();
    }
  });
});
