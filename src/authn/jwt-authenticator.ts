/**
 * One JWT (OpenID Connect) authenticator, as kube-apiserver v1.32's oidc token authenticator:
 * tokens whose unverified `iss` is this issuer are verified (signature by the issuer's JWKS,
 * accepted algorithms, `iss`, `aud`, `exp`/`nbf`), then the claim validation rules hold, the
 * claims are mapped to a user (claims or CEL expressions) and the user validation rules hold.
 * Tokens of other issuers are not its business.
 *
 * Keys come from the issuer's discovery document (or `discoveryURL`), fetched over TLS trusting
 * `certificateAuthority` (else the host's roots). A token naming a key id the set lacks triggers
 * a refetch (at most one per `refetchIntervalMs`), so the issuer can rotate keys without restart.
 * Results are not cached here: kube's token cache sits in front of all token steps (token-cache.ts).
 * A groups claim given as a distributed claim is fetched from its endpoint (distributed-claims.ts).
 */
import https from 'node:https';
import { createLocalJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { compile, evaluate, isCompileError, toCelValue, type CompiledExpression } from '../cel/index.ts';
import type { AuthnOutcome, TokenAuthenticator, TokenContext, UserInfo } from './types.ts';
import { looksLikeJws, MAX_JWT_BYTES } from './jwt.ts';
import { expandDistributedClaim } from './distributed-claims.ts';

/** The algorithms kube accepts (--oidc-signing-algs, and all of them for structured configuration). */
export const SUPPORTED_SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'] as const;

/** One `jwt[]` entry of AuthenticationConfiguration, after validation (see authentication-config.ts). */
export interface JwtAuthenticatorSpec {
  readonly issuer: {
    readonly url: string;
    readonly discoveryURL?: string;
    /** PEM bundle (contents); absent: the host's roots. */
    readonly certificateAuthority?: string;
    readonly audiences: readonly string[];
  };
  readonly claimValidationRules: readonly ClaimValidationRule[];
  readonly claimMappings: {
    readonly username: ClaimOrExpression & { readonly prefix?: string };
    readonly groups?: ClaimOrExpression & { readonly prefix?: string };
    readonly uid?: ClaimOrExpression;
    readonly extra: readonly { readonly key: string; readonly valueExpression: string }[];
  };
  readonly userValidationRules: readonly { readonly expression: string; readonly message?: string }[];
  /** --oidc-signing-algs; absent: every supported algorithm. */
  readonly signingAlgorithms?: readonly string[];
}

export interface ClaimOrExpression {
  readonly claim?: string;
  readonly expression?: string;
}

export type ClaimValidationRule =
  | { readonly claim: string; readonly requiredValue: string }
  | { readonly expression: string; readonly message?: string };

export interface JwtAuthenticatorOptions {
  /** --api-audiences: a TokenReview's audiences must meet them (kube wraps this authenticator as audience-agnostic). */
  readonly apiAudiences: readonly string[];
  /** Minimum time between two JWKS refetches caused by unknown key ids. */
  readonly refetchIntervalMs?: number;
  readonly now?: () => number;
  readonly log?: (message: string) => void;
}

/** kube's go-oidc allows this much clock skew on nbf; exp has none. */
const NBF_LEEWAY_SECONDS = 300;
const FETCH_TIMEOUT_MS = 10_000;
const MAX_DOCUMENT_BYTES = 1 << 20;
/** Issuers of distributed-claim JWTs whose keys are kept. */
const MAX_FOREIGN_ISSUERS = 16;

/** A JWT authenticator: the token step plus what its owner needs to start and stop it. */
export interface JwtAuthenticator extends TokenAuthenticator {
  readonly issuerUrl: string;
  /** Resolves when the first JWKS fetch succeeded (or rejects with why it failed). */
  ready(): Promise<void>;
  close(): void;
}

export const CLAIMS_VARIABLES = { claims: { type: 'dyn' as const } };
export const USER_VARIABLES = { user: { type: 'dyn' as const } };

/** Compiles an expression of the configuration; throws with the compiler's message (validation reports it per field). */
export function compileOrThrow(expression: string, variables: typeof CLAIMS_VARIABLES | typeof USER_VARIABLES): CompiledExpression {
  const c = compile(expression, { variables, expressions: 'stored' });
  if (isCompileError(c)) throw new Error(`compilation failed: ${c.message}`);
  return c;
}

export function createJwtAuthenticator(spec: JwtAuthenticatorSpec, opts: JwtAuthenticatorOptions): JwtAuthenticator {
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  const refetchIntervalMs = opts.refetchIntervalMs ?? 1000;
  const algorithms = [...(spec.signingAlgorithms ?? SUPPORTED_SIGNING_ALGORITHMS)];
  const issuerUrl = spec.issuer.url;
  const audiences = new Set(spec.issuer.audiences);
  const apiAudiences = new Set(opts.apiAudiences);
  const mapping = compileMapping(spec);

  // Keys: fetched through discovery; refetched on an unknown kid.
  let keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  let lastFetch = 0;
  let inflight: Promise<void> | undefined;
  let closed = false;
  const agent = new https.Agent({ ...(spec.issuer.certificateAuthority ? { ca: spec.issuer.certificateAuthority } : {}), keepAlive: true });
  const fetchKeys = (): Promise<void> => {
    inflight ??= (async () => {
      try {
        lastFetch = now();
        keySet = await discoverKeys(issuerUrl, spec.issuer.discoveryURL, agent);
      } finally {
        inflight = undefined;
      }
    })();
    return inflight;
  };
  const first = fetchKeys();
  first.catch((err: Error) => log(`oidc: initializing authenticator for issuer ${JSON.stringify(issuerUrl)}: ${err.message}`));

  const reject = (reason: string): AuthnOutcome => ({ kind: 'rejected', reason });

  /** go-oidc's audience and expiry checks (jose has verified signature, iss and nbf). */
  const audienceAndExpiry = (claims: JWTPayload, t: number): string | undefined => {
    const tokenAudiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (!tokenAudiences.some((a) => audiences.has(a))) return `oidc: verify token: oidc: expected audience in ${goList([...audiences])} got ${goList(tokenAudiences)}`;
    if (typeof claims.exp !== 'number' || t / 1000 > claims.exp) return `oidc: verify token: oidc: token is expired (Token Expiry: ${new Date((claims.exp ?? 0) * 1000).toISOString()})`;
    return undefined;
  };

  // Distributed groups claims: kube resolves only a groups *claim* (not an expression). The JWT an
  // endpoint returns may come from another issuer (kube builds a verifier per issuer, by discovery).
  const groupsClaim = spec.claimMappings.groups?.claim;
  const foreignKeys = new Map<string, Promise<ReturnType<typeof createLocalJWKSet>>>();
  const distributedDeps = groupsClaim
    ? {
        claim: groupsClaim,
        fetchText: (url: string, accessToken: string | undefined) =>
          getText(url, agent, accessToken ? { authorization: `Bearer ${accessToken}` } : {}).catch((err: Error & { statusCode?: number }) => {
            throw err.statusCode !== undefined ? new Error(`non-200 response code: ${err.statusCode}`) : err;
          }),
        verify: async (jwt: string): Promise<JWTPayload | string> => {
          let iss: unknown;
          try {
            iss = decodeJwt(jwt).iss;
          } catch (err) {
            return `oidc: malformed jwt: ${(err as Error).message}`;
          }
          if (typeof iss !== 'string' || iss === '') return 'oidc: malformed jwt: no issuer';
          let claims: JWTPayload | string;
          if (iss === issuerUrl) claims = await verify(jwt);
          else {
            if (!foreignKeys.has(iss)) {
              if (foreignKeys.size >= MAX_FOREIGN_ISSUERS) foreignKeys.delete(foreignKeys.keys().next().value!);
              const keys = discoverKeys(iss, undefined, agent);
              keys.catch(() => foreignKeys.delete(iss)); // try again next time
              foreignKeys.set(iss, keys);
            }
            try {
              const keys = await foreignKeys.get(iss)!;
              claims = (await jwtVerify(jwt, keys, { issuer: iss, algorithms, clockTolerance: NBF_LEEWAY_SECONDS, currentDate: new Date(now()) })).payload;
            } catch (err) {
              claims = err instanceof joseErrors.JOSEError ? verifyError(err) : `verifier not initialized for issuer: ${JSON.stringify(iss)}: ${(err as Error).message}`;
            }
          }
          if (typeof claims === 'string') return claims;
          return audienceAndExpiry(claims, now()) ?? claims;
        },
      }
    : undefined;

  async function verify(token: string): Promise<JWTPayload | string> {
    if (!keySet) {
      // Not initialized (the issuer was unreachable): try again, rate-limited.
      if (now() - lastFetch >= refetchIntervalMs) await fetchKeys().catch(() => {});
      if (!keySet) return 'oidc: authenticator not initialized';
    }
    // go-oidc allows 5 minutes of skew on nbf and none on exp: jose gets the skew, exp is checked after.
    const options = { issuer: issuerUrl, algorithms, clockTolerance: NBF_LEEWAY_SECONDS, currentDate: new Date(now()) };
    try {
      return (await jwtVerify(token, keySet, options)).payload;
    } catch (err) {
      if (err instanceof joseErrors.JWKSNoMatchingKey && now() - lastFetch >= refetchIntervalMs) {
        try {
          await fetchKeys();
          return (await jwtVerify(token, keySet, options)).payload;
        } catch (again) {
          return verifyError(again);
        }
      }
      return verifyError(err);
    }
  }

  return {
    name: 'oidc',
    issuerUrl,
    ready: () => first,
    close() {
      closed = true;
      agent.destroy();
    },
    async authenticateToken(token: string, context?: TokenContext): Promise<AuthnOutcome> {
      if (closed || token.length > MAX_JWT_BYTES || !looksLikeJws(token)) return { kind: 'no-credentials' };
      // Audience-agnostic towards the API: a review's audiences must meet --api-audiences.
      let reviewAudiences: string[] | undefined;
      if (context?.audiences && context.audiences.length > 0 && apiAudiences.size > 0) {
        reviewAudiences = context.audiences.filter((a) => apiAudiences.has(a));
        if (reviewAudiences.length === 0) return { kind: 'no-credentials' };
      }
      const t = now();
      // kube's hasCorrectIssuer: only tokens that claim this issuer are looked at.
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        return { kind: 'no-credentials' };
      }
      if (unverified.iss !== issuerUrl) return { kind: 'no-credentials' };

      const claims = await verify(token);
      if (typeof claims === 'string') return reject(claims);
      const invalid = audienceAndExpiry(claims, t);
      if (invalid !== undefined) return reject(invalid);
      if (distributedDeps) {
        const problem = await expandDistributedClaim(claims as Record<string, unknown>, distributedDeps);
        if (problem !== undefined) return reject(`oidc: could not expand distributed claims: ${problem}`);
      }
      const mapped = mapping(claims as Record<string, unknown>);
      if (typeof mapped === 'string') return reject(mapped);
      return { kind: 'authenticated', user: mapped, ...(reviewAudiences ? { audiences: reviewAudiences } : {}) };
    },
  };
}

/** go-oidc's wording for the failures jose reports. */
function verifyError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return `oidc: verify token: oidc: token is expired (Token Expiry: ${new Date(Number((err.payload as JWTPayload).exp) * 1000).toISOString()})`;
  if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWSSignatureVerificationFailed) return 'oidc: verify token: failed to verify signature: failed to verify id token signature';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return `oidc: verify token: oidc: id token signed with unsupported algorithm`;
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return 'oidc: verify token: oidc: id token issued by a different provider';
    if (err.claim === 'nbf') return 'oidc: verify token: oidc: current time before the nbf (not before) time';
    return `oidc: verify token: oidc: ${err.message}`;
  }
  return `oidc: verify token: oidc: malformed jwt: ${(err as Error).message}`;
}

/**
 * Compiles the claim rules and mappings into one function from verified claims to a user, or to
 * the reason the claims do not make one (kube's texts).
 */
function compileMapping(spec: JwtAuthenticatorSpec): (claims: Record<string, unknown>) => UserInfo | string {
  const claimRules = spec.claimValidationRules.map((r) => ('claim' in r ? r : { ...r, program: compileOrThrow(r.expression, CLAIMS_VARIABLES) }));
  const m = spec.claimMappings;
  const usernameProgram = m.username.expression !== undefined ? compileOrThrow(m.username.expression, CLAIMS_VARIABLES) : undefined;
  const groupsProgram = m.groups?.expression !== undefined ? compileOrThrow(m.groups.expression, CLAIMS_VARIABLES) : undefined;
  const uidProgram = m.uid?.expression !== undefined ? compileOrThrow(m.uid.expression, CLAIMS_VARIABLES) : undefined;
  const extraPrograms = m.extra.map((e) => ({ key: e.key, program: compileOrThrow(e.valueExpression, CLAIMS_VARIABLES) }));
  const userRules = spec.userValidationRules.map((r) => ({ ...r, program: compileOrThrow(r.expression, USER_VARIABLES) }));
  const needsCel = claimRules.some((r) => 'program' in r) || usernameProgram || groupsProgram || uidProgram || extraPrograms.length > 0;

  return (claims) => {
    const celClaims = needsCel ? toCelValue(claims) : undefined;
    const run = (program: CompiledExpression): { value: unknown } | string => {
      const r = evaluate(program, { claims: celClaims });
      return r.kind === 'value' ? { value: r.value } : `oidc: error evaluating expression ${JSON.stringify(program.expression)}: ${r.message}`;
    };
    for (const rule of claimRules) {
      if ('program' in rule) {
        const r = run(rule.program);
        if (typeof r === 'string') return r;
        if (r.value !== true) return `oidc: error evaluating claim validation expression: ${rule.message ?? `expression '${rule.expression}' resulted in error`}`;
        continue;
      }
      const v = claims[rule.claim];
      if (v === undefined) return `oidc: required claim ${rule.claim} not present in ID token`;
      if (v !== rule.requiredValue) return `oidc: required claim ${rule.claim} value does not match. Got = ${typeof v === 'string' ? v : JSON.stringify(v)}, want = ${rule.requiredValue}`;
    }

    let username: string;
    if (usernameProgram) {
      const r = run(usernameProgram);
      if (typeof r === 'string') return r;
      if (typeof r.value !== 'string') return `oidc: error evaluating username claim expression: got ${typeName(r.value)}, want string`;
      if (r.value === '') return 'oidc: empty username via CEL expression is not allowed';
      username = r.value;
    } else {
      const claim = m.username.claim!;
      const v = claims[claim];
      if (v === undefined) return `oidc: parse username claims ${JSON.stringify(claim)}: claim not present`;
      if (typeof v !== 'string') return `oidc: parse username claims ${JSON.stringify(claim)}: json: cannot unmarshal ${jsonType(v)} into Go value of type string`;
      if (claim === 'email' && claims.email_verified !== undefined) {
        // As kube: a present email_verified must be true for the email to name the user.
        if (typeof claims.email_verified !== 'boolean') return `oidc: parse 'email_verified' claim: json: cannot unmarshal ${jsonType(claims.email_verified)} into Go value of type bool`;
        if (!claims.email_verified) return 'oidc: email not verified';
      }
      username = (m.username.prefix ?? '') + v;
    }

    let groups: string[] = [];
    if (groupsProgram) {
      const r = run(groupsProgram);
      if (typeof r === 'string') return r;
      const list = stringOrList(r.value);
      if (list === undefined) return `oidc: error evaluating group claim expression: got ${typeName(r.value)}, want string or list of strings`;
      groups = list;
    } else if (m.groups?.claim !== undefined) {
      const v = claims[m.groups.claim];
      if (v !== undefined) {
        const list = stringOrList(v);
        if (list === undefined) return `oidc: parse groups claim ${JSON.stringify(m.groups.claim)}: json: cannot unmarshal ${jsonType(v)} into Go value of type string`;
        groups = list.map((g) => (m.groups!.prefix ?? '') + g);
      }
    }

    let uid = '';
    if (uidProgram) {
      const r = run(uidProgram);
      if (typeof r === 'string') return r;
      if (typeof r.value !== 'string') return `oidc: error evaluating uid claim expression: got ${typeName(r.value)}, want string`;
      uid = r.value;
    } else if (m.uid?.claim !== undefined) {
      const v = claims[m.uid.claim];
      if (v === undefined) return `oidc: parse uid claim ${JSON.stringify(m.uid.claim)}: claim not present`;
      if (typeof v !== 'string') return `oidc: parse uid claim ${JSON.stringify(m.uid.claim)}: json: cannot unmarshal ${jsonType(v)} into Go value of type string`;
      uid = v;
    }

    const extra: Record<string, string[]> = {};
    for (const e of extraPrograms) {
      const r = run(e.program);
      if (typeof r === 'string') return r;
      const list = stringOrList(r.value);
      if (list === undefined) return `oidc: error evaluating extra claim expression: got ${typeName(r.value)}, want string or list of strings`;
      // Empty strings are dropped; a key with no values is left out (kube).
      const values = list.filter((v) => v !== '');
      if (values.length > 0) extra[e.key] = values;
    }

    const user: UserInfo = { username, ...(uid !== '' ? { uid } : {}), groups, extra };
    if (userRules.length > 0) {
      const celUser = toCelValue({ username, uid, groups, extra });
      for (const rule of userRules) {
        const r = evaluate(rule.program, { user: celUser });
        if (r.kind !== 'value') return `oidc: error evaluating user info validation rule: ${r.message}`;
        if (r.value !== true) return `oidc: error evaluating user info validation rule: ${rule.message ?? `expression '${rule.expression}' resulted in error`}`;
      }
    }
    return user;
  };
}

function stringOrList(v: unknown): string[] | undefined {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  return undefined;
}

function typeName(v: unknown): string {
  if (v === null) return 'null_type';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'map' : typeof v;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

function goList(list: readonly unknown[]): string {
  return `[${list.map(String).join(' ')}]`;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The issuer's keys through its discovery document (or `discoveryURL`), as go-oidc's provider. */
async function discoverKeys(issuerUrl: string, discoveryURL: string | undefined, agent: https.Agent): Promise<ReturnType<typeof createLocalJWKSet>> {
  const discovery = asRecord(await getJson(discoveryURL ?? `${issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`, agent));
  // As go-oidc: the discovered issuer must be the configured one.
  if (discovery?.issuer !== issuerUrl) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${issuerUrl}" got "${String(discovery?.issuer)}"`);
  if (typeof discovery.jwks_uri !== 'string') throw new Error('oidc: discovery document has no jwks_uri');
  const jwks = asRecord(await getJson(discovery.jwks_uri, agent));
  if (!Array.isArray(jwks?.keys)) throw new Error('oidc: JWKS document has no keys');
  return createLocalJWKSet(jwks as unknown as JSONWebKeySet);
}

/** GET a JSON document over HTTPS with the authenticator's trust, bounded in size and time. */
async function getJson(url: string, agent: https.Agent): Promise<unknown> {
  const text = await getText(url, agent, { accept: 'application/json' });
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`oidc: failed to decode ${url}: ${(err as Error).message}`);
  }
}

/** GET a body over HTTPS with the authenticator's trust, bounded in size and time; anything but 200 is an error. */
function getText(url: string, agent: https.Agent, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!url.startsWith('https://')) return reject(new Error(`oidc: ${url} is not an https URL`));
    const req = https.get(url, { agent, timeout: FETCH_TIMEOUT_MS, headers }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_DOCUMENT_BYTES) req.destroy(new Error(`oidc: response from ${url} is too large`));
        else chunks.push(c);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(Object.assign(new Error(`oidc: get ${url}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`), { statusCode: res.statusCode }));
        resolve(Buffer.concat(chunks).toString('utf8'));
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`oidc: get ${url}: timeout`)));
    req.on('error', reject);
  });
}
