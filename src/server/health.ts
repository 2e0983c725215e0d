/**
 * Health endpoints: /livez, /readyz, /healthz with named checks, `?verbose`, repeatable
 * `?exclude=`, and `/<endpoint>/<check>`, in kube-apiserver's text format.
 */

export type HealthCheck = { readonly name: string; check(): Promise<void> | void };

export interface HealthResult {
  readonly code: number;
  readonly body: string;
}

/** One health endpoint: a named, ordered set of checks. */
export class HealthEndpoint {
  constructor(
    readonly name: 'livez' | 'readyz' | 'healthz',
    private readonly checks: readonly HealthCheck[],
  ) {}

  /** Runs the checks for `/<name>` (subPath empty) or `/<name>/<check>`; undefined for an unknown check. */
  async run(subPath: string, query: URLSearchParams): Promise<HealthResult | undefined> {
    if (subPath !== '') {
      const one = this.checks.find((c) => c.name === subPath);
      if (!one) return undefined;
      const err = await runCheck(one);
      return err === null ? { code: 200, body: 'ok' } : { code: 500, body: `internal server error: ${err}\n` };
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
      if (err === null) lines.push(`[+]${c.name} ok`);
      else {
        failed = true;
        lines.push(`[-]${c.name} failed: reason withheld`);
      }
    }
    for (const name of excluded) lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
    if (failed) return { code: 500, body: `${lines.join('\n')}\n${this.name} check failed\n` };
    if (!verbose) return { code: 200, body: 'ok' };
    return { code: 200, body: `${lines.join('\n')}\n${this.name} check passed\n` };
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
