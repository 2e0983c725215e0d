/** The last resort: a request nothing else claimed is `system:anonymous`. */
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type RequestAuthenticator, type UserInfo } from './types.ts';

export const anonymousUser: UserInfo = Object.freeze({
  username: ANONYMOUS_USER,
  groups: Object.freeze([ALL_UNAUTHENTICATED]),
  extra: Object.freeze({}),
});

/** Authenticates every request as system:anonymous in group system:unauthenticated. */
export function createAnonymousAuthenticator(): RequestAuthenticator {
  return {
    name: 'anonymous',
    authenticate: async () => ({ kind: 'authenticated', user: anonymousUser }),
  };
}
