/**
 * Builds the configured authorizer chain from `--authorization-mode`.
 */
import { alwaysAllow, alwaysDeny, AuthorizerChain, type Authorizer } from './authorizer.ts';
import type { AuthorizationMode } from './modes.ts';
import { RbacAuthorizer } from './rbac/authorizer.ts';
import type { RbacIndex } from './rbac/index.ts';

export function buildAuthorizer(modes: readonly AuthorizationMode[], rbac: RbacIndex): Authorizer {
  return new AuthorizerChain(
    modes.map((mode) => {
      switch (mode) {
        case 'AlwaysAllow':
          return alwaysAllow;
        case 'AlwaysDeny':
          return alwaysDeny;
        case 'RBAC':
          return new RbacAuthorizer(rbac);
      }
    }),
  );
}
