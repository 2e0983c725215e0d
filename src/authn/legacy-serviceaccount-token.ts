/**
 * Legacy service-account tokens, kept in Secrets of type kubernetes.io/service-account-token:
 * - the token controller (kube-controller-manager's serviceaccount-token controller) fills a
 *   Secret annotated `kubernetes.io/service-account.name` with `token` (a never-expiring JWT of
 *   issuer `kubernetes/serviceaccount`), `ca.crt` and `namespace`, records the account's uid in
 *   `kubernetes.io/service-account.uid`, and deletes Secrets whose account is gone;
 * - the legacy authenticator accepts such a token while its Secret still holds it and its
 *   ServiceAccount still exists with the uid the token names (kube's legacy validator).
 */
import { PeriodicSweep } from '../controllers/periodic-sweep.ts';
import type { KeyObject } from 'node:crypto';
import { ApiError } from '../api/status-errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';
import { keyIdOf, parseJws, signJwt, verifyJws } from './jwt.ts';
import { ALL_SERVICE_ACCOUNTS_GROUP, SERVICE_ACCOUNT_USER_PREFIX } from './serviceaccount-token.ts';
import type { AuthnOutcome, TokenAuthenticator } from './types.ts';

export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
const NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const UID_ANNOTATION = 'kubernetes.io/service-account.uid';
const CLAIM = (k: string) => `kubernetes.io/serviceaccount/${k}`;

/** The legacy token of a Secret: the claims kube's legacy generator writes, in its key order. */
export function legacyToken(key: KeyObject, namespace: string, secretName: string, saName: string, saUid: string): string {
  return signJwt(
    {
      iss: LEGACY_ISSUER,
      [CLAIM('namespace')]: namespace,
      [CLAIM('secret.name')]: secretName,
      [CLAIM('service-account.name')]: saName,
      [CLAIM('service-account.uid')]: saUid,
      sub: `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${saName}`,
    },
    key,
  );
}

export interface LegacyTokenLookup {
  secret(namespace: string, name: string): Promise<KubeObject | undefined>;
  serviceAccount(namespace: string, name: string): Promise<KubeObject | undefined>;
}

export function createLegacyServiceAccountTokenAuthenticator(opts: { readonly keys: readonly KeyObject[]; readonly lookup?: LegacyTokenLookup }): TokenAuthenticator {
  const keys = opts.keys.map((key) => ({ kid: keyIdOf(key), key }));
  return {
    name: 'service-account-legacy',
    async authenticateToken(token): Promise<AuthnOutcome> {
      const jws = parseJws(token);
      if (!jws || jws.claims.iss !== LEGACY_ISSUER) return { kind: 'no-credentials' };
      const reject = (reason: string): AuthnOutcome => ({ kind: 'rejected', reason });
      if (!verifyJws(jws, keys)) return reject('square/go-jose: error in cryptographic primitive');
      const c = jws.claims;
      const namespace = c[CLAIM('namespace')];
      const secretName = c[CLAIM('secret.name')];
      const saName = c[CLAIM('service-account.name')];
      const saUid = c[CLAIM('service-account.uid')];
      if (typeof namespace !== 'string' || namespace === '' || typeof secretName !== 'string' || secretName === '' || typeof saName !== 'string' || saName === '' || typeof saUid !== 'string' || saUid === '') {
        return reject('service account token claims could not be validated');
      }
      const sub = `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${saName}`;
      if (c.sub !== sub) return reject('service account token claims could not be validated');
      if (opts.lookup) {
        try {
          const secret = await opts.lookup.secret(namespace, secretName);
          if (!secret) return reject(`secrets "${secretName}" not found`);
          if (secret.metadata?.deletionTimestamp) return reject(`token ${namespace}/${secretName} has been deleted`);
          const stored = (secret.data as Record<string, string> | undefined)?.token;
          if (typeof stored !== 'string' || Buffer.from(stored, 'base64').toString('utf8') !== token) return reject(`token ${namespace}/${secretName} does not match the secret`);
          const sa = await opts.lookup.serviceAccount(namespace, saName);
          if (!sa) return reject(`serviceaccounts "${saName}" not found`);
          if (sa.metadata?.uid !== saUid) return reject(`service account UID (${String(sa.metadata?.uid)}) does not match claim (${saUid})`);
          if (sa.metadata?.deletionTimestamp) return reject(`service account ${namespace}/${saName} has been deleted`);
        } catch (err) {
          return reject(`error looking up service account ${namespace}/${saName}: ${(err as Error).message}`);
        }
      }
      return { kind: 'authenticated', user: { username: sub, uid: saUid, groups: [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`], extra: {} } };
    },
  };
}

function controllerContext(): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-controller-manager', subresource: '' };
}

/** Fills and cleans up token Secrets (kube-controller-manager's serviceaccount-token controller). */
export class LegacyTokenController {
  private readonly loop: PeriodicSweep;

  constructor(
    private readonly secrets: ResourceStore,
    private readonly serviceAccounts: ResourceStore,
    private readonly signingKey: KeyObject,
    private readonly rootCa: string,
    intervalMs = 1000,
  ) {
    this.loop = new PeriodicSweep('service-account token controller', intervalMs, () => this.sync());
  }

  start(): void {
    this.loop.start();
  }

  stop(): void {
    this.loop.stop();
  }

  /** One pass over the token Secrets; returns how many were written or deleted. */
  async sync(): Promise<number> {
    let changed = 0;
    for (const e of this.secrets.cache.list().entries) {
      const secret = e.value;
      if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE || secret.metadata?.deletionTimestamp) continue;
      const ns = secret.metadata!.namespace!;
      const name = secret.metadata!.name!;
      const saName = secret.metadata?.annotations?.[NAME_ANNOTATION];
      if (!saName) continue;
      const sa = this.serviceAccounts.cache.get(this.serviceAccounts.key(ns, saName))?.value ?? (await this.liveServiceAccount(ns, saName));
      const wantUid = secret.metadata?.annotations?.[UID_ANNOTATION];
      if (!sa || (wantUid && wantUid !== sa.metadata?.uid)) {
        // The account is gone (or replaced): its token Secret goes too.
        if (await this.deleteSecret(ns, name, secret.metadata?.uid)) changed++;
        continue;
      }
      const data = (secret.data ?? {}) as Record<string, string>;
      if (data.token && data['ca.crt'] && data.namespace && wantUid) continue;
      if (await this.populate(ns, name, sa)) changed++;
    }
    return changed;
  }

  private async liveServiceAccount(ns: string, name: string): Promise<KubeObject | undefined> {
    try {
      return (await this.serviceAccounts.get(ns, name, '')).value;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
  }

  private async deleteSecret(ns: string, name: string, uid: string | undefined): Promise<boolean> {
    try {
      await this.secrets.delete(ns, name, { preconditions: { uid } }, controllerContext());
      return true;
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return false;
      throw err;
    }
  }

  private async populate(ns: string, name: string, sa: KubeObject): Promise<boolean> {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    try {
      await this.secrets.update(
        ns,
        name,
        (current) => {
          if (!current) throw new ApiError(404, 'NotFound', `secrets "${name}" not found`, {});
          const data = { ...((current.data ?? {}) as Record<string, string>) };
          if (!data.token) data.token = b64(legacyToken(this.signingKey, ns, name, sa.metadata!.name!, sa.metadata!.uid!));
          if (!data['ca.crt']) data['ca.crt'] = b64(this.rootCa);
          if (!data.namespace) data.namespace = b64(ns);
          current.data = data;
          current.metadata = { ...current.metadata, annotations: { ...(current.metadata?.annotations ?? {}), [UID_ANNOTATION]: sa.metadata!.uid! } };
          delete current.metadata.resourceVersion;
          return current;
        },
        controllerContext(),
        { allowCreate: false, subresource: '' },
      );
      return true;
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return false;
      throw err;
    }
  }
}
