/**
 * `@kubernetes/client-node` with service-account tokens: TokenRequest through the typed client,
 * then a client authenticating with the token, and TokenReview / SelfSubjectReview.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../server/harness.ts';

let t: TestServer;
let admin: k8s.KubeConfig;
beforeAll(async () => {
  t = await startTestServer({ config: { authorizationModes: ['AlwaysAllow'] } });
  admin = new k8s.KubeConfig();
  admin.loadFromFile(t.server.kubeconfigPath);
}, 60_000);
afterAll(async () => t?.close());

function tokenConfig(token: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: t.server.url, caData: Buffer.from(t.server.caCert).toString('base64') }],
    users: [{ name: 'sa', token }],
    contexts: [{ name: 'x', cluster: 'c', user: 'sa' }],
    currentContext: 'x',
  });
  return kc;
}

describe('client-node with a service-account token', () => {
  it('requests a token, uses it, and reviews it', async () => {
    const core = admin.makeApiClient(k8s.CoreV1Api);
    const sa = await core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'cn-sa' } } });
    const tr = await core.createNamespacedServiceAccountToken({ name: 'cn-sa', namespace: 'default', body: { spec: { audiences: [], expirationSeconds: 900 } } });
    const token = tr.status!.token;
    expect(tr.spec.expirationSeconds).toBe(900);

    const asSa = tokenConfig(token);
    const list = await asSa.makeApiClient(k8s.CoreV1Api).listNamespacedServiceAccount({ namespace: 'default' });
    expect(list.items.map((i) => i.metadata?.name)).toContain('cn-sa');
    const who = await asSa.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    expect(who.status?.userInfo?.username).toBe('system:serviceaccount:default:cn-sa');
    expect(who.status?.userInfo?.uid).toBe(sa.metadata?.uid);

    const review = await admin.makeApiClient(k8s.AuthenticationV1Api).createTokenReview({ body: { spec: { token } } });
    expect(review.status?.authenticated).toBe(true);
    expect(review.status?.user?.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);

    await expect(tokenConfig(`${token}x`).makeApiClient(k8s.CoreV1Api).listNamespacedServiceAccount({ namespace: 'default' })).rejects.toMatchObject({ code: 401 });
  });
});
