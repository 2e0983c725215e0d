/**
 * Webhook token authentication, as kube-apiserver's webhook token authenticator: each bearer
 * token the local steps did not know is POSTed as a TokenReview (v1beta1 by default, or v1) with
 * the audiences wanted; the answer's `status` decides. Answers are cached for the cache TTL,
 * authenticated or not (transport errors are not answers and are not cached); identical tokens
 * in flight share one call. Transport errors and 5xx answers are retried with backoff.
 */
import { createHash } from 'node:crypto';
import { WebhookClient, type WebhookConnection } from './webhook-client.ts';
import type { AuthnOutcome, TokenAuthenticator, TokenContext, UserInfo } from './types.ts';

export interface TokenWebhookOptions {
  readonly connection: WebhookConnection;
  readonly version: 'v1' | 'v1beta1';
  readonly cacheTtlMs: number;
  /** --api-audiences: what the token must be good for when a request names no audiences. */
  readonly apiAudiences: readonly string[];
  /** First retry delay (kube: 500 ms, factor 1.5, 5 tries). */
  readonly initialBackoffMs?: number;
  readonly retries?: number;
  readonly now?: () => number;
}

const MAX_CACHED = 8192;

export interface TokenWebhookAuthenticator extends TokenAuthenticator {
  close(): void;
}

export function createTokenWebhookAuthenticator(opts: TokenWebhookOptions): TokenWebhookAuthenticator {
  const client = new WebhookClient(opts.connection);
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { outcome: AuthnOutcome; until: number }>();
  const inflight = new Map<string, Promise<AuthnOutcome>>();
  const apiVersion = `authentication.k8s.io/${opts.version}`;
  const retries = opts.retries ?? 4;
  const initialBackoff = opts.initialBackoffMs ?? 500;

  async function call(token: string, audiences: readonly string[]): Promise<{ outcome: AuthnOutcome; cacheable: boolean }> {
    const review = { apiVersion, kind: 'TokenReview', metadata: { creationTimestamp: null }, spec: { token, ...(audiences.length > 0 ? { audiences } : {}) }, status: { user: {} } };
    let delay = initialBackoff;
    let lastError = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        await new Promise((r) => setTimeout(r, delay));
        delay *= 1.5;
      }
      let res;
      try {
        res = await client.post(review);
      } catch (err) {
        lastError = `Post "${opts.connection.server}": ${(err as Error).message}`;
        continue;
      }
      if (res.status >= 500) {
        lastError = `the server responded with the status code ${res.status}`;
        continue;
      }
      if (res.status < 200 || res.status >= 300) return { outcome: { kind: 'rejected', reason: `webhook returned ${res.status}` }, cacheable: false };
      return { outcome: interpret(res.json, audiences), cacheable: true };
    }
    return { outcome: { kind: 'rejected', reason: `webhook call failed: ${lastError}` }, cacheable: false };
  }

  /** The review's status as an outcome; audiences the webhook names must meet the ones wanted. */
  function interpret(json: unknown, wanted: readonly string[]): AuthnOutcome {
    const status = asRecord(asRecord(json)?.status);
    if (!status) return { kind: 'rejected', reason: 'webhook: the response is not a TokenReview' };
    if (status.authenticated !== true) {
      // Without an error text the request fails with the generic Unauthorized (no reason of its own).
      return { kind: 'rejected', reason: typeof status.error === 'string' && status.error !== '' ? status.error : 'webhook: token not authenticated' };
    }
    const u = asRecord(status.user) ?? {};
    const username = typeof u.username === 'string' ? u.username : '';
    let audiences: readonly string[] | undefined;
    if (wanted.length > 0) {
      const got = Array.isArray(status.audiences) && status.audiences.length > 0 ? (status.audiences as unknown[]).filter((a): a is string => typeof a === 'string') : opts.apiAudiences;
      audiences = wanted.filter((a) => got.includes(a));
      if (audiences.length === 0) return { kind: 'rejected', reason: 'webhook: the token is not valid for the requested audiences' };
    }
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(asRecord(u.extra) ?? {})) if (Array.isArray(v)) extra[k] = v.filter((x): x is string => typeof x === 'string');
    const user: UserInfo = {
      username,
      ...(typeof u.uid === 'string' && u.uid !== '' ? { uid: u.uid } : {}),
      groups: Array.isArray(u.groups) ? u.groups.filter((g): g is string => typeof g === 'string') : [],
      extra,
    };
    return { kind: 'authenticated', user, ...(audiences ? { audiences } : {}) };
  }

  return {
    name: 'webhook',
    async authenticateToken(token: string, context?: TokenContext): Promise<AuthnOutcome> {
      const audiences = context?.audiences && context.audiences.length > 0 ? context.audiences : opts.apiAudiences;
      const key = createHash('sha256').update(token).update('\0').update(audiences.join('\0')).digest('base64');
      const t = now();
      const hit = cache.get(key);
      if (hit && hit.until > t) return hit.outcome;
      let pending = inflight.get(key);
      if (!pending) {
        pending = call(token, audiences).then(({ outcome, cacheable }) => {
          if (cacheable && opts.cacheTtlMs > 0) {
            if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
            cache.set(key, { outcome, until: now() + opts.cacheTtlMs });
          }
          return outcome;
        });
        inflight.set(key, pending);
        void pending.finally(() => inflight.delete(key));
      }
      return pending;
    },
    close: () => client.close(),
  };
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
