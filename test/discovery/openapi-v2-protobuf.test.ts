/**
 * The gnostic `openapi.v2.Document` encoding of the Swagger 2.0 document: wire field numbers as
 * upstream defines them, every parameter variant, free-form values as Any.yaml, and negotiation.
 */
import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import {
  encodeOpenApiV2Protobuf,
  negotiateOpenApiV2,
  openApiV2ProtoRoot,
} from '../../src/discovery/openapi-v2-protobuf.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const decode = (bytes: Uint8Array): any => {
  const type = openApiV2ProtoRoot().lookupType('openapi.v2.Document');
  return type.toObject(type.decode(bytes), { longs: Number });
};

/** Top-level (field number, wire type) pairs, read without the schema. */
function topLevelFields(bytes: Uint8Array): [number, number][] {
  const r = protobuf.Reader.create(bytes);
  const out: [number, number][] = [];
  while (r.pos < r.len) {
    const tag = r.uint32();
    out.push([tag >>> 3, tag & 7]);
    r.skipType(tag & 7);
  }
  return out;
}

const sample = {
  swagger: '2.0',
  info: { title: 'Kubernetes', version: 'v1.32.0' },
  paths: {
    '/api/v1/namespaces/{namespace}/configmaps/{name}': {
      parameters: [
        { name: 'name', in: 'path', required: true, type: 'string', uniqueItems: true, description: 'name of the ConfigMap' },
        { $ref: '#/parameters/namespace-vgWSWtn3' },
      ],
      get: {
        operationId: 'readCoreV1NamespacedConfigMap',
        tags: ['core_v1'],
        produces: ['application/json'],
        schemes: ['https'],
        parameters: [
          { name: 'pretty', in: 'query', type: 'string', uniqueItems: true, allowEmptyValue: true },
          { name: 'X-Trace', in: 'header', type: 'array', items: { type: 'integer', format: 'int32', enum: [1, 2] }, collectionFormat: 'csv' },
          { name: 'file', in: 'formData', type: 'file', required: true },
        ],
        responses: {
          '200': { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } },
          '401': { description: 'Unauthorized' },
          default: { $ref: '#/responses/oops' },
        },
        'x-kubernetes-action': 'get',
        'x-kubernetes-group-version-kind': { group: '', kind: 'ConfigMap', version: 'v1' },
      },
      patch: {
        operationId: 'patchCoreV1NamespacedConfigMap',
        consumes: ['application/apply-patch+yaml'],
        parameters: [{ name: 'body', in: 'body', required: true, schema: { type: 'object' } }],
        responses: { '200': { description: 'OK' } },
      },
    },
  },
  definitions: {
    'io.k8s.api.core.v1.ConfigMap': {
      description: 'ConfigMap holds configuration data.',
      type: 'object',
      required: ['metadata'],
      properties: {
        data: { type: 'object', additionalProperties: { type: 'string', default: '' } },
        immutable: { type: 'boolean' },
        mode: { type: ['string', 'null'], enum: ['a', 'b'], maxLength: 10, minimum: 0.5 },
        list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        tuple: { items: [{ type: 'string' }, { type: 'integer' }] },
        free: { type: 'object', additionalProperties: true },
        metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', default: {} },
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'ConfigMap', version: 'v1' }],
    },
  },
  securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer Token authentication' } },
  security: [{ BearerToken: [] }],
};

describe('encodeOpenApiV2Protobuf', () => {
  it('writes the Document fields under their upstream numbers (1 swagger, 2 info, 8 paths, 9 definitions, 12 security, 13 security_definitions)', () => {
    const fields = topLevelFields(encodeOpenApiV2Protobuf(sample));
    expect(fields).toEqual([
      [1, 2],
      [2, 2],
      [8, 2],
      [9, 2],
      [12, 2],
      [13, 2],
    ]);
  });

  it('decodes back to the definitions with types, defaults and vendor extensions', () => {
    const doc = decode(encodeOpenApiV2Protobuf(sample));
    expect(doc.swagger).toBe('2.0');
    expect(doc.info).toEqual({ title: 'Kubernetes', version: 'v1.32.0' });
    const [cm] = doc.definitions.additional_properties;
    expect(cm.name).toBe('io.k8s.api.core.v1.ConfigMap');
    expect(cm.value.type.value).toEqual(['object']);
    expect(cm.value.required).toEqual(['metadata']);
    const gvk = cm.value.vendor_extension.find((e: { name: string }) => e.name === 'x-kubernetes-group-version-kind');
    expect(parseYaml(gvk.value.yaml)).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    const props = Object.fromEntries(cm.value.properties.additional_properties.map((p: { name: string; value: unknown }) => [p.name, p.value]));
    expect(props.data.additional_properties.schema).toEqual({ type: { value: ['string'] }, default: { yaml: '""\n' } });
    expect(props.immutable).toEqual({ type: { value: ['boolean'] } });
    expect(props.mode.type.value).toEqual(['string', 'null']);
    expect(props.mode.enum.map((a: { yaml: string }) => parseYaml(a.yaml))).toEqual(['a', 'b']);
    expect(props.mode.max_length).toBe(10);
    expect(props.mode.minimum).toBe(0.5);
    expect(props.list.items.schema).toEqual([{ type: { value: ['string'] } }]);
    expect(props.list.vendor_extension).toEqual([{ name: 'x-kubernetes-list-type', value: { yaml: '"set"\n' } }]);
    expect(props.tuple.items.schema).toHaveLength(2);
    expect(props.free.additional_properties).toEqual({ boolean: true });
    expect(props.metadata._ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(parseYaml(props.metadata.default.yaml)).toEqual({});
  });

  it('encodes paths, operations, every parameter variant and responses', () => {
    const doc = decode(encodeOpenApiV2Protobuf(sample));
    const [item] = doc.paths.path;
    expect(item.name).toBe('/api/v1/namespaces/{namespace}/configmaps/{name}');
    expect(item.value.parameters[0].parameter.non_body_parameter.path_parameter_sub_schema).toEqual({
      required: true,
      in: 'path',
      name: 'name',
      type: 'string',
      unique_items: true,
      description: 'name of the ConfigMap',
    });
    expect(item.value.parameters[1]).toEqual({ json_reference: { _ref: '#/parameters/namespace-vgWSWtn3' } });
    const get = item.value.get;
    expect(get.operation_id).toBe('readCoreV1NamespacedConfigMap');
    expect(get.tags).toEqual(['core_v1']);
    const [query, header, form] = get.parameters.map((p: { parameter: { non_body_parameter: unknown } }) => p.parameter.non_body_parameter);
    expect(query.query_parameter_sub_schema).toMatchObject({ name: 'pretty', allow_empty_value: true, unique_items: true });
    expect(header.header_parameter_sub_schema).toMatchObject({ name: 'X-Trace', type: 'array', collection_format: 'csv' });
    expect(header.header_parameter_sub_schema.items).toEqual({ type: 'integer', format: 'int32', enum: [{ yaml: '1\n' }, { yaml: '2\n' }] });
    expect(form.form_data_parameter_sub_schema).toMatchObject({ name: 'file', type: 'file', required: true });
    const ext = Object.fromEntries(get.vendor_extension.map((e: { name: string; value: { yaml: string } }) => [e.name, parseYaml(e.value.yaml)]));
    expect(ext).toEqual({ 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': { group: '', kind: 'ConfigMap', version: 'v1' } });
    const codes = Object.fromEntries(get.responses.response_code.map((r: { name: string; value: unknown }) => [r.name, r.value]));
    expect(codes['200'].response).toEqual({ description: 'OK', schema: { schema: { _ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } } });
    expect(codes['401'].response).toEqual({ description: 'Unauthorized' });
    expect(codes['default']).toEqual({ json_reference: { _ref: '#/responses/oops' } });
    const body = item.value.patch.parameters[0].parameter.body_parameter;
    expect(body).toEqual({ name: 'body', in: 'body', required: true, schema: { type: { value: ['object'] } } });
    expect(doc.security).toEqual([{ additional_properties: [{ name: 'BearerToken', value: {} }] }]);
    expect(doc.security_definitions.additional_properties[0].value.api_key_security).toEqual({
      type: 'apiKey',
      name: 'authorization',
      in: 'header',
      description: 'Bearer Token authentication',
    });
  });

  it('uses the upstream numbers inside Schema and the parameter messages', () => {
    // Schema: type=22, properties=25, vendor_extension=31; query parameter: allow_empty_value=5, unique_items=20.
    const schemaType = openApiV2ProtoRoot().lookupType('openapi.v2.Schema');
    const schemaBytes = schemaType.encode({ type: { value: ['object'] }, properties: { additional_properties: [] }, vendor_extension: [{ name: 'x-a', value: { yaml: '1' } }] }).finish();
    expect(topLevelFields(schemaBytes).map(([n]) => n)).toEqual([22, 25, 31]);
    const q = openApiV2ProtoRoot().lookupType('openapi.v2.QueryParameterSubSchema');
    expect(topLevelFields(q.encode({ allow_empty_value: true, unique_items: true }).finish()).map(([n]) => n)).toEqual([5, 20]);
    const p = openApiV2ProtoRoot().lookupType('openapi.v2.PathParameterSubSchema');
    expect(topLevelFields(p.encode({ required: true, unique_items: true }).finish()).map(([n]) => n)).toEqual([1, 19]);
  });

  it('leaves proto3 zero values out, as Go does', () => {
    const bytes = encodeOpenApiV2Protobuf({ swagger: '2.0', info: { title: '', version: 'v' }, paths: {}, definitions: { A: { type: 'object', readOnly: false, minLength: 0 } } });
    const doc = decode(bytes);
    expect(doc.info).toEqual({ version: 'v' });
    expect(doc.definitions.additional_properties[0].value).toEqual({ type: { value: ['object'] } });
  });

  it('rejects a parameter location Swagger 2.0 does not have', () => {
    const bad = { swagger: '2.0', paths: { '/x': { get: { parameters: [{ name: 'c', in: 'cookie', type: 'string' }] } } } };
    expect(() => encodeOpenApiV2Protobuf(bad)).toThrow(/cookie/);
  });
});

describe('negotiateOpenApiV2', () => {
  it('answers protobuf for either protobuf spelling and JSON otherwise, as kube-openapi does', () => {
    expect(negotiateOpenApiV2('application/com.github.proto-openapi.spec.v2@v1.0+protobuf')).toBe('protobuf');
    expect(negotiateOpenApiV2('application/com.github.proto-openapi.spec.v2.v1.0+protobuf')).toBe('protobuf');
    expect(negotiateOpenApiV2('application/com.github.proto-openapi.spec.v2.v1.0+protobuf, application/json;q=0.9')).toBe('protobuf');
    expect(negotiateOpenApiV2('application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf')).toBe('protobuf');
    expect(negotiateOpenApiV2('application/json, application/com.github.proto-openapi.spec.v2.v1.0+protobuf')).toBe('json');
    expect(negotiateOpenApiV2('')).toBe('json');
    expect(negotiateOpenApiV2('*/*')).toBe('json');
    expect(negotiateOpenApiV2('application/*')).toBe('json');
    expect(negotiateOpenApiV2('*/*;q=0.1, application/com.github.proto-openapi.spec.v2@v1.0+protobuf')).toBe('protobuf');
    expect(negotiateOpenApiV2('application/yaml')).toBeUndefined();
    expect(negotiateOpenApiV2('application/json;q=0')).toBeUndefined();
  });
});
