/**
 * OpenID Connect distributed claims (OIDC Core 1.0 §5.6.2), as kube's oidc authenticator resolves
 * them for the groups claim: when the ID token lacks the claim but names it in `_claim_names`,
 * the source in `_claim_sources` gives an endpoint (and optionally an access token) that answers
 * with a JWT carrying the claim. That JWT is verified like an ID token (its issuer's keys, the
 * authenticator's audiences, expiry) and its claim value copied into the token's claims, before
 * any validation rule or mapping looks at them. Aggregated claims (a source with `JWT` and no
 * endpoint) are left alone, as kube leaves them.
 */
import type { JWTPayload } from 'jose';

export interface DistributedClaimDeps {
  /** The claim resolved (the groups claim of the authenticator). */
  readonly claim: string;
  /** GET `url` (Authorization: Bearer `accessToken` when given); the body text of a 200, else throws. */
  fetchText(url: string, accessToken: string | undefined): Promise<string>;
  /** Verifies a JWT from a claim endpoint: the claims, or why not (kube's words). */
  verify(jwt: string): Promise<JWTPayload | string>;
}

/**
 * Resolves `deps.claim` into `claims` when it is distributed. Returns undefined when there was
 * nothing to do or it was resolved, else the problem (the caller prefixes kube's
 * "oidc: could not expand distributed claims: ").
 */
export async function expandDistributedClaim(claims: Record<string, unknown>, deps: DistributedClaimDeps): Promise<string | undefined> {
  const claim = deps.claim;
  if (claims[claim] !== undefined) return undefined; // a normal claim wins
  const names = claims._claim_names;
  if (names === undefined) return undefined;
  const claimToSource = stringMap(names);
  if (typeof claimToSource === 'string') return `oidc: error parsing distributed claim names: ${claimToSource}`;
  const rawSources = claims._claim_sources;
  if (rawSources === undefined) return 'oidc: no claim sources';
  if (typeof rawSources !== 'object' || rawSources === null || Array.isArray(rawSources)) {
    return `oidc: could not parse claim sources: json: cannot unmarshal ${jsonType(rawSources)} into Go value of type map[string]oidc.endpoint`;
  }
  const source = claimToSource[claim];
  if (source === undefined) return undefined; // this claim is not distributed
  const ep = (rawSources as Record<string, unknown>)[source];
  if (ep === undefined) return `id token _claim_names contained a source ${source} missing in _claims_sources`;
  if (typeof ep !== 'object' || ep === null || Array.isArray(ep)) return `oidc: could not parse claim sources: json: cannot unmarshal ${jsonType(ep)} into Go value of type oidc.endpoint`;
  const { endpoint, access_token: accessToken } = ep as Record<string, unknown>;
  if (endpoint !== undefined && typeof endpoint !== 'string') return `oidc: could not parse claim sources: json: cannot unmarshal ${jsonType(endpoint)} into Go struct field endpoint.endpoint of type string`;
  if (accessToken !== undefined && typeof accessToken !== 'string') return `oidc: could not parse claim sources: json: cannot unmarshal ${jsonType(accessToken)} into Go struct field endpoint.access_token of type string`;
  if (!endpoint) return undefined; // an aggregated claim: not resolved
  let jwt: string;
  try {
    jwt = (await deps.fetchText(endpoint, accessToken || undefined)).trim();
  } catch (err) {
    return `while getting distributed claim ${JSON.stringify(claim)}: ${(err as Error).message}`;
  }
  const verified = await deps.verify(jwt);
  if (typeof verified === 'string') return `verify distributed claim token: ${verified}`;
  const value = (verified as Record<string, unknown>)[claim];
  if (value === undefined) return `jwt returned by distributed claim endpoint ${JSON.stringify(endpoint)} did not contain claim: ${claim}`;
  claims[claim] = value;
  return undefined;
}

function stringMap(v: unknown): Record<string, string> | string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `json: cannot unmarshal ${jsonType(v)} into Go value of type map[string]string`;
  for (const x of Object.values(v)) if (typeof x !== 'string') return `json: cannot unmarshal ${jsonType(x)} into Go value of type string`;
  return v as Record<string, string>;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}
