/**
 * `Authorization: Bearer <token>`: finds the token and asks the token steps in order. A bearer
 * token that no step knows is rejected (401), never downgraded to anonymous.
 */
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, type AuthRequest, type RequestAuthenticator, type TokenAuthenticator, type UserInfo } from './types.ts';

/** The bearer token of a request, or undefined when there is none (other schemes, e.g. Basic, count as none). */
export function bearerTokenOf(headers: AuthRequest['headers']): string | undefined {
  const header = headers.authorization;
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (!value) return undefined;
  // Same split as kube: scheme, token, and anything after a second space is ignored.
  const parts = value.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1]!;
  return token === '' ? undefined : token;
}

/** A request step trying each token step in order; the first that authenticates or rejects decides. */
export function createBearerTokenAuthenticator(tokenSteps: readonly TokenAuthenticator[]): RequestAuthenticator {
  return {
    name: 'bearer-token',
    async authenticate(req) {
      const token = bearerTokenOf(req.headers);
      if (token === undefined) return { kind: 'no-credentials' };
      const reasons: string[] = [];
      for (const step of tokenSteps) {
        const outcome = await step.authenticateToken(token);
        if (outcome.kind === 'authenticated') return outcome;
        if (outcome.kind === 'rejected') reasons.push(`${step.name}: ${outcome.reason}`);
      }
      return { kind: 'rejected', reason: reasons.length > 0 ? reasons.join('; ') : 'invalid bearer token' };
    },
  };
}

/** A TokenReview's answer: the user and the audiences the token is valid for, or kube's error text. */
export type TokenReviewOutcome =
  | { readonly authenticated: true; readonly user: UserInfo; readonly audiences: readonly string[] }
  | { readonly authenticated: false; readonly error: string };

/**
 * Runs the token steps over one token for a TokenReview. `audiences` (spec.audiences, else the
 * server's --api-audiences) is what the token must be valid for; steps that do not check
 * audiences are taken to accept all of them, as kube's audience-agnostic authenticators are.
 * The error text is kube's: `invalid bearer token` alone, or listed with the steps' reasons.
 */
export async function reviewToken(tokenSteps: readonly TokenAuthenticator[], token: string, audiences: readonly string[]): Promise<TokenReviewOutcome> {
  const reasons: string[] = [];
  for (const step of tokenSteps) {
    const outcome = await step.authenticateToken(token, { audiences });
    if (outcome.kind === 'authenticated') {
      return { authenticated: true, user: withAuthenticatedGroup(outcome.user), audiences: outcome.audiences ?? audiences };
    }
    if (outcome.kind === 'rejected') reasons.push(outcome.reason);
  }
  return { authenticated: false, error: reasons.length === 0 ? 'invalid bearer token' : `[invalid bearer token, ${reasons.join(', ')}]` };
}

/** Adds system:authenticated unless the user already carries it or system:unauthenticated, as kube does. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(ALL_AUTHENTICATED) || user.groups.includes(ALL_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}
