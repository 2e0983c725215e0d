import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';

const base = (name: string, webhook: Record<string, unknown>) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name },
  webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://127.0.0.1:1/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'], ...webhook }],
});

describe('webhook configuration kinds', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer();
  });
  afterAll(async () => {
    await ts.close();
  });

  it('defaults as kube-apiserver v1.32 does', async () => {
    const res = await ts.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: base('d', { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }),
    });
    expect(res.status).toBe(201);
    expect(res.json.metadata.generation).toBe(1);
    expect(res.json.webhooks[0]).toEqual({
      name: 'a.example.com',
      clientConfig: { url: 'https://127.0.0.1:1/x' },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }],
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      sideEffects: 'None',
      timeoutSeconds: 10,
      admissionReviewVersions: ['v1'],
    });
    const m = await ts.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      body: { ...base('m', { clientConfig: { service: { namespace: 'ns', name: 'svc' } } }), kind: 'MutatingWebhookConfiguration' },
    });
    expect(m.status).toBe(201);
    expect(m.json.webhooks[0].reinvocationPolicy).toBe('Never');
    expect(m.json.webhooks[0].clientConfig).toEqual({ service: { namespace: 'ns', name: 'svc', port: 443 } });
  });

  it('refuses invalid configurations with kube messages', async () => {
    const res = await ts.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'adm-bad' },
        webhooks: [
          {
            name: 'a',
            clientConfig: { url: 'http://127.0.0.1:1/x', service: { name: 's', namespace: 'ns' } },
            rules: [{ operations: ['CREATE', '*'], apiGroups: [], apiVersions: ['v1'], resources: ['*/x', 'configmaps'], scope: 'Bad' }],
            failurePolicy: 'Maybe',
            matchPolicy: 'Bad',
            timeoutSeconds: 31,
            sideEffects: 'Some',
            admissionReviewVersions: ['v2'],
          },
          { name: 'a', clientConfig: {}, matchConditions: [{ name: '', expression: 'object.' }] },
        ],
      },
    });
    expect(res.status).toBe(422);
    const msg: string = res.json.message;
    for (const part of [
      'webhooks[0].name: Invalid value: "a": should be a domain with at least three segments separated by dots',
      `webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if '*' is present, must not specify other operations`,
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].scope: Unsupported value: "Bad": supported values: "*", "Cluster", "Namespaced"',
      'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'webhooks[0].matchPolicy: Unsupported value: "Bad": supported values: "Equivalent", "Exact"',
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
      'webhooks[1].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[1].matchConditions[0].expression: Invalid value: "object.": compilation failed:',
      'webhooks[1].matchConditions[0].name: Required value',
      'webhooks[1].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
      'webhooks[1].name: Duplicate value: "a"',
    ]) {
      expect(msg).toContain(part);
    }
    const url = await ts.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      body: { ...base('u', { clientConfig: { url: 'https://u:p@127.0.0.1:1/x?q=1#f' }, reinvocationPolicy: 'Sometimes' }), kind: 'MutatingWebhookConfiguration' },
    });
    expect(url.status).toBe(422);
    expect(url.json.message).toContain(`webhooks[0].reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"`);
    expect(url.json.message).toContain('webhooks[0].clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL');
    expect(url.json.message).toContain('webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL');
    expect(url.json.message).toContain('webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL');
    const svc = await ts.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: base('s', { clientConfig: { service: { name: 'S', namespace: 'ns', path: 'noslash', port: 0 } } }),
    });
    expect(svc.json.message).toContain('webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive');
    expect(svc.json.message).toContain(`webhooks[0].clientConfig.service.path: Invalid value: "noslash": must start with a '/'`);
    const conds = await ts.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: base('c', { matchConditions: [{ name: 'x', expression: 'true' }, { name: 'x', expression: 'true' }, { name: 'Bad Name!', expression: '1' }] }),
    });
    expect(conds.status).toBe(422);
    expect(conds.json.message).toContain('webhooks[0].matchConditions[1].name: Duplicate value: "x"');
    expect(conds.json.message).toContain('webhooks[0].matchConditions[2].expression: Invalid value: "1": must evaluate to bool but got int');
    expect(conds.json.message).toContain(`webhooks[0].matchConditions[2].name: Invalid value: "Bad Name!": name part must consist of alphanumeric characters`);
    // `request` is typed as kube's AdmissionRequest: a field it does not have fails to compile.
    const typed = await ts.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: base('r', { matchConditions: [{ name: 'nope', expression: 'request.nope' }, { name: 'fine', expression: "request.userInfo.groups.exists(g, g == 'x') && request.kind.kind != '' && has(request.options)" }] }),
    });
    expect(typed.status).toBe(422);
    expect(typed.json.message).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "r" is invalid: webhooks[0].matchConditions[0].expression: Invalid value: "request.nope": compilation failed: ERROR: <input>:1:8: undefined field \'nope\'\n | request.nope\n | .......^',
    );
  });

  it('is served through kubectl, listed in discovery', async () => {
    const out = await ts.kubectl(['get', 'validatingwebhookconfigurations']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/NAME\s+WEBHOOKS\s+AGE/);
    expect(out.stdout).toMatch(/^d\s+1\s/m);
  });
});
