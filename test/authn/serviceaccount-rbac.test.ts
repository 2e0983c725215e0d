/** Service-account tokens under the default authorizer (RBAC): authenticated, then authorized as the account. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
}, 60_000);
afterAll(async () => t?.close());

describe('service-account tokens with RBAC', () => {
  it('may ask who it is, may not list namespaces, and a bad token is 401 rather than 403', async () => {
    expect((await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'rb' } } })).status).toBe(201);
    const token = (await t.request('POST', '/api/v1/namespaces/default/serviceaccounts/rb/token', { body: { spec: {} } })).json.status.token as string;
    const as = (tk: string) => ({ headers: { authorization: `Bearer ${tk}` }, anonymous: true });
    const who = await t.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { ...as(token), body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    expect(who.status).toBe(201);
    expect(who.json.status.userInfo.username).toBe('system:serviceaccount:default:rb');
    const list = await t.request('GET', '/api/v1/namespaces', as(token));
    expect(list.status).toBe(403);
    expect(list.json.message).toContain('User "system:serviceaccount:default:rb" cannot list resource "namespaces"');
    expect((await t.request('GET', '/api/v1/namespaces', as(`${token}x`))).status).toBe(401);
  });
});
