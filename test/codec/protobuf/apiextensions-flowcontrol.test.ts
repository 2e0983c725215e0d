/**
 * apiextensions.k8s.io/v1, flowcontrol.apiserver.k8s.io/v1 and authentication TokenReview in
 * protobuf: kube-apiserver v1.32.4's own bytes decode to the JSON it serves and that JSON encodes
 * back to the same bytes; JSONSchemaProps' unions round-trip in each of their forms; and through
 * HTTP a client that speaks protobuf (client-go's typed clients, as in kube's e2e suite) creates
 * a CustomResourceDefinition, a FlowSchema and a TokenReview.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject, isProtobufKind } from '../../../src/codec/protobuf/index.ts';
import { APIEXTENSIONS_FLOWCONTROL_REFERENCE } from './apiextensions-flowcontrol-reference.ts';
import { startTestServer, type TestServer } from '../../server/harness.ts';
import { rawRequest } from './raw-request.ts';

describe('kube-apiserver v1.32.4 bytes', () => {
  for (const ref of APIEXTENSIONS_FLOWCONTROL_REFERENCE) {
    const json = JSON.parse(ref.json) as Record<string, unknown>;
    const bytes = Buffer.from(ref.protobuf, 'base64');
    it(`${ref.path}: decodes to kube's JSON, key order included`, () => {
      // Compared as parsed: kube's JSON escapes <, > and & in strings (Go's HTML-safe encoding).
      expect(JSON.stringify(decodeProtobufObject(bytes).object)).toBe(JSON.stringify(json));
    });
    it(`${ref.path}: encodes to kube's bytes`, () => {
      expect(Buffer.from(encodeProtobufObject(json)).toString('base64')).toBe(ref.protobuf);
    });
  }

  it('serves the kinds and their lists', () => {
    for (const [apiVersion, kind] of [
      ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'],
      ['flowcontrol.apiserver.k8s.io/v1', 'FlowSchema'],
      ['flowcontrol.apiserver.k8s.io/v1', 'PriorityLevelConfiguration'],
    ] as const) {
      expect(isProtobufKind(apiVersion, kind)).toBe(true);
      expect(isProtobufKind(apiVersion, `${kind}List`)).toBe(true);
    }
    expect(isProtobufKind('authentication.k8s.io/v1', 'TokenReview')).toBe(true);
  });
});

describe('JSONSchemaProps unions and values', () => {
  const crd = (schema: Record<string, unknown>) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'xs.u.example.com' },
    spec: { group: 'u.example.com', names: { plural: 'xs', kind: 'X' }, scope: 'Cluster', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
  });
  const roundTrip = (schema: Record<string, unknown>) => {
    const back = decodeProtobufObject(encodeProtobufObject(crd(schema))).object as { spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } };
    return back.spec.versions[0]!.schema.openAPIV3Schema;
  };

  it('additionalProperties and additionalItems: true, false or a schema', () => {
    expect(roundTrip({ type: 'object', additionalProperties: true })).toEqual({ type: 'object', additionalProperties: true });
    expect(roundTrip({ type: 'object', additionalProperties: false })).toEqual({ type: 'object', additionalProperties: false });
    expect(roundTrip({ type: 'object', additionalProperties: { type: 'string' } })).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(roundTrip({ type: 'array', additionalItems: false })).toEqual({ type: 'array', additionalItems: false });
  });

  it('items: one schema or a list of schemas; dependencies: a schema or property names', () => {
    expect(roundTrip({ type: 'array', items: { type: 'integer' } })).toEqual({ type: 'array', items: { type: 'integer' } });
    expect(roundTrip({ type: 'array', items: [{ type: 'integer' }, { type: 'string' }] })).toEqual({ type: 'array', items: [{ type: 'integer' }, { type: 'string' }] });
    const deps = { a: ['b', 'c'], d: { required: ['e'] } };
    expect(roundTrip({ type: 'object', dependencies: deps })).toEqual({ type: 'object', dependencies: deps });
  });

  it('any JSON in default, example and enum; fractional bounds; schemas by name, sorted as Go writes maps', () => {
    const schema = {
      type: 'object',
      default: { z: [1, 'two', null], a: true },
      maximum: 2.75,
      minimum: -0.5,
      multipleOf: 0.25,
      enum: [1.5, 'x', null, { k: 'v' }],
      properties: { zeta: { type: 'string', example: 'e' }, alpha: { type: 'number' } },
      patternProperties: { '^p': { type: 'boolean' } },
      definitions: { d: { type: 'string' } },
    };
    const back = roundTrip(schema) as Record<string, unknown>;
    expect(back).toEqual(schema);
    expect(Object.keys(back.properties as object)).toEqual(['alpha', 'zeta']);
  });

  it('a union given a value of no form of it is refused, naming where', () => {
    expect(() => encodeProtobufObject(crd({ type: 'object', additionalProperties: 'yes' }))).toThrow(/additionalProperties/);
  });
});

describe('through HTTP, in protobuf as client-go sends', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });
  const PB = 'application/vnd.kubernetes.protobuf';

  it('creates a CustomResourceDefinition sent in protobuf and answers it in protobuf', async () => {
    const kubeCrd = JSON.parse(APIEXTENSIONS_FLOWCONTROL_REFERENCE[0]!.json) as { metadata: { name: string; labels: unknown }; spec: unknown };
    const body = encodeProtobufObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: kubeCrd.metadata.name, labels: kubeCrd.metadata.labels }, spec: kubeCrd.spec });
    const created = await rawRequest(t, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body, PB);
    expect(created.status).toBe(201);
    expect(created.type).toBe(PB);
    const decoded = decodeProtobufObject(created.body).object as { metadata: { name: string }; spec: unknown };
    expect(decoded.metadata.name).toBe('widgets.pb.example.com');
    expect(decoded.spec).toEqual(kubeCrd.spec);
    const listed = await rawRequest(t, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', new Uint8Array(0), PB);
    expect(listed.status).toBe(200);
    const list = decodeProtobufObject(listed.body).object as { kind: string; items: { metadata: { name: string } }[] };
    expect(list.kind).toBe('CustomResourceDefinitionList');
    expect(list.items.map((i) => i.metadata.name)).toContain('widgets.pb.example.com');
  });

  it('creates a FlowSchema sent in protobuf', async () => {
    const fs = JSON.parse(APIEXTENSIONS_FLOWCONTROL_REFERENCE[1]!.json) as { spec: unknown };
    const body = encodeProtobufObject({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'pb-schema' }, spec: fs.spec });
    const created = await rawRequest(t, 'POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', body, PB);
    expect(created.status).toBe(201);
    expect((decodeProtobufObject(created.body).object as { spec: unknown }).spec).toEqual(fs.spec);
  });

  it('reviews a token sent in protobuf and answers the review in protobuf', async () => {
    const body = encodeProtobufObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: 'not-a-token' } });
    const reviewed = await rawRequest(t, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', body, PB);
    expect(reviewed.status).toBe(201);
    const review = decodeProtobufObject(reviewed.body).object as { kind: string; status: { authenticated?: boolean; user: unknown } };
    expect(review.kind).toBe('TokenReview');
    expect(review.status.authenticated).toBeUndefined();
    expect(review.status.user).toEqual({});
  });
});
