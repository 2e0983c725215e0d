/**
 * kube's admission metrics on /metrics after known traffic: the step and per-plugin histograms,
 * webhook calls (allowed, denied, failing under Fail and under Ignore, mutating as `admit`), and
 * ValidatingAdmissionPolicy checks; read with a Prometheus text parser. The codes and labels are
 * those kube-apiserver v1.32.4 reported for the same webhook answers (test/admission/webhook-server.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Response, type TestServer } from '../server/harness.ts';
import { startWebhookServer, type WebhookServer } from './webhook-server.ts';
import { parsePromText, sampleValue, type PromFamily } from '../metrics/prom-text.ts';

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const NS = 'adm-metrics';

let ts: TestServer;
let wh: WebhookServer;

const hook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
  name,
  clientConfig: { url: wh.url(path), caBundle: wh.caBundle },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  objectSelector: { matchLabels: { hook: name } },
  ...extra,
});

const cm = (name: string, labels: Record<string, string>, data?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, ...(data ? { data } : {}) });

/** Configurations reach the plugins through watch caches: retries until the answer is the expected one (deleting what a premature create made). */
async function until(name: string, body: unknown, ok: (r: Response) => boolean): Promise<Response> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await ts.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body });
    if (ok(r) || Date.now() > deadline) return r;
    if (r.status === 201) await ts.request('DELETE', `/api/v1/namespaces/${NS}/configmaps/${name}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

let families: Map<string, PromFamily>;

beforeAll(async () => {
  wh = await startWebhookServer();
  ts = await startTestServer();
  const post = async (path: string, body: unknown) => expect((await ts.request('POST', path, { body })).status).toBe(201);
  await post('/api/v1/namespaces', { metadata: { name: NS } });
  await post(VWC, {
    metadata: { name: 'metrics-validating' },
    webhooks: [
      hook('allow.example.com', '/allow'),
      hook('deny.example.com', '/deny'),
      hook('fail.example.com', '/garbage'),
      hook('ignore.example.com', '/garbage', { failurePolicy: 'Ignore' }),
      hook('baduid.example.com', '/baduid'),
    ],
  });
  await post(MWC, { metadata: { name: 'metrics-mutating' }, webhooks: [hook('mutate.example.com', '/mutate'), hook('badpatch.example.com', '/badpatch')] });
  await post(VAP, {
    metadata: { name: 'no-bad' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: "!has(object.data) || !('bad' in object.data)", message: 'no bad data' }],
    },
  });
  await post(VAPB, { metadata: { name: 'no-bad-deny' }, spec: { policyName: 'no-bad', validationActions: ['Deny'] } });
  await post(VAPB, { metadata: { name: 'no-bad-warn' }, spec: { policyName: 'no-bad', validationActions: ['Warn'] } });

  // Each webhook and the policy see exactly one request once their configurations are live.
  expect((await until('allowed', cm('allowed', { hook: 'allow.example.com' }), (r) => r.status === 201)).status).toBe(201);
  expect((await until('denied', cm('denied', { hook: 'deny.example.com' }), (r) => r.status === 403)).status).toBe(403);
  expect((await until('failed', cm('failed', { hook: 'fail.example.com' }), (r) => r.status === 500)).status).toBe(500);
  expect((await until('baduid', cm('baduid', { hook: 'baduid.example.com' }), (r) => r.status === 500)).status).toBe(500);
  expect((await until('badpatch', cm('badpatch', { hook: 'badpatch.example.com' }), (r) => r.status === 500)).status).toBe(500);
  expect((await until('ignored', cm('ignored', { hook: 'ignore.example.com' }), (r) => r.status === 201)).status).toBe(201);
  expect((await until('mutated', cm('mutated', { hook: 'mutate.example.com' }), (r) => r.json?.metadata?.labels?.mutated === 'yes')).status).toBe(201);
  expect((await until('bad', cm('bad', {}, { bad: '1' }), (r) => r.status === 422)).status).toBe(422);
  const res = await ts.request('GET', '/metrics');
  expect(res.status).toBe(200);
  families = parsePromText(res.text);
});

afterAll(async () => {
  await ts?.close();
  await wh?.close();
});

const value = (name: string, labels: Record<string, string>) => sampleValue(families, name, labels);

describe('admission metrics', () => {
  it('declares kube\'s families with their type, stability and buckets', () => {
    const expected: Array<[string, string, string]> = [
      ['apiserver_admission_step_admission_duration_seconds', 'histogram', '[STABLE] Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).'],
      ['apiserver_admission_controller_admission_duration_seconds', 'histogram', '[STABLE] Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).'],
      ['apiserver_admission_webhook_admission_duration_seconds', 'histogram', '[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).'],
      ['apiserver_admission_webhook_request_total', 'counter', '[ALPHA] '],
      ['apiserver_admission_webhook_rejection_count', 'counter', '[ALPHA] '],
      ['apiserver_admission_webhook_fail_open_count', 'counter', '[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).'],
      ['apiserver_validating_admission_policy_check_total', 'counter', '[BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.'],
      ['apiserver_validating_admission_policy_check_duration_seconds', 'histogram', '[BETA] '],
    ];
    for (const [name, type, help] of expected) {
      const f = families.get(name);
      expect(f, name).toBeDefined();
      expect(f!.type).toBe(type);
      expect(f!.help.startsWith(help), `${name}: ${f!.help}`).toBe(true);
    }
    const les = (name: string) => [...new Set(families.get(name)!.samples.filter((s) => s.name === `${name}_bucket`).map((s) => s.labels.le))];
    expect(les('apiserver_admission_webhook_admission_duration_seconds')).toEqual(['0.005', '0.025', '0.1', '0.5', '1', '2.5', '10', '25', '+Inf']);
    expect(les('apiserver_admission_step_admission_duration_seconds')).toEqual(['0.005', '0.025', '0.1', '0.5', '1', '2.5', '+Inf']);
    expect(les('apiserver_validating_admission_policy_check_duration_seconds')).toEqual(['5e-07', '0.001', '0.01', '0.1', '1', '+Inf']);
  });

  it('counts each webhook call by outcome, code and type', () => {
    const req = (name: string, type: string, code: string, rejected: string) => value('apiserver_admission_webhook_request_total', { name, type, operation: 'CREATE', code, rejected });
    expect(req('allow.example.com', 'validating', '200', 'false')).toBeGreaterThanOrEqual(1);
    expect(req('deny.example.com', 'validating', '403', 'true')).toBe(1);
    // kube-apiserver v1.32.4 reports an undecodable answer (and any failed call) with code 400, an invalid response with 503.
    expect(req('fail.example.com', 'validating', '400', 'true')).toBe(1);
    expect(req('ignore.example.com', 'validating', '400', 'false')).toBe(1);
    expect(req('baduid.example.com', 'validating', '503', 'true')).toBe(1);
    expect(req('badpatch.example.com', 'admit', '0', 'true')).toBe(1);
    expect(req('mutate.example.com', 'admit', '200', 'false')).toBeGreaterThanOrEqual(1);

    const rej = (name: string, errorType: string, code: string) => value('apiserver_admission_webhook_rejection_count', { name, type: 'validating', operation: 'CREATE', error_type: errorType, rejection_code: code });
    expect(rej('deny.example.com', 'no_error', '403')).toBe(1);
    expect(rej('fail.example.com', 'calling_webhook_error', '400')).toBe(1);
    expect(rej('baduid.example.com', 'calling_webhook_error', '503')).toBe(1);
    expect(rej('ignore.example.com', 'calling_webhook_error', '400')).toBeUndefined();
    expect(value('apiserver_admission_webhook_rejection_count', { name: 'badpatch.example.com', type: 'admit', operation: 'CREATE', error_type: 'apiserver_internal_error', rejection_code: '0' })).toBe(1);

    expect(value('apiserver_admission_webhook_fail_open_count', { name: 'ignore.example.com', type: 'validating' })).toBe(1);
    expect(value('apiserver_admission_webhook_fail_open_count', { name: 'fail.example.com', type: 'validating' })).toBeUndefined();

    const calls = value('apiserver_admission_webhook_admission_duration_seconds_count', { name: 'deny.example.com', type: 'validating', operation: 'CREATE', rejected: 'true' });
    expect(calls).toBe(1);
    expect(value('apiserver_admission_webhook_admission_duration_seconds_bucket', { name: 'deny.example.com', type: 'validating', operation: 'CREATE', rejected: 'true', le: '+Inf' })).toBe(1);
  });

  it('times each admission phase and each plugin, rejected or not', () => {
    const step = (type: string, rejected: string) => value('apiserver_admission_step_admission_duration_seconds_count', { type, operation: 'CREATE', rejected });
    expect(step('admit', 'false')).toBeGreaterThanOrEqual(6);
    // Refused in the validating phase: the deny and fail webhooks and the policy, at least once each.
    expect(step('validate', 'true')).toBeGreaterThanOrEqual(3);
    expect(step('validate', 'false')).toBeGreaterThanOrEqual(4);
    const plugin = (name: string, type: string, rejected: string) => value('apiserver_admission_controller_admission_duration_seconds_count', { name, type, operation: 'CREATE', rejected });
    expect(plugin('ValidatingAdmissionWebhook', 'validate', 'true')).toBeGreaterThanOrEqual(2);
    expect(plugin('MutatingAdmissionWebhook', 'admit', 'false')).toBeGreaterThanOrEqual(1);
    expect(plugin('ValidatingAdmissionPolicy', 'validate', 'true')).toBeGreaterThanOrEqual(1);
    expect(plugin('NamespaceLifecycle', 'validate', 'false')).toBeGreaterThanOrEqual(1);
  });

  it('counts failed policy validations by binding and enforcement action', () => {
    const check = (binding: string, action: string) => value('apiserver_validating_admission_policy_check_total', { policy: 'no-bad', policy_binding: binding, error_type: 'no_error', enforcement_action: action });
    expect(check('no-bad-deny', 'deny')).toBe(1);
    expect(check('no-bad-warn', 'warn')).toBe(1);
    // Passing validations are not counted (kube records admitted decisions only when they erred).
    expect(check('no-bad-deny', 'allow')).toBeUndefined();
    expect(value('apiserver_validating_admission_policy_check_duration_seconds_count', { policy: 'no-bad', policy_binding: 'no-bad-deny', error_type: 'no_error', enforcement_action: 'deny' })).toBe(1);
  });
});
