/**
 * kube-apiserver's post-start hooks: bootstrap work (the default RBAC policy, system namespaces,
 * the APF bootstrap configuration) runs once the server listens, not before, so a start answers
 * sooner (issue 19). Until a hook has finished, its `poststarthook/<name>` check fails on
 * /healthz, /livez and /readyz, as kube's postStartHookHealthz reports "not finished".
 */

const RETRY_MS = 1000;

type Hook = { readonly name: string; readonly run: () => Promise<void> };

export class PostStartHooks {
  private readonly hooks: Hook[] = [];
  private readonly finished = new Set<string>();
  private all: Promise<void> | undefined;

  /** Registers a hook by its kube name (e.g. `rbac/bootstrap-roles`); run() starts them. */
  add(name: string, run: () => Promise<void>): void {
    if (this.all) throw new Error(`post-start hook ${name} added after the hooks started`);
    this.hooks.push({ name, run });
  }

  private stopped = false;

  /**
   * Starts every hook concurrently (once). A failing hook is reported by `fail` and retried every
   * RETRY_MS (kube's hooks poll until they succeed: a store hiccup must not leave /readyz failing
   * for good) until it succeeds or stop() is called.
   */
  run(fail: (name: string, err: Error) => void): Promise<void> {
    this.all ??= Promise.all(
      this.hooks.map(async (h) => {
        while (!this.stopped) {
          try {
            await h.run();
            this.finished.add(h.name);
            return;
          } catch (err) {
            if (this.stopped) return;
            fail(h.name, err instanceof Error ? err : new Error(String(err)));
            await new Promise((r) => setTimeout(r, RETRY_MS).unref());
          }
        }
      }),
    ).then(() => undefined);
    return this.all;
  }

  /** No hook is retried after this (shutdown); the running ones finish. */
  stop(): void {
    this.stopped = true;
  }

  /** Resolves once every hook started by run() has finished or failed. */
  done(): Promise<void> {
    return this.all ?? Promise.resolve();
  }

  /** The health check body for `poststarthook/<name>`: a hook registered here passes only once finished. */
  check(name: string): void {
    if (this.hooks.some((h) => h.name === name) && !this.finished.has(name)) throw new Error('not finished');
  }
}
