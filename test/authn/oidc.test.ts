/**
 * OIDC / JWT authentication against a real issuer on loopback (TLS with its own CA, discovery,
 * JWKS, key rotation): the --oidc-* flags, the structured AuthenticationConfiguration with CEL
 * claim mappings and rules, validation of bad files, reload of the file, and bad tokens of every
 * kind (each a 401 or not this authenticator's, never a crash).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecretKey } from 'node:crypto';
import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { startTestIssuer, type TestIssuer } from './oidc-issuer.ts';
import { createJwtAuthenticator, type JwtAuthenticatorSpec } from '../../src/authn/jwt-authenticator.ts';
import { AuthenticationConfigError, jwtSpecFromOidcFlags, parseAuthenticationConfig } from '../../src/authn/authentication-config.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { parseFlags, type ServerConfig } from '../../src/server/config.ts';

let issuer: TestIssuer;
let dir: string;
const ctx = { serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'] };
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  issuer = await startTestIssuer();
  dir = await mkdtemp(join(tmpdir(), 'kgw-oidc-'));
});
afterAll(async () => {
  await issuer?.close();
  await rm(dir, { recursive: true, force: true });
});

function flagsSpec(extra: Partial<Parameters<typeof jwtSpecFromOidcFlags>[0]> = {}): JwtAuthenticatorSpec {
  return jwtSpecFromOidcFlags({ issuerUrl: issuer.url, clientId: 'kube', ca: issuer.ca, groupsClaim: 'groups', groupsPrefix: 'oidc:', ...extra }, ctx);
}

async function authenticator(spec: JwtAuthenticatorSpec, refetchIntervalMs = 0) {
  const a = createJwtAuthenticator(spec, { apiAudiences: ['https://kubernetes.default.svc.cluster.local'], refetchIntervalMs });
  await a.ready();
  return a;
}

const claims = (over: Record<string, unknown> = {}) => ({ sub: 'alice', aud: 'kube', exp: now() + 600, iat: now(), ...over });

describe('the --oidc-* flags', () => {
  it('maps sub with the issuer prefix and prefixed groups', async () => {
    const a = await authenticator(flagsSpec());
    const out = await a.authenticateToken(await issuer.sign(claims({ groups: ['dev', 'ops'] })));
    expect(out).toEqual({ kind: 'authenticated', user: { username: `${issuer.url}#alice`, groups: ['oidc:dev', 'oidc:ops'], extra: {} } });
    a.close();
  });

  it('email needs no prefix but a false email_verified fails; "-" disables the prefix', async () => {
    const a = await authenticator(flagsSpec({ usernameClaim: 'email' }));
    expect(await a.authenticateToken(await issuer.sign(claims({ email: 'a@x.io', email_verified: true })))).toMatchObject({ user: { username: 'a@x.io' } });
    expect(await a.authenticateToken(await issuer.sign(claims({ email: 'a@x.io', email_verified: false })))).toEqual({ kind: 'rejected', reason: 'oidc: email not verified' });
    a.close();
    const b = await authenticator(flagsSpec({ usernamePrefix: '-' }));
    expect(await b.authenticateToken(await issuer.sign(claims()))).toMatchObject({ user: { username: 'alice' } });
    b.close();
  });

  it('required claims', async () => {
    const a = await authenticator(flagsSpec({ requiredClaims: ['hd=example.com'] }));
    expect((await a.authenticateToken(await issuer.sign(claims({ hd: 'example.com' })))).kind).toBe('authenticated');
    expect(await a.authenticateToken(await issuer.sign(claims({ hd: 'other.org' })))).toEqual({ kind: 'rejected', reason: 'oidc: required claim hd value does not match. Got = other.org, want = example.com' });
    expect(await a.authenticateToken(await issuer.sign(claims()))).toEqual({ kind: 'rejected', reason: 'oidc: required claim hd not present in ID token' });
    a.close();
  });

  it('bad flags are refused naming the flag', () => {
    expect(() => jwtSpecFromOidcFlags({ issuerUrl: 'http://x', clientId: 'k' }, ctx)).toThrow(/oidc-issuer-url: Invalid value: "http:\/\/x": URL scheme must be https/);
    expect(() => jwtSpecFromOidcFlags({ issuerUrl: 'https://x' }, ctx)).toThrow(/oidc-client-id: Required value/);
    expect(() => jwtSpecFromOidcFlags({ issuerUrl: 'https://x', clientId: 'k', signingAlgs: ['HS256'] }, ctx)).toThrow(/oidc-signing-algs: Unsupported value: "HS256"/);
    expect(() => parseFlags(['--oidc-client-id=k'])).toThrow(/oidc-issuer-url is required/);
    expect(() => parseFlags(['--authentication-config=/x', '--oidc-issuer-url=https://x'])).toThrow('authentication-config file and oidc-* flags are mutually exclusive');
  });
});

describe('bad tokens', () => {
  let a: Awaited<ReturnType<typeof authenticator>>;
  beforeAll(async () => {
    a = await authenticator(flagsSpec());
  });
  afterAll(() => a.close());

  it('other issuers, malformed and oversized tokens are not this authenticator\'s', async () => {
    expect(await a.authenticateToken(await issuer.sign(claims({ iss: 'https://elsewhere' })))).toEqual({ kind: 'no-credentials' });
    expect(await a.authenticateToken('not.a.jwt')).toEqual({ kind: 'no-credentials' });
    expect(await a.authenticateToken('x'.repeat(100_000))).toEqual({ kind: 'no-credentials' });
  });

  it('expired, not yet valid, wrong audience', async () => {
    expect((await a.authenticateToken(await issuer.sign(claims({ exp: now() - 5 })))).kind).toBe('rejected');
    expect((await a.authenticateToken(await issuer.sign(claims({ nbf: now() + 3600 })))).kind).toBe('rejected');
    // Within go-oidc's five minutes of skew, nbf passes.
    expect((await a.authenticateToken(await issuer.sign(claims({ nbf: now() + 60 })))).kind).toBe('authenticated');
    const wrongAud = await a.authenticateToken(await issuer.sign(claims({ aud: 'other' })));
    expect(wrongAud).toEqual({ kind: 'rejected', reason: 'oidc: verify token: oidc: expected audience in [kube] got [other]' });
  });

  it('alg none, HMAC keyed with the public key, a foreign key, a disallowed algorithm', async () => {
    const none = new UnsecuredJWT({ ...claims(), iss: issuer.url }).encode();
    expect((await a.authenticateToken(none)).kind).toBe('rejected');
    const jwks = JSON.parse(await (await fetchJwks()).text()) as { keys: unknown[] };
    const hmac = await new SignJWT({ ...claims(), iss: issuer.url }).setProtectedHeader({ alg: 'HS256', kid: 'key-1' }).sign(createSecretKey(Buffer.from(JSON.stringify(jwks.keys[0]))));
    expect((await a.authenticateToken(hmac)).kind).toBe('rejected');
    const foreign = (await generateKeyPair('RS256')).privateKey;
    expect(await a.authenticateToken(await issuer.sign(claims(), { key: foreign }))).toEqual({ kind: 'rejected', reason: 'oidc: verify token: failed to verify signature: failed to verify id token signature' });
    const es = await startTestIssuer({ alg: 'ES256' });
    try {
      const b = await authenticator(jwtSpecFromOidcFlags({ issuerUrl: es.url, clientId: 'kube', ca: es.ca }, ctx));
      // --oidc-signing-algs defaults to RS256 only.
      expect((await b.authenticateToken(await es.sign(claims()))).kind).toBe('rejected');
      b.close();
    } finally {
      await es.close();
    }
  });

  it('a key rotated in at the issuer is fetched when a token names it', async () => {
    const before = issuer.hits.get('/jwks') ?? 0;
    const kid = await issuer.rotate();
    const out = await a.authenticateToken(await issuer.sign(claims({ sub: 'rotated' })));
    expect(out).toMatchObject({ kind: 'authenticated', user: { username: `${issuer.url}#rotated` } });
    expect(issuer.hits.get('/jwks')).toBe(before + 1);
    expect(kid).toBe('key-2');
  });

  it('an unknown kid is refetched at most once per interval', async () => {
    const b = await authenticator(flagsSpec(), 60_000);
    const before = issuer.hits.get('/jwks') ?? 0;
    for (let i = 0; i < 5; i++) expect((await b.authenticateToken(await issuer.sign(claims(), { kid: `nope-${i}` }))).kind).toBe('rejected');
    expect(issuer.hits.get('/jwks')).toBe(before);
    b.close();
  });
});

function fetchJwks(): Promise<{ text(): Promise<string> }> {
  return import('node:https').then(
    (https) =>
      new Promise((resolve, reject) => {
        https.get(`${issuer.url}/jwks`, { ca: issuer.ca }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ text: async () => body }));
        }).on('error', reject);
      }),
  );
}

function structured(jwt: Record<string, unknown>, extra = ''): string {
  return JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration', jwt: [jwt], ...(extra ? JSON.parse(extra) : {}) });
}

describe('distributed claims (groups from a claim endpoint, OIDC Core 5.6.2)', () => {
  const distributed = (endpoint: string, extra: Record<string, unknown> = {}) =>
    claims({ _claim_names: { groups: 'src1' }, _claim_sources: { src1: { endpoint: `${issuer.url}/claims/${endpoint}`, access_token: 'at-1', ...extra } } });

  it('fetches the groups with the access token, verifies the answer and maps it', async () => {
    issuer.claimEndpoints.set('alice', { jwt: await issuer.sign(claims({ groups: ['dev', 'ops'] })), accessToken: 'at-1' });
    const a = await authenticator(flagsSpec());
    const out = await a.authenticateToken(await issuer.sign(distributed('alice')));
    expect(out).toMatchObject({ kind: 'authenticated', user: { groups: ['oidc:dev', 'oidc:ops'] } });
    // A groups claim in the token itself wins: the endpoint is not asked.
    const before = issuer.hits.get('/claims/alice') ?? 0;
    const direct = await a.authenticateToken(await issuer.sign({ ...distributed('alice'), groups: ['own'] }));
    expect(direct).toMatchObject({ user: { groups: ['oidc:own'] } });
    expect(issuer.hits.get('/claims/alice') ?? 0).toBe(before);
  });

  it('refuses what kube refuses, with its words', async () => {
    const a = await authenticator(flagsSpec());
    const why = async (c: Record<string, unknown>) => {
      const out = await a.authenticateToken(await issuer.sign(c));
      return out.kind === 'rejected' ? out.reason : out.kind;
    };
    const prefix = 'oidc: could not expand distributed claims: ';
    expect(await why(claims({ _claim_names: { groups: 'src1' } }))).toBe(`${prefix}oidc: no claim sources`);
    expect(await why(claims({ _claim_names: { groups: 'src9' }, _claim_sources: {} }))).toBe(`${prefix}id token _claim_names contained a source src9 missing in _claims_sources`);
    expect(await why(claims({ _claim_names: { groups: 1 }, _claim_sources: {} }))).toBe(`${prefix}oidc: error parsing distributed claim names: json: cannot unmarshal number into Go value of type string`);
    // Wrong access token: the endpoint answers 401.
    issuer.claimEndpoints.set('bob', { jwt: await issuer.sign(claims({ groups: ['x'] })), accessToken: 'other' });
    expect(await why(distributed('bob'))).toBe(`${prefix}while getting distributed claim "groups": non-200 response code: 401`);
    // The answer must be a valid token for this authenticator's audiences, carrying the claim.
    issuer.claimEndpoints.set('carol', { jwt: await issuer.sign(claims({ aud: 'elsewhere', groups: ['x'] })), accessToken: 'at-1' });
    expect(await why(distributed('carol'))).toBe(`${prefix}verify distributed claim token: oidc: verify token: oidc: expected audience in [kube] got [elsewhere]`);
    issuer.claimEndpoints.set('dave', { jwt: await issuer.sign(claims()), accessToken: 'at-1' });
    expect(await why(distributed('dave'))).toBe(`${prefix}jwt returned by distributed claim endpoint "${issuer.url}/claims/dave" did not contain claim: groups`);
    issuer.claimEndpoints.set('erin', { jwt: 'not-a-jwt', accessToken: 'at-1' });
    expect(await why(distributed('erin'))).toMatch(new RegExp(`^${prefix}verify distributed claim token: oidc: malformed jwt`));
    // An aggregated claim (a JWT, no endpoint) is not resolved, as in kube: no groups.
    expect(await a.authenticateToken(await issuer.sign(claims({ _claim_names: { groups: 's' }, _claim_sources: { s: { JWT: 'x.y.z' } } })))).toMatchObject({ kind: 'authenticated', user: { groups: [] } });
    // An answer from an issuer this server cannot reach (no trust for its TLS) is refused, not a crash.
    const other = await startTestIssuer();
    try {
      issuer.claimEndpoints.set('frank', { jwt: await other.sign(claims({ groups: ['x'] })), accessToken: 'at-1' });
      expect(await why(distributed('frank'))).toMatch(new RegExp(`^${prefix}verify distributed claim token: verifier not initialized for issuer`));
    } finally {
      await other.close();
    }
  });
});

describe('AuthenticationConfiguration', () => {
  const base = () => ({
    issuer: { url: issuer.url, certificateAuthority: issuer.ca, audiences: ['kube', 'other'], audienceMatchPolicy: 'MatchAny' },
    claimValidationRules: [{ expression: "claims.hd == 'example.com'", message: 'the hd claim must be example.com' }],
    claimMappings: {
      username: { expression: "'oidc:' + claims.sub" },
      groups: { expression: 'claims.roles.map(r, "role:" + r)' },
      uid: { claim: 'sub' },
      extra: [{ key: 'example.com/tenant', valueExpression: 'claims.tenant' }],
    },
    userValidationRules: [{ expression: "!user.username.startsWith('oidc:system:')", message: 'no system users' }],
  });

  it('maps claims with CEL and checks claim and user rules; several audiences', async () => {
    const config = parseAuthenticationConfig(structured(base()), ctx);
    const a = await authenticator(config.jwt[0]!);
    const t = await issuer.sign(claims({ aud: ['other'], hd: 'example.com', roles: ['a', 'b'], tenant: 't1' }));
    expect(await a.authenticateToken(t)).toEqual({ kind: 'authenticated', user: { username: 'oidc:alice', uid: 'alice', groups: ['role:a', 'role:b'], extra: { 'example.com/tenant': ['t1'] } } });
    expect(await a.authenticateToken(await issuer.sign(claims({ hd: 'x', roles: [], tenant: '' })))).toEqual({
      kind: 'rejected',
      reason: 'oidc: error evaluating claim validation expression: the hd claim must be example.com',
    });
    expect(await a.authenticateToken(await issuer.sign(claims({ sub: 'system:admin', hd: 'example.com', roles: [], tenant: '' })))).toEqual({
      kind: 'rejected',
      reason: 'oidc: error evaluating user info validation rule: no system users',
    });
    // A missing claim the expressions read is an evaluation error: 401, not a crash.
    expect((await a.authenticateToken(await issuer.sign(claims({ hd: 'example.com' })))).kind).toBe('rejected');
    a.close();
  });

  it('the example under config/ validates', async () => {
    const text = await readFile(join(__dirname, '../../config/authentication-config.example.yaml'), 'utf8');
    const config = parseAuthenticationConfig(text, ctx);
    expect(config.jwt[0]!.issuer.audiences).toEqual(['kubernetes', 'kubectl']);
    expect(config.anonymous).toEqual({ enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }, { path: '/healthz' }] });
  });

  it('invalid files name every bad field', () => {
    const bad = {
      issuer: { url: 'http://insecure', audiences: ['a', 'b'] },
      claimValidationRules: [{ claim: 'x', expression: 'true' }],
      claimMappings: { username: { claim: 'sub' }, extra: [{ key: 'kubernetes.io/x', valueExpression: 'claims.(' }] },
      userValidationRules: [{ expression: '' }],
    };
    let err: AuthenticationConfigError | undefined;
    try {
      parseAuthenticationConfig(structured(bad), ctx);
    } catch (e) {
      err = e as AuthenticationConfigError;
    }
    expect(err).toBeInstanceOf(AuthenticationConfigError);
    const problems = err!.problems.join('\n');
    expect(problems).toContain('jwt[0].issuer.url: Invalid value: "http://insecure": URL scheme must be https');
    expect(problems).toContain('jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences');
    expect(problems).toContain('jwt[0].claimValidationRules[0]: Invalid value: "x": claim and expression can\'t both be set');
    expect(problems).toContain('jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set');
    expect(problems).toContain('jwt[0].claimMappings.extra[0].key: Invalid value: "kubernetes.io/x": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use');
    expect(problems).toMatch(/jwt\[0\]\.claimMappings\.extra\[0\]\.valueExpression: Invalid value: "claims\.\(": compilation failed/);
    expect(problems).toContain('jwt[0].userValidationRules[0].expression: Required value');
  });

  it('more than 64 authenticators, duplicate issuers, the service-account issuer, email without email_verified', () => {
    const many = JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1alpha1',
      kind: 'AuthenticationConfiguration',
      jwt: Array.from({ length: 65 }, (_, i) => ({ issuer: { url: `https://i${i}.example`, audiences: ['a'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } })),
    });
    expect(() => parseAuthenticationConfig(many, ctx)).toThrow('jwt: Too many: 65: must have at most 64 items');
    const dup = { issuer: { url: 'https://same.example', audiences: ['a'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } };
    expect(() => parseAuthenticationConfig(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', jwt: [dup, dup] }), ctx)).toThrow('jwt[1].issuer.url: Duplicate value: "https://same.example"');
    expect(() => parseAuthenticationConfig(structured({ ...dup, issuer: { url: ctx.serviceAccountIssuers[0], audiences: ['a'] } }), ctx)).toThrow(/issuer URL must not overlap with disallowed issuers/);
    expect(() => parseAuthenticationConfig(structured({ ...dup, claimMappings: { username: { expression: 'claims.email' } } }), ctx)).toThrow(/claims.email_verified must be used/);
    expect(() => parseAuthenticationConfig('apiVersion: v1\nkind: ConfigMap\n', ctx)).toThrow(/no kind "ConfigMap" is registered for version "v1"/);
  });
});

/** A kubeconfig that authenticates with `token` only (no client certificate). */
export async function tokenKubeconfig(s: TestServer, token: string): Promise<string> {
  const caFile = join(dir, 'server-ca.crt');
  await writeFile(caFile, s.server.caCert);
  const path = join(dir, `token-${Math.random().toString(36).slice(2)}.kubeconfig`);
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: s.server.url, 'certificate-authority': caFile } }],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return path;
}

describe('through the server', () => {
  let t: TestServer | undefined;
  afterAll(async () => t?.close());

  async function start(authn: Partial<NonNullable<ServerConfig['authn']>>, config: Partial<ServerConfig> = {}) {
    await t?.close();
    t = await startTestServer({ config: { authn: { enableBootstrapTokenAuth: false, anonymousAuthGiven: false, ...authn }, ...config } });
    return t;
  }

  it('--oidc-* flags: kubectl --token, a bad token 401, TokenReview', async () => {
    const caFile = join(dir, 'oidc-ca.crt');
    await writeFile(caFile, issuer.ca);
    const s = await start({ oidc: { issuerUrl: issuer.url, clientId: 'kube', caFile, requiredClaims: [], signingAlgs: [], usernamePrefix: 'oidc:', groupsClaim: 'groups' } });
    const token = await issuer.sign(claims({ groups: ['g1'] }));
    const kubeconfig = await tokenKubeconfig(s, token);
    const r = await s.kubectl(['--kubeconfig', kubeconfig, 'auth', 'whoami', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).status.userInfo).toEqual({ username: 'oidc:alice', groups: ['g1', 'system:authenticated'] });
    const bad = await s.request('GET', '/api', { anonymous: true, headers: { authorization: `Bearer ${await issuer.sign(claims({ exp: now() - 10 }))}` } });
    expect(bad.status).toBe(401);
    expect(bad.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const review = await s.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
    expect(review.json.status).toMatchObject({ authenticated: true, user: { username: 'oidc:alice', groups: ['g1', 'system:authenticated'] } });
  });

  it('--authentication-config: reloaded on change; an invalid file keeps the last good one; anonymous conditions', async () => {
    const path = join(dir, 'authn.yaml');
    const jwt = { issuer: { url: issuer.url, certificateAuthority: issuer.ca, audiences: ['kube'] }, claimMappings: { username: { claim: 'sub', prefix: 'v1:' } } };
    await writeFile(path, structured(jwt, JSON.stringify({ anonymous: { enabled: true, conditions: [{ path: '/livez' }] } })));
    const s = await start({ authenticationConfigFile: path });
    const token = await issuer.sign(claims());
    const who = async () => (await s.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { anonymous: true, headers: { authorization: `Bearer ${token}` }, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } })).json?.status?.userInfo?.username;
    expect(await who()).toBe('v1:alice');
    // Anonymous only where the conditions allow.
    expect((await s.request('GET', '/livez', { anonymous: true })).status).toBe(200);
    expect((await s.request('GET', '/version', { anonymous: true })).status).toBe(401);

    await writeFile(path, structured({ ...jwt, claimMappings: { username: { claim: 'sub', prefix: 'v2:' } } }, JSON.stringify({ anonymous: { enabled: true, conditions: [{ path: '/livez' }] } })));
    let seen = '';
    for (let i = 0; i < 100 && seen !== 'v2:alice'; i++) {
      seen = await who();
      if (seen !== 'v2:alice') await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toBe('v2:alice');

    await writeFile(path, 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt: [{issuer: {url: "http://no"}}]\n');
    // kube's reload metrics: one success, then one failure (the last good configuration stays).
    const reloads = (status: string) => new RegExp(`^apiserver_authentication_config_controller_automatic_reloads_total\\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="${status}"\\} [1-9]\\d*$`, 'm');
    let metrics = '';
    for (let i = 0; i < 100 && !reloads('failure').test(metrics); i++) {
      metrics = (await s.request('GET', '/metrics')).text;
      if (!reloads('failure').test(metrics)) await new Promise((r) => setTimeout(r, 100));
    }
    expect(metrics).toMatch(reloads('failure'));
    expect(metrics).toMatch(reloads('success'));
    expect(metrics).toMatch(/^apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="failure"\} \d/m);
    expect(await who()).toBe('v2:alice');
  });

  it('an invalid file or --anonymous-auth beside an anonymous block fails the start naming the problem', async () => {
    const path = join(dir, 'bad.yaml');
    await writeFile(path, structured({ issuer: { url: issuer.url, audiences: [] }, claimMappings: { username: { claim: 'sub', prefix: '' } } }));
    await expect(startTestServer({ config: { authn: { authenticationConfigFile: path, enableBootstrapTokenAuth: false, anonymousAuthGiven: false } } })).rejects.toThrow(/jwt\[0\]\.issuer\.audiences: Required value/);
    const anon = join(dir, 'anon.yaml');
    await writeFile(anon, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration', anonymous: { enabled: false } }));
    await expect(startTestServer({ config: { authn: { authenticationConfigFile: anon, enableBootstrapTokenAuth: false, anonymousAuthGiven: true } } })).rejects.toThrow(/--anonymous-auth/);
  });
});
