/**
 * kube-apiserver's cached token authenticator: the union of the bearer-token steps sits behind a
 * cache of its answers, so a token seen lately costs a hash and a map lookup instead of a
 * signature check, an object lookup or a webhook call.
 *
 * As in kube (pkg/kubeapiserver/authenticator: token union wrapped with success TTL 10 s and
 * failure TTL 0):
 * - the key is an HMAC-SHA256, under a key drawn at startup, of the token and the audiences it is
 *   checked for (length-prefixed, so no two inputs collide); tokens themselves are not kept;
 * - an answer holds the user and the audiences; successes live `successTtlMs`, failures
 *   `failureTtlMs` (0: failures are never cached, so a bad token is looked at every time);
 * - the TTL is fixed: a token whose ServiceAccount, bound Secret or bootstrap Secret was just
 *   deleted, or whose issuer left the authentication configuration, keeps working until its
 *   entry expires, exactly as in kube-apiserver;
 * - identical lookups in flight share one call of the steps (kube's singleflight).
 * Unlike kube's cache, which is bounded only by its TTL, this one also holds at most `maxEntries`
 * (oldest dropped first), so a flood of distinct valid tokens cannot grow it without limit.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { UserInfo } from './types.ts';

/** The token steps' combined answer for one token. */
export type TokenUnionAnswer =
  | {
      readonly kind: 'authenticated';
      /** Already carrying system:authenticated (see withAuthenticatedGroup). */
      readonly user: UserInfo;
      /** The audiences the token is valid for, when the step that took it knows. */
      readonly audiences?: readonly string[];
    }
  | { readonly kind: 'unauthenticated'; readonly rejections: readonly TokenRejection[] };

/** One token step that recognised the token as its kind and refused it, and why (kube's error text). */
export interface TokenRejection {
  readonly step: string;
  readonly reason: string;
}

/**
 * The token steps as one function. `audiences` absent: the request path, where each step checks
 * the server's --api-audiences; present: a TokenReview's audiences.
 */
export type TokenUnion = (token: string, audiences?: readonly string[]) => Promise<TokenUnionAnswer>;

export interface TokenCacheOptions {
  /** --api-audiences: the audiences of the request path, part of its keys (as kube's request context carries them). */
  readonly apiAudiences: readonly string[];
  /** kube: 10 s. 0 with failureTtlMs 0: no cache at all. */
  readonly successTtlMs: number;
  /** kube: 0. */
  readonly failureTtlMs: number;
  /** Default 32768: kube sizes its cache for 5k nodes and 10k namespaces with a 2x margin. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

export const DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS = 10_000;
export const DEFAULT_TOKEN_FAILURE_CACHE_TTL_MS = 0;
const DEFAULT_MAX_ENTRIES = 32_768;
/** Expired entries at the old end looked at per insertion: keeps memory near the live set without a timer. */
const SWEEP_PER_INSERT = 4;

/** An answer and how long it may be reused (ms since the epoch on the cache's clock; 0: not cached). */
export interface TokenCacheEntry {
  readonly answer: TokenUnionAnswer;
  readonly until: number;
}

export interface CachedTokenUnion {
  /** The entry for a token: at once on a hit (no promise), else once the steps answered. */
  lookup(token: string, audiences?: readonly string[]): TokenCacheEntry | Promise<TokenCacheEntry>;
  /** The cache's clock, for callers that keep entries (the bearer step, per connection). */
  readonly now: () => number;
  /** Entries held now (expired ones included until swept); for tests. */
  size(): number;
}

export function cacheTokenUnion(union: TokenUnion, opts: TokenCacheOptions): CachedTokenUnion {
  const now = opts.now ?? Date.now;
  if (opts.successTtlMs <= 0 && opts.failureTtlMs <= 0) return { lookup: async (token, audiences) => ({ answer: await union(token, audiences), until: 0 }), now, size: () => 0 };
  const maxEntries = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const hmacKey = randomBytes(32);
  const entries = new Map<string, TokenCacheEntry>();
  const inflight = new Map<string, Promise<TokenCacheEntry>>();
  // The request path's audiences are the same for every request: their part of the key is encoded once.
  const apiAudiencesPart = encodeAudiences(opts.apiAudiences);

  const keyOf = (token: string, audiences: readonly string[] | undefined): string => {
    const h = createHmac('sha256', hmacKey);
    h.update(lengthPrefix(Buffer.byteLength(token)));
    h.update(token);
    h.update(audiences === undefined ? apiAudiencesPart : encodeAudiences(audiences));
    return h.digest('base64');
  };

  const remember = (key: string, answer: TokenUnionAnswer): TokenCacheEntry => {
    const ttl = answer.kind === 'authenticated' ? opts.successTtlMs : opts.failureTtlMs;
    if (ttl <= 0) return { answer, until: 0 };
    const t = now();
    entries.delete(key);
    let swept = 0;
    for (const [oldKey, old] of entries) {
      if (swept++ >= SWEEP_PER_INSERT || old.until > t) break;
      entries.delete(oldKey);
    }
    while (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
    const entry = { answer, until: t + ttl };
    entries.set(key, entry);
    return entry;
  };

  return {
    lookup(token, audiences) {
      const key = keyOf(token, audiences);
      const hit = entries.get(key);
      if (hit !== undefined) {
        if (hit.until > now()) return hit;
        entries.delete(key);
      }
      let pending = inflight.get(key);
      if (pending === undefined) {
        pending = union(token, audiences).then(
          (answer) => {
            inflight.delete(key);
            return remember(key, answer);
          },
          (err: unknown) => {
            inflight.delete(key);
            throw err;
          },
        );
        inflight.set(key, pending);
      }
      return pending;
    },
    now,
    size: () => entries.size,
  };
}

/** The audience list, count first, each length-prefixed: ["ab"] and ["a","b"] must not share a key. */
function encodeAudiences(audiences: readonly string[]): Buffer {
  const parts: Buffer[] = [lengthPrefix(audiences.length)];
  for (const a of audiences) parts.push(lengthPrefix(Buffer.byteLength(a)), Buffer.from(a));
  return Buffer.concat(parts);
}

function lengthPrefix(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}
