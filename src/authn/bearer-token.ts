/**
 * `Authorization: Bearer <token>`: finds the token and asks the token steps in order. A bearer
 * token that no step knows is rejected (401), never downgraded to anonymous.
 */
import type { AuthRequest, RequestAuthenticator, TokenAuthenticator } from './types.ts';

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
