/** kube's MatchResources semantics for policies and bindings, without a server. */
import { describe, expect, it } from 'vitest';
import { compileMatch, matches, type MatchContext } from '../../src/admission/policy/matching.ts';
import type { AdmissionAttributes } from '../../src/admission/types.ts';

function attrs(over: Partial<AdmissionAttributes> & { labels?: Record<string, string> } = {}): AdmissionAttributes {
  const { labels, ...rest } = over;
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    name: 'cm',
    namespace: 'ns',
    object: { metadata: { name: 'cm', ...(labels ? { labels } : {}) } },
    oldObject: null,
    options: null,
    dryRun: false,
    userInfo: { username: 'u', groups: [], extra: {} },
    warnings: [],
    auditAnnotations: {},
    ...rest,
  };
}

const ctx = (nsLabels: Record<string, string> = {}, namespaced = true): MatchContext => ({
  namespaced,
  namespaceLabels: () => nsLabels,
  equivalents: () => [],
});

const rule = (over: Record<string, unknown> = {}) => ({ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: '*', ...over });
const m = (over: Record<string, unknown> = {}) => compileMatch({ namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent', resourceRules: [rule()], ...over })!;

describe('policy matching', () => {
  it('matches operations, groups, versions and resources, with wildcards', () => {
    expect(matches(m(), attrs(), ctx())).toBeDefined();
    expect(matches(m(), attrs({ operation: 'UPDATE' }), ctx())).toBeUndefined();
    expect(matches(m({ resourceRules: [rule({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] })] }), attrs({ operation: 'DELETE' }), ctx())).toBeDefined();
    expect(matches(m({ resourceRules: [rule({ apiVersions: ['v2'] })] }), attrs(), ctx())).toBeUndefined();
  });

  it('matches subresources only when a rule names them (x/y, x/*, */y, */*)', () => {
    const status = attrs({ subresource: 'status', operation: 'UPDATE' });
    const on = (resources: string[]) => matches(m({ resourceRules: [rule({ operations: ['UPDATE'], resources })] }), status, ctx()) !== undefined;
    expect(on(['configmaps'])).toBe(false);
    expect(on(['*'])).toBe(false);
    expect(on(['configmaps/status'])).toBe(true);
    expect(on(['configmaps/*'])).toBe(true);
    expect(on(['*/status'])).toBe(true);
    expect(on(['*/*'])).toBe(true);
    expect(on(['*/scale'])).toBe(false);
  });

  it('honours scope and resourceNames', () => {
    expect(matches(m({ resourceRules: [rule({ scope: 'Cluster' })] }), attrs(), ctx())).toBeUndefined();
    expect(matches(m({ resourceRules: [rule({ scope: 'Namespaced' })] }), attrs(), ctx())).toBeDefined();
    expect(matches(m({ resourceRules: [rule({ resourceNames: ['other'] })] }), attrs(), ctx())).toBeUndefined();
    expect(matches(m({ resourceRules: [rule({ resourceNames: ['cm'] })] }), attrs(), ctx())).toBeDefined();
  });

  it('exclusions win over rules; no rules means every resource', () => {
    expect(matches(m({ excludeResourceRules: [rule()] }), attrs(), ctx())).toBeUndefined();
    expect(matches(m({ resourceRules: [] }), attrs({ resource: { group: 'x', version: 'v9', resource: 'things' } }), ctx())).toBeDefined();
  });

  it('selects the namespace by its labels, a Namespace by its own, and cluster-scoped objects always', () => {
    const sel = m({ namespaceSelector: { matchLabels: { env: 'prod' } }, resourceRules: [rule({ resources: ['*'] })] });
    expect(matches(sel, attrs(), ctx({ env: 'prod' }))).toBeDefined();
    expect(matches(sel, attrs(), ctx({ env: 'dev' }))).toBeUndefined();
    const nsReq = attrs({ resource: { group: '', version: 'v1', resource: 'namespaces' }, kind: { group: '', version: 'v1', kind: 'Namespace' }, namespace: '', labels: { env: 'prod' } });
    expect(matches(sel, nsReq, ctx({}, false))).toBeDefined();
    const cluster = attrs({ resource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' }, namespace: '' });
    expect(matches(m({ namespaceSelector: { matchLabels: { env: 'prod' } }, resourceRules: [] }), cluster, ctx({}, false))).toBeDefined();
  });

  it('selects the object by its labels or its old labels', () => {
    const sel = m({ objectSelector: { matchLabels: { team: 'a' } } });
    expect(matches(sel, attrs({ labels: { team: 'a' } }), ctx())).toBeDefined();
    expect(matches(sel, attrs({ labels: { team: 'b' } }), ctx())).toBeUndefined();
    expect(matches(sel, attrs({ operation: 'CREATE', labels: { team: 'b' }, oldObject: { metadata: { labels: { team: 'a' } } } }), ctx())).toBeDefined();
  });

  it('matchPolicy Equivalent matches through another group serving the same objects; Exact does not', () => {
    const eventsRule = rule({ apiGroups: ['events.k8s.io'], resources: ['events'] });
    const core = attrs({ resource: { group: '', version: 'v1', resource: 'events' }, kind: { group: '', version: 'v1', kind: 'Event' } });
    const eq: MatchContext = {
      ...ctx(),
      equivalents: () => [{ resource: { group: 'events.k8s.io', version: 'v1', resource: 'events' }, kind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' } }],
    };
    expect(matches(m({ resourceRules: [eventsRule] }), core, eq)?.kind).toEqual({ group: 'events.k8s.io', version: 'v1', kind: 'Event' });
    expect(matches(m({ resourceRules: [eventsRule], matchPolicy: 'Exact' }), core, eq)).toBeUndefined();
  });
});
