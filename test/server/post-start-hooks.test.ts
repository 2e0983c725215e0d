/**
 * Post-start hooks (issue 19): bootstrap work runs after the server listens; until a hook has
 * finished, its `poststarthook/<name>` check fails on /readyz, /livez and /healthz, as kube's do.
 */
import { expect, test } from 'vitest';
import { PostStartHooks } from '../../src/server/post-start-hooks.ts';
import { HealthEndpoint, kubeHealthChecks } from '../../src/server/health.ts';

function endpoints(hooks: PostStartHooks) {
  const parts = {
    store: { name: 'etcd', check: () => {} },
    storeReadiness: { name: 'etcd-readiness', check: () => {} },
    shutdown: { name: 'shutdown', check: () => {} },
    postStartHook: (hook: string) => hooks.check(hook),
  };
  return (['readyz', 'livez', 'healthz'] as const).map((name) => new HealthEndpoint(name, kubeHealthChecks(name, parts)));
}

test('a hook that has not finished fails its check on every health endpoint, then passes', async () => {
  const hooks = new PostStartHooks();
  let finish!: () => void;
  hooks.add('rbac/bootstrap-roles', () => new Promise<void>((r) => (finish = r)));
  const all = endpoints(hooks);
  const running = hooks.run(() => {});
  for (const ep of all) {
    const root = await ep.run('', new URLSearchParams('verbose'));
    expect(root?.code).toBe(500);
    expect(root?.body).toContain('[-]poststarthook/rbac/bootstrap-roles failed: reason withheld');
    // Hooks this server does not defer report ok.
    expect(root?.body).toContain('[+]poststarthook/start-apiextensions-controllers ok');
    const one = await ep.run('poststarthook/rbac/bootstrap-roles', new URLSearchParams());
    expect(one).toEqual({ code: 500, body: 'internal server error: not finished\n', nosniff: true });
  }
  finish();
  await running;
  await hooks.done();
  for (const ep of all) expect((await ep.run('', new URLSearchParams()))?.code).toBe(200);
});

test('a failing hook is reported and retried until it succeeds', async () => {
  const hooks = new PostStartHooks();
  let attempts = 0;
  hooks.add('start-system-namespaces-controller', async () => {
    attempts++;
    if (attempts === 1) throw new Error('store unavailable');
  });
  const failures: string[] = [];
  await hooks.run((name, err) => failures.push(`${name}: ${err.message}`));
  expect(failures).toEqual(['start-system-namespaces-controller: store unavailable']);
  expect(attempts).toBe(2);
  expect(() => hooks.check('start-system-namespaces-controller')).not.toThrow();
});

test('after stop() a failing hook is not retried and stays unfinished', async () => {
  const hooks = new PostStartHooks();
  let attempts = 0;
  hooks.add('priority-and-fairness-config-producer', async () => {
    attempts++;
    hooks.stop();
    throw new Error('store is closed');
  });
  await hooks.run(() => {});
  expect(attempts).toBe(1);
  expect(() => hooks.check('priority-and-fairness-config-producer')).toThrow('not finished');
});
