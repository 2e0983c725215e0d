/**
 * Admission with matchPolicy Equivalent for a custom resource converted by webhook: admission
 * webhooks and ValidatingAdmissionPolicies matching version v2 see an object written in v1 as the
 * conversion webhook (TLS, loopback) converts it; a mutation made in v2 is converted back; policy
 * params of a webhook-converted kind are read in the paramKind's version; a conversion that fails
 * gets kube's answers (each text below was read from kube-apiserver v1.32.4 for the same requests).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Response, type TestServer } from '../server/harness.ts';
import { conversionCrd, startConversionWebhook, type ConversionWebhook } from '../crd/conversion-webhook.ts';
import { createCrd, CRDS, waitFor } from '../crd/crd-setup.ts';
import { startWebhookServer, type WebhookServer } from './webhook-server.ts';

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const widgets = (v: string) => `/apis/convh.example.com/${v}/namespaces/default/widgets`;
const widget = (name: string, size: number) => ({ apiVersion: 'convh.example.com/v1', kind: 'Widget', metadata: { name }, spec: { size } });
const configMap = (name: string, size: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { size } });

let t: TestServer;
let conv: ConversionWebhook;
let adm: WebhookServer;

beforeAll(async () => {
  [t, conv, adm] = await Promise.all([startTestServer(), startConversionWebhook(), startWebhookServer()]);
  await createCrd(t, conversionCrd(conv.url('/convert'), conv.caBundle));
  expect((await t.request('POST', widgets('v1'), { body: widget('probe', 0) })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
  await Promise.all([conv.close(), adm.close()]);
});

/** Points the CRD's conversion webhook at `path` and waits until reads in v2 go there. */
async function convertWith(path: string): Promise<void> {
  const crd = (await t.request('GET', `${CRDS}/widgets.convh.example.com`)).json;
  crd.spec.conversion.webhook.clientConfig.url = conv.url(path);
  expect((await t.request('PUT', `${CRDS}/widgets.convh.example.com`, { body: crd })).status).toBe(200);
  const before = conv.received.length;
  await waitFor(async () => {
    await t.request('GET', `${widgets('v2')}/probe`);
    return conv.received.slice(before).some((r) => r.path === path) ? true : undefined;
  });
}

/** Sends until the answer is not `pending` (configurations reach admission through watch caches). */
async function until(send: () => Promise<Response>, pending: (r: Response) => boolean): Promise<Response> {
  return waitFor(async () => {
    const r = await send();
    return pending(r) ? undefined : r;
  }, 500);
}

const webhook = (name: string, path: string) => ({
  name,
  clientConfig: { url: adm.url(path), caBundle: adm.caBundle },
  matchPolicy: 'Equivalent',
  rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['convh.example.com'], apiVersions: ['v2'], resources: ['widgets'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
});

async function configure(kind: 'Validating' | 'Mutating', name: string, path: string): Promise<string> {
  const coll = `${ADMISSION}/${kind.toLowerCase()}webhookconfigurations`;
  const res = await t.request('POST', coll, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks: [webhook(`${name}.example.com`, path)] } });
  expect(res.status, res.text).toBe(201);
  return `${coll}/${name}`;
}

describe('admission webhooks matching another version of a webhook-converted kind', () => {
  it('a validating webhook sees the object and the old object converted by the conversion webhook', async () => {
    const config = await configure('Validating', 'eq-validating', '/allow');
    adm.received.length = 0;
    let n = 0;
    const created = await until(() => t.request('POST', widgets('v1'), { body: widget(`v-${++n}`, 3) }), () => adm.received.length === 0);
    expect(created.status).toBe(201);
    const req = adm.received.at(-1)!.review.request;
    expect(req.kind).toEqual({ group: 'convh.example.com', version: 'v2', kind: 'Widget' });
    expect(req.requestKind).toEqual({ group: 'convh.example.com', version: 'v1', kind: 'Widget' });
    expect(req.object.apiVersion).toBe('convh.example.com/v2');
    expect(req.object.spec).toEqual({ color: 'grey', dimensions: { size: 3 } });

    const patched = await t.request('PATCH', `${widgets('v1')}/v-${n}`, { body: { spec: { size: 4 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.status).toBe(200);
    const update = adm.received.at(-1)!.review.request;
    expect(update.oldObject.spec).toEqual({ color: 'grey', dimensions: { size: 3 } });
    expect(update.object.spec).toEqual({ color: 'grey', dimensions: { size: 4 } });

    await convertWith('/fail');
    const failed = await t.request('POST', widgets('v1'), { body: widget('v-fail', 3) });
    const text = 'conversion webhook for convh.example.com/v1, Kind=Widget failed: an error on the server ("internal trouble") has prevented the request from succeeding';
    expect(failed.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: ${text}`,
      reason: 'InternalError',
      details: { causes: [{ message: text }] },
      code: 500,
    });
    await t.request('DELETE', config);
    await convertWith('/convert');
  });

  it('a mutation made in the matched version is converted back to the request version', async () => {
    const config = await configure('Mutating', 'eq-mutating', '/mutate-dimensions');
    let n = 0;
    const created = await until(() => t.request('POST', widgets('v1'), { body: widget(`m-${++n}`, 3) }), (r) => r.status === 201 && r.json.spec.size === 3);
    expect(created.status).toBe(201);
    expect(created.json.apiVersion).toBe('convh.example.com/v1');
    expect(created.json.spec).toEqual({ color: 'grey', size: 7 });
    expect(adm.received.at(-1)!.review.request.object.spec).toEqual({ color: 'grey', dimensions: { size: 3 } });

    await convertWith('/failure');
    const failed = await t.request('POST', widgets('v1'), { body: widget('m-fail', 3) });
    // The mutating dispatcher wraps the converter's internal error once more.
    const cause = 'Internal error occurred: conversion webhook for convh.example.com/v1, Kind=Widget failed: cannot convert today';
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ message: `Internal error occurred: ${cause}`, reason: 'InternalError', details: { causes: [{ message: cause }] } });
    await t.request('DELETE', config);
    await convertWith('/convert');
  });
});

describe('ValidatingAdmissionPolicies and a webhook-converted kind', () => {
  it('a policy matching v2 judges the object as v2 has it; a failed conversion is a configuration error', async () => {
    const policy = {
      metadata: { name: 'eq-vap' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { matchPolicy: 'Equivalent', resourceRules: [{ apiGroups: ['convh.example.com'], apiVersions: ['v2'], operations: ['CREATE'], resources: ['widgets'] }] },
        validations: [{ expression: 'object.spec.dimensions.size <= 5' }],
      },
    };
    expect((await t.request('POST', `${ADMISSION}/validatingadmissionpolicies`, { body: policy })).status).toBe(201);
    expect((await t.request('POST', `${ADMISSION}/validatingadmissionpolicybindings`, { body: { metadata: { name: 'eq-vapb' }, spec: { policyName: 'eq-vap', validationActions: ['Deny'] } } })).status).toBe(201);
    let n = 0;
    const denied = await until(() => t.request('POST', widgets('v1'), { body: widget(`p-${++n}`, 9) }), (r) => r.status === 201);
    expect(denied.status).toBe(422);
    expect(denied.json.message).toBe(`widgets.convh.example.com "p-${n}" is forbidden: ValidatingAdmissionPolicy 'eq-vap' with binding 'eq-vapb' denied request: failed expression: object.spec.dimensions.size <= 5`);
    expect((await t.request('POST', widgets('v1'), { body: widget('p-small', 2) })).status).toBe(201);

    await convertWith('/garbage');
    const failed = await t.request('POST', widgets('v1'), { body: widget('p-fail', 2) });
    expect(failed.status).toBe(422);
    expect(failed.json.message).toBe(
      `widgets.convh.example.com "p-fail" is forbidden: ValidatingAdmissionPolicy 'eq-vap' with binding 'eq-vapb' denied request: failed to configure binding: failed to convert object version: conversion webhook for convh.example.com/v1, Kind=Widget failed: couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')`,
    );
    await t.request('DELETE', `${ADMISSION}/validatingadmissionpolicybindings/eq-vapb`);
    await t.request('DELETE', `${ADMISSION}/validatingadmissionpolicies/eq-vap`);
    await convertWith('/convert');
  });

  it('params of a webhook-converted kind are read in the paramKind version', async () => {
    expect((await t.request('POST', widgets('v1'), { body: widget('limit', 4) })).status).toBe(201);
    const policy = {
      metadata: { name: 'param-vap' },
      spec: {
        failurePolicy: 'Fail',
        paramKind: { apiVersion: 'convh.example.com/v2', kind: 'Widget' },
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: 'int(object.data.size) <= params.spec.dimensions.size', messageExpression: "'size over ' + string(params.spec.dimensions.size)" }],
      },
    };
    expect((await t.request('POST', `${ADMISSION}/validatingadmissionpolicies`, { body: policy })).status).toBe(201);
    const binding = { metadata: { name: 'param-vapb' }, spec: { policyName: 'param-vap', validationActions: ['Deny'], paramRef: { name: 'limit', namespace: 'default', parameterNotFoundAction: 'Deny' } } };
    expect((await t.request('POST', `${ADMISSION}/validatingadmissionpolicybindings`, { body: binding })).status).toBe(201);
    let n = 0;
    const denied = await until(() => t.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(`c-${++n}`, '9') }), (r) => r.status === 201);
    expect(denied.json.message).toBe(`configmaps "c-${n}" is forbidden: ValidatingAdmissionPolicy 'param-vap' with binding 'param-vapb' denied request: size over 4`);
    expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c-small', '3') })).status).toBe(201);

    // A param the conversion webhook cannot convert: kube's informer of the paramKind never syncs.
    await convertWith('/fail');
    await t.request('DELETE', `${widgets('v1')}/limit`);
    expect((await t.request('POST', widgets('v1'), { body: widget('limit', 4) })).status).toBe(201);
    const unsynced = await until(() => t.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(`c-${++n}`, '1') }), (r) => r.status === 201);
    expect(unsynced.json.message).toBe(
      `configmaps "c-${n}" is forbidden: ValidatingAdmissionPolicy 'param-vap' with binding 'param-vapb' denied request: failed to configure binding: paramKind kind \`&ParamKind{APIVersion:convh.example.com/v2,Kind:Widget,}\` not yet synced to use for admission`,
    );
    await convertWith('/convert');
  });
});
