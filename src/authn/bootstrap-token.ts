/**
 * Bootstrap tokens (`--enable-bootstrap-token-auth`), as kube-apiserver's bootstrap token
 * authenticator: a bearer token `<id>.<secret>` (6 and 16 characters of [a-z0-9]) is looked up as
 * the Secret `bootstrap-token-<id>` in kube-system, of type bootstrap.kubernetes.io/token, whose
 * `token-id` and `token-secret` match, not expired, with `usage-bootstrap-authentication=true`.
 * The user is `system:bootstrap:<id>` in `system:bootstrappers` plus the valid `auth-extra-groups`
 * (sorted, deduplicated). As in kube, a token that fails any check is not this step's (the
 * request then fails as an unknown bearer token), and the failure is logged, never returned.
 */
import { timingSafeEqual } from 'node:crypto';
import type { KubeObject } from '../api/types.ts';
import type { AuthnOutcome, TokenAuthenticator } from './types.ts';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_NAMESPACE = 'kube-system';
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** The id and secret of a bootstrap token, or undefined when `token` is not one. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN_PATTERN.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

/** A key of the Secret's data, decoded (data is base64 on the wire and in storage). */
export function secretData(secret: KubeObject, key: string): string {
  const data = secret.data as Record<string, unknown> | undefined;
  const v = data?.[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

/** kube's bootstrapsecretutil.HasExpired: an unparsable expiration counts as expired. */
export function bootstrapTokenExpired(secret: KubeObject, now: number): boolean {
  const text = secretData(secret, 'expiration');
  if (text === '') return false;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return true;
  const t = Date.parse(text);
  return Number.isNaN(t) || now > t;
}

/** The groups of a token Secret, or the reason its extra groups are invalid. */
export function bootstrapGroups(secret: KubeObject): string[] | string {
  const groups = new Set([BOOTSTRAP_DEFAULT_GROUP]);
  const extra = secretData(secret, 'auth-extra-groups');
  if (extra !== '') {
    for (const g of extra.split(',')) {
      if (!GROUP_PATTERN.test(g)) return `${JSON.stringify(g)} is not a valid bootstrap group name (must match ${GROUP_PATTERN.source})`;
      groups.add(g);
    }
  }
  return [...groups].sort();
}

export interface BootstrapTokenOptions {
  /** The Secret in kube-system, read from the watch cache (kube reads its informer's lister). */
  readonly getSecret: (name: string) => Promise<KubeObject | undefined>;
  readonly now?: () => number;
  readonly log?: (message: string) => void;
}

export function createBootstrapTokenAuthenticator(opts: BootstrapTokenOptions): TokenAuthenticator {
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  return {
    name: 'bootstrap-token',
    async authenticateToken(token: string): Promise<AuthnOutcome> {
      const parsed = parseBootstrapToken(token);
      if (!parsed) return { kind: 'no-credentials' };
      const name = `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${parsed.id}`;
      const secret = await opts.getSecret(name);
      const ignore = (why: string): AuthnOutcome => {
        log(`bootstrap secret ${BOOTSTRAP_NAMESPACE}/${name} ${why}`);
        return { kind: 'no-credentials' };
      };
      if (!secret) return { kind: 'no-credentials' };
      if (secret.metadata?.deletionTimestamp) return ignore('is deleted and awaiting removal');
      if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || secret.data === undefined || secret.data === null) return ignore(`has invalid type, expected ${BOOTSTRAP_TOKEN_SECRET_TYPE}.`);
      const stored = Buffer.from(secretData(secret, 'token-secret'));
      const given = Buffer.from(parsed.secret);
      if (stored.length !== given.length || !timingSafeEqual(stored, given)) return ignore('has invalid value for key token-secret.');
      if (secretData(secret, 'token-id') !== parsed.id) return ignore('has invalid value for key token-id.');
      if (bootstrapTokenExpired(secret, now())) return ignore('has expired.');
      if (secretData(secret, 'usage-bootstrap-authentication') !== 'true') return ignore('not marked usage-bootstrap-authentication=true.');
      const groups = bootstrapGroups(secret);
      if (typeof groups === 'string') return ignore(`has invalid value for key auth-extra-groups: ${groups}.`);
      return { kind: 'authenticated', user: { username: `${BOOTSTRAP_USER_PREFIX}${parsed.id}`, groups, extra: {} } };
    },
  };
}
