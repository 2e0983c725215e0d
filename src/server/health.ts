/**
 * Health endpoints: /livez, /readyz, /healthz with named checks, `?verbose`, repeatable
 * `?exclude=`, and `/<endpoint>/<check>`, in kube-apiserver's text format.
 */
import type { HealthCheck } from '../metrics/slis.ts';


export interface HealthResult {
  readonly code: number;
  readonly body: string;
  /**
   * Whether the answer carries `X-Content-Type-Options: nosniff`: kube's root handlers and
   * http.Error set it, but a single check that passes writes its `ok` bare (adaptCheckToHandler).
   */
  readonly nosniff: boolean;
}

/** One health endpoint: a named, ordered set of checks. */
export class HealthEndpoint {
  constructor(
    readonly name: 'livez' | 'readyz' | 'healthz',
    private readonly checks: readonly HealthCheck[],
    /** Told each check's result when the root runs them (kube's healthcheck SLI metrics). */
    private readonly observe?: (check: string, endpoint: string, ok: boolean) => void,
  ) {}

  /** The paths this endpoint serves, as kube's root index lists them: itself and each check. */
  paths(): string[] {
    return [`/${this.name}`, ...this.checks.map((c) => `/${this.name}/${c.name}`)];
  }

  /** Runs the checks for `/<name>` (subPath empty) or `/<name>/<check>`; undefined for an unknown check. */
  async run(subPath: string, query: URLSearchParams): Promise<HealthResult | undefined> {
    if (subPath !== '') {
      const one = this.checks.find((c) => c.name === subPath);
      if (!one) return undefined;
      const err = await runCheck(one);
      return err === null ? { code: 200, body: 'ok', nosniff: false } : { code: 500, body: `internal server error: ${err}\n`, nosniff: true };
    }
    const excluded = new Set(query.getAll('exclude'));
    const verbose = query.has('verbose') && query.get('verbose') !== 'false';
    const lines: string[] = [];
    let failed = false;
    for (const c of this.checks) {
      if (excluded.has(c.name)) {
        excluded.delete(c.name);
        lines.push(`[+]${c.name} excluded: ok`);
        continue;
      }
      const err = await runCheck(c);
      this.observe?.(c.name, this.name, err === null);
      if (err === null) lines.push(`[+]${c.name} ok${c.detail ? ` (${c.detail()})` : ''}`);
      else {
        failed = true;
        lines.push(`[-]${c.name} failed: reason withheld`);
      }
    }
    for (const name of excluded) lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
    if (failed) return { code: 500, body: `${lines.join('\n')}\n${this.name} check failed\n`, nosniff: true };
    if (!verbose) return { code: 200, body: 'ok', nosniff: true };
    return { code: 200, body: `${lines.join('\n')}\n${this.name} check passed\n`, nosniff: true };
  }
}

async function runCheck(c: HealthCheck): Promise<string | null> {
  try {
    await c.check();
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * kube-apiserver v1.32's post-start hooks, in the order its health endpoints list them. Clients
 * read these names (Kubernetes' own e2e suite requires most of them in `/healthz?verbose` and
 * `/livez?verbose`). The bootstrap work this server runs after it listens (src/server/post-start-hooks.ts)
 * fails its check until finished; the rest is done before it listens, so those report ok once it
 * answers. The list keeps kube's names so that nothing reading the verbose output can tell the difference.
 */
export const kubePostStartHooks: readonly string[] = [
  'start-apiserver-admission-initializer',
  'generic-apiserver-start-informers',
  'priority-and-fairness-config-consumer',
  'priority-and-fairness-filter',
  'storage-object-count-tracker-hook',
  'start-apiextensions-informers',
  'start-apiextensions-controllers',
  'crd-informer-synced',
  'start-system-namespaces-controller',
  'start-cluster-authentication-info-controller',
  'start-kube-apiserver-identity-lease-controller',
  'start-kube-apiserver-identity-lease-garbage-collector',
  'start-legacy-token-tracking-controller',
  'start-service-ip-repair-controllers',
  'rbac/bootstrap-roles',
  'scheduling/bootstrap-system-priority-classes',
  'priority-and-fairness-config-producer',
  'bootstrap-controller',
  'start-kube-aggregator-informers',
  'apiservice-status-local-available-controller',
  'apiservice-status-remote-available-controller',
  'apiservice-registration-controller',
  'apiservice-discovery-controller',
  'kube-apiserver-autoregistration',
];

/** Checks that kube lists after the post-start hooks (the aggregator's autoregistration and OpenAPI controllers). */
const kubeTrailingChecks: readonly string[] = ['autoregister-completion', 'poststarthook/apiservice-openapi-controller', 'poststarthook/apiservice-openapiv3-controller'];

/**
 * The checks of one endpoint in kube-apiserver's order: ping, log, the store, readyz's readiness
 * checks, the post-start hooks, and readyz's shutdown check last.
 */
export function kubeHealthChecks(
  endpoint: 'livez' | 'readyz' | 'healthz',
  parts: {
    readonly store: HealthCheck;
    readonly storeReadiness: HealthCheck;
    readonly shutdown: HealthCheck;
    /** Throws while the named post-start hook has not finished. */
    readonly postStartHook?: (hook: string) => void;
  },
): HealthCheck[] {
  const ok = (name: string): HealthCheck => ({ name, check: () => {} });
  const checks: HealthCheck[] = [ok('ping'), ok('log'), parts.store];
  if (endpoint === 'readyz') checks.push(parts.storeReadiness, ok('informer-sync'));
  const hookCheck = parts.postStartHook;
  for (const hook of kubePostStartHooks) checks.push(hookCheck ? { name: `poststarthook/${hook}`, check: () => hookCheck(hook) } : ok(`poststarthook/${hook}`));
  for (const name of kubeTrailingChecks) checks.push(ok(name));
  if (endpoint === 'readyz') checks.push(parts.shutdown);
  return checks;
}
