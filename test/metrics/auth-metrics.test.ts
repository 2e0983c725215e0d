/**
 * kube's authentication/authorization configuration metrics: the apiserver identity hash as kube
 * computes it, and counts recorded before the registry exists carried over when it registers.
 */
import { describe, expect, it } from 'vitest';
import { AuthMetrics, apiserverId, idHashOf } from '../../src/metrics/auth-metrics.ts';
import { MetricsRegistry } from '../../src/metrics/registry.ts';
import { AuthorizerChain, type Attributes } from '../../src/authz/authorizer.ts';
import { instrumented } from '../../src/authz/instrumented.ts';

describe('AuthMetrics', () => {
  it('hashes the apiserver identity as kube does (its own test vector)', () => {
    expect(idHashOf('testAPIServerID')).toBe('sha256:14f9d63e669337ac6bfda2e2162915ee6a6067743eddd4e5c374b572f951ff37');
    // A version-5 style UUID from the host name, stable for one host.
    expect(apiserverId('node-a')).toMatch(/^apiserver-[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(apiserverId('node-a')).toBe(apiserverId('node-a'));
    expect(apiserverId('node-a')).not.toBe(apiserverId('node-b'));
  });

  it('exposes reloads and decisions recorded before and after registration', async () => {
    const m = new AuthMetrics('sha256:x');
    m.recordReload('authentication', 'failure', 100);
    m.recordDecision('RBAC', 'rbac', 'allowed');
    const registry = new MetricsRegistry();
    m.register(registry);
    m.recordReload('authentication', 'failure', 200);
    m.recordReload('authorization', 'success', 300);
    m.recordDecision('RBAC', 'rbac', 'allowed');
    const text = await registry.expose();
    expect(text).toContain('apiserver_authentication_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:x",status="failure"} 2\n');
    expect(text).toContain('apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds{apiserver_id_hash="sha256:x",status="failure"} 200\n');
    expect(text).toContain('apiserver_authorization_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:x",status="success"} 1\n');
    expect(text).toContain('# HELP apiserver_authorization_decisions_total [ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.\n');
    expect(text).toContain('apiserver_authorization_decisions_total{decision="allowed",name="rbac",type="RBAC"} 2\n');
  });

  it('counts terminal decisions only (no opinion is not counted), through promises too', async () => {
    const m = new AuthMetrics('sha256:x');
    const registry = new MetricsRegistry();
    m.register(registry);
    const user = { username: 'u', groups: [], extra: {} };
    const attrs = { user, verb: 'get', isResourceRequest: false, path: '/x', apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' } as Attributes;
    const chain = new AuthorizerChain([
      instrumented({ authorize: () => ({ decision: 'noOpinion', reason: '' }) }, 'RBAC', 'rbac', m),
      instrumented({ authorize: async () => ({ decision: 'deny', reason: 'no' }) }, 'Webhook', 'hook', m),
    ]);
    expect((await chain.authorize(attrs)).decision).toBe('deny');
    // system:masters is allowed in front of the authorizers: nothing counted.
    expect((await chain.authorize({ ...attrs, user: { ...user, groups: ['system:masters'] } })).decision).toBe('allow');
    const text = await registry.expose();
    expect(text).toContain('apiserver_authorization_decisions_total{decision="denied",name="hook",type="Webhook"} 1\n');
    expect(text).not.toContain('name="rbac"');
  });
});
