/**
 * Service-account tokens end to end: TokenRequest through kubectl, the token used as a bearer
 * token, TokenReview and SelfSubjectReview (`kubectl auth whoami`), revocation by deletion.
 */
import { createPublicKey, verify } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { parseJws } from '../../src/authn/jwt.ts';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
let t: TestServer;
let saUid = '';

beforeAll(async () => {
  // Authentication is under test here; RBAC's answers are test/authz's.
  // A short token cache (kube: 10 s) so revocation is seen within the test; the cache's own rules are token-cache.test.ts's.
  t = await startTestServer({ config: { authorizationModes: ['AlwaysAllow'], tokenSuccessCacheTtlMs: 500 } });
  const created = await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'robot' } } });
  expect(created.status).toBe(201);
  saUid = created.json.metadata.uid;
}, 60_000);
afterAll(async () => t?.close());

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` }, anonymous: true });

async function requestToken(body: object = { spec: {} }, name = 'robot') {
  return t.request('POST', `/api/v1/namespaces/default/serviceaccounts/${name}/token`, { body });
}

describe('service-account tokens over HTTP', () => {
  it('generates a signing key in the data dir', () => {
    expect(existsSync(join(t.dataDir, 'sa.key'))).toBe(true);
  });

  it('kubectl create token issues a token that authenticates as the service account', async () => {
    const out = await t.kubectl(['create', 'token', 'robot', '-n', 'default', '--duration', '20m', '--audience', 'aud-a']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const token = out.stdout.trim();
    const claims = parseJws(token)!.claims;
    expect(claims.aud).toEqual(['aud-a']);
    expect((claims.exp as number) - (claims.iat as number)).toBe(1200);
    // Audience aud-a is not the API's: the token is refused by the API itself.
    expect((await t.request('GET', '/api/v1/namespaces', bearer(token))).status).toBe(401);

    const good = (await requestToken()).json.status.token as string;
    const who = await t.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      ...bearer(good),
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(who.status).toBe(201);
    expect(who.json.status.userInfo).toEqual({
      username: 'system:serviceaccount:default:robot',
      uid: saUid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${parseJws(good)!.claims.jti as string}`] },
    });
  });

  it('kubectl auth whoami works with a service-account token', async () => {
    const token = (await requestToken()).json.status.token as string;
    const kubeconfig = join(t.dataDir, 'sa.kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: t.server.url, 'certificate-authority-data': Buffer.from(t.server.caCert).toString('base64') } }],
        users: [{ name: 'u', user: { token } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const out = await t.kubectl(['--kubeconfig', kubeconfig, 'auth', 'whoami', '-o', 'json']);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).status.userInfo.username).toBe('system:serviceaccount:default:robot');
  });

  it('answers TokenRequest in kube shape and validates expirationSeconds', async () => {
    const res = await requestToken();
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: 'robot', namespace: 'default' },
      spec: { audiences: [ISSUER], expirationSeconds: 3600, boundObjectRef: null },
      status: { token: expect.any(String), expirationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
    });
    const short = await requestToken({ spec: { expirationSeconds: 100 } });
    expect(short.status).toBe(422);
    expect(short.json.message).toBe(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 100: may not specify a duration less than 10 minutes',
    );
    expect(short.json.details).toEqual({
      group: 'authentication.k8s.io',
      kind: 'TokenRequest',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 100: may not specify a duration less than 10 minutes', field: 'spec.expirationSeconds' }],
    });
    const long = await requestToken({ spec: { expirationSeconds: 5_000_000_000 } });
    expect(long.json.message).toContain('may not specify a duration larger than 2^32 seconds');
    const missing = await requestToken({ spec: {} }, 'nope');
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('serviceaccounts "nope" not found');
    expect((await t.request('GET', '/api/v1/namespaces/default/serviceaccounts/robot/token')).status).toBe(405);
  });

  it('TokenReview reports the user, or kube error texts', async () => {
    const token = (await requestToken()).json.status.token as string;
    const review = (spec: object) => t.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec } });
    const ok = await review({ token });
    expect(ok.status).toBe(201);
    expect(ok.json.status).toMatchObject({ authenticated: true, audiences: [ISSUER], user: { username: 'system:serviceaccount:default:robot', uid: saUid } });
    expect(ok.json.status.user.groups).toContain('system:authenticated');
    expect((await review({ token: 'garbage' })).json.status).toEqual({ user: {}, error: 'invalid bearer token' });
    expect((await review({ token, audiences: ['foo'] })).json.status).toEqual({
      user: {},
      error: `[invalid bearer token, token audiences ["${ISSUER}"] is invalid for the target audiences ["foo"]]`,
    });
    const empty = await review({});
    expect(empty.status).toBe(400);
    expect(empty.json.message).toBe('token is required for TokenReview in authentication');
    const get = await t.request('GET', '/apis/authentication.k8s.io/v1/tokenreviews');
    expect(get.status).toBe(405);
    expect(get.json.message).toBe('the server does not allow this method on the requested resource');
    // Only the collection route exists: below it, and in a namespace, nothing (404).
    expect((await t.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews/x', { body: {} })).status).toBe(404);
    expect((await t.request('POST', '/apis/authentication.k8s.io/v1/namespaces/default/tokenreviews', { body: {} })).status).toBe(404);
  });

  it('rejects a token once its service account is deleted or recreated (after the token cache TTL, as kube)', async () => {
    await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'doomed' } } });
    const token = (await requestToken({ spec: {} }, 'doomed')).json.status.token as string;
    expect((await t.request('GET', '/api/v1/namespaces/default', bearer(token))).status).toBe(200);
    expect((await t.request('DELETE', '/api/v1/namespaces/default/serviceaccounts/doomed')).status).toBe(200);
    // Audiences other than the request path's are another cache key: the lookup runs at once.
    const review = await t.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: [ISSUER, 'other'] } },
    });
    expect(review.json.status).toEqual({ user: {}, error: '[invalid bearer token, serviceaccounts "doomed" not found]' });
    const untilRefused = async () => {
      let r = await t.request('GET', '/api/v1/namespaces/default', bearer(token));
      for (let i = 0; i < 100 && r.status !== 401; i++) {
        await new Promise((res) => setTimeout(res, 50));
        r = await t.request('GET', '/api/v1/namespaces/default', bearer(token));
      }
      return r;
    };
    const after = await untilRefused();
    expect(after.status).toBe(401);
    expect(after.json.reason).toBe('Unauthorized');
    await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'doomed' } } });
    expect((await untilRefused()).status).toBe(401);
  });

  it('discovery lists tokenreviews, selfsubjectreviews and serviceaccounts/token as kube does', async () => {
    const group = await t.request('GET', '/apis/authentication.k8s.io/v1');
    expect(group.json).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'authentication.k8s.io/v1',
      resources: [
        { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] },
        { name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] },
      ],
    });
    const core = await t.request('GET', '/api/v1');
    expect(core.json.resources).toContainEqual({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
    const out = await t.kubectl(['api-resources', '--api-group=authentication.k8s.io', '-o', 'name']);
    expect(out.stdout.split('\n').filter(Boolean).sort()).toEqual(['selfsubjectreviews.authentication.k8s.io', 'tokenreviews.authentication.k8s.io']);
  });

  it('serves issuer discovery whose JWKS verifies issued tokens', async () => {
    const config = await t.request('GET', '/.well-known/openid-configuration');
    expect(config.status).toBe(200);
    expect(config.headers['content-type']).toBe('application/json');
    expect(config.headers['cache-control']).toBe('public, max-age=3600');
    expect(config.json).toEqual({
      issuer: ISSUER,
      jwks_uri: `${t.server.url}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    const jwks = await t.request('GET', '/openid/v1/jwks');
    expect(jwks.headers['content-type']).toBe('application/jwk-set+json');
    const token = (await requestToken()).json.status.token as string;
    const jws = parseJws(token)!;
    const jwk = jwks.json.keys.find((k: { kid: string }) => k.kid === jws.header.kid);
    expect(jwk).toMatchObject({ use: 'sig', kty: 'EC', alg: 'ES256', crv: 'P-256' });
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    // JWS carries ECDSA signatures as r || s (IEEE P1363), not DER.
    expect(verify('sha256', Buffer.from(jws.signingInput), { key, dsaEncoding: 'ieee-p1363' }, jws.signature)).toBe(true);
  });
});
