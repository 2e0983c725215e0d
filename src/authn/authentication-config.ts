/**
 * The structured authentication configuration (`--authentication-config`, AuthenticationConfiguration
 * of apiserver.config.k8s.io v1alpha1, v1beta1 and v1) and the `--oidc-*` flags, both turned into
 * JWT authenticator specs. Validation follows kube-apiserver v1.32's
 * (`ValidateAuthenticationConfiguration`): every problem is reported with its field path, and a
 * file with problems is refused (at startup an error; on reload the last good one stays).
 */
import { X509Certificate } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { CLAIMS_VARIABLES, compileOrThrow, SUPPORTED_SIGNING_ALGORITHMS, USER_VARIABLES, type ClaimValidationRule, type JwtAuthenticatorSpec } from './jwt-authenticator.ts';

export const AUTHENTICATION_CONFIG_VERSIONS = ['apiserver.config.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1'] as const;
export const MAX_JWT_AUTHENTICATORS = 64;

export interface AuthenticationConfig {
  readonly jwt: readonly JwtAuthenticatorSpec[];
  /** The `anonymous` block, when the file has one. */
  readonly anonymous?: { readonly enabled: boolean; readonly conditions: readonly { readonly path: string }[] };
}

/** A configuration that does not validate; `message` lists every problem, one per line. */
export class AuthenticationConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join(', '));
    this.name = 'AuthenticationConfigError';
  }
}

export interface ValidationContext {
  /** Every --service-account-issuer: a JWT issuer may not be one of them. */
  readonly serviceAccountIssuers: readonly string[];
}

/** Parses (YAML or JSON) and validates a configuration file's text. Throws AuthenticationConfigError. */
export function parseAuthenticationConfig(text: string, ctx: ValidationContext): AuthenticationConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true });
  } catch (err) {
    throw new AuthenticationConfigError([`failed to decode: ${(err as Error).message.split('\n')[0]}`]);
  }
  const root = asRecord(doc);
  if (!root) throw new AuthenticationConfigError(['failed to decode: the document is not an object']);
  if (root.kind !== 'AuthenticationConfiguration' || !AUTHENTICATION_CONFIG_VERSIONS.includes(root.apiVersion as never)) {
    throw new AuthenticationConfigError([`no kind "${String(root.kind ?? '')}" is registered for version "${String(root.apiVersion ?? '')}" in scheme; want kind AuthenticationConfiguration in ${AUTHENTICATION_CONFIG_VERSIONS.join(', ')}`]);
  }
  const problems: string[] = [];
  const jwtList = root.jwt === undefined || root.jwt === null ? [] : root.jwt;
  if (!Array.isArray(jwtList)) throw new AuthenticationConfigError([`jwt: Invalid value: ${goValue(jwtList)}: must be a list`]);
  if (jwtList.length > MAX_JWT_AUTHENTICATORS) problems.push(`jwt: Too many: ${jwtList.length}: must have at most ${MAX_JWT_AUTHENTICATORS} items`);
  const specs: JwtAuthenticatorSpec[] = [];
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  jwtList.forEach((entry, i) => {
    const spec = validateJwt(entry, `jwt[${i}]`, problems, ctx, seenIssuers, seenDiscovery);
    if (spec) specs.push(spec);
  });
  let anonymous: AuthenticationConfig['anonymous'];
  if (root.anonymous !== undefined && root.anonymous !== null) {
    const a = asRecord(root.anonymous);
    if (!a) problems.push(`anonymous: Invalid value: ${goValue(root.anonymous)}: must be an object`);
    else {
      const enabled = a.enabled === true;
      const conditions: { path: string }[] = [];
      const list = a.conditions ?? [];
      if (!Array.isArray(list)) problems.push('anonymous.conditions: Invalid value: must be a list');
      else {
        if (!enabled && list.length > 0) problems.push('anonymous.conditions: Invalid value: "": enabled should be set to true when conditions are defined');
        const seen = new Set<string>();
        list.forEach((c, i) => {
          const path = asRecord(c)?.path;
          if (typeof path !== 'string' || path === '') problems.push(`anonymous.conditions[${i}].path: Required value`);
          else if (seen.has(path)) problems.push(`anonymous.conditions[${i}].path: Duplicate value: ${JSON.stringify(path)}`);
          else {
            seen.add(path);
            conditions.push({ path });
          }
        });
      }
      anonymous = { enabled, conditions };
    }
  }
  if (problems.length > 0) throw new AuthenticationConfigError(problems);
  return { jwt: specs, ...(anonymous ? { anonymous } : {}) };
}

function validateJwt(entry: unknown, p: string, problems: string[], ctx: ValidationContext, seenIssuers: Set<string>, seenDiscovery: Set<string>): JwtAuthenticatorSpec | undefined {
  const start = problems.length;
  const jwt = asRecord(entry);
  if (!jwt) {
    problems.push(`${p}: Invalid value: ${goValue(entry)}: must be an object`);
    return undefined;
  }
  const issuer = asRecord(jwt.issuer) ?? {};
  const url = str(issuer.url);
  if (url === '') problems.push(`${p}.issuer.url: Required value`);
  else {
    const urlProblem = httpsUrlProblem(url);
    if (urlProblem) problems.push(`${p}.issuer.url: Invalid value: ${JSON.stringify(url)}: ${urlProblem}`);
    else if (seenIssuers.has(url)) problems.push(`${p}.issuer.url: Duplicate value: ${JSON.stringify(url)}`);
    else if (ctx.serviceAccountIssuers.includes(url)) problems.push(`${p}.issuer.url: Invalid value: ${JSON.stringify(url)}: issuer URL must not overlap with disallowed issuers: ${goList(ctx.serviceAccountIssuers)}`);
    seenIssuers.add(url);
  }
  const discoveryURL = str(issuer.discoveryURL);
  if (discoveryURL !== '') {
    const urlProblem = httpsUrlProblem(discoveryURL);
    if (urlProblem) problems.push(`${p}.issuer.discoveryURL: Invalid value: ${JSON.stringify(discoveryURL)}: ${urlProblem}`);
    else if (discoveryURL === url) problems.push(`${p}.issuer.discoveryURL: Invalid value: ${JSON.stringify(discoveryURL)}: discoveryURL must be different from URL`);
    else if (seenDiscovery.has(discoveryURL)) problems.push(`${p}.issuer.discoveryURL: Duplicate value: ${JSON.stringify(discoveryURL)}`);
    seenDiscovery.add(discoveryURL);
  }
  const ca = str(issuer.certificateAuthority);
  if (ca !== '' && !pemHasCertificate(ca)) problems.push(`${p}.issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates`);
  const audiences = Array.isArray(issuer.audiences) ? issuer.audiences : [];
  if (audiences.length === 0) problems.push(`${p}.issuer.audiences: Required value: at least one issuer.audiences is required`);
  const seenAud = new Set<string>();
  audiences.forEach((a, i) => {
    if (typeof a !== 'string' || a === '') problems.push(`${p}.issuer.audiences[${i}]: Required value`);
    else if (seenAud.has(a)) problems.push(`${p}.issuer.audiences[${i}]: Duplicate value: ${JSON.stringify(a)}`);
    else seenAud.add(a);
  });
  const policy = str(issuer.audienceMatchPolicy);
  if (audiences.length > 1 && policy !== 'MatchAny') problems.push(`${p}.issuer.audienceMatchPolicy: Invalid value: ${JSON.stringify(policy)}: audienceMatchPolicy must be MatchAny for multiple audiences`);
  if (audiences.length === 1 && policy !== '' && policy !== 'MatchAny') problems.push(`${p}.issuer.audienceMatchPolicy: Invalid value: ${JSON.stringify(policy)}: audienceMatchPolicy must be empty or MatchAny for single audience`);
  // Validated as kube validates it. There is no --egress-selector-config-file here, so the issuer is
  // dialled directly: what kube-apiserver does when its egress configuration has no such selection.
  const egress = str(issuer.egressSelectorType);
  if (egress !== '' && egress !== 'controlplane' && egress !== 'cluster') problems.push(`${p}.issuer.egressSelectorType: Unsupported value: ${JSON.stringify(egress)}: supported values: "cluster", "controlplane"`);

  const usedExpressions: string[] = [];
  const expression = (field: string, text: string, variables: typeof CLAIMS_VARIABLES | typeof USER_VARIABLES) => {
    try {
      compileOrThrow(text, variables);
      if (variables === CLAIMS_VARIABLES) usedExpressions.push(text);
    } catch (err) {
      problems.push(`${field}: Invalid value: ${JSON.stringify(text)}: ${(err as Error).message}`);
    }
  };

  const claimValidationRules: ClaimValidationRule[] = [];
  listOf(jwt.claimValidationRules).forEach((raw, i) => {
    const r = asRecord(raw) ?? {};
    const f = `${p}.claimValidationRules[${i}]`;
    const claim = str(r.claim);
    const expr = str(r.expression);
    if (claim !== '' && expr !== '') problems.push(`${f}: Invalid value: ${JSON.stringify(claim)}: claim and expression can't both be set`);
    else if (claim === '' && expr === '') problems.push(`${f}: Required value: claim or expression is required`);
    else if (claim !== '') {
      if (str(r.message) !== '') problems.push(`${f}.message: Invalid value: ${JSON.stringify(r.message)}: message can't be set when claim is set`);
      claimValidationRules.push({ claim, requiredValue: str(r.requiredValue) });
    } else {
      if (str(r.requiredValue) !== '') problems.push(`${f}.requiredValue: Invalid value: ${JSON.stringify(r.requiredValue)}: requiredValue can't be set when expression is set`);
      expression(`${f}.expression`, expr, CLAIMS_VARIABLES);
      claimValidationRules.push({ expression: expr, ...(str(r.message) !== '' ? { message: str(r.message) } : {}) });
    }
  });

  const mappings = asRecord(jwt.claimMappings) ?? {};
  const username = asRecord(mappings.username) ?? {};
  const u = mapping(username, `${p}.claimMappings.username`, true, problems, expression);
  if (u.claim === undefined && u.expression === undefined) problems.push(`${p}.claimMappings.username: Required value: claim or expression is required`);
  const g = mapping(asRecord(mappings.groups) ?? {}, `${p}.claimMappings.groups`, true, problems, expression);
  const uid = mapping(asRecord(mappings.uid) ?? {}, `${p}.claimMappings.uid`, false, problems, expression);
  const extra: { key: string; valueExpression: string }[] = [];
  const seenKeys = new Set<string>();
  listOf(mappings.extra).forEach((raw, i) => {
    const e = asRecord(raw) ?? {};
    const f = `${p}.claimMappings.extra[${i}]`;
    const key = str(e.key);
    const valueExpression = str(e.valueExpression);
    const keyProblem = extraKeyProblem(key);
    if (key === '') problems.push(`${f}.key: Required value`);
    else if (keyProblem) problems.push(`${f}.key: Invalid value: ${JSON.stringify(key)}: ${keyProblem}`);
    else if (seenKeys.has(key)) problems.push(`${f}.key: Duplicate value: ${JSON.stringify(key)}`);
    seenKeys.add(key);
    if (valueExpression === '') problems.push(`${f}.valueExpression: Required value: valueExpression is required`);
    else expression(`${f}.valueExpression`, valueExpression, CLAIMS_VARIABLES);
    extra.push({ key, valueExpression });
  });
  // kube: an expression username built from claims.email must check claims.email_verified somewhere.
  if (u.expression !== undefined && /\bclaims\.email\b/.test(u.expression)) {
    const checked = [u.expression, ...extra.map((e) => e.valueExpression), ...claimValidationRules.flatMap((r) => ('expression' in r ? [r.expression] : []))].some((e) => /\bclaims\.email_verified\b/.test(e));
    if (!checked) {
      problems.push(
        `${p}.claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression`,
      );
    }
  }

  const userValidationRules: { expression: string; message?: string }[] = [];
  listOf(jwt.userValidationRules).forEach((raw, i) => {
    const r = asRecord(raw) ?? {};
    const f = `${p}.userValidationRules[${i}]`;
    const expr = str(r.expression);
    if (expr === '') problems.push(`${f}.expression: Required value: expression is required`);
    else expression(`${f}.expression`, expr, USER_VARIABLES);
    userValidationRules.push({ expression: expr, ...(str(r.message) !== '' ? { message: str(r.message) } : {}) });
  });

  if (problems.length > start) return undefined;
  return {
    issuer: { url, ...(discoveryURL !== '' ? { discoveryURL } : {}), ...(ca !== '' ? { certificateAuthority: ca } : {}), audiences: audiences as string[] },
    claimValidationRules,
    claimMappings: { username: u, ...(g.claim !== undefined || g.expression !== undefined ? { groups: g } : {}), ...(uid.claim !== undefined || uid.expression !== undefined ? { uid } : {}), extra },
    userValidationRules,
  };
}

/** A `{claim, prefix}` or `{expression}` mapping; `prefix` is required with a claim where kube requires it. */
function mapping(
  m: Record<string, unknown>,
  f: string,
  hasPrefix: boolean,
  problems: string[],
  expression: (field: string, text: string, variables: typeof CLAIMS_VARIABLES) => void,
): { claim?: string; prefix?: string; expression?: string } {
  const claim = str(m.claim);
  const expr = str(m.expression);
  const prefix = typeof m.prefix === 'string' ? m.prefix : undefined;
  if (claim !== '' && expr !== '') {
    problems.push(`${f}: Invalid value: "": claim and expression can't both be set`);
    return {};
  }
  if (expr !== '') {
    if (hasPrefix && prefix !== undefined && prefix !== '') problems.push(`${f}.prefix: Invalid value: ${JSON.stringify(prefix)}: may not be specified when claim is not set`);
    expression(`${f}.expression`, expr, CLAIMS_VARIABLES);
    return { expression: expr };
  }
  if (claim !== '') {
    if (hasPrefix && prefix === undefined) problems.push(`${f}.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`);
    return { claim, ...(prefix !== undefined ? { prefix } : {}) };
  }
  if (hasPrefix && prefix !== undefined && prefix !== '') problems.push(`${f}.prefix: Invalid value: ${JSON.stringify(prefix)}: may not be specified when claim is not set`);
  return {};
}

/** kube's extra-key rules: a lowercase domain-prefixed path outside the reserved domains. */
function extraKeyProblem(key: string): string | undefined {
  if (key === '') return undefined;
  if (key !== key.toLowerCase()) return 'key must be lowercase';
  const slash = key.indexOf('/');
  if (slash <= 0 || slash === key.length - 1) return 'must be a domain-prefixed path (such as "acme.io/foo")';
  const domain = key.slice(0, slash);
  for (const reserved of ['kubernetes.io', 'k8s.io']) {
    if (domain === reserved || domain.endsWith(`.${reserved}`)) return `k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use`;
  }
  return undefined;
}

export interface OidcFlags {
  readonly issuerUrl?: string;
  readonly clientId?: string;
  readonly usernameClaim?: string;
  readonly usernamePrefix?: string;
  readonly groupsClaim?: string;
  readonly groupsPrefix?: string;
  readonly requiredClaims?: readonly string[];
  /** PEM contents of --oidc-ca-file. */
  readonly ca?: string;
  readonly signingAlgs?: readonly string[];
}

/**
 * The `--oidc-*` flags as one JWT authenticator, the way kube-apiserver converts them: username
 * claim `sub` by default, prefixed with `<issuer>#` unless the claim is `email` or the prefix is
 * given (`-` disables it), required claims as claim validation rules, RS256 unless algorithms are named.
 */
export function jwtSpecFromOidcFlags(f: OidcFlags, ctx: ValidationContext): JwtAuthenticatorSpec {
  const problems: string[] = [];
  const url = f.issuerUrl ?? '';
  const urlProblem = httpsUrlProblem(url);
  if (urlProblem) problems.push(`oidc-issuer-url: Invalid value: ${JSON.stringify(url)}: ${urlProblem}`);
  if (ctx.serviceAccountIssuers.includes(url)) problems.push(`oidc-issuer-url: Invalid value: ${JSON.stringify(url)}: issuer URL must not overlap with disallowed issuers: ${goList(ctx.serviceAccountIssuers)}`);
  if (!f.clientId) problems.push('oidc-client-id: Required value: oidc-client-id is required with oidc-issuer-url');
  const algs = f.signingAlgs && f.signingAlgs.length > 0 ? [...f.signingAlgs] : ['RS256'];
  for (const a of algs) if (!(SUPPORTED_SIGNING_ALGORITHMS as readonly string[]).includes(a)) problems.push(`oidc-signing-algs: Unsupported value: ${JSON.stringify(a)}: supported values: ${SUPPORTED_SIGNING_ALGORITHMS.map((s) => JSON.stringify(s)).join(', ')}`);
  if (f.ca !== undefined && !pemHasCertificate(f.ca)) problems.push('oidc-ca-file: Invalid value: data does not contain any valid RSA or ECDSA certificates');
  const claimValidationRules: ClaimValidationRule[] = [];
  for (const rc of f.requiredClaims ?? []) {
    const eq = rc.indexOf('=');
    if (eq <= 0) problems.push(`oidc-required-claim: Invalid value: ${JSON.stringify(rc)}: must be key=value`);
    else claimValidationRules.push({ claim: rc.slice(0, eq), requiredValue: rc.slice(eq + 1) });
  }
  if (problems.length > 0) throw new AuthenticationConfigError(problems);
  const usernameClaim = f.usernameClaim || 'sub';
  let usernamePrefix = f.usernamePrefix;
  if (usernamePrefix === undefined || usernamePrefix === '') usernamePrefix = usernameClaim === 'email' ? '' : `${url}#`;
  if (usernamePrefix === '-') usernamePrefix = '';
  return {
    issuer: { url, ...(f.ca !== undefined ? { certificateAuthority: f.ca } : {}), audiences: [f.clientId!] },
    claimValidationRules,
    claimMappings: {
      username: { claim: usernameClaim, prefix: usernamePrefix },
      ...(f.groupsClaim ? { groups: { claim: f.groupsClaim, prefix: f.groupsPrefix ?? '' } } : {}),
      extra: [],
    },
    userValidationRules: [],
    signingAlgorithms: algs,
  };
}

function httpsUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a valid URL';
  }
  if (parsed.protocol !== 'https:') return 'URL scheme must be https';
  if (parsed.username !== '' || parsed.password !== '') return 'URL must not contain a username or password';
  if (parsed.search !== '') return 'URL must not contain a query';
  if (parsed.hash !== '' || url.includes('#')) return 'URL must not contain a fragment';
  return undefined;
}

function pemHasCertificate(pem: string): boolean {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.some((b) => {
    try {
      new X509Certificate(b);
      return true;
    } catch {
      return false;
    }
  });
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function listOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function goValue(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? 'null';
}

function goList(list: readonly string[]): string {
  return `[${list.join(' ')}]`;
}
