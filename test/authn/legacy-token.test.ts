/**
 * Legacy service-account token Secrets: the token controller fills `token`, `ca.crt` and
 * `namespace` (and the uid annotation); the token authenticates as the service account while its
 * Secret and account stand; a Secret of a missing account is deleted; kubectl uses the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { parseJws } from '../../src/authn/jwt.ts';

let t: TestServer;
beforeAll(async () => {
  // A short token cache (kube: 10 s) so revocation is seen within the test; the cache's own rules are token-cache.test.ts's.
  t = await startTestServer({ config: { identityControllers: true, tokenSuccessCacheTtlMs: 500 } });
});
afterAll(async () => t?.close());

async function until(path: string, ok: (r: Awaited<ReturnType<TestServer['request']>>) => boolean) {
  let r = await t.request('GET', path);
  for (let i = 0; i < 200 && !ok(r); i++) {
    await new Promise((res) => setTimeout(res, 25));
    r = await t.request('GET', path);
  }
  return r;
}

const secret = (name: string, sa: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, annotations: { 'kubernetes.io/service-account.name': sa } },
  type: 'kubernetes.io/service-account-token',
});

const whoami = (token: string) =>
  t.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    anonymous: true,
    headers: { authorization: `Bearer ${token}` },
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });

describe('legacy service-account token Secrets', () => {
  it('are filled by the token controller and authenticate as the account', async () => {
    const sa = await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'legacy' } } });
    expect(sa.status).toBe(201);
    expect((await t.request('POST', '/api/v1/namespaces/default/secrets', { body: secret('legacy-token', 'legacy') })).status).toBe(201);
    const filled = await until('/api/v1/namespaces/default/secrets/legacy-token', (r) => r.json?.data?.token !== undefined);
    const data = filled.json.data as Record<string, string>;
    expect(Buffer.from(data['ca.crt']!, 'base64').toString()).toBe(t.server.caCert);
    expect(Buffer.from(data.namespace!, 'base64').toString()).toBe('default');
    expect(filled.json.metadata.annotations['kubernetes.io/service-account.uid']).toBe(sa.json.metadata.uid);
    const token = Buffer.from(data.token!, 'base64').toString();
    expect(parseJws(token)!.claims).toEqual({
      iss: 'kubernetes/serviceaccount',
      'kubernetes.io/serviceaccount/namespace': 'default',
      'kubernetes.io/serviceaccount/secret.name': 'legacy-token',
      'kubernetes.io/serviceaccount/service-account.name': 'legacy',
      'kubernetes.io/serviceaccount/service-account.uid': sa.json.metadata.uid,
      sub: 'system:serviceaccount:default:legacy',
    });
    const who = await whoami(token);
    expect(who.json.status.userInfo).toEqual({
      username: 'system:serviceaccount:default:legacy',
      uid: sa.json.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
  });

  it('a token stops working when its Secret is deleted; the Secret of a deleted account is deleted', async () => {
    const token = Buffer.from((await until('/api/v1/namespaces/default/secrets/legacy-token', (r) => r.json?.data?.token !== undefined)).json.data.token, 'base64').toString();
    expect((await t.request('DELETE', '/api/v1/namespaces/default/secrets/legacy-token')).status).toBe(200);
    // Refused once the cached success (kept for the cache TTL, as kube does) has expired.
    let who = await whoami(token);
    for (let i = 0; i < 100 && who.status !== 401; i++) {
      await new Promise((res) => setTimeout(res, 50));
      who = await whoami(token);
    }
    expect(who.status).toBe(401);

    expect((await t.request('POST', '/api/v1/namespaces/default/secrets', { body: secret('legacy-token-2', 'legacy') })).status).toBe(201);
    await until('/api/v1/namespaces/default/secrets/legacy-token-2', (r) => r.json?.data?.token !== undefined);
    expect((await t.request('DELETE', '/api/v1/namespaces/default/serviceaccounts/legacy')).status).toBe(200);
    expect((await until('/api/v1/namespaces/default/secrets/legacy-token-2', (r) => r.status === 404)).status).toBe(404);
  });
});
