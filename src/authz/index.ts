/**
 * Builds the configured authorizer chain: from `--authorization-mode` and the mode flags
 * (ABAC's policy file, the webhook's kubeconfig), or from `--authorization-config`, whose file is
 * watched and re-read every 60 s; a file that no longer loads keeps the last good chain and is
 * reported.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { alwaysAllow, alwaysDeny, AuthorizerChain, type Attributes, type Authorizer, type Decision, type MaybePromise, type RulesResult } from './authorizer.ts';
import { DEFAULT_AUTHORIZATION_MODES, type AuthorizationMode } from './modes.ts';
import { RbacAuthorizer } from './rbac/authorizer.ts';
import type { RbacIndex } from './rbac/index.ts';
import { AbacAuthorizer, parseAbacPolicies } from './abac.ts';
import { loadWebhookKubeconfig, WebhookAuthorizer } from './webhook.ts';
import { parseAuthorizationConfiguration, type AuthorizerSpec } from './config-file.ts';
import type { RequestUser } from '../request/user.ts';
import { instrumented, type DecisionRecorder } from './instrumented.ts';

/** Where decisions and reloads are counted (src/metrics/auth-metrics.ts's AuthMetrics). */
export interface AuthorizationMetrics extends DecisionRecorder {
  recordReload(subsystem: 'authorization', status: 'success' | 'failure'): void;
}

export interface AuthorizationSettings {
  readonly modes?: readonly AuthorizationMode[];
  readonly policyFile?: string;
  readonly webhookConfigFile?: string;
  readonly webhookVersion?: 'v1' | 'v1beta1';
  readonly webhookAuthorizedTtlMs?: number;
  readonly webhookUnauthorizedTtlMs?: number;
  /** --authorization-config; when set the mode flags are not used. */
  readonly configFile?: string;
  /** How often the configuration file is re-read besides on change (kube: 60 s). */
  readonly reloadIntervalMs?: number;
  readonly metrics?: AuthorizationMetrics;
  /** The AuthorizeWithSelectors gate: webhooks are sent the selectors of lists, watches and reviews (on unless false). */
  readonly selectors?: boolean;
}

export interface BuiltAuthorizer {
  readonly authorizer: Authorizer;
  close(): void;
}

/** kube's webhook timeout in the flag form. */
const FLAG_WEBHOOK_TIMEOUT_MS = 30_000;

/** Builds the chain; throws an Error with the problem (a bad policy file, kubeconfig or configuration). */
export function buildAuthorizer(settings: AuthorizationSettings, rbac: RbacIndex, report: (msg: string) => void = () => undefined): BuiltAuthorizer {
  if (settings.configFile !== undefined) return ReloadingAuthorizer.start(settings.configFile, rbac, report, settings.reloadIntervalMs ?? 60_000, { metrics: settings.metrics, selectors: settings.selectors !== false });
  const closers: Array<() => void> = [];
  const modes = settings.modes ?? DEFAULT_AUTHORIZATION_MODES;
  const chain = new AuthorizerChain(
    modes.map((mode): Authorizer => instrumented(modeAuthorizer(mode), mode, mode.toLowerCase(), settings.metrics)),
  );
  return { authorizer: chain, close: () => closers.forEach((c) => c()) };

  function modeAuthorizer(mode: AuthorizationMode): Authorizer {
    switch (mode) {
      case 'AlwaysAllow':
        return alwaysAllow;
      case 'AlwaysDeny':
        return alwaysDeny;
      case 'RBAC':
        return new RbacAuthorizer(rbac);
      case 'ABAC': {
        const path = settings.policyFile!;
        let text: string;
        try {
          text = readFileSync(path, 'utf8');
        } catch (err) {
          throw new Error(`error reading policy file ${path}: ${(err as Error).message}`);
        }
        return new AbacAuthorizer(parseAbacPolicies(text, path));
      }
      case 'Webhook': {
        const w = new WebhookAuthorizer({
          connection: loadWebhookKubeconfig(settings.webhookConfigFile!),
          version: settings.webhookVersion ?? 'v1beta1',
          authorizedTtlMs: settings.webhookAuthorizedTtlMs ?? 5 * 60_000,
          unauthorizedTtlMs: settings.webhookUnauthorizedTtlMs ?? 30_000,
          timeoutMs: FLAG_WEBHOOK_TIMEOUT_MS,
          // The flag form has no failure policy: a failed call is no opinion (with its error).
          failurePolicy: 'NoOpinion',
          selectors: settings.selectors !== false,
        });
        closers.push(() => w.close());
        return w;
      }
    }
  }
}

/** What every chain of a configuration file is built with. */
interface ChainOptions {
  readonly metrics: AuthorizationMetrics | undefined;
  readonly selectors: boolean;
}

/** One chain from an AuthorizationConfiguration's authorizers; `close` releases its webhooks' connections. */
function chainOf(specs: readonly AuthorizerSpec[], rbac: RbacIndex, opts: ChainOptions): BuiltAuthorizer {
  const closers: Array<() => void> = [];
  const chain = new AuthorizerChain(specs.map((s) => instrumented(specAuthorizer(s), s.type, s.name, opts.metrics)));
  return { authorizer: chain, close: () => closers.forEach((c) => c()) };

  function specAuthorizer(s: AuthorizerSpec): Authorizer {
    switch (s.type) {
      case 'AlwaysAllow':
        return alwaysAllow;
      case 'AlwaysDeny':
        return alwaysDeny;
      case 'RBAC':
        return new RbacAuthorizer(rbac);
      case 'Webhook': {
        const w = s.webhook!;
        const hook = new WebhookAuthorizer({
          connection: loadWebhookKubeconfig(w.kubeConfigFile),
          version: w.subjectAccessReviewVersion,
          authorizedTtlMs: w.cacheAuthorizedRequests ? w.authorizedTtlMs : 0,
          unauthorizedTtlMs: w.cacheUnauthorizedRequests ? w.unauthorizedTtlMs : 0,
          timeoutMs: w.timeoutMs,
          failurePolicy: w.failurePolicy,
          matchConditions: w.matchConditions,
          selectors: opts.selectors,
        });
        closers.push(() => hook.close());
        return hook;
      }
    }
  }
}

/**
 * The chain of an AuthorizationConfiguration file, swapped whole when the file changes (and
 * re-read every interval, as kube does, for file systems that do not notify). Requests in flight
 * finish with the chain they started with.
 */
class ReloadingAuthorizer implements Authorizer, BuiltAuthorizer {
  private current: BuiltAuthorizer;
  private lastText: string;
  private watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;

  static start(path: string, rbac: RbacIndex, report: (msg: string) => void, intervalMs: number, opts: ChainOptions): ReloadingAuthorizer {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new Error(`failed to read authorization configuration file ${JSON.stringify(path)}: ${(err as Error).message}`);
    }
    return new ReloadingAuthorizer(path, rbac, report, intervalMs, chainOf(parseAuthorizationConfiguration(text, path), rbac, opts), text, opts);
  }

  private constructor(
    private readonly path: string,
    private readonly rbac: RbacIndex,
    private readonly report: (msg: string) => void,
    intervalMs: number,
    initial: BuiltAuthorizer,
    text: string,
    private readonly opts: ChainOptions,
  ) {
    this.current = initial;
    this.lastText = text;
    this.timer = setInterval(() => this.reload(), intervalMs);
    this.timer.unref();
    try {
      // Editors and writeFile truncate, then write: read once the writes have settled.
      let settle: NodeJS.Timeout | undefined;
      this.watcher = watch(path, { persistent: false }, () => {
        clearTimeout(settle);
        settle = setTimeout(() => this.reload(), 100);
        settle.unref();
      });
      this.watcher.on('error', () => undefined); // the interval still re-reads
    } catch {
      this.watcher = undefined;
    }
  }

  get authorizer(): Authorizer {
    return this;
  }

  authorize(attrs: Attributes): MaybePromise<Decision> {
    return this.current.authorizer.authorize(attrs);
  }

  rulesFor(user: RequestUser, namespace: string): RulesResult {
    return this.current.authorizer.rulesFor!(user, namespace);
  }

  /** Re-reads the file; an unchanged file is left alone, a bad one reported and ignored. */
  reload(): void {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      this.report(`error reading authorization configuration file ${this.path}: ${(err as Error).message}; keeping the last good configuration`);
      this.opts.metrics?.recordReload('authorization', 'failure');
      return;
    }
    if (text === this.lastText) return;
    let next: BuiltAuthorizer;
    try {
      next = chainOf(parseAuthorizationConfiguration(text, this.path), this.rbac, this.opts);
    } catch (err) {
      this.lastText = text; // report a bad file once, not every interval
      this.report(`${(err as Error).message}; keeping the last good configuration`);
      this.opts.metrics?.recordReload('authorization', 'failure');
      return;
    }
    this.opts.metrics?.recordReload('authorization', 'success');
    const old = this.current;
    this.current = next;
    this.lastText = text;
    // Let calls already made through the old chain finish before its connections go.
    setTimeout(() => old.close(), 35_000).unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.watcher?.close();
    this.current.close();
  }
}
