/**
 * `Authorization: Bearer <token>`: finds the token and asks the token steps, as one union (behind
 * kube's token cache, token-cache.ts). A bearer token that no step knows is rejected (401), never
 * downgraded to anonymous.
 */
import type { CachedTokenUnion, TokenCacheEntry, TokenRejection, TokenUnion, TokenUnionAnswer } from './token-cache.ts';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, type AuthnOutcome, type AuthRequest, type RequestAuthenticator, type TokenAuthenticator, type UserInfo } from './types.ts';

/** The bearer token of a request, or undefined when there is none (other schemes, e.g. Basic, count as none). */
export function bearerTokenOf(headers: AuthRequest['headers']): string | undefined {
  const header = headers.authorization;
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (!value) return undefined;
  // Same split as kube: scheme, token, and anything after a second space is ignored.
  const schemeEnd = value.indexOf(' ');
  if (schemeEnd !== 6 || value.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  const tokenEnd = value.indexOf(' ', 7);
  const token = tokenEnd === -1 ? value.slice(7) : value.slice(7, tokenEnd);
  return token === '' ? undefined : token;
}

/**
 * The token steps in order as one union: the first step that authenticates decides (its user gets
 * system:authenticated here, once, so cached answers carry it); otherwise every rejection is kept.
 */
export function unionOfTokenSteps(tokenSteps: readonly TokenAuthenticator[]): TokenUnion {
  return async (token, audiences) => {
    const rejections: TokenRejection[] = [];
    for (const step of tokenSteps) {
      const outcome = await step.authenticateToken(token, audiences ? { audiences } : undefined);
      if (outcome.kind === 'authenticated') {
        const user = withAuthenticatedGroup(outcome.user);
        return outcome.audiences ? { kind: 'authenticated', user, audiences: outcome.audiences } : { kind: 'authenticated', user };
      }
      if (outcome.kind === 'rejected') rejections.push({ step: step.name, reason: outcome.reason });
    }
    return { kind: 'unauthenticated', rejections };
  };
}

const NO_CREDENTIALS: AuthnOutcome = Object.freeze({ kind: 'no-credentials' });

/**
 * The request step over the cached token union. Each connection remembers the Authorization
 * header it last authenticated and that header's cache entry: the same header again, while the
 * entry lives, is answered without parsing or hashing (clients send one token per connection).
 * The entry's expiry still rules, so nothing is accepted longer than the cache would accept it.
 */
export function createBearerTokenAuthenticator(tokens: CachedTokenUnion): RequestAuthenticator {
  const lastByConnection = new WeakMap<object, { readonly header: string; readonly entry: TokenCacheEntry }>();
  const outcomeOf = (connection: object | undefined, header: unknown, entry: TokenCacheEntry): AuthnOutcome => {
    if (connection !== undefined && typeof header === 'string' && entry.until > 0) lastByConnection.set(connection, { header, entry });
    const answer = entry.answer;
    if (answer.kind === 'authenticated') return answer;
    const reasons = answer.rejections.map((r) => `${r.step}: ${r.reason}`);
    return { kind: 'rejected', reason: reasons.length > 0 ? reasons.join('; ') : 'invalid bearer token' };
  };
  return {
    name: 'bearer-token',
    authenticate(req) {
      const header = req.headers.authorization;
      const connection = req.connection;
      if (connection !== undefined) {
        const last = lastByConnection.get(connection);
        if (last !== undefined && last.header === header && last.entry.until > tokens.now()) {
          const answer = last.entry.answer;
          if (answer.kind === 'authenticated') return answer;
        }
      }
      const token = bearerTokenOf(req.headers);
      if (token === undefined) return NO_CREDENTIALS;
      const entry = tokens.lookup(token);
      return entry instanceof Promise ? entry.then((e) => outcomeOf(connection, header, e)) : outcomeOf(connection, header, entry);
    },
  };
}

/** A TokenReview's answer: the user and the audiences the token is valid for, or kube's error text. */
export type TokenReviewOutcome =
  | { readonly authenticated: true; readonly user: UserInfo; readonly audiences: readonly string[] }
  | { readonly authenticated: false; readonly error: string };

/**
 * Runs the token union over one token for a TokenReview. `audiences` (spec.audiences, else the
 * server's --api-audiences) is what the token must be valid for; steps that do not check
 * audiences are taken to accept all of them, as kube's audience-agnostic authenticators are.
 * The error text is kube's: `invalid bearer token` alone, or listed with the steps' reasons.
 */
export async function reviewToken(tokens: CachedTokenUnion, token: string, audiences: readonly string[]): Promise<TokenReviewOutcome> {
  return reviewOutcomeOf((await tokens.lookup(token, audiences)).answer, audiences);
}

function reviewOutcomeOf(answer: TokenUnionAnswer, audiences: readonly string[]): TokenReviewOutcome {
  if (answer.kind === 'authenticated') return { authenticated: true, user: answer.user, audiences: answer.audiences ?? audiences };
  const reasons = answer.rejections.map((r) => r.reason);
  return { authenticated: false, error: reasons.length === 0 ? 'invalid bearer token' : `[invalid bearer token, ${reasons.join(', ')}]` };
}

/**
 * The user with system:authenticated added, kept per answer: an authenticator that answers from a
 * cache (a connection's certificate, a cached token) hands out the same object each time, so every
 * request of that caller gets the same user object and what is derived from it (an audit event's
 * user JSON, a proxied request's identity headers) can be kept with it. User objects are never
 * changed once made.
 */
const withGroup = new WeakMap<UserInfo, UserInfo>();

/** Adds system:authenticated unless the user already carries it or system:unauthenticated, as kube does. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(ALL_AUTHENTICATED) || user.groups.includes(ALL_UNAUTHENTICATED)) return user;
  let out = withGroup.get(user);
  if (out === undefined) withGroup.set(user, (out = { ...user, groups: [...user.groups, ALL_AUTHENTICATED] }));
  return out;
}
