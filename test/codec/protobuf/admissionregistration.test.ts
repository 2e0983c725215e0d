/**
 * admissionregistration.k8s.io/v1 in protobuf: kube-apiserver v1.32.4's own bytes for policies,
 * bindings and webhook configurations decode to the JSON it serves for them, and that JSON
 * encodes back to the same bytes; the kinds are served in protobuf through HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject, isProtobufKind } from '../../../src/codec/protobuf/index.ts';
import { ADMISSIONREGISTRATION_REFERENCE, BINDING_LIST_PROTOBUF } from './admissionregistration-reference.ts';
import { startTestServer, type TestServer } from '../../server/harness.ts';
import { rawRequest } from './raw-request.ts';

describe('admissionregistration.k8s.io/v1 protobuf against kube-apiserver v1.32.4', () => {
  for (const ref of ADMISSIONREGISTRATION_REFERENCE) {
    const json = JSON.parse(ref.json) as Record<string, unknown>;
    const bytes = Buffer.from(ref.protobuf, 'base64');
    it(`${String(json.kind)} ${(json.metadata as { name: string }).name}: decodes to kube's JSON, key order included`, () => {
      expect(JSON.stringify(decodeProtobufObject(bytes).object)).toBe(ref.json);
    });
    it(`${String(json.kind)} ${(json.metadata as { name: string }).name}: encodes to kube's bytes`, () => {
      expect(Buffer.from(encodeProtobufObject(json)).toString('base64')).toBe(ref.protobuf);
    });
  }

  it('serves every kind and its list', () => {
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']) {
      expect(isProtobufKind('admissionregistration.k8s.io/v1', kind)).toBe(true);
      expect(isProtobufKind('admissionregistration.k8s.io/v1', `${kind}List`)).toBe(true);
    }
  });

  it('decodes kube\'s list of bindings', () => {
    const list = decodeProtobufObject(Buffer.from(BINDING_LIST_PROTOBUF, 'base64')).object as { kind: string; items: Array<{ spec: { policyName: string; validationActions: string[] } }> };
    expect(list.kind).toBe('ValidatingAdmissionPolicyBindingList');
    expect(list.items.map((b) => b.spec.policyName)).toEqual(['pb-policy']);
    expect(list.items[0]!.spec.validationActions).toEqual(['Warn', 'Audit']);
  });

  it('round-trips a status with type checking and conditions', () => {
    const policy = {
      kind: 'ValidatingAdmissionPolicy',
      apiVersion: 'admissionregistration.k8s.io/v1',
      metadata: { name: 'p', generation: 2 },
      spec: { failurePolicy: 'Fail', validations: [{ expression: 'object.x' }] },
      status: {
        observedGeneration: 2,
        typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'x'" }] },
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'Checked', message: '' }],
      },
    };
    const back = decodeProtobufObject(encodeProtobufObject(policy)).object as typeof policy;
    expect(back.spec).toEqual(policy.spec);
    expect(JSON.stringify(back.status)).toBe(JSON.stringify(policy.status));
  });
});

describe('through HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a policy in protobuf when asked, and accepts one in protobuf', async () => {
    const policy = JSON.parse(ADMISSIONREGISTRATION_REFERENCE[0]!.json) as Record<string, unknown>;
    const meta = policy.metadata as Record<string, unknown>;
    const body = encodeProtobufObject({ ...policy, metadata: { name: meta.name, labels: meta.labels } });
    const created = await rawRequest(t, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', body, 'application/vnd.kubernetes.protobuf');
    expect(created.status).toBe(201);
    expect(created.type).toBe('application/vnd.kubernetes.protobuf');
    const decoded = decodeProtobufObject(created.body).object as { spec: unknown; metadata: { name: string } };
    expect(decoded.metadata.name).toBe('pb-policy');
    expect(decoded.spec).toEqual(policy.spec);
  });
});
