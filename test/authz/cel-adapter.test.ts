/**
 * The expression language's authorizer library over the real chain: RBAC decisions and reasons
 * for the request's user and for authorizer.serviceAccount(ns, name).
 */
import { describe, expect, it } from 'vitest';
import { compile, evaluate, isCompileError, authorizerValue, type CompiledExpression } from '../../src/cel/index.ts';
import { celAuthorizerFor } from '../../src/authz/cel-adapter.ts';
import { AuthorizerChain, type Authorizer } from '../../src/authz/authorizer.ts';
import { RbacAuthorizer } from '../../src/authz/rbac/authorizer.ts';
import { RbacIndex, bindingOf } from '../../src/authz/rbac/index.ts';

const env = { variables: { authorizer: { type: 'dyn' as const } } };
function program(expr: string): CompiledExpression {
  const c = compile(expr, env);
  if (isCompileError(c)) throw new Error(c.message);
  return c;
}

function chain(): Authorizer {
  const ix = new RbacIndex();
  ix.setClusterRole('deploy-reader', { rules: [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }] });
  ix.setBinding(bindingOf('RoleBinding', { metadata: { name: 'dana', namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: 'deploy-reader' }, subjects: [{ kind: 'User', name: 'dana' }] })!);
  ix.setBinding(bindingOf('ClusterRoleBinding', { metadata: { name: 'bots' }, roleRef: { kind: 'ClusterRole', name: 'deploy-reader' }, subjects: [{ kind: 'Group', name: 'system:serviceaccounts:ci' }] })!);
  return new AuthorizerChain([new RbacAuthorizer(ix)]);
}

describe('authorizer library on the chain', () => {
  const dana = celAuthorizerFor(chain(), { username: 'dana', groups: ['system:authenticated'], extra: {} });
  const run = (expr: string) => evaluate(program(expr), { authorizer: authorizerValue(dana) });

  it('checks resources in a namespace for the request user, with RBAC\'s reason', () => {
    expect(run("authorizer.group('apps').resource('deployments').namespace('ns').name('web').check('get').allowed()")).toMatchObject({ kind: 'value', value: true });
    expect(run("authorizer.group('apps').resource('deployments').namespace('other').check('get').allowed()")).toMatchObject({ kind: 'value', value: false });
    expect(run("authorizer.group('apps').resource('deployments').namespace('ns').check('get').reason()")).toMatchObject({
      kind: 'value',
      value: 'RBAC: allowed by RoleBinding "dana/ns" of ClusterRole "deploy-reader" to User "dana"',
    });
  });

  it('checks paths, and service accounts by their groups', () => {
    expect(run("authorizer.path('/healthz').check('get').allowed()")).toMatchObject({ kind: 'value', value: false });
    expect(run("authorizer.serviceAccount('ci', 'builder').path('/healthz').check('get').allowed()")).toMatchObject({ kind: 'value', value: true });
    expect(run("authorizer.serviceAccount('cd', 'builder').group('apps').resource('deployments').check('get').allowed()")).toMatchObject({ kind: 'value', value: false });
  });

  it('a service account is not in system:authenticated for the library (serviceaccount.UserInfo), in admission too', async () => {
    const ix = new RbacIndex();
    ix.setClusterRole('reader', { rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] });
    ix.setBinding(bindingOf('ClusterRoleBinding', { metadata: { name: 'all' }, roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'Group', name: 'system:authenticated' }] })!);
    const a = new AuthorizerChain([new RbacAuthorizer(ix)]);
    const { celAuthorizerFor: admissionAuthorizerFor } = await import('../../src/admission/cel-authorizer.ts');
    for (const make of [celAuthorizerFor, admissionAuthorizerFor]) {
      const user = make(a, { username: 'dana', groups: ['system:authenticated'], extra: {} });
      const check = (expr: string) => evaluate(program(expr), { authorizer: authorizerValue(user) });
      expect(check("authorizer.path('/x').check('get').allowed()")).toMatchObject({ kind: 'value', value: true });
      expect(check("authorizer.serviceAccount('ci', 'builder').path('/x').check('get').allowed()")).toMatchObject({ kind: 'value', value: false });
    }
  });
});
