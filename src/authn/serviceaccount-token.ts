/**
 * Bound service-account tokens as kube-apiserver v1.32 issues and checks them: a JWT signed
 * with the service-account signing key, claims `iss`, `sub`, `aud`, `exp`, `iat`, `nbf`, `jti`
 * and `kubernetes.io` {namespace, serviceaccount {name, uid}, secret?}. The authenticator
 * verifies signature, issuer, audience and time, then (lookup on) that the ServiceAccount and
 * a bound Secret still exist with the uids the token names.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import { keyIdOf, parseJws, signJwt, verifyJws } from './jwt.ts';
import { CREDENTIAL_ID_KEY, type AuthnOutcome, type TokenAuthenticator, type UserInfo } from './types.ts';

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
/** How long, and for how many tokens, a verified signature is remembered. */
const VERIFIED_CACHE_MS = 10_000;
const MAX_VERIFIED = 4096;
/** kube's leeway for exp/nbf/iat (go-jose's DefaultLeeway). */
const LEEWAY_SECONDS = 60;

/** An object a token names, with the uid it had when the token was issued. */
export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** What the authenticator needs to know about live objects (read through the watch cache). */
export interface ServiceAccountGetter {
  /** The ServiceAccount, or undefined when it does not exist. */
  serviceAccount(namespace: string, name: string): Promise<LiveObject | undefined>;
  /** The Secret, or undefined when it does not exist. */
  secret(namespace: string, name: string): Promise<LiveObject | undefined>;
}

export interface LiveObject {
  readonly uid: string;
  readonly deletionTimestamp?: string | null;
}

export interface TokenIssueRequest {
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  /** A Secret the token is bound to: the token dies with it. */
  readonly boundSecret?: ObjectRef;
  readonly now?: Date;
}

export interface IssuedToken {
  readonly token: string;
  /** RFC 3339 without fractional seconds, as status.expirationTimestamp. */
  readonly expirationTimestamp: string;
}

/** Signs bound service-account tokens with one key, as the first `--service-account-issuer`. */
export class ServiceAccountTokenIssuer {
  private readonly kid: string;

  constructor(
    readonly issuer: string,
    private readonly key: KeyObject,
  ) {
    this.kid = keyIdOf(key);
  }

  issue(req: TokenIssueRequest): IssuedToken {
    const now = Math.floor((req.now ?? new Date()).getTime() / 1000);
    const exp = now + req.expirationSeconds;
    const kubernetes: Record<string, unknown> = {
      namespace: req.namespace,
      ...(req.boundSecret ? { secret: { name: req.boundSecret.name, uid: req.boundSecret.uid } } : {}),
      serviceaccount: { name: req.serviceAccount.name, uid: req.serviceAccount.uid },
    };
    // Key order as kube's JSON (alphabetical), so tokens decode to the same text.
    const claims = {
      aud: [...req.audiences],
      exp,
      iat: now,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': kubernetes,
      nbf: now,
      sub: `${SERVICE_ACCOUNT_USER_PREFIX}${req.namespace}:${req.serviceAccount.name}`,
    };
    return { token: signJwt(claims, this.key, this.kid), expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d+Z$/, 'Z') };
  }
}

export interface ServiceAccountAuthenticatorOptions {
  /** Accepted `iss` values (every --service-account-issuer). */
  readonly issuers: readonly string[];
  /** --api-audiences: a token must name one of them (unless a TokenReview asks for others). */
  readonly audiences: readonly string[];
  /** Verification keys (--service-account-key-file, plus the signing key's public half). */
  readonly keys: readonly KeyObject[];
  /** --service-account-lookup: reject tokens whose objects are gone. Absent: no lookup. */
  readonly getter?: ServiceAccountGetter;
  readonly now?: () => number;
}

/**
 * The service-account token step. Tokens that are not JWTs or name another issuer are not its
 * business (`no-credentials`); tokens of its issuers that fail any check are `rejected`.
 */
export function createServiceAccountTokenAuthenticator(opts: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  const keys = opts.keys.map((key) => ({ kid: keyIdOf(key), key }));
  const issuers = new Set(opts.issuers);
  const now = opts.now ?? Date.now;
  // Tokens whose signature verified lately: the signature check (the costly part) is skipped
  // for them; every other check, the lookup included, runs each time the step is asked (a miss of
  // kube's token cache in front of the steps, or a TokenReview for other audiences).
  const verified = new Map<string, { readonly claims: Readonly<Record<string, unknown>>; readonly until: number }>();
  return {
    name: 'service-account',
    async authenticateToken(token, context) {
      const reject = (reason: string): AuthnOutcome => ({ kind: 'rejected', reason });
      let claims: Readonly<Record<string, unknown>>;
      const hit = verified.get(token);
      if (hit && hit.until > now()) {
        claims = hit.claims;
      } else {
        const jws = parseJws(token);
        if (!jws) return { kind: 'no-credentials' };
        const iss = jws.claims.iss;
        if (typeof iss !== 'string' || !issuers.has(iss)) return { kind: 'no-credentials' };
        if (!verifyJws(jws, keys)) return reject('square/go-jose: error in cryptographic primitive');
        claims = jws.claims;
        if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
        verified.set(token, { claims, until: now() + VERIFIED_CACHE_MS });
      }

      const wanted = context?.audiences && context.audiences.length > 0 ? context.audiences : opts.audiences;
      const tokenAudiences = audiencesOf(claims.aud);
      const matched = wanted.filter((a) => tokenAudiences.includes(a));
      if (matched.length === 0) return reject(`token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(wanted)}`);

      const t = now() / 1000;
      const exp = numericClaim(claims.exp);
      const nbf = numericClaim(claims.nbf);
      const iat = numericClaim(claims.iat);
      if (exp === undefined) return reject('service account token has no expiration');
      if (t > exp + LEEWAY_SECONDS) return reject('service account token has expired');
      if (nbf !== undefined && t < nbf - LEEWAY_SECONDS) return reject('service account token is not valid yet');
      if (iat !== undefined && t < iat - LEEWAY_SECONDS) return reject('service account token is issued in the future');

      const k8s = asRecord(claims['kubernetes.io']);
      const namespace = k8s?.namespace;
      const sa = asRecord(k8s?.serviceaccount);
      if (!k8s || typeof namespace !== 'string' || namespace === '' || typeof sa?.name !== 'string' || typeof sa.uid !== 'string') {
        return reject('service account token claims could not be validated');
      }
      const sub = `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${sa.name}`;
      if (claims.sub !== sub) return reject('service account token claims could not be validated');
      const secret = asRecord(k8s.secret);

      if (opts.getter) {
        // A failed lookup (storage unavailable) fails the token, as in kube: a 401, never a 500.
        try {
          const problem = await lookupProblem(opts.getter, namespace, { name: sa.name, uid: sa.uid }, secret);
          if (problem) return reject(problem);
        } catch (err) {
          return reject(`error looking up service account ${namespace}/${sa.name}: ${(err as Error).message}`);
        }
      }

      const jti = claims.jti;
      const user: UserInfo = {
        username: sub,
        uid: sa.uid,
        groups: [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`],
        extra: typeof jti === 'string' && jti !== '' ? { [CREDENTIAL_ID_KEY]: [`JTI=${jti}`] } : {},
      };
      return { kind: 'authenticated', user, audiences: matched };
    },
  };
}

/** Why the token's objects no longer stand (gone, replaced, being deleted), or undefined. */
async function lookupProblem(
  getter: ServiceAccountGetter,
  namespace: string,
  sa: { readonly name: string; readonly uid: string },
  secret: Record<string, unknown> | undefined,
): Promise<string | undefined> {
  const live = await getter.serviceAccount(namespace, sa.name);
  if (!live) return `serviceaccounts "${sa.name}" not found`;
  if (live.uid !== sa.uid) return `service account UID (${live.uid}) does not match claim (${sa.uid})`;
  if (live.deletionTimestamp) return `service account ${namespace}/${sa.name} has been deleted`;
  if (secret && typeof secret.name === 'string') {
    const liveSecret = await getter.secret(namespace, secret.name);
    if (!liveSecret) return `secrets "${secret.name}" not found`;
    if (liveSecret.uid !== secret.uid) return `secret UID (${liveSecret.uid}) does not match service account secret ref claim (${String(secret.uid)})`;
    if (liveSecret.deletionTimestamp) return `secret ${namespace}/${secret.name} has been deleted`;
  }
  return undefined;
}

function audiencesOf(aud: unknown): string[] {
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}

function numericClaim(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Go's %q of a []string: ["a" "b"]. */
function goQuoteList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}
