/**
 * Selectors in authorization (kube's AuthorizeWithSelectors, beta and on in v1.32), against a TLS
 * SubjectAccessReview webhook on loopback: access reviews validate their field and label selectors
 * with kube's messages, pass what they can use to the authorizer and report what they could not in
 * status.evaluationError; lists send their query's selectors (not from the deprecated /watch/
 * paths, and without what the review API cannot express); CEL checks pass theirs on; with the gate
 * off nothing of it happens. Also the review kinds' metadata rule ("must be empty"), with the bad
 * value printed as Go's %#v of ObjectMeta, as kube-apiserver v1.32.4 prints it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certs.ts';
import { renderKubeconfig } from '../../src/server/kubeconfig.ts';
import { parseFeatureGates } from '../../src/features/index.ts';
import { celAuthorizerFor } from '../../src/authz/cel-adapter.ts';
import type { Attributes, Authorizer } from '../../src/authz/authorizer.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

type Spec = { user?: string; resourceAttributes?: Record<string, unknown> };

let dir: string;
let webhook: https.Server;
const seen: Spec[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-review-selectors-'));
  const authority = await createCertificateAuthority('selectors-test-ca');
  const serving = await issueServingCertificate({ caCert: authority.cert, caKey: authority.key }, { ips: ['127.0.0.1'] });
  webhook = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { spec: Spec };
      seen.push(review.spec);
      // alice may do anything; anyone else gets no opinion (and RBAC after the webhook).
      const allowed = review.spec.user === 'alice';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status: { allowed, ...(allowed ? { reason: 'alice may' } : {}) } }));
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/authorize`;
  await writeFile(join(dir, 'webhook.kubeconfig'), renderKubeconfig({ server: url, caPem: authority.cert, token: 't' }));
  await writeFile(join(dir, 'tokens.csv'), 'tok-alice,alice,1\n');
  await writeFile(
    join(dir, 'authz.json'),
    JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthorizationConfiguration',
      authorizers: [
        // No caching: every question reaches the webhook, so each test sees what was asked.
        { type: 'Webhook', name: 'remote', webhook: { timeout: '2s', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'NoOpinion', authorizedTTL: '0s', unauthorizedTTL: '0s', cacheAuthorizedRequests: false, cacheUnauthorizedRequests: false, connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'webhook.kubeconfig') } } },
        { type: 'RBAC', name: 'rbac' },
      ],
    }),
  );
});
afterAll(async () => {
  webhook?.closeAllConnections();
  await new Promise((r) => webhook?.close(r));
  await rm(dir, { recursive: true, force: true });
});

const SAR = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const sar = (resourceAttributes: Record<string, unknown>, user = 'alice') => ({ body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, resourceAttributes } } });
const alice = { anonymous: true, headers: { authorization: 'Bearer tok-alice' } };

function serverWith(gates: string[]) {
  return () => startTestServer({ config: { tokenAuthFile: join(dir, 'tokens.csv'), authorizationConfigFile: join(dir, 'authz.json'), featureGates: parseFeatureGates(gates) } });
}

describe('with AuthorizeWithSelectors (the default)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await serverWith([])();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sends a review\'s raw selectors to the webhook as requirements, and echoes the spec', async () => {
    seen.length = 0;
    const ra = { verb: 'list', resource: 'pods', fieldSelector: { rawSelector: 'spec.nodeName=n1,status.phase!=Failed' }, labelSelector: { rawSelector: 'app in (b,a),!tier' } };
    const r = await t.request('POST', SAR, sar(ra));
    expect(r.status).toBe(201);
    expect(r.json.spec.resourceAttributes).toEqual(ra);
    expect(r.json.status).toEqual({ allowed: true, reason: 'alice may' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.resourceAttributes).toEqual({
      verb: 'list',
      version: '*',
      resource: 'pods',
      fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }, { key: 'status.phase', operator: 'NotIn', values: ['Failed'] }] },
      labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['a', 'b'] }, { key: 'tier', operator: 'DoesNotExist' }] },
    });
  });

  it('passes usable requirements on and reports the rest in status.evaluationError', async () => {
    seen.length = 0;
    const r = await t.request('POST', SAR, sar({
      verb: 'list',
      resource: 'pods',
      // Exists and several values are beyond field selectors: left out, the rest kept ("partially").
      fieldSelector: { requirements: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'In', values: ['c'] }, { key: 'd', operator: 'In', values: ['e', 'f'] }] },
      // An operator the label selector API does not have: nothing left ("ignored").
      labelSelector: { requirements: [{ key: 'x', operator: 'Gt', values: ['1'] }] },
    }));
    expect(r.status).toBe(201);
    expect(r.json.status).toEqual({ allowed: true, reason: 'alice may', evaluationError: 'spec.resourceAttributes.fieldSelector partially ignored due to parse error; spec.resourceAttributes.labelSelector ignored due to parse error' });
    expect(seen[0]!.resourceAttributes).toEqual({ verb: 'list', version: '*', resource: 'pods', fieldSelector: { requirements: [{ key: 'b', operator: 'In', values: ['c'] }] } });
  });

  it('ignores a raw selector that does not parse, and says so', async () => {
    seen.length = 0;
    const r = await t.request('POST', SAR, sar({ verb: 'list', resource: 'pods', version: 'v1', fieldSelector: { rawSelector: 'no-operator' }, labelSelector: { rawSelector: 'a in (b' } }, 'bob'));
    expect(r.status).toBe(201);
    expect(r.json.status).toEqual({ allowed: false, evaluationError: 'spec.resourceAttributes.fieldSelector ignored due to parse error; spec.resourceAttributes.labelSelector ignored due to parse error' });
    expect(seen[0]!.resourceAttributes).toEqual({ verb: 'list', version: 'v1', resource: 'pods' });
  });

  it('refuses invalid selectors with kube\'s field errors', async () => {
    const r = await t.request('POST', SAR, sar({
      verb: 'list',
      resource: 'pods',
      fieldSelector: { rawSelector: 'a=b', requirements: [{ key: '', operator: 'In' }, { key: 'b', operator: 'DoesNotExist', values: ['y'] }] },
      labelSelector: { requirements: [{ key: 'bad key', operator: 'Exists', values: ['x'] }, { key: 'app', operator: 'In', values: ['not valid!'] }, { key: 'any', operator: 'Unknown' }] },
    }));
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    const causes = (r.json.details.causes as { field: string; message: string }[]).map((c) => `${c.field}: ${c.message}`);
    expect(causes).toEqual([
      'spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements',
      'spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified',
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.resourceAttributes.fieldSelector.requirements[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      "spec.resourceAttributes.labelSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      expect.stringMatching(/^spec\.resourceAttributes\.labelSelector\.requirements\[0\]\.key: Invalid value: "bad key": name part must consist of/),
      expect.stringMatching(/^spec\.resourceAttributes\.labelSelector\.requirements\[1\]\.values\[0\]: Invalid value: "not valid!": a valid label must be/),
    ]);
    const empty = await t.request('POST', SAR, sar({ verb: 'list', resource: 'pods', labelSelector: {} }));
    expect(empty.status).toBe(422);
    expect(empty.json.message).toBe('.authorization.k8s.io "" is invalid: spec.resourceAttributes.labelSelector.requirements: Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required');
  });

  it('refuses metadata on a review, printing it as kube does', async () => {
    const r = await t.request('POST', `${SAR}?fieldManager=mgr`, { body: { kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { name: 'x', labels: { b: '2', a: '1' } }, spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } } } });
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(
      /^\.authorization\.k8s\.io "" is invalid: metadata: Invalid value: v1\.ObjectMeta\{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:time\.Date\(1, time\.January, 1, 0, 0, 0, 0, time\.UTC\), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:\(\*int64\)\(nil\), Labels:map\[string\]string\{"a":"1", "b":"2"\}, Annotations:map\[string\]string\(nil\), OwnerReferences:\[\]v1\.OwnerReference\(nil\), Finalizers:\[\]string\(nil\), ManagedFields:\[\]v1\.ManagedFieldsEntry\{v1\.ManagedFieldsEntry\{Manager:"mgr", Operation:"Update", APIVersion:"authorization\.k8s\.io\/v1", Time:time\.Date\(\d{4}, time\.\w+, \d+, \d+, \d+, \d+, \d+, time\.UTC\), FieldsType:"FieldsV1", FieldsV1:\(\*v1\.FieldsV1\)\(0x[0-9a-f]+\), Subresource:""\}\}\}: must be empty$/,
    );
    const local = await t.request('POST', '/apis/authorization.k8s.io/v1/namespaces/ns1/localsubjectaccessreviews', { body: { kind: 'LocalSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { generateName: 'g-' }, spec: { user: 'alice', resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } } } });
    expect(local.status).toBe(422);
    expect(local.json.message).toMatch(/metadata: Invalid value: v1\.ObjectMeta\{Name:"", GenerateName:"g-", Namespace:"ns1", .*: must be empty except for namespace$/);
    // Empty maps, the namespace of a local review and unknown keys count as nothing.
    const fine = await t.request('POST', '/apis/authorization.k8s.io/v1/namespaces/ns1/localsubjectaccessreviews', { body: { kind: 'LocalSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { namespace: 'ns1', labels: {}, finalizers: [], unknown: 'x' }, spec: { user: 'alice', resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } } } });
    expect(fine.status).toBe(201);
  });

  it('sends a list\'s selectors, without what the review API cannot express, and none from a /watch/ path', async () => {
    seen.length = 0;
    const r = await t.request('GET', '/api/v1/namespaces/default/configmaps?labelSelector=' + encodeURIComponent('n>1,app=web'), alice);
    expect(r.status).toBe(200);
    expect(seen[0]!.resourceAttributes).toMatchObject({ verb: 'list', labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['web'] }] } });
    seen.length = 0;
    const w = await t.request('GET', '/api/v1/watch/namespaces/default/configmaps?timeoutSeconds=1&fieldSelector=metadata.namespace%3Ddefault', alice);
    expect(w.status).toBe(200);
    expect(seen[0]!.resourceAttributes).toEqual({ namespace: 'default', verb: 'watch', version: 'v1', resource: 'configmaps' });
    seen.length = 0;
    const q = await t.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&fieldSelector=metadata.namespace%3Ddefault', alice);
    expect(q.status).toBe(200);
    expect(seen[0]!.resourceAttributes).toMatchObject({ verb: 'watch', fieldSelector: { requirements: [{ key: 'metadata.namespace', operator: 'In', values: ['default'] }] } });
  });
});

describe('with AuthorizeWithSelectors=false', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await serverWith(['AuthorizeWithSelectors=false'])();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('drops a review\'s selectors before validation, and sends a list\'s to no one', async () => {
    seen.length = 0;
    // Invalid with the gate on; here the selectors are gone before anything looks at them.
    const r = await t.request('POST', SAR, sar({ verb: 'list', resource: 'pods', fieldSelector: {}, labelSelector: { rawSelector: 'a in (b' } }));
    expect(r.status).toBe(201);
    expect(r.json.spec.resourceAttributes).toEqual({ verb: 'list', resource: 'pods' });
    expect(r.json.status).toEqual({ allowed: true, reason: 'alice may' });
    expect(seen[0]!.resourceAttributes).toEqual({ verb: 'list', version: '*', resource: 'pods' });
    seen.length = 0;
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb', alice)).status).toBe(200);
    expect(seen[0]!.resourceAttributes).toEqual({ namespace: 'default', verb: 'list', version: 'v1', resource: 'configmaps' });
  });

  it('reports the gate as off', async () => {
    const m = await t.request('GET', '/metrics');
    expect(m.text).toMatch(/^kubernetes_feature_enabled\{name="AuthorizeWithSelectors",stage="BETA"\} 0$/m);
  });
});

describe('CEL authorization checks', () => {
  it('pass the selectors a check names to the authorizer', () => {
    const asked: Attributes[] = [];
    const recording: Authorizer = {
      authorize: (a) => {
        asked.push(a);
        return { decision: 'allow', reason: '' };
      },
    };
    const cel = celAuthorizerFor(recording, { username: 'u', groups: [], extra: {} });
    cel.authorize({ verb: 'list', resource: { group: '', resource: 'pods', subresource: '', namespace: 'ns', name: '', fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=web' } });
    cel.authorize({ verb: 'get', resource: { group: '', resource: 'pods', subresource: '', namespace: 'ns', name: 'p' } });
    expect(asked[0]).toMatchObject({ apiVersion: '*', fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=web' });
    expect(asked[1]).not.toHaveProperty('fieldSelector');
    expect(asked[1]).not.toHaveProperty('labelSelector');
  });
});
