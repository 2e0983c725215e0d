/**
 * The Webhook authorizer against a TLS SubjectAccessReview server on loopback: allow, no opinion,
 * deny (which ends the chain), timeouts, malformed and failing answers with both failure policies,
 * the v1 and v1beta1 wire forms with selectors, the caches and their TTLs, match conditions; then
 * kube-gateway with --authorization-mode=Webhook,RBAC and with --authorization-config, reloaded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certs.ts';
import { renderKubeconfig } from '../../src/server/kubeconfig.ts';
import { compileMatchConditions, WebhookAuthorizer, type WebhookOptions } from '../../src/authz/webhook.ts';
import { AuthorizerChain, alwaysAllow, authorizeSync, isPromise, type Attributes, type Decision } from '../../src/authz/authorizer.ts';
import { parseAuthorizationConfiguration } from '../../src/authz/config-file.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

interface Seen {
  readonly apiVersion: string;
  readonly spec: Record<string, unknown>;
}

let dir: string;
let server: https.Server;
let url: string;
let ca: string;
const seen: Seen[] = [];
/** The answer per user name; a function may also stall or break the response. */
const answers: Record<string, (res: import('node:http').ServerResponse) => void> = {
  alice: (res) => json(res, { allowed: true, reason: 'alice may' }),
  bob: (res) => json(res, { allowed: false, reason: 'not mine to say' }),
  mallory: (res) => json(res, { allowed: false, denied: true, reason: 'mallory is banned' }),
  both: (res) => json(res, { allowed: true, denied: true }),
  garbage: (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status": '),
  broken: (res) => res.writeHead(500).end('boom'),
  slow: () => undefined,
};
function json(res: import('node:http').ServerResponse, status: object) {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status }));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-webhook-'));
  const authority = await createCertificateAuthority('webhook-test-ca');
  const serving = await issueServingCertificate({ caCert: authority.cert, caKey: authority.key }, { ips: ['127.0.0.1'] });
  ca = authority.cert;
  server = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen;
      seen.push(review);
      const user = String(review.spec.user ?? '');
      (answers[user] ?? ((r) => json(r, { allowed: false })))(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  await writeFile(join(dir, 'webhook.kubeconfig'), renderKubeconfig({ server: url, caPem: ca, token: 'secret-token' }));
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await rm(dir, { recursive: true, force: true });
});

function attrs(username: string, extra: Partial<Attributes> = {}): Attributes {
  return {
    user: { username, uid: `uid-${username}`, groups: ['system:authenticated', 'devs'], extra: { scopes: ['a'] } },
    verb: 'list',
    isResourceRequest: true,
    path: '/api/v1/namespaces/ns/pods',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: 'ns',
    name: '',
    ...extra,
  };
}

function hook(opts: Partial<WebhookOptions> = {}): WebhookAuthorizer {
  return new WebhookAuthorizer({
    connection: { server: url, ca, token: 'secret-token' },
    version: 'v1',
    authorizedTtlMs: 60_000,
    unauthorizedTtlMs: 60_000,
    timeoutMs: 2_000,
    failurePolicy: 'NoOpinion',
    retry: { initialMs: 5, factor: 1.5, steps: 3 },
    ...opts,
  });
}

async function decide(a: { authorize(x: Attributes): Decision | Promise<Decision> }, x: Attributes): Promise<Decision> {
  return await a.authorize(x);
}

describe('the webhook authorizer', () => {
  it('allows, has no opinion, or denies as the remote answers', async () => {
    const w = hook({ authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
    try {
      expect(await decide(w, attrs('alice'))).toEqual({ decision: 'allow', reason: 'alice may' });
      expect(await decide(w, attrs('bob'))).toEqual({ decision: 'noOpinion', reason: 'not mine to say' });
      expect(await decide(w, attrs('mallory'))).toEqual({ decision: 'deny', reason: 'mallory is banned' });
      expect(await decide(w, attrs('both'))).toEqual({ decision: 'deny', reason: '', error: 'webhook subject access review returned both allow and deny response' });
    } finally {
      w.close();
    }
  });

  it('sends kube\'s v1 review, with parsed selectors, and v1beta1 with `group`', async () => {
    const w = hook({ authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
    const beta = hook({ version: 'v1beta1', authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
    try {
      seen.length = 0;
      await decide(w, attrs('alice', { labelSelector: 'app=web,tier notin (db),!old', fieldSelector: 'spec.nodeName=n1' }));
      expect(seen[0]).toEqual({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: { creationTimestamp: null },
        spec: {
          resourceAttributes: {
            namespace: 'ns',
            verb: 'list',
            version: 'v1',
            resource: 'pods',
            fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] },
            labelSelector: {
              requirements: expect.arrayContaining([
                { key: 'app', operator: 'In', values: ['web'] },
                { key: 'tier', operator: 'NotIn', values: ['db'] },
                { key: 'old', operator: 'DoesNotExist' },
              ]),
            },
          },
          user: 'alice',
          groups: ['system:authenticated', 'devs'],
          extra: { scopes: ['a'] },
          uid: 'uid-alice',
        },
        status: { allowed: false },
      });
      await decide(beta, { ...attrs('alice'), isResourceRequest: false, verb: 'get', path: '/healthz' });
      expect(seen[1]!.apiVersion).toBe('authorization.k8s.io/v1beta1');
      expect(seen[1]!.spec).toEqual({ nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'alice', group: ['system:authenticated', 'devs'], extra: { scopes: ['a'] }, uid: 'uid-alice' });
    } finally {
      w.close();
      beta.close();
    }
  });

  it('caches answers by review for their TTLs, answering hits synchronously', async () => {
    const w = hook({ authorizedTtlMs: 60_000, unauthorizedTtlMs: 50 });
    try {
      seen.length = 0;
      expect((await decide(w, attrs('alice'))).decision).toBe('allow');
      const hit = w.authorize(attrs('alice'));
      expect(isPromise(hit)).toBe(false);
      expect((hit as Decision).decision).toBe('allow');
      expect(seen).toHaveLength(1);
      // Another attribute is another review.
      await decide(w, attrs('alice', { verb: 'get', name: 'p' }));
      expect(seen).toHaveLength(2);
      await decide(w, attrs('bob'));
      expect(isPromise(w.authorize(attrs('bob')))).toBe(false);
      await new Promise((r) => setTimeout(r, 80));
      // The unauthorized TTL has passed: asked again.
      expect(isPromise(w.authorize(attrs('bob')))).toBe(true);
    } finally {
      w.close();
    }
  });

  it('decides failures by the failure policy, with the error; retries what kube retries', async () => {
    const noOpinion = hook();
    const deny = hook({ failurePolicy: 'Deny' });
    try {
      const garbage = await decide(noOpinion, attrs('garbage'));
      expect(garbage.decision).toBe('noOpinion');
      expect(garbage.error).toMatch(/^couldn't decode the webhook's answer/);
      seen.length = 0;
      const broken = await decide(deny, attrs('broken'));
      expect(broken.decision).toBe('deny');
      expect(broken.error).toContain('has prevented the request from succeeding');
      expect(seen.filter((r) => r.spec.user === 'broken')).toHaveLength(3); // a 500 is retried, up to the attempts
      // Failures are not cached.
      expect(isPromise(deny.authorize(attrs('broken')))).toBe(true);
    } finally {
      noOpinion.close();
      deny.close();
    }
  });

  it('gives up on a webhook that does not answer in time', async () => {
    const w = hook({ timeoutMs: 150, retry: { initialMs: 5, factor: 1, steps: 1 } });
    try {
      const d = await decide(w, attrs('slow'));
      expect(d.decision).toBe('noOpinion');
      expect(d.error).toContain('Client.Timeout exceeded');
    } finally {
      w.close();
    }
  });

  it('calls only when every match condition is true; an error follows the failure policy', async () => {
    const conds = compileMatchConditions(["has(request.resourceAttributes) && request.resourceAttributes.resource == 'pods'", "request.user != 'alice'"]);
    expect(conds.errors).toEqual([]);
    const w = hook({ matchConditions: conds.compiled, authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
    const bad = compileMatchConditions(['request.resourceAttributes.nope == 1']);
    const failing = hook({ matchConditions: bad.compiled, failurePolicy: 'Deny' });
    try {
      seen.length = 0;
      expect(await decide(w, attrs('alice'))).toEqual({ decision: 'noOpinion', reason: '' });
      expect(await decide(w, attrs('bob', { resource: 'secrets' }))).toEqual({ decision: 'noOpinion', reason: '' });
      expect(seen).toHaveLength(0);
      expect((await decide(w, attrs('mallory'))).decision).toBe('deny');
      expect(seen).toHaveLength(1);
      const d = await decide(failing, attrs('alice'));
      expect(d.decision).toBe('deny');
      expect(d.error).toMatch(/^cel evaluation error: expression 'request.resourceAttributes.nope == 1' resulted in error: /);
    } finally {
      w.close();
      failing.close();
    }
  });

  it('in a chain: deny stops it, no opinion passes on, a remote answer makes the chain asynchronous', async () => {
    const w = hook();
    try {
      const chain = new AuthorizerChain([w, alwaysAllow]);
      expect(await chain.authorize(attrs('mallory'))).toEqual({ decision: 'deny', reason: 'mallory is banned' });
      expect((await chain.authorize(attrs('bob'))).decision).toBe('allow');
      const masters = chain.authorize({ ...attrs('root'), user: { username: 'root', groups: ['system:masters'], extra: {} } });
      expect(isPromise(masters)).toBe(false);
      // Callers that cannot wait (the CEL library) get the cached answer, or an error instead of a call.
      expect(authorizeSync(chain, attrs('mallory'))).toEqual({ decision: 'deny', reason: 'mallory is banned' });
      expect(authorizeSync(chain, attrs('nobody-yet'))).toEqual({ error: 'the authorizer needs a remote call that cannot be made synchronously' });
      expect(w.rulesFor(attrs('x').user, 'ns')).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: true, error: 'webhook authorizer does not support user rule resolution' });
    } finally {
      w.close();
    }
  });
});

describe('AuthorizationConfiguration', () => {
  const base = (webhook: object) =>
    JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration', authorizers: [{ type: 'Webhook', name: 'w', webhook }, { type: 'RBAC', name: 'rbac' }] });

  it('accepts the example under config/ (with a kubeconfig that exists)', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = (await readFile(new URL('../../config/authorization-config.example.yaml', import.meta.url), 'utf8')).replace('/etc/kube-gateway/authz-webhook.kubeconfig', join(dir, 'webhook.kubeconfig'));
    const specs = parseAuthorizationConfiguration(text, 'example');
    expect(specs.map((s) => `${s.type}/${s.name}`)).toEqual(['Webhook/policy-service', 'RBAC/rbac']);
    expect(specs[0]!.webhook!.matchConditions).toHaveLength(2);
  });

  it('defaults and accepts a complete file', () => {
    const specs = parseAuthorizationConfiguration(
      base({ timeout: '3s', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'Deny', connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'webhook.kubeconfig') }, matchConditions: [{ expression: 'true' }] }),
      'f',
    );
    expect(specs.map((s) => s.type)).toEqual(['Webhook', 'RBAC']);
    expect(specs[0]!.webhook).toMatchObject({ timeoutMs: 3000, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, cacheAuthorizedRequests: true, failurePolicy: 'Deny' });
  });

  it('refuses invalid files with kube\'s field errors', () => {
    expect(() => parseAuthorizationConfiguration(base({}), 'f')).toThrow(
      'invalid authorization configuration file "f": [authorizers[0].webhook.timeout: Required value, authorizers[0].webhook.subjectAccessReviewVersion: Required value, authorizers[0].webhook.failurePolicy: Required value, authorizers[0].webhook.connectionInfo.type: Required value]',
    );
    expect(() =>
      parseAuthorizationConfiguration(base({ timeout: '31s', subjectAccessReviewVersion: 'v2', failurePolicy: 'Maybe', connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: 'rel' }, matchConditions: [{ expression: 'x' }] }), 'f'),
    ).toThrow(
      'authorizers[0].webhook.timeout: Invalid value: "31s": must be > 0s and <= 30s, authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1", authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified, authorizers[0].webhook.failurePolicy: Unsupported value: "Maybe": supported values: "NoOpinion", "Deny", authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: "rel": must be an absolute path',
    );
    const many = Array.from({ length: 65 }, (_, i) => ({ expression: `request.user == 'u${i}'` }));
    expect(() => parseAuthorizationConfiguration(base({ timeout: '1s', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'Deny', connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'webhook.kubeconfig') }, matchConditions: many }), 'f')).toThrow(
      'authorizers[0].webhook.matchConditions: Too many: 65: must have at most 64 items',
    );
    expect(() => parseAuthorizationConfiguration('{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AuthorizationConfiguration","authorizers":[{"type":"RBAC","name":"a"},{"type":"RBAC","name":"b"},{"type":"Foo"}]}', 'f')).toThrow(
      'authorizers[1].type: Duplicate value: "RBAC", authorizers[2].type: Unsupported value: "Foo": supported values: "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"',
    );
    expect(() => parseAuthorizationConfiguration('kind: Other\napiVersion: v1\n', 'f')).toThrow('no kind "Other" is registered for version "v1"');
    expect(() => parseAuthorizationConfiguration('{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AuthorizationConfiguration","authorizers":[]}', 'f')).toThrow('authorizers: Required value: at least one authorization mode must be defined');
  });
});

describe('kube-gateway with a webhook', () => {
  let t: TestServer;
  let configFile: string;
  const as = (token: string) => ({ anonymous: true, headers: { authorization: `Bearer ${token}` } });
  const authzConfig = (failurePolicy: string, extra: object = {}) =>
    JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1beta1',
      kind: 'AuthorizationConfiguration',
      authorizers: [
        {
          type: 'Webhook',
          name: 'remote',
          webhook: { timeout: '2s', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy, connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'webhook.kubeconfig') }, ...extra },
        },
        { type: 'RBAC', name: 'rbac' },
      ],
    });

  beforeAll(async () => {
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, 'tok-alice,alice,1\ntok-bob,bob,2\ntok-mallory,mallory,3\ntok-garbage,garbage,4\n');
    configFile = join(dir, 'authz.yaml');
    await writeFile(configFile, authzConfig('Deny', { matchConditions: [{ expression: "request.user != 'bob'" }] }));
    t = await startTestServer({ config: { tokenAuthFile: tokens, authorizationConfigFile: configFile } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('allows what the webhook allows and ends the chain at its denial, with its reason', async () => {
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps', as('tok-alice'))).status).toBe(200);
    const denied = await t.request('GET', '/api/v1/namespaces/default/configmaps', as('tok-mallory'));
    expect(denied.status).toBe(403);
    // kube's responsewriters.Forbidden marks the denial nosniff.
    expect(denied.headers['x-content-type-options']).toBe('nosniff');
    expect(denied.json.message).toBe('configmaps is forbidden: User "mallory" cannot list resource "configmaps" in API group "" in the namespace "default": mallory is banned');
    // bob is skipped by the match condition: RBAC (which gives bob nothing) decides, with no reason.
    const bob = await t.request('GET', '/api/v1/namespaces/default/configmaps', as('tok-bob'));
    expect(bob.json.message).toBe('configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"');
  });

  it('answers a failed call under failurePolicy Deny with kube\'s plain-text 500', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/default/configmaps', as('tok-garbage'));
    expect(r.status).toBe(500);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['cache-control']).toBe('no-cache, private');
    expect(r.text).toMatch(/^Internal Server Error: "\/api\/v1\/namespaces\/default\/configmaps": couldn't decode the webhook's answer/);
  });

  it('reports it in access reviews and rules reviews', async () => {
    const sar = await t.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: { spec: { user: 'garbage', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'x' } } } });
    expect(sar.json.status).toMatchObject({ allowed: false, denied: true });
    expect(sar.json.status.evaluationError).toMatch(/^couldn't decode/);
    const ssrr = await t.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { ...as('tok-alice'), body: { spec: { namespace: 'default' } } });
    expect(ssrr.json.status).toMatchObject({ incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' });
  });

  it('reloads the file when it changes, and keeps the last good one when it breaks', async () => {
    // Now bob is asked too (no match conditions) and the failure policy is NoOpinion.
    await writeFile(configFile, authzConfig('NoOpinion'));
    const want = 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default": not mine to say';
    let message = '';
    for (let i = 0; i < 100 && message !== want; i++) {
      message = (await t.request('GET', '/api/v1/namespaces/default/configmaps', as('tok-bob'))).json.message;
      if (message !== want) await new Promise((res) => setTimeout(res, 50));
    }
    expect(message).toBe(want);
    // NoOpinion with an error and no later allow: kube's filter still answers the error, a 500.
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps', as('tok-garbage'))).status).toBe(500);
    await writeFile(configFile, '{"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AuthorizationConfiguration", "authorizers": []}');
    await new Promise((res) => setTimeout(res, 300));
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps', as('tok-alice'))).status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps', as('tok-bob'))).json.message).toContain('not mine to say');
    // kube's metrics: one good reload, one refused; decisions counted per configured authorizer.
    const metrics = (await t.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/^apiserver_authorization_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="success"\} 1$/m);
    expect(metrics).toMatch(/^apiserver_authorization_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="failure"\} 1$/m);
    expect(metrics).toMatch(/^apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="success"\} \d/m);
    expect(metrics).toMatch(/^apiserver_authorization_decisions_total\{decision="allowed",name="remote",type="Webhook"\} [1-9]/m);
    expect(metrics).toMatch(/^apiserver_authorization_decisions_total\{decision="denied",name="remote",type="Webhook"\} [1-9]/m);
  });
});

describe('kube-gateway with --authorization-mode=Webhook,RBAC (flag form)', () => {
  let t: TestServer;
  beforeAll(async () => {
    const tokens = join(dir, 'tokens-flag.csv');
    await writeFile(tokens, 'tok-alice,alice,1\ntok-bob,bob,2\ntok-mallory,mallory,3\n');
    t = await startTestServer({
      config: { tokenAuthFile: tokens, authorizationModes: ['Webhook', 'RBAC'], authorizationWebhookConfigFile: join(dir, 'webhook.kubeconfig'), authorizationWebhookVersion: 'v1beta1' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('asks the webhook with v1beta1 reviews and passes no-opinion answers on to RBAC', async () => {
    seen.length = 0;
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps', { anonymous: true, headers: { authorization: 'Bearer tok-alice' } })).status).toBe(200);
    expect(seen.some((r) => r.apiVersion === 'authorization.k8s.io/v1beta1' && r.spec.user === 'alice' && Array.isArray(r.spec.group))).toBe(true);
    // RBAC lets every authenticated user ask about themselves: bob's no opinion passes on to it.
    const ssar = await t.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      anonymous: true,
      headers: { authorization: 'Bearer tok-bob' },
      body: { spec: { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } } },
    });
    expect(ssar.status).toBe(201);
    expect(ssar.json.status).toEqual({ allowed: false, reason: 'not mine to say' });
    const denied = await t.request('GET', '/api/v1/namespaces/default/configmaps', { anonymous: true, headers: { authorization: 'Bearer tok-mallory' } });
    expect(denied.json.message).toBe('configmaps is forbidden: User "mallory" cannot list resource "configmaps" in API group "" in the namespace "default": mallory is banned');
  });

  it('refuses to start with a webhook kubeconfig that is not https', async () => {
    await writeFile(join(dir, 'plain.kubeconfig'), renderKubeconfig({ server: 'http://127.0.0.1:1', caPem: ca }));
    await expect(startTestServer({ config: { authorizationModes: ['Webhook'], authorizationWebhookConfigFile: join(dir, 'plain.kubeconfig') } })).rejects.toThrow('the server must use https');
  });
});
