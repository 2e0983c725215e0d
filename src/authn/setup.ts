/**
 * Startup of the token methods named by AuthnFlags (src/authn/flags.ts): reads their files,
 * validates them (a bad file is a startup error naming the field), and returns the token steps
 * in kube-apiserver's order (bootstrap tokens, JWT authenticators, the webhook), the anonymous
 * rule of the configuration file, and what must be stopped at shutdown.
 */
import { readFile } from 'node:fs/promises';
import { AuthenticationConfigError, jwtSpecFromOidcFlags, parseAuthenticationConfig, type AuthenticationConfig } from './authentication-config.ts';
import type { AuthnFlags } from './flags.ts';
import { createJwtSet, watchAuthenticationConfig, type ConfigFileWatcher, type JwtSet } from './jwt-set.ts';
import type { TokenAuthenticator } from './types.ts';
import { createTokenWebhookAuthenticator, type TokenWebhookAuthenticator } from './token-webhook.ts';
import { loadWebhookKubeconfig, WebhookConfigError } from './webhook-client.ts';

export interface AuthnSetupOptions {
  readonly flags: AuthnFlags | undefined;
  readonly serviceAccountIssuers: readonly string[];
  readonly apiAudiences: readonly string[];
  /** --anonymous-auth as given (or defaulted). */
  readonly anonymousAuth: boolean;
  /** The bootstrap-token step, built by the caller when the flag is on (it needs the Secrets). */
  readonly bootstrap?: () => TokenAuthenticator;
  readonly reloadIntervalMs?: number;
  readonly log?: (message: string) => void;
  /** Counts reloads of --authentication-config (kube's automatic reload metrics). */
  readonly metrics?: { recordReload(subsystem: 'authentication', status: 'success' | 'failure'): void };
}

export interface AuthnSetup {
  readonly tokenAuthenticators: readonly TokenAuthenticator[];
  /** Anonymous access: off, on, or only for these paths (the configuration file's conditions). */
  readonly anonymous: boolean | { readonly paths: readonly string[] };
  readonly jwt?: JwtSet;
  readonly watcher?: ConfigFileWatcher;
  close(): void;
}

/** Thrown for a setup problem; the server turns it into a startup error. */
export class AuthnSetupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AuthnSetupError';
  }
}

export async function setupTokenAuthenticators(opts: AuthnSetupOptions): Promise<AuthnSetup> {
  const flags = opts.flags;
  const steps: TokenAuthenticator[] = [];
  const ctx = { serviceAccountIssuers: opts.serviceAccountIssuers };
  const jwtOptions = { apiAudiences: opts.apiAudiences, ...(opts.log ? { log: opts.log } : {}) };
  let anonymous: AuthnSetup['anonymous'] = opts.anonymousAuth;
  let jwt: JwtSet | undefined;
  let watcher: ConfigFileWatcher | undefined;

  if (flags?.enableBootstrapTokenAuth && opts.bootstrap) steps.push(opts.bootstrap());

  if (flags?.oidc) {
    const o = flags.oidc;
    const ca = o.caFile !== undefined ? await readText(o.caFile, '--oidc-ca-file') : undefined;
    const spec = wrap('oidc flags', () =>
      jwtSpecFromOidcFlags(
        {
          issuerUrl: o.issuerUrl,
          ...(o.clientId !== undefined ? { clientId: o.clientId } : {}),
          ...(o.usernameClaim !== undefined ? { usernameClaim: o.usernameClaim } : {}),
          ...(o.usernamePrefix !== undefined ? { usernamePrefix: o.usernamePrefix } : {}),
          ...(o.groupsClaim !== undefined ? { groupsClaim: o.groupsClaim } : {}),
          ...(o.groupsPrefix !== undefined ? { groupsPrefix: o.groupsPrefix } : {}),
          requiredClaims: o.requiredClaims,
          ...(ca !== undefined ? { ca } : {}),
          signingAlgs: o.signingAlgs,
        },
        ctx,
      ),
    );
    jwt = createJwtSet([spec], jwtOptions);
  } else if (flags?.authenticationConfigFile) {
    const path = flags.authenticationConfigFile;
    const text = await readText(path, '--authentication-config');
    const config: AuthenticationConfig = wrap(`--authentication-config ${path}`, () => parseAuthenticationConfig(text, ctx));
    if (config.anonymous) {
      if (flags.anonymousAuthGiven) throw new AuthnSetupError('anonymous is configured in the authentication configuration file and --anonymous-auth flag is set; only one may be used');
      anonymous = !config.anonymous.enabled ? false : config.anonymous.conditions.length > 0 ? { paths: config.anonymous.conditions.map((c) => c.path) } : true;
    }
    const set = createJwtSet(config.jwt, jwtOptions);
    jwt = set;
    const metrics = opts.metrics;
    watcher = watchAuthenticationConfig(path, text, ctx, (next) => set.replace(next.jwt), {
      ...(opts.reloadIntervalMs ? { intervalMs: opts.reloadIntervalMs } : {}),
      ...(opts.log ? { log: opts.log } : {}),
      ...(metrics ? { onReload: (status: 'success' | 'failure') => metrics.recordReload('authentication', status) } : {}),
    });
  }
  if (jwt) steps.push(jwt);

  let webhook: TokenWebhookAuthenticator | undefined;
  if (flags?.webhook) {
    const w = flags.webhook;
    let connection;
    try {
      connection = await loadWebhookKubeconfig(w.configFile);
    } catch (err) {
      if (err instanceof WebhookConfigError) throw new AuthnSetupError(`invalid --authentication-token-webhook-config-file: ${err.message}`, { cause: err });
      throw err;
    }
    webhook = createTokenWebhookAuthenticator({ connection, version: w.version, cacheTtlMs: w.cacheTtlMs, apiAudiences: opts.apiAudiences });
    steps.push(webhook);
  }

  return {
    tokenAuthenticators: steps,
    anonymous,
    ...(jwt ? { jwt } : {}),
    ...(watcher ? { watcher } : {}),
    close() {
      watcher?.close();
      jwt?.close();
      webhook?.close();
    },
  };
}

function wrap<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof AuthenticationConfigError) throw new AuthnSetupError(`invalid ${what}: ${err.message}`, { cause: err });
    throw err;
  }
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new AuthnSetupError(`cannot read ${flag} ${path}: ${(err as Error).message}`, { cause: err });
  }
}
