/**
 * Admission on a custom resource's scale subresource, as kube-apiserver v1.32.4 runs it (recorded
 * with a ValidatingAdmissionPolicy printing its request): the write is one of autoscaling/v1 Scale
 * (kind, object and old object are Scales), resource the custom resource, subresource `scale`.
 * Webhooks (a real one on loopback) and policies see it so, a mutating webhook's replicas reach the
 * object, and their warnings (webhook warnings, a policy's Warn action) come back as Warning
 * headers on PUT and PATCH .../scale, and through `kubectl scale`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Response, type TestServer } from '../server/harness.ts';
import { startWebhookServer, until, type WebhookServer } from '../admission/webhook-server.ts';
import { createCrd, crdManifest, crdVersion } from './crd-setup.ts';

const GROUP = 'scale.example.com';
const BASE = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';

let t: TestServer;
let wh: WebhookServer;

/** Replicas live at .spec.size: admission must see them as the Scale's spec.replicas. */
const widgetSchema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' } } } } };
const subresources = { subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas' } } };
/** v1 stored, v2 served too (conversion None): a policy or webhook for v2 only sees v1 scale writes as equivalent. */
const crd = crdManifest(GROUP, { plural: 'widgets', singular: 'widget', kind: 'Widget' }, [crdVersion('v1', widgetSchema, subresources), crdVersion('v2', widgetSchema, { ...subresources, storage: false })]);

async function post(path: string, body: unknown): Promise<void> {
  const res = await t.request('POST', path, { body });
  expect(res.status, res.text).toBe(201);
}

/** A webhook on `widgets/scale` UPDATE at `path`, for widgets named `name` (a match condition). */
function scaleHook(hookName: string, path: string, name: string) {
  return {
    name: hookName,
    clientConfig: { url: wh.url(path), caBundle: wh.caBundle },
    rules: [{ operations: ['UPDATE'], apiGroups: [GROUP], apiVersions: ['v1'], resources: ['widgets/scale'] }],
    matchConditions: [{ name: 'this-widget', expression: `request.name == '${name}'` }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  };
}

const patchScale = (name: string, replicas: number) => t.request('PATCH', `${BASE}/${name}/scale`, { body: { spec: { replicas } }, headers: { 'content-type': 'application/merge-patch+json' } });
const putScale = (name: string, replicas: number) =>
  t.request('PUT', `${BASE}/${name}/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name, namespace: 'default' }, spec: { replicas } } });
const warnings = (r: Response): string => [r.headers.warning ?? []].flat().join('\n');

beforeAll(async () => {
  [t, wh] = await Promise.all([startTestServer(), startWebhookServer()]);
  await createCrd(t, crd);
  for (const name of ['hooked', 'mutated', 'policed', 'equivalent']) await post(BASE, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 1 } });
});

afterAll(async () => {
  await t?.close();
  await wh?.close();
});

describe('webhooks on widgets/scale', () => {
  it('see an autoscaling/v1 Scale write of subresource scale; their warnings come back on PATCH and PUT', async () => {
    await post(`${ADMISSION}/validatingwebhookconfigurations`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'scale-warn' },
      webhooks: [scaleHook('warn.scale.example.com', '/warn', 'hooked')],
    });
    wh.received.length = 0;
    const patched = await until(() => patchScale('hooked', 4), (r) => warnings(r).includes('careful'));
    expect(patched.status).toBe(200);
    expect(warnings(patched)).toBe('299 - "careful: this is only a test"');
    expect(patched.json).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 4 } });
    const req = wh.received.at(-1)!.review.request;
    expect(req.kind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(req.resource).toEqual({ group: GROUP, version: 'v1', resource: 'widgets' });
    expect(req.subResource).toBe('scale');
    expect(req.requestKind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(req.requestSubResource).toBe('scale');
    expect(req.operation).toBe('UPDATE');
    expect(req.name).toBe('hooked');
    expect(req.object).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'hooked', namespace: 'default' }, spec: { replicas: 4 } });
    expect(req.oldObject).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 1 } });
    // kube's patch handler admits a patch as an update, with UpdateOptions.
    expect(req.options).toEqual({ kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });

    const put = await putScale('hooked', 5);
    expect(put.status).toBe(200);
    expect(warnings(put)).toBe('299 - "careful: this is only a test"');
    expect(wh.received.at(-1)!.review.request.object.spec).toEqual({ replicas: 5 });
    // kubectl prints them.
    const out = await t.kubectl(['scale', `widgets.${GROUP}/hooked`, '--replicas=6']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('Warning: careful: this is only a test');
    expect((await t.request('GET', `${BASE}/hooked`)).json.spec.size).toBe(6);
  });

  it('a mutating webhook changes the Scale: its replicas are what the object gets', async () => {
    await post(`${ADMISSION}/mutatingwebhookconfigurations`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'scale-cap' },
      webhooks: [scaleHook('cap.scale.example.com', '/mutate-replicas', 'mutated')],
    });
    const res = await until(() => patchScale('mutated', 9), (r) => warnings(r).includes('capped'));
    expect(res.status).toBe(200);
    expect(res.json.spec).toEqual({ replicas: 3 });
    expect(warnings(res)).toBe('299 - "replicas capped at 3"');
    expect((await t.request('GET', `${BASE}/mutated`)).json.spec).toEqual({ size: 3 });
  });

  it('matchPolicy Equivalent: a webhook for v2 only is sent a v1 scale write as a Scale of v2 widgets, unconverted', async () => {
    const hook = { ...scaleHook('v2.scale.example.com', '/warn', 'equivalent'), rules: [{ operations: ['UPDATE'], apiGroups: [GROUP], apiVersions: ['v2'], resources: ['widgets/scale'] }] };
    await post(`${ADMISSION}/validatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'scale-v2' }, webhooks: [hook] });
    wh.received.length = 0;
    const res = await until(() => patchScale('equivalent', 1), (r) => warnings(r).includes('careful'));
    expect(res.status).toBe(200);
    const req = wh.received.at(-1)!.review.request;
    expect(req.kind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(req.resource).toEqual({ group: GROUP, version: 'v2', resource: 'widgets' });
    expect(req.requestResource).toEqual({ group: GROUP, version: 'v1', resource: 'widgets' });
    expect(req.object).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 } });
    await t.request('DELETE', `${ADMISSION}/validatingwebhookconfigurations/scale-v2`);
  });
});

describe('ValidatingAdmissionPolicy on widgets/scale', () => {
  it('Warn comes back as a Warning header, Deny refuses with kube\'s Status; both see a Scale', async () => {
    const policy = (name: string, expression: string, messageExpression: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [GROUP], apiVersions: ['*'], operations: ['UPDATE'], resources: ['widgets/scale'] }] },
        matchConditions: [{ name: 'policed', expression: "request.name == 'policed'" }],
        validations: [{ expression, messageExpression }],
      },
    });
    const binding = (name: string, action: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: [action] },
    });
    const shown = "request.kind.group + '/' + request.kind.version + '/' + request.kind.kind + ' ' + request.subResource + ' ' + object.kind + ' ' + string(oldObject.spec.replicas) + '->' + string(object.spec.replicas)";
    await post(`${ADMISSION}/validatingadmissionpolicies`, policy('scale-warn', 'object.spec.replicas < 5', `'warned: ' + ${shown}`));
    await post(`${ADMISSION}/validatingadmissionpolicybindings`, binding('scale-warn', 'Warn'));
    await post(`${ADMISSION}/validatingadmissionpolicies`, policy('scale-deny', 'object.spec.replicas < 10', `'denied: ' + ${shown}`));
    await post(`${ADMISSION}/validatingadmissionpolicybindings`, binding('scale-deny', 'Deny'));

    const warned = await until(() => patchScale('policed', 7), (r) => warnings(r).includes('warned'));
    expect(warned.status).toBe(200);
    expect(warnings(warned)).toBe('299 - "Validation failed for ValidatingAdmissionPolicy \'scale-warn\' with binding \'scale-warn\': warned: autoscaling/v1/Scale scale Scale 1->7"');
    const putWarned = await putScale('policed', 8);
    expect(putWarned.status).toBe(200);
    expect(warnings(putWarned)).toContain('warned: autoscaling/v1/Scale scale Scale 7->8');

    const denied = await until(() => patchScale('policed', 12), (r) => r.status === 422);
    const message = "ValidatingAdmissionPolicy 'scale-deny' with binding 'scale-deny' denied request: denied: autoscaling/v1/Scale scale Scale 8->12";
    expect(denied.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `widgets.${GROUP} "policed" is forbidden: ${message}`,
      reason: 'Invalid',
      details: { name: 'policed', group: GROUP, kind: 'widgets', causes: [{ message }] },
      code: 422,
    });
    // The refused write's warnings come with the refusal.
    expect(warnings(denied)).toContain('warned: autoscaling/v1/Scale scale Scale 8->12');
    expect((await t.request('GET', `${BASE}/policed`)).json.spec.size).toBe(8);
  });

  it('matchPolicy Equivalent: a policy for v2 only sees a v1 scale write as autoscaling/v1 Scale of v2 widgets (as kube-apiserver v1.32.4)', async () => {
    await post(`${ADMISSION}/validatingadmissionpolicies`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'scale-v2' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [GROUP], apiVersions: ['v2'], operations: ['UPDATE'], resources: ['widgets/scale'] }] },
        matchConditions: [{ name: 'equivalent', expression: "request.name == 'equivalent'" }],
        validations: [
          {
            expression: 'false',
            messageExpression:
              "'kind=' + request.kind.group + '/' + request.kind.version + '/' + request.kind.kind + ' resource=' + request.resource.version + ' reqres=' + request.requestResource.version + ' reqkind=' + request.requestKind.kind + ' obj=' + object.apiVersion + '/' + object.kind",
          },
        ],
      },
    });
    await post(`${ADMISSION}/validatingadmissionpolicybindings`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'scale-v2' }, spec: { policyName: 'scale-v2', validationActions: ['Deny'] } });
    const denied = await until(() => patchScale('equivalent', 2), (r) => r.status === 422);
    expect(denied.json.message).toBe(
      `widgets.${GROUP} "equivalent" is forbidden: ValidatingAdmissionPolicy 'scale-v2' with binding 'scale-v2' denied request: kind=autoscaling/v1/Scale resource=v2 reqres=v1 reqkind=Scale obj=autoscaling/v1/Scale`,
    );
  });
});
