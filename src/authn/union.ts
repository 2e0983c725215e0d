/**
 * The authentication gate assembled from its steps, in the order kube-apiserver uses: the
 * authenticating proxy, client certificate, then bearer tokens; the first step that authenticates decides; any rejection
 * (an unknown bearer token, a certificate that does not verify) fails the request with 401;
 * a request no step claimed is anonymous when that is enabled, else 401.
 */
import { errors } from '../api/status-errors.ts';
import { anonymousUser } from './anonymous.ts';
import { createBearerTokenAuthenticator, reviewToken, unionOfTokenSteps, withAuthenticatedGroup, type TokenReviewOutcome } from './bearer-token.ts';
import { cacheTokenUnion, DEFAULT_TOKEN_FAILURE_CACHE_TTL_MS, DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS, type TokenCacheOptions } from './token-cache.ts';
export { withAuthenticatedGroup };
import { createTokenFileAuthenticator, loadTokenFile } from './token-file.ts';
import {
  type AuthnOutcome,
  type AuthRequest,
  type AuthResult,
  type Authenticator,
  type RequestAuthenticator,
  type TokenAuthenticator,
  type UserInfo,
} from './types.ts';
import { createX509Authenticator } from './x509.ts';
import { createRequestHeaderAuthenticator, type RequestHeaderOptions } from './request-header.ts';

export interface AuthenticatorOptions {
  /** The authenticating proxy (--requestheader-*); first in the union, as in kube. */
  readonly requestHeader?: RequestHeaderOptions;
  /** PEM bundles of client CAs (contents, not paths). Absent or empty: no certificate authentication. */
  readonly clientCa?: readonly string[];
  /** Path of a static token CSV file, read once now; a bad file throws. */
  readonly tokenFile?: string;
  /** Treat requests without credentials as system:anonymous: always, or only on these paths (the authentication configuration's conditions). */
  readonly anonymous: boolean | { readonly paths: readonly string[] };
  /** Further token steps (service accounts, webhooks), tried after the token file. */
  readonly tokenAuthenticators?: readonly TokenAuthenticator[];
  /** --api-audiences: part of the token cache's keys on the request path. */
  readonly apiAudiences?: readonly string[];
  /** kube's token cache in front of the token steps; default success 10 s, failure 0 (token-cache.ts). */
  readonly tokenCache?: Partial<Omit<TokenCacheOptions, 'apiAudiences'>>;
  /** Receives non-fatal findings such as duplicate tokens. */
  readonly warn?: (message: string) => void;
}

/** The gate plus a TokenReview entry point over the same token steps. */
export interface ServerAuthenticator extends Authenticator {
  /** Reviews one bearer token for `audiences` (a TokenReview), with the token steps of the gate. */
  reviewToken(token: string, audiences: readonly string[]): Promise<TokenReviewOutcome>;
}

/** Builds the gate from flags-level options. Throws when the token file cannot be read or parsed. */
export function createAuthenticator(opts: AuthenticatorOptions): ServerAuthenticator {
  const steps: RequestAuthenticator[] = [];
  if (opts.requestHeader && opts.requestHeader.clientCa.length > 0) steps.push(createRequestHeaderAuthenticator(opts.requestHeader));
  if (opts.clientCa && opts.clientCa.length > 0) steps.push(createX509Authenticator({ clientCa: opts.clientCa }));
  const tokenSteps: TokenAuthenticator[] = [];
  if (opts.tokenFile !== undefined) {
    const { users, warnings } = loadTokenFile(opts.tokenFile);
    for (const w of warnings) opts.warn?.(w);
    tokenSteps.push(createTokenFileAuthenticator(users));
  }
  tokenSteps.push(...(opts.tokenAuthenticators ?? []));
  const tokens = cacheTokenUnion(unionOfTokenSteps(tokenSteps), {
    successTtlMs: DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS,
    failureTtlMs: DEFAULT_TOKEN_FAILURE_CACHE_TTL_MS,
    ...opts.tokenCache,
    apiAudiences: opts.apiAudiences ?? [],
  });
  // Even with no token steps a bearer token must be looked at: it is invalid, hence 401, not anonymous.
  steps.push(createBearerTokenAuthenticator(tokens));
  const gate = composeAuthenticators(steps, { anonymous: opts.anonymous });
  return { authenticate: (req) => gate.authenticate(req), reviewToken: (token, audiences) => reviewToken(tokens, token, audiences) };
}

/** Composes request steps in the given order into the gate (see the file comment for the rules). */
export function composeAuthenticators(steps: readonly RequestAuthenticator[], opts: { readonly anonymous: AuthenticatorOptions['anonymous'] }): Authenticator {
  const anonymousPaths = typeof opts.anonymous === 'object' ? new Set(opts.anonymous.paths) : undefined;
  const conclude = (req: AuthRequest, reasons: readonly string[]): AuthResult => {
    if (reasons.length > 0) return { ok: false, error: errors.unauthorized(), reason: reasons.join('; ') };
    if (anonymousPaths ? req.path !== undefined && anonymousPaths.has(req.path) : opts.anonymous) return { ok: true, user: anonymousUser };
    return { ok: false, error: errors.unauthorized(), reason: 'no credentials and anonymous access is disabled' };
  };
  /** Steps from `from` on; synchronous while the steps are (the common case: a certificate, a cached token). */
  const run = (req: AuthRequest, from: number, reasons: string[]): AuthResult | Promise<AuthResult> => {
    for (let i = from; i < steps.length; i++) {
      const step = steps[i]!;
      const outcome = step.authenticate(req);
      if (outcome instanceof Promise) return outcome.then((o) => settle(req, i, o, reasons) ?? run(req, i + 1, reasons));
      const done = settle(req, i, outcome, reasons);
      if (done) return done;
    }
    return conclude(req, reasons);
  };
  /** The result when step `i` decided, else undefined (its rejection, if any, noted). */
  const settle = (req: AuthRequest, i: number, outcome: AuthnOutcome, reasons: string[]): AuthResult | undefined => {
    if (outcome.kind === 'authenticated') return { ok: true, user: withAuthenticatedGroup(outcome.user) };
    if (outcome.kind === 'rejected') reasons.push(`${steps[i]!.name}: ${outcome.reason}`);
    return undefined;
  };
  return { authenticate: (req) => run(req, 0, []) };
}
