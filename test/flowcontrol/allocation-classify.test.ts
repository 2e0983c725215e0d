/**
 * Seat sharing among priority levels (figures compared with kube-apiserver v1.32.4's
 * apiserver_flowcontrol_*_limit_seats for the bootstrap configuration at 400 + 200 in flight) and
 * request classification by flow schema rules.
 */
import { describe, expect, it } from 'vitest';
import { allocate, levelLimits } from '../../src/flowcontrol/allocation.ts';
import { flowDistinguisher, rulesMatch } from '../../src/flowcontrol/classify.ts';
import { MANDATORY_FLOW_SCHEMAS, SUGGESTED_FLOW_SCHEMAS } from '../../src/flowcontrol/bootstrap.ts';
import { parseRequestInfo } from '../../src/request/request-info.ts';

const bootstrapShares = [
  { name: 'catch-all', exempt: false, nominalConcurrencyShares: 5, lendablePercent: 0 },
  { name: 'exempt', exempt: true, nominalConcurrencyShares: 0, lendablePercent: 0 },
  { name: 'global-default', exempt: false, nominalConcurrencyShares: 20, lendablePercent: 50 },
  { name: 'leader-election', exempt: false, nominalConcurrencyShares: 10, lendablePercent: 0 },
  { name: 'node-high', exempt: false, nominalConcurrencyShares: 40, lendablePercent: 25 },
  { name: 'system', exempt: false, nominalConcurrencyShares: 30, lendablePercent: 33 },
  { name: 'workload-high', exempt: false, nominalConcurrencyShares: 40, lendablePercent: 50 },
  { name: 'workload-low', exempt: false, nominalConcurrencyShares: 100, lendablePercent: 90 },
];

describe('seat limits', () => {
  it('match kube-apiserver v1.32.4 for the bootstrap levels at ServerCL 600', () => {
    const l = levelLimits(bootstrapShares, 600);
    const pick = (k: 'nominalCL' | 'minCL' | 'maxCL') => Object.fromEntries([...l].map(([n, v]) => [n, v[k]]));
    // Read from the reference's /metrics: nominal_limit_seats, lower_limit_seats, upper_limit_seats.
    expect(pick('nominalCL')).toEqual({ 'catch-all': 13, exempt: 0, 'global-default': 49, 'leader-election': 25, 'node-high': 98, system: 74, 'workload-high': 98, 'workload-low': 245 });
    expect(pick('minCL')).toEqual({ 'catch-all': 13, exempt: 0, 'global-default': 24, 'leader-election': 25, 'node-high': 73, system: 50, 'workload-high': 49, 'workload-low': 24 });
    expect(pick('maxCL')).toEqual({ 'catch-all': 613, exempt: 600, 'global-default': 649, 'leader-election': 625, 'node-high': 698, system: 674, 'workload-high': 698, 'workload-low': 845 });
  });

  it('a borrowing limit caps the upper bound', () => {
    const l = levelLimits([{ name: 'a', exempt: false, nominalConcurrencyShares: 10, lendablePercent: 0, borrowingLimitPercent: 50 }], 100);
    expect(l.get('a')).toEqual({ nominalCL: 100, lendableCL: 0, minCL: 100, maxCL: 150 });
  });

  it('shares the server among targets by one fair fraction within each level\'s bounds', () => {
    // Idle levels (targets at their lower bounds) share 600 in proportion, as the reference's current_limit_seats do.
    const targets = [13, 24, 25, 73, 50, 49, 24];
    const { allocs, fairFrac } = allocate(targets.map((t) => ({ lower: t, upper: 600 + t, target: t })), 600);
    expect(fairFrac).toBeCloseTo(600 / 258, 6);
    expect(allocs).toEqual([30, 56, 58, 170, 116, 114, 56]);
    // A busy level takes what idle ones lend, but never more than its upper bound, and no level goes under its lower bound.
    const busy = allocate(
      [
        { lower: 10, upper: 40, target: 500 },
        { lower: 20, upper: 100, target: 20 },
      ],
      100,
    );
    expect(busy.allocs).toEqual([40, 60]);
  });
});

describe('classification', () => {
  const user = (username: string, groups: string[]) => ({ username, groups: [...groups, 'system:authenticated'], extra: {} });
  const get = (path: string, method = 'GET') => parseRequestInfo(method, path, new URLSearchParams());
  const schema = (name: string) => ([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS].find((s) => s.metadata?.name === name)!.spec as { rules?: unknown }).rules as never;

  it('matches subjects by user, group and service account (with `*`)', () => {
    expect(rulesMatch(schema('exempt'), user('admin', ['system:masters']), get('/api/v1/pods'))).toBe(true);
    expect(rulesMatch(schema('exempt'), user('bob', []), get('/api/v1/pods'))).toBe(false);
    expect(rulesMatch(schema('kube-system-service-accounts'), user('system:serviceaccount:kube-system:x', ['system:serviceaccounts']), get('/api/v1/namespaces/a/pods'))).toBe(true);
    expect(rulesMatch(schema('kube-system-service-accounts'), user('system:serviceaccount:default:x', ['system:serviceaccounts']), get('/api/v1/namespaces/a/pods'))).toBe(false);
    expect(rulesMatch(schema('kube-scheduler'), user('system:kube-scheduler', []), get('/apis'))).toBe(true);
  });

  it('matches resource rules by verb, group, resource/subresource and namespace or cluster scope', () => {
    const node = user('system:node:n1', ['system:nodes']);
    const rules = schema('system-node-high');
    expect(rulesMatch(rules, node, get('/api/v1/nodes/n1/status', 'PUT'))).toBe(true);
    expect(rulesMatch(rules, node, get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', 'PUT'))).toBe(true);
    // leases rule lists no clusterScope: a cluster-wide list does not match.
    expect(rulesMatch(rules, node, get('/apis/coordination.k8s.io/v1/leases'))).toBe(false);
    expect(rulesMatch(rules, node, get('/api/v1/pods'))).toBe(false);
    const le = schema('system-leader-election');
    const kcm = user('system:kube-controller-manager', []);
    expect(rulesMatch(le, kcm, get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x', 'PUT'))).toBe(true);
    expect(rulesMatch(le, kcm, get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x', 'DELETE'))).toBe(false);
  });

  it('matches non-resource rules exactly or by `/prefix/*`', () => {
    const anon = { username: 'system:anonymous', groups: ['system:unauthenticated'], extra: {} };
    expect(rulesMatch(schema('probes'), anon, get('/readyz'))).toBe(true);
    expect(rulesMatch(schema('probes'), anon, get('/readyz/etcd'))).toBe(false);
    expect(rulesMatch(schema('probes'), anon, get('/readyz', 'POST'))).toBe(false);
    const prefix = [{ subjects: [{ kind: 'Group', group: { name: '*' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/debug/*'] }] }];
    expect(rulesMatch(prefix, anon, get('/debug/api_priority_and_fairness/dump_queues'))).toBe(true);
    expect(rulesMatch(prefix, anon, get('/metrics'))).toBe(false);
  });

  it('distinguishes flows by user or namespace', () => {
    const u = user('bob', []);
    expect(flowDistinguisher('ByUser', u, get('/api/v1/namespaces/a/pods'))).toBe('bob');
    expect(flowDistinguisher('ByNamespace', u, get('/api/v1/namespaces/a/pods'))).toBe('a');
    expect(flowDistinguisher('ByNamespace', u, get('/metrics'))).toBe('');
    expect(flowDistinguisher(undefined, u, get('/api/v1/namespaces/a/pods'))).toBe('');
  });
});
