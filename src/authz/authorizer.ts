/**
 * The authorization gate. The request info and the user decide; RBAC and webhooks plug in here
 * later. For now the server allows everything (as `--authorization-mode=AlwaysAllow`).
 */
import type { RequestInfo } from '../server/request-info.ts';
import type { RequestUser } from '../server/user.ts';

export type Decision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

export interface Authorizer {
  authorize(user: RequestUser, info: RequestInfo): Promise<Decision> | Decision;
}

/** Allows every request (AlwaysAllow mode). */
export const alwaysAllow: Authorizer = { authorize: () => ({ allowed: true }) };
