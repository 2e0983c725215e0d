/** The audit policy: kube's rule matching (first match wins), stages, managed fields, and the example file. */
import { describe, expect, it } from 'vitest';
import { AuditPolicy, type AuditAttributes } from '../../src/audit/policy.ts';

const EXAMPLE = new URL('../../config/audit-policy.example.yaml', import.meta.url).pathname;

const user = (username: string, groups: string[] = ['system:authenticated']) => ({ username, groups });
const res = (verb: string, resource: string, extra: Partial<AuditAttributes> = {}): AuditAttributes => ({
  user: user('alice'),
  verb,
  isResourceRequest: true,
  path: `/api/v1/${resource}`,
  apiGroup: '',
  resource,
  subresource: '',
  namespace: 'default',
  name: '',
  ...extra,
});
const path = (p: string, u = user('alice')): AuditAttributes => ({ user: u, verb: 'get', isResourceRequest: false, path: p, apiGroup: '', resource: '', subresource: '', namespace: '', name: '' });

describe('audit policy', () => {
  it('the example policy loads and decides as its comments say', () => {
    const p = AuditPolicy.load(EXAMPLE);
    expect(p.evaluate(path('/healthz')).level).toBe('None');
    expect(p.evaluate(path('/livez/ping')).level).toBe('None');
    expect(p.evaluate(res('get', 'secrets')).level).toBe('Metadata');
    expect(p.evaluate(res('create', 'serviceaccounts', { subresource: 'token' })).level).toBe('Metadata');
    expect(p.evaluate(res('create', 'serviceaccounts')).level).toBe('Request');
    expect(p.evaluate(res('get', 'roles', { apiGroup: 'rbac.authorization.k8s.io' })).level).toBe('RequestResponse');
    expect(p.evaluate(res('list', 'configmaps')).level).toBe('Metadata');
    expect(p.evaluate({ ...res('create', 'configmaps'), user: user('system:apiserver') }).level).toBe('None');
    const c = p.evaluate(res('create', 'configmaps'));
    expect([...c.omitStages]).toEqual(['RequestReceived']);
    expect(c.omitManagedFields).toBe(true);
  });

  it('matches groups, resource wildcards, resource names, cluster scope and URL prefixes', () => {
    const p = AuditPolicy.parse({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      omitStages: ['Panic'],
      rules: [
        { level: 'RequestResponse', userGroups: ['ops'], omitStages: ['RequestReceived'], omitManagedFields: false },
        { level: 'Request', resources: [{ group: '', resources: ['configmaps'], resourceNames: ['special'] }] },
        { level: 'Metadata', resources: [{ group: '', resources: ['*/status'] }] },
        { level: 'None', namespaces: [''] },
        { level: 'Metadata', nonResourceURLs: ['/apis/*'] },
        { level: 'Request', resources: [{ group: 'apps', resources: ['deployments/*'] }] },
      ],
    });
    const ops = p.evaluate({ ...res('get', 'configmaps'), user: user('bob', ['ops']) });
    expect(ops.level).toBe('RequestResponse');
    expect([...ops.omitStages].sort()).toEqual(['Panic', 'RequestReceived']);
    expect(p.evaluate(res('get', 'configmaps', { name: 'special' })).level).toBe('Request');
    expect(p.evaluate(res('get', 'configmaps', { name: 'other' })).level).toBe('None');
    expect(p.evaluate(res('update', 'namespaces', { subresource: 'status', namespace: '' })).level).toBe('Metadata');
    expect(p.evaluate(res('list', 'namespaces', { namespace: '' })).level).toBe('None');
    expect(p.evaluate(path('/apis/apps/v1')).level).toBe('Metadata');
    expect(p.evaluate(path('/api')).level).toBe('None');
    expect(p.evaluate(res('update', 'deployments', { apiGroup: 'apps', subresource: 'scale' })).level).toBe('Request');
    // kube matches `resource/*` for the resource itself too.
    expect(p.evaluate(res('update', 'deployments', { apiGroup: 'apps' })).level).toBe('Request');
    expect(p.evaluate(res('update', 'replicasets', { apiGroup: 'apps' })).level).toBe('None');
    // A request no rule matches is not audited.
    expect(p.evaluate(res('get', 'secrets')).level).toBe('None');
  });

  it('refuses bad documents naming each field', () => {
    expect(() => AuditPolicy.parse({ apiVersion: 'v1', kind: 'ConfigMap' }, 'p.yaml')).toThrow(
      'loading audit policy file "p.yaml": failed decoding: expected kind Policy in audit.k8s.io/v1, audit.k8s.io/v1beta1, audit.k8s.io/v1alpha1, got v1, Kind=ConfigMap',
    );
    expect(() =>
      AuditPolicy.parse({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{}, { level: 'Metadata', nonResourceURLs: ['/a*b'] }, { level: 'None', resources: [{ group: 'Bad_Group', resourceNames: ['x'] }] }] }, 'p.yaml'),
    ).toThrow(
      'loading audit policy file "p.yaml": rules[0].level: Required value; rules[1].nonResourceURLs[0]: Invalid value: "/a*b": non-resource URL rules may only use wildcards (\'*\') at the end; rules[2].resources[0].group: Invalid value: "Bad_Group": must be a valid DNS-1123 subdomain; rules[2].resources[0].resourceNames: Invalid value: []string{"x"}: using resourceNames requires at least one resource',
    );
  });
});
