/**
 * Kinds answered rather than stored (TokenReview, serviceaccounts/NAME/token) carry the managedFields
 * kube's create handler stamps on every create: one Update entry for what the body set (checked
 * against kube-apiserver v1.32.4).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('managedFields of create-only kinds', () => {
  it('TokenReview: the fields of spec the body set, no entry for the struct itself', async () => {
    const r = await t.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'not-a-token' } },
      headers: { 'user-agent': 'probe/v1.0 (linux/amd64)' },
    });
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields).toEqual([
      { manager: 'probe', operation: 'Update', apiVersion: 'authentication.k8s.io/v1', time: expect.any(String), fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:token': {} } } },
    ]);
  });

  it('TokenRequest: the entry names the token subresource', async () => {
    expect((await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'mf-sa' } } })).status).toBe(201);
    const r = await t.request('POST', '/api/v1/namespaces/default/serviceaccounts/mf-sa/token?fieldManager=issuer', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['a'], expirationSeconds: 600 } },
    });
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields).toEqual([
      {
        manager: 'issuer',
        operation: 'Update',
        apiVersion: 'authentication.k8s.io/v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:audiences': {}, 'f:expirationSeconds': {} } },
        subresource: 'token',
      },
    ]);
  });

  it('SelfSubjectReview with an empty body: no entry', async () => {
    const r = await t.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields).toBeUndefined();
  });

  it('access reviews: pointer structs (resourceAttributes) are owned themselves, spec is not', async () => {
    const r = await t.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'nobody', groups: ['g'], resourceAttributes: { namespace: 'default', verb: 'get', resource: 'configmaps' } } },
      headers: { 'user-agent': 'probe/v1.0' },
    });
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields).toEqual([
      {
        manager: 'probe',
        operation: 'Update',
        apiVersion: 'authorization.k8s.io/v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:groups': {}, 'f:resourceAttributes': { '.': {}, 'f:namespace': {}, 'f:resource': {}, 'f:verb': {} }, 'f:user': {} } },
      },
    ]);
    expect(r.json.status).toMatchObject({ allowed: false });
  });
});
