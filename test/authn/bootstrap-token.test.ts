/**
 * Bootstrap tokens through the server (--enable-bootstrap-token-auth): Secrets in kube-system
 * authenticate as system:bootstrap:<id> with their extra groups; every invalid variant is a 401;
 * the token cleaner deletes expired Secrets; the bootstrap signer signs cluster-info and the
 * signature verifies with jose as kubeadm's join verifies it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactVerify } from 'jose';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createSecretKey } from 'node:crypto';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { detachedSignature } from '../../src/authn/bootstrap-controllers.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: { authn: { enableBootstrapTokenAuth: true, anonymousAuthGiven: false } } });
});
afterAll(async () => t?.close());

const b64 = (s: string) => Buffer.from(s).toString('base64');

function tokenSecret(id: string, secret: string, extra: Record<string, string> = {}) {
  const data: Record<string, string> = { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true', ...extra };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  };
}

async function create(body: object) {
  const r = await t.request('POST', '/api/v1/namespaces/kube-system/secrets', { body });
  expect(r.status, r.text).toBe(201);
}

async function whoami(token: string) {
  return t.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    anonymous: true,
    headers: { authorization: `Bearer ${token}` },
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
}

/** Waits until `check` holds (the watch cache and controllers follow writes asynchronously). */
async function eventually<T>(get: () => Promise<T>, ok: (v: T) => boolean, tries = 150): Promise<T> {
  let v = await get();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 50));
    v = await get();
  }
  return v;
}

describe('bootstrap token authentication', () => {
  it('authenticates as system:bootstrap:<id> with sorted, deduplicated groups', async () => {
    await create(tokenSecret('abcdef', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:worker,system:bootstrappers:kubeadm:default-node-token,system:bootstrappers:worker' }));
    const r = await eventually(() => whoami('abcdef.0123456789abcdef'), (x) => x.status === 201);
    expect(r.json.status.userInfo).toEqual({
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:bootstrappers:worker', 'system:authenticated'],
    });
  });

  it('the example under config/ (stringData) authenticates', async () => {
    // Its token id is renamed, as abcdef is taken by the test above.
    const text = (await readFile(join(__dirname, '../../config/bootstrap-token.example.yaml'), 'utf8')).replace('bootstrap-token-abcdef', 'bootstrap-token-exmple').replace('token-id: abcdef', 'token-id: exmple');
    await create(parseYaml(text));
    const r = await eventually(() => whoami('exmple.0123456789abcdef'), (x) => x.status === 201);
    expect(r.json.status.userInfo).toEqual({ username: 'system:bootstrap:exmple', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'] });
  });

  it('rejects a wrong secret, an unmarked, expired or badly grouped token, and a Secret of another type with 401', async () => {
    await create(tokenSecret('noauth', '0123456789abcdef', { 'usage-bootstrap-authentication': 'false' }));
    await create(tokenSecret('expird', '0123456789abcdef', { expiration: '2001-01-01T00:00:00Z' }));
    await create(tokenSecret('badgrp', '0123456789abcdef', { 'auth-extra-groups': 'system:masters' }));
    await create({ ...tokenSecret('opaque', '0123456789abcdef'), type: 'Opaque' });
    // Wait for the watch cache to hold them all (the last one created).
    await eventually(() => t.request('GET', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-opaque?resourceVersion=0'), (x) => x.status === 200);
    for (const token of ['abcdef.0000000000000000', 'noauth.0123456789abcdef', 'expird.0123456789abcdef', 'badgrp.0123456789abcdef', 'opaque.0123456789abcdef', 'zzzzzz.0123456789abcdef']) {
      const r = await whoami(token);
      expect(r.status, token).toBe(401);
      expect(r.json.message).toBe('Unauthorized');
    }
  });
});

describe('bootstrap controllers', () => {
  it('the token cleaner deletes expired token Secrets', async () => {
    await create(tokenSecret('oldtok', '0123456789abcdef', { expiration: '2001-01-01T00:00:00Z' }));
    const r = await eventually(() => t.request('GET', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-oldtok'), (x) => x.status === 404);
    expect(r.status).toBe(404);
  });

  it('the bootstrap signer signs cluster-info; the signature verifies as kubeadm verifies it', async () => {
    const kubeconfig = 'apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: Q0E=\n    server: https://127.0.0.1:6443\n  name: ""\n';
    const cm = await t.request('POST', '/api/v1/namespaces/kube-public/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig } } });
    expect(cm.status, cm.text).toBe(201);
    const signed = await eventually(() => t.request('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info'), (x) => x.json?.data?.['jws-kubeconfig-abcdef'] !== undefined);
    const detached = signed.json.data['jws-kubeconfig-abcdef'] as string;
    // Expired tokens and Secrets of another type are not used; signing ignores the authentication fields.
    expect(Object.keys(signed.json.data).filter((k) => k.startsWith('jws-')).sort()).toEqual(['jws-kubeconfig-abcdef', 'jws-kubeconfig-badgrp', 'jws-kubeconfig-exmple', 'jws-kubeconfig-noauth']);
    // kubeadm: put the payload back between the dots and verify HS256 with the token secret.
    const [header, , sig] = detached.split('.');
    const full = `${header}.${Buffer.from(signed.json.data.kubeconfig).toString('base64url')}.${sig}`;
    const verified = await compactVerify(full, createSecretKey(Buffer.from('0123456789abcdef')));
    expect(verified.protectedHeader).toEqual({ alg: 'HS256', kid: 'abcdef' });
    expect(Buffer.from(verified.payload).toString()).toBe(kubeconfig);
    expect(detached).toBe(detachedSignature(kubeconfig, 'abcdef', '0123456789abcdef'));

    // Deleting a token removes its signature.
    expect((await t.request('DELETE', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-noauth')).status).toBe(200);
    const after = await eventually(() => t.request('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info'), (x) => x.json?.data?.['jws-kubeconfig-noauth'] === undefined);
    expect(after.json.data['jws-kubeconfig-noauth']).toBeUndefined();
    expect(after.json.data['jws-kubeconfig-abcdef']).toBe(detached);
  });
});
