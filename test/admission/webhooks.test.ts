import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { startWebhookServer, until, type WebhookServer } from './webhook-server.ts';
import { DEFAULT_TRAFFIC } from '../../src/aggregator/traffic.ts';

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';

let ts: TestServer;
let wh: WebhookServer;
let cfgDir: string;

function hook(name: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { url: wh.url(path), caBundle: wh.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    objectSelector: { matchLabels: { test: name } },
    ...extra,
  };
}

async function configure(base: string, name: string, webhooks: unknown[], annotations?: Record<string, string>): Promise<void> {
  const kind = base === VWC ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
  const res = await ts.request('POST', base, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name, ...(annotations ? { annotations } : {}) }, webhooks } });
  expect(res.status, res.text).toBe(201);
}

async function remove(base: string, name: string): Promise<void> {
  await ts.request('DELETE', `${base}/${name}`);
}

function cm(name: string, label: string, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { test: label } }, data: { k: 'v' }, ...extra };
}

let n = 0;
const create = (label: string, name = `cm-${++n}`) => ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm(name, label) });

beforeAll(async () => {
  wh = await startWebhookServer(['hook.webhooks.svc']);
  cfgDir = await mkdtemp(join(tmpdir(), 'kgw-webhooks-'));
  const cfg = join(cfgDir, 'admission.yaml');
  await writeFile(
    cfg,
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: ValidatingAdmissionWebhook',
      '  configuration:',
      '    apiVersion: apiserver.config.k8s.io/v1',
      '    kind: WebhookAdmissionConfiguration',
      '    circuitBreaker: {failureThreshold: 2, coolDown: 1s}',
      '',
    ].join('\n'),
  );
  // Service references resolve through the gateway's service resolver: here its flag map (--aggregator-service-address).
  ts = await startTestServer({ config: { admissionControlConfigFile: cfg, aggregator: { serviceAddresses: [`webhooks/hook=127.0.0.1:${wh.port}`], serviceRouting: 'cluster-ip', traffic: DEFAULT_TRAFFIC } } });
});

afterAll(async () => {
  await ts?.close();
  await wh?.close();
  await rm(cfgDir, { recursive: true, force: true });
});

describe('validating webhooks', () => {
  it('allow: the AdmissionReview carries every request field', async () => {
    await configure(VWC, 'allow', [hook('allow.example.com', '/allow')]);
    wh.received.length = 0;
    const res = await until(() => create('allow.example.com', 'allowed-one'), () => wh.received.length > 0);
    expect(res.status).toBe(201);
    const r = wh.received.at(-1)!;
    expect(r.review.apiVersion).toBe('admission.k8s.io/v1');
    const req = r.review.request;
    expect(req.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(req.kind).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(req.resource).toEqual({ group: '', version: 'v1', resource: 'configmaps' });
    expect(req.requestKind).toEqual(req.kind);
    expect(req.requestResource).toEqual(req.resource);
    expect(req.name).toBe('allowed-one');
    expect(req.namespace).toBe('default');
    expect(req.operation).toBe('CREATE');
    expect(req.userInfo.username).toBe('admin');
    expect(req.object.data).toEqual({ k: 'v' });
    expect(req.oldObject).toBeNull();
    expect(req.dryRun).toBe(false);
    expect(req.options).toEqual({ kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
    // Objects the selector does not match are not sent.
    wh.received.length = 0;
    expect((await create('other')).status).toBe(201);
    expect(wh.received).toHaveLength(0);
    await remove(VWC, 'allow');
  });

  it('deny with a message, over HTTP and through kubectl', async () => {
    await configure(VWC, 'deny', [hook('deny.example.com', '/deny'), hook('warns-too.example.com', '/warn', { objectSelector: { matchLabels: { test: 'deny.example.com' } } })]);
    const res = await until(() => create('deny.example.com'), (r) => r.status === 403 && r.headers.warning !== undefined);
    expect(res.status).toBe(403);
    // The warnings of the other webhooks come with the refusal.
    expect(String(res.headers.warning)).toContain('careful: this is only a test');
    expect(res.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'admission webhook "deny.example.com" denied the request: configmaps named deny-me are not welcome' });
    const out = await ts.kubectl(['apply', '-f', '-'], { input: JSON.stringify(cm('by-kubectl', 'deny.example.com')) });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('Error from server (Forbidden)');
    expect(out.stderr).toContain('admission webhook "deny.example.com" denied the request: configmaps named deny-me are not welcome');
    await remove(VWC, 'deny');
  });

  it('warnings reach the client as Warning headers and kubectl prints them', async () => {
    await configure(VWC, 'warn', [hook('warn.example.com', '/warn')]);
    const res = await until(() => create('warn.example.com'), (r) => String(r.headers.warning ?? '').includes('careful'));
    expect(res.status).toBe(201);
    expect(String(res.headers.warning)).toContain('299 - "careful: this is only a test"');
    const out = await ts.kubectl(['apply', '-f', '-'], { input: JSON.stringify(cm('warned-by-kubectl', 'warn.example.com')) });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('Warning: careful: this is only a test');
    await remove(VWC, 'warn');
  });

  it('timeouts, garbage, closed connections and wrong uids fail per failurePolicy, never as a gateway 500 of its own', async () => {
    await configure(VWC, 'broken', [
      hook('slow.example.com', '/slow', { timeoutSeconds: 1 }),
      hook('garbage.example.com', '/garbage'),
      hook('close.example.com', '/close'),
      hook('baduid.example.com', '/baduid'),
      hook('ignored.example.com', '/garbage', { failurePolicy: 'Ignore' }),
    ]);
    const slow = await until(() => create('slow.example.com'), (r) => r.status === 500);
    expect(slow.json.reason).toBe('InternalError');
    expect(slow.json.message).toBe(`Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${wh.port}/slow?timeout=1s": context deadline exceeded`);
    const garbage = await create('garbage.example.com');
    expect(garbage.status).toBe(500);
    expect(garbage.json.message).toContain('failed calling webhook "garbage.example.com": failed to call webhook: failed to decode the webhook response');
    const closed = await create('close.example.com');
    expect(closed.status).toBe(500);
    expect(closed.json.message).toContain(`failed calling webhook "close.example.com": failed to call webhook: Post "https://127.0.0.1:${wh.port}/close?timeout=10s": EOF`);
    const baduid = await create('baduid.example.com');
    expect(baduid.status).toBe(500);
    expect(baduid.json.message).toMatch(/failed calling webhook "baduid.example.com": failed to call webhook: received invalid webhook response: expected response.uid="[0-9a-f-]+", got "not-the-uid"/);
    expect((await create('ignored.example.com')).status).toBe(201);
    await remove(VWC, 'broken');
  });

  it('a service clientConfig is resolved through the gateway\'s service resolver and verified against the caBundle', async () => {
    await configure(VWC, 'svc', [hook('svc.example.com', '/deny', { clientConfig: { service: { name: 'hook', namespace: 'webhooks', path: '/deny' }, caBundle: wh.caBundle } })]);
    const res = await until(() => create('svc.example.com'), (r) => r.status === 403);
    expect(res.json.message).toContain('admission webhook "svc.example.com" denied the request');
    await remove(VWC, 'svc');
    // Without the right CA the TLS handshake fails.
    await configure(VWC, 'badca', [hook('badca.example.com', '/allow', { clientConfig: { url: wh.url('/allow') } })]);
    const bad = await until(() => create('badca.example.com'), (r) => r.status === 500);
    expect(bad.json.message).toContain('tls: failed to verify certificate: x509: certificate signed by unknown authority');
    await remove(VWC, 'badca');
  });

  it('matchConditions in CEL skip the webhook when false', async () => {
    await configure(VWC, 'cond', [hook('cond.example.com', '/deny', { matchConditions: [{ name: 'not-skipped', expression: "object.metadata.name != 'skip-me'" }] })]);
    expect((await until(() => create('cond.example.com'), (r) => r.status === 403)).status).toBe(403);
    expect((await create('cond.example.com', 'skip-me')).status).toBe(201);
    await remove(VWC, 'cond');
  });

  it('audit-only configurations turn denials into warnings', async () => {
    await configure(VWC, 'audit', [hook('audit.example.com', '/deny')], { 'admission.kube-gateway.io/audit-only': 'true' });
    const res = await until(() => create('audit.example.com'), (r) => String(r.headers.warning ?? '').includes('audit-only'));
    expect(res.status).toBe(201);
    expect(String(res.headers.warning)).toContain('admission webhook \\"audit.example.com\\" (audit-only) would have denied the request');
    await remove(VWC, 'audit');
  });

  it('v1beta1 reviews, and configurations themselves are never sent to webhooks', async () => {
    await configure(VWC, 'beta', [
      hook('beta.example.com', '/v1beta1', { admissionReviewVersions: ['v1beta1'] }),
      { ...hook('all.example.com', '/deny', { rules: [{ operations: ['*'], apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['*'], resources: ['*'] }] }), objectSelector: {} },
    ]);
    wh.received.length = 0;
    const res = await until(() => create('beta.example.com'), () => wh.received.some((r) => r.path === '/v1beta1'));
    expect(res.status).toBe(201);
    expect(wh.received.find((r) => r.path === '/v1beta1')!.review.apiVersion).toBe('admission.k8s.io/v1beta1');
    // The catch-all webhook would deny this, but webhook configurations are exempt.
    await configure(MWC, 'still-allowed', []);
    await remove(MWC, 'still-allowed');
    await remove(VWC, 'beta');
  });

  it('equivalent resources: a webhook for events.k8s.io/v1 sees core/v1 events, converted', async () => {
    await configure(VWC, 'events', [
      { ...hook('events.example.com', '/allow', { rules: [{ operations: ['CREATE'], apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] }] }), objectSelector: {} },
    ]);
    wh.received.length = 0;
    const ev = (i: number) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `ev-${i}` },
      involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
      reason: 'Test',
      message: 'hello',
      type: 'Normal',
    });
    let i = 0;
    await until(() => ts.request('POST', '/api/v1/namespaces/default/events', { body: ev(++i) }), () => wh.received.length > 0);
    const req = wh.received.at(-1)!.review.request;
    expect(req.kind).toEqual({ group: 'events.k8s.io', version: 'v1', kind: 'Event' });
    expect(req.requestKind).toEqual({ group: '', version: 'v1', kind: 'Event' });
    expect(req.object.apiVersion).toBe('events.k8s.io/v1');
    expect(req.object.regarding.name).toBe('x');
    await remove(VWC, 'events');
  });

  it('the circuit breaker opens after consecutive failures, fails fast, shows its state, and closes again', async () => {
    wh.healthy = false;
    await configure(VWC, 'flaky', [hook('flaky.example.com', '/flaky')]);
    await until(() => create('flaky.example.com'), (r) => r.status === 500);
    await create('flaky.example.com');
    wh.received.length = 0;
    const fast = await create('flaky.example.com');
    expect(fast.status).toBe(500);
    expect(fast.json.message).toContain('failed calling webhook "flaky.example.com": circuit breaker open after 2 consecutive failures');
    expect(wh.received).toHaveLength(0);
    const cfg = await until(
      () => ts.request('GET', `${VWC}/flaky`),
      (r) => (r.json?.metadata?.annotations?.['admission.kube-gateway.io/circuit-breakers'] ?? '').includes('open'),
    );
    expect(JSON.parse(cfg.json.metadata.annotations['admission.kube-gateway.io/circuit-breakers'])['flaky.example.com'].state).toBe('open');
    const metrics = await ts.request('GET', '/metrics');
    expect(metrics.text).toMatch(/kube_gateway_admission_webhook_circuit_breaker_state\{[^}]*name="flaky.example.com"[^}]*\} 2\n/);
    wh.healthy = true;
    const healed = await until(() => create('flaky.example.com'), (r) => r.status === 201);
    expect(healed.status).toBe(201);
    const closed = await until(
      () => ts.request('GET', `${VWC}/flaky`),
      (r) => r.json?.metadata?.annotations?.['admission.kube-gateway.io/circuit-breakers'] === undefined,
    );
    expect(closed.json.metadata.annotations?.['admission.kube-gateway.io/circuit-breakers']).toBeUndefined();
    await remove(VWC, 'flaky');
  });
});

describe('dry run and selectors', () => {
  it('a dry run reaching a webhook with side effects fails; None and NoneOnDryRun ones are called', async () => {
    // v1 refuses sideEffects Some; a configuration stored by an older API version may still carry it.
    const stored = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'legacy', uid: 'legacy-uid', creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), generation: 1 },
      webhooks: [{ ...hook('legacy.example.com', '/allow'), sideEffects: 'Some', failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, timeoutSeconds: 10 }],
    };
    await ts.server.store.create('/registry/admissionregistration.k8s.io/validatingwebhookconfigurations/legacy', Buffer.from(JSON.stringify(stored)));
    const dry = await until(
      () => ts.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: cm('dry-side-effects', 'legacy.example.com') }),
      (r) => r.status === 400,
    );
    expect(dry.json).toMatchObject({ reason: 'BadRequest', message: 'admission webhook "legacy.example.com" does not support dry run' });
    // Without dry run the webhook is called as usual.
    expect((await create('legacy.example.com')).status).toBe(201);
    await remove(VWC, 'legacy');
  });

  it('namespaceSelector matches the labels of the request namespace', async () => {
    await ts.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'guarded', labels: { guard: 'on' } } } });
    await configure(VWC, 'nssel', [{ ...hook('nssel.example.com', '/deny'), objectSelector: {}, namespaceSelector: { matchLabels: { guard: 'on' } } }]);
    const inGuarded = await until(() => ts.request('POST', '/api/v1/namespaces/guarded/configmaps', { body: cm(`g-${++n}`, 'x') }), (r) => r.status === 403);
    expect(inGuarded.status).toBe(403);
    expect((await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`g-${++n}`, 'x') })).status).toBe(201);
    await remove(VWC, 'nssel');
  });
});

describe('mutating webhooks', () => {
  it('applies JSONPatch responses, records warnings, and validates the result', async () => {
    await configure(MWC, 'mutate', [hook('mutate.example.com', '/mutate')]);
    const res = await until(() => create('mutate.example.com'), (r) => r.json?.metadata?.labels?.mutated === 'yes');
    expect(res.status).toBe(201);
    expect(res.json.metadata.labels).toEqual({ test: 'mutate.example.com', mutated: 'yes' });
    expect(String(res.headers.warning)).toContain('the object was labelled mutated=yes');
    const got = await ts.request('GET', `/api/v1/namespaces/default/configmaps/${res.json.metadata.name}`);
    expect(got.json.metadata.labels.mutated).toBe('yes');
    // Dry run runs the webhooks too (they declare no side effects) and persists nothing.
    const dry = await ts.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: cm('dry-one', 'mutate.example.com') });
    expect(dry.json.metadata.labels.mutated).toBe('yes');
    expect((await ts.request('GET', '/api/v1/namespaces/default/configmaps/dry-one')).status).toBe(404);
    await remove(MWC, 'mutate');
  });

  it('fields the kind does not have are dropped from a patched object', async () => {
    await configure(MWC, 'unknown', [hook('unknown.example.com', '/mutate-unknown')]);
    const res = await until(() => create('unknown.example.com'), (r) => r.json?.metadata?.labels?.mutated === 'yes');
    expect(res.status).toBe(201);
    expect(res.json.notAField).toBeUndefined();
    await remove(MWC, 'unknown');
  });

  it('an invalid patch fails the request cleanly', async () => {
    await configure(MWC, 'badpatch', [hook('badpatch.example.com', '/badpatch')]);
    const res = await until(() => create('badpatch.example.com'), (r) => r.status === 500);
    expect(res.json.reason).toBe('InternalError');
    expect(res.json.message).toMatch(/^Internal error occurred: /);
    await remove(MWC, 'badpatch');
  });

  it('reinvocation: an IfNeeded webhook runs again when a later one changed the object', async () => {
    const sel = { objectSelector: { matchLabels: { test: 'reinvoke' } } };
    await configure(MWC, 'a-first', [hook('first.example.com', '/mutate', { ...sel, reinvocationPolicy: 'IfNeeded' })]);
    await configure(MWC, 'b-second', [hook('second.example.com', '/mutate-b', sel)]);
    const res = await until(() => create('reinvoke'), (r) => r.json?.metadata?.labels?.second === 'yes' && r.json?.metadata?.labels?.mutated === 'yes');
    expect(res.status).toBe(201);
    wh.received.length = 0;
    await create('reinvoke');
    expect(wh.received.map((r) => r.path)).toEqual(['/mutate', '/mutate-b', '/mutate']);
    await remove(MWC, 'a-first');
    await remove(MWC, 'b-second');
  });
});

describe('client credentials from the kubeConfigFile', () => {
  it('presents the client certificate of the kubeconfig user named by the webhook host', async () => {
    const { createCertificateAuthority, issueClientCertificate } = await import('../../src/server/certs.ts');
    const clientCa = await createCertificateAuthority('webhook-client-ca');
    const client = await issueClientCertificate({ caCert: clientCa.cert, caKey: clientCa.key }, { commonName: 'kube-gateway-admission' });
    const mtls = await startWebhookServer([], clientCa.cert);
    const dir = await mkdtemp(join(tmpdir(), 'kgw-mtls-'));
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    await writeFile(
      join(dir, 'clients.kubeconfig'),
      `apiVersion: v1\nkind: Config\nusers:\n- name: 127.0.0.1:${mtls.port}\n  user:\n    client-certificate-data: ${b64(client.cert)}\n    client-key-data: ${b64(client.key)}\n`,
    );
    await writeFile(
      join(dir, 'admission.yaml'),
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: clients.kubeconfig\n',
    );
    const gw = await startTestServer({ config: { admissionControlConfigFile: join(dir, 'admission.yaml') } });
    try {
      const res = await gw.request('POST', VWC, {
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'mtls' },
          webhooks: [{ name: 'mtls.example.com', clientConfig: { url: mtls.url('/whoami'), caBundle: mtls.caBundle }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], sideEffects: 'None', admissionReviewVersions: ['v1'] }],
        },
      });
      expect(res.status).toBe(201);
      const denied = await until(() => gw.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`m-${++n}`, 'x') }), (r) => r.status === 403);
      expect(denied.json.message).toBe('admission webhook "mtls.example.com" denied the request: cn=kube-gateway-admission');
    } finally {
      await gw.close();
      await mtls.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
