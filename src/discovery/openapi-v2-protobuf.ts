/**
 * The Swagger 2.0 document in gnostic's protobuf form (`openapi.v2.Document`, from
 * github.com/google/gnostic-models openapiv2/OpenAPIv2.proto), which kubectl up to v1.28 asks
 * `/openapi/v2` for. Conversion follows gnostic's ParseDocument: `x-` keys become `NamedAny`
 * vendor extensions, free-form values (default, enum, example, extensions) become `Any.yaml`
 * text, and proto3 zero values are left out as Go's marshaller does.
 */
import protobuf from 'protobufjs';

/** The media type kube-apiserver answers with for the protobuf form. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The older spelling kubectl v1.27/v1.28 send; answered with {@link OPENAPI_V2_PROTOBUF}. */
export const OPENAPI_V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

// The subset of OpenAPIv2.proto this server emits; names and numbers match the upstream file.
// `Any.value` (a google.protobuf.Any, 1) is never written, so it is not declared.
const PROTO = `
syntax = "proto3";
package openapi.v2;
message Any { string yaml = 2; }
message NamedAny { string name = 1; Any value = 2; }
message StringArray { repeated string value = 1; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message TypeItem { repeated string value = 1; }
message JsonReference { string _ref = 1; string description = 2; }
message ExternalDocs { string description = 1; string url = 2; repeated NamedAny vendor_extension = 3; }
message Contact { string name = 1; string url = 2; string email = 3; repeated NamedAny vendor_extension = 4; }
message License { string name = 1; string url = 2; repeated NamedAny vendor_extension = 3; }
message Info {
  string title = 1; string version = 2; string description = 3; string terms_of_service = 4;
  Contact contact = 5; License license = 6; repeated NamedAny vendor_extension = 7;
}
message Tag { string name = 1; string description = 2; ExternalDocs external_docs = 3; repeated NamedAny vendor_extension = 4; }
message Document {
  string swagger = 1; Info info = 2; string host = 3; string base_path = 4;
  repeated string schemes = 5; repeated string consumes = 6; repeated string produces = 7;
  Paths paths = 8; Definitions definitions = 9; ParameterDefinitions parameters = 10;
  ResponseDefinitions responses = 11; repeated SecurityRequirement security = 12;
  SecurityDefinitions security_definitions = 13; repeated Tag tags = 14;
  ExternalDocs external_docs = 15; repeated NamedAny vendor_extension = 16;
}
message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message PathItem {
  string _ref = 1; Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5;
  Operation options = 6; Operation head = 7; Operation patch = 8;
  repeated ParametersItem parameters = 9; repeated NamedAny vendor_extension = 10;
}
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; ExternalDocs external_docs = 4;
  string operation_id = 5; repeated string produces = 6; repeated string consumes = 7;
  repeated ParametersItem parameters = 8; Responses responses = 9; repeated string schemes = 10;
  bool deprecated = 11; repeated SecurityRequirement security = 12; repeated NamedAny vendor_extension = 13;
}
message ParametersItem { oneof oneof { Parameter parameter = 1; JsonReference json_reference = 2; } }
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message ParameterDefinitions { repeated NamedParameter additional_properties = 1; }
message NamedParameter { string name = 1; Parameter value = 2; }
message BodyParameter {
  string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5;
  repeated NamedAny vendor_extension = 6;
}
message NonBodyParameter {
  oneof oneof {
    HeaderParameterSubSchema header_parameter_sub_schema = 1;
    FormDataParameterSubSchema form_data_parameter_sub_schema = 2;
    QueryParameterSubSchema query_parameter_sub_schema = 3;
    PathParameterSubSchema path_parameter_sub_schema = 4;
  }
}
message HeaderParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5;
  string format = 6; PrimitivesItems items = 7; string collection_format = 8; Any default = 9;
  double maximum = 10; bool exclusive_maximum = 11; double minimum = 12; bool exclusive_minimum = 13;
  int64 max_length = 14; int64 min_length = 15; string pattern = 16; int64 max_items = 17;
  int64 min_items = 18; bool unique_items = 19; repeated Any enum = 20; double multiple_of = 21;
  repeated NamedAny vendor_extension = 22;
}
message PathParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5;
  string format = 6; PrimitivesItems items = 7; string collection_format = 8; Any default = 9;
  double maximum = 10; bool exclusive_maximum = 11; double minimum = 12; bool exclusive_minimum = 13;
  int64 max_length = 14; int64 min_length = 15; string pattern = 16; int64 max_items = 17;
  int64 min_items = 18; bool unique_items = 19; repeated Any enum = 20; double multiple_of = 21;
  repeated NamedAny vendor_extension = 22;
}
message QueryParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; bool allow_empty_value = 5;
  string type = 6; string format = 7; PrimitivesItems items = 8; string collection_format = 9;
  Any default = 10; double maximum = 11; bool exclusive_maximum = 12; double minimum = 13;
  bool exclusive_minimum = 14; int64 max_length = 15; int64 min_length = 16; string pattern = 17;
  int64 max_items = 18; int64 min_items = 19; bool unique_items = 20; repeated Any enum = 21;
  double multiple_of = 22; repeated NamedAny vendor_extension = 23;
}
message FormDataParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; bool allow_empty_value = 5;
  string type = 6; string format = 7; PrimitivesItems items = 8; string collection_format = 9;
  Any default = 10; double maximum = 11; bool exclusive_maximum = 12; double minimum = 13;
  bool exclusive_minimum = 14; int64 max_length = 15; int64 min_length = 16; string pattern = 17;
  int64 max_items = 18; int64 min_items = 19; bool unique_items = 20; repeated Any enum = 21;
  double multiple_of = 22; repeated NamedAny vendor_extension = 23;
}
message PrimitivesItems {
  string type = 1; string format = 2; PrimitivesItems items = 3; string collection_format = 4;
  Any default = 5; double maximum = 6; bool exclusive_maximum = 7; double minimum = 8;
  bool exclusive_minimum = 9; int64 max_length = 10; int64 min_length = 11; string pattern = 12;
  int64 max_items = 13; int64 min_items = 14; bool unique_items = 15; repeated Any enum = 16;
  double multiple_of = 17; repeated NamedAny vendor_extension = 18;
}
message Responses { repeated NamedResponseValue response_code = 1; repeated NamedAny vendor_extension = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message ResponseValue { oneof oneof { Response response = 1; JsonReference json_reference = 2; } }
message ResponseDefinitions { repeated NamedResponse additional_properties = 1; }
message NamedResponse { string name = 1; Response value = 2; }
message Response { string description = 1; SchemaItem schema = 2; repeated NamedAny vendor_extension = 5; }
message SchemaItem { oneof oneof { Schema schema = 1; } }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Properties { repeated NamedSchema additional_properties = 1; }
message NamedSchema { string name = 1; Schema value = 2; }
message ItemsItem { repeated Schema schema = 1; }
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5;
  double multiple_of = 6; double maximum = 7; bool exclusive_maximum = 8; double minimum = 9;
  bool exclusive_minimum = 10; int64 max_length = 11; int64 min_length = 12; string pattern = 13;
  int64 max_items = 14; int64 min_items = 15; bool unique_items = 16; int64 max_properties = 17;
  int64 min_properties = 18; repeated string required = 19; repeated Any enum = 20;
  AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23;
  repeated Schema all_of = 24; Properties properties = 25; string discriminator = 26;
  bool read_only = 27; ExternalDocs external_docs = 29; Any example = 30;
  repeated NamedAny vendor_extension = 31;
}
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message SecurityDefinitionsItem {
  oneof oneof { BasicAuthenticationSecurity basic_authentication_security = 1; ApiKeySecurity api_key_security = 2; }
}
message BasicAuthenticationSecurity { string type = 1; string description = 2; repeated NamedAny vendor_extension = 3; }
message ApiKeySecurity {
  string type = 1; string name = 2; string in = 3; string description = 4; repeated NamedAny vendor_extension = 5;
}
`;

let root: protobuf.Root | undefined;

/** The parsed `openapi.v2` definitions (shared; also what tests decode with). */
export function openApiV2ProtoRoot(): protobuf.Root {
  return (root ??= protobuf.parse(PROTO, { keepCase: true }).root);
}

/** Encodes a Swagger 2.0 JSON document as an `openapi.v2.Document`; throws on a parameter kind Swagger 2.0 does not have. */
export function encodeOpenApiV2Protobuf(doc: Readonly<Record<string, unknown>>): Uint8Array {
  const type = openApiV2ProtoRoot().lookupType('openapi.v2.Document');
  return type.encode(documentMessage(doc)).finish();
}

/**
 * Which form of `/openapi/v2` an Accept header gets, negotiated as kube-openapi does: clauses by
 * quality then specificity, each tried against JSON, then the two protobuf spellings; undefined
 * means 406.
 */
export function negotiateOpenApiV2(accept: string): 'json' | 'protobuf' | undefined {
  const offered = [
    { type: 'application/json', form: 'json' as const },
    { type: OPENAPI_V2_PROTOBUF_DEPRECATED, form: 'protobuf' as const },
    { type: OPENAPI_V2_PROTOBUF, form: 'protobuf' as const },
  ];
  for (const clause of acceptClauses(accept.trim() === '' ? '*/*' : accept)) {
    const [ct, cs] = clause.split('/') as [string, string | undefined];
    for (const o of offered) {
      const [ot, os] = o.type.split('/') as [string, string];
      if ((ct === ot || ct === '*') && (cs === os || cs === '*')) return o.form;
    }
  }
  return undefined;
}

function acceptClauses(accept: string): string[] {
  const clauses = accept.split(',').map((raw, i) => {
    const [media = '', ...params] = raw.split(';').map((s) => s.trim());
    const qParam = params.find((p) => /^q=/i.test(p));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const [type = '', sub = ''] = media.toLowerCase().split('/');
    return { media: `${type}/${sub}`, q: Number.isNaN(q) ? 0 : q, wild: (type === '*' ? 2 : 0) + (sub === '*' ? 1 : 0), i };
  });
  return clauses
    .filter((c) => c.q > 0 && c.media !== '/')
    .sort((a, b) => b.q - a.q || a.wild - b.wild || a.i - b.i)
    .map((c) => c.media);
}

type J = Readonly<Record<string, unknown>>;
type Msg = Record<string, unknown>;

const isObject = (v: unknown): v is J => typeof v === 'object' && v !== null && !Array.isArray(v);
const objectOr = (v: unknown): J => (isObject(v) ? v : {});

/** Free-form value as gnostic carries it: YAML text (JSON is YAML, and unambiguous for every YAML parser). */
function anyMessage(v: unknown): Msg {
  return { yaml: `${JSON.stringify(v)}\n` };
}

function vendorExtensions(o: J): Msg[] {
  return Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, v]) => ({ name, value: anyMessage(v) }));
}

/**
 * Copies the listed JSON keys into snake_case proto fields, leaving out proto3 zero values
 * (empty strings, false, 0, empty lists) as Go does; numbers go to doubles or int64s alike.
 */
function scalars(src: J, keys: Readonly<Record<string, string>>, out: Msg = {}): Msg {
  for (const [jsonKey, field] of Object.entries(keys)) {
    const v = src[jsonKey];
    if (v === undefined || v === null || v === '' || v === false || v === 0) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') out[field] = v;
    else if (Array.isArray(v) && v.every((s) => typeof s === 'string')) out[field] = v;
  }
  return out;
}

/** The JSON Schema validation keywords Schema, non-body parameters and PrimitivesItems share. */
const VALIDATIONS: Readonly<Record<string, string>> = {
  maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum',
  minimum: 'minimum',
  exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  pattern: 'pattern',
  maxItems: 'max_items',
  minItems: 'min_items',
  uniqueItems: 'unique_items',
  multipleOf: 'multiple_of',
};

/** Adds `default` and `enum` as gnostic's Any values. */
function withValues(src: J, out: Msg): Msg {
  if (src['default'] !== undefined) out['default'] = anyMessage(src['default']);
  if (Array.isArray(src['enum']) && src['enum'].length > 0) out['enum'] = src['enum'].map(anyMessage);
  return out;
}

/** Adds the `x-` keys of src as vendor extensions. */
function withExtensions(src: J, out: Msg): Msg {
  const ext = vendorExtensions(src);
  if (ext.length > 0) out['vendor_extension'] = ext;
  return out;
}

function schemaMessage(s: J): Msg {
  const out = scalars(s, {
    $ref: '_ref',
    format: 'format',
    title: 'title',
    description: 'description',
    maxProperties: 'max_properties',
    minProperties: 'min_properties',
    required: 'required',
    discriminator: 'discriminator',
    readOnly: 'read_only',
    ...VALIDATIONS,
  });
  const ap = s['additionalProperties'];
  if (typeof ap === 'boolean') out['additional_properties'] = { boolean: ap };
  else if (isObject(ap)) out['additional_properties'] = { schema: schemaMessage(ap) };
  const t = s['type'];
  if (typeof t === 'string') out['type'] = { value: [t] };
  else if (Array.isArray(t)) out['type'] = { value: t.filter((x) => typeof x === 'string') };
  const items = s['items'];
  if (Array.isArray(items)) out['items'] = { schema: items.filter(isObject).map(schemaMessage) };
  else if (isObject(items)) out['items'] = { schema: [schemaMessage(items)] };
  if (Array.isArray(s['allOf'])) out['all_of'] = s['allOf'].filter(isObject).map(schemaMessage);
  if (isObject(s['properties'])) out['properties'] = { additional_properties: namedSchemas(s['properties']) };
  if (isObject(s['externalDocs'])) out['external_docs'] = externalDocsMessage(s['externalDocs']);
  if (s['example'] !== undefined) out['example'] = anyMessage(s['example']);
  return withExtensions(s, withValues(s, out));
}

function namedSchemas(o: J): Msg[] {
  return Object.entries(o).map(([name, v]) => ({ name, value: schemaMessage(objectOr(v)) }));
}

function externalDocsMessage(d: J): Msg {
  return withExtensions(d, scalars(d, { description: 'description', url: 'url' }));
}

function primitivesItemsMessage(p: J): Msg {
  const out = scalars(p, { type: 'type', format: 'format', collectionFormat: 'collection_format', ...VALIDATIONS });
  if (isObject(p['items'])) out['items'] = primitivesItemsMessage(p['items']);
  return withExtensions(p, withValues(p, out));
}

const NON_BODY_FIELD: Readonly<Record<string, string>> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
};

function parameterMessage(p: J): Msg {
  const where = String(p['in'] ?? '');
  if (where === 'body') {
    const body = scalars(p, { description: 'description', name: 'name', in: 'in', required: 'required' });
    if (isObject(p['schema'])) body['schema'] = schemaMessage(p['schema']);
    return { body_parameter: withExtensions(p, body) };
  }
  const field = NON_BODY_FIELD[where];
  if (!field) throw new Error(`openapi v2 protobuf: parameter ${String(p['name'])} has unknown location ${JSON.stringify(where)}`);
  const keys: Record<string, string> = { required: 'required', in: 'in', description: 'description', name: 'name', type: 'type', format: 'format', collectionFormat: 'collection_format', ...VALIDATIONS };
  // Only query and formData parameters have allow_empty_value in gnostic's messages.
  if (where === 'query' || where === 'formData') keys['allowEmptyValue'] = 'allow_empty_value';
  const sub = scalars(p, keys);
  if (isObject(p['items'])) sub['items'] = primitivesItemsMessage(p['items']);
  return { non_body_parameter: { [field]: withExtensions(p, withValues(p, sub)) } };
}

function parametersItemMessage(p: J): Msg {
  if (typeof p['$ref'] === 'string') return { json_reference: scalars(p, { $ref: '_ref', description: 'description' }) };
  return { parameter: parameterMessage(p) };
}

function parametersList(v: unknown): Msg[] | undefined {
  return Array.isArray(v) && v.length > 0 ? v.filter(isObject).map(parametersItemMessage) : undefined;
}

function responseMessage(r: J): Msg {
  const out = scalars(r, { description: 'description' });
  if (isObject(r['schema'])) out['schema'] = { schema: schemaMessage(r['schema']) };
  return withExtensions(r, out);
}

function responsesMessage(rs: J): Msg {
  const codes = Object.entries(rs)
    .filter(([k]) => !k.startsWith('x-'))
    .map(([name, v]) => {
      const r = objectOr(v);
      const value = typeof r['$ref'] === 'string' ? { json_reference: scalars(r, { $ref: '_ref', description: 'description' }) } : { response: responseMessage(r) };
      return { name, value };
    });
  return { response_code: codes, vendor_extension: vendorExtensions(rs) };
}

function securityRequirements(v: unknown): Msg[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter(isObject).map((req) => ({
    additional_properties: Object.entries(req).map(([name, scopes]) => ({ name, value: { value: Array.isArray(scopes) ? scopes.map(String) : [] } })),
  }));
}

function operationMessage(o: J): Msg {
  const out = scalars(o, {
    tags: 'tags',
    summary: 'summary',
    description: 'description',
    operationId: 'operation_id',
    produces: 'produces',
    consumes: 'consumes',
    schemes: 'schemes',
    deprecated: 'deprecated',
  });
  if (isObject(o['externalDocs'])) out['external_docs'] = externalDocsMessage(o['externalDocs']);
  const params = parametersList(o['parameters']);
  if (params) out['parameters'] = params;
  if (isObject(o['responses'])) out['responses'] = responsesMessage(o['responses']);
  const security = securityRequirements(o['security']);
  if (security) out['security'] = security;
  return withExtensions(o, out);
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

function pathItemMessage(pi: J): Msg {
  const out = scalars(pi, { $ref: '_ref' });
  for (const m of METHODS) if (isObject(pi[m])) out[m] = operationMessage(pi[m]);
  const params = parametersList(pi['parameters']);
  if (params) out['parameters'] = params;
  return withExtensions(pi, out);
}

function securityDefinitionMessage(d: J): Msg | undefined {
  if (d['type'] === 'apiKey') return { api_key_security: withExtensions(d, scalars(d, { type: 'type', name: 'name', in: 'in', description: 'description' })) };
  if (d['type'] === 'basic') return { basic_authentication_security: withExtensions(d, scalars(d, { type: 'type', description: 'description' })) };
  // OAuth2 schemes are never published by this server.
  return undefined;
}

function documentMessage(doc: J): Msg {
  const out = scalars(doc, { swagger: 'swagger', host: 'host', basePath: 'base_path', schemes: 'schemes', consumes: 'consumes', produces: 'produces' });
  if (isObject(doc['info'])) {
    const info = doc['info'];
    out['info'] = withExtensions(info, scalars(info, { title: 'title', version: 'version', description: 'description', termsOfService: 'terms_of_service' }));
  }
  const paths = objectOr(doc['paths']);
  out['paths'] = {
    vendor_extension: vendorExtensions(paths),
    path: Object.entries(paths)
      .filter(([k]) => !k.startsWith('x-'))
      .map(([name, v]) => ({ name, value: pathItemMessage(objectOr(v)) })),
  };
  if (isObject(doc['definitions'])) out['definitions'] = { additional_properties: namedSchemas(doc['definitions']) };
  if (isObject(doc['parameters'])) {
    out['parameters'] = { additional_properties: Object.entries(doc['parameters']).map(([name, v]) => ({ name, value: parameterMessage(objectOr(v)) })) };
  }
  if (isObject(doc['responses'])) {
    out['responses'] = { additional_properties: Object.entries(doc['responses']).map(([name, v]) => ({ name, value: responseMessage(objectOr(v)) })) };
  }
  const security = securityRequirements(doc['security']);
  if (security) out['security'] = security;
  if (isObject(doc['securityDefinitions'])) {
    const items = Object.entries(doc['securityDefinitions']).flatMap(([name, v]) => {
      const value = securityDefinitionMessage(objectOr(v));
      return value ? [{ name, value }] : [];
    });
    out['security_definitions'] = { additional_properties: items };
  }
  if (Array.isArray(doc['tags'])) {
    out['tags'] = doc['tags'].filter(isObject).map((t) => {
      const tag = withExtensions(t, scalars(t, { name: 'name', description: 'description' }));
      if (isObject(t['externalDocs'])) tag['external_docs'] = externalDocsMessage(t['externalDocs']);
      return tag;
    });
  }
  if (isObject(doc['externalDocs'])) out['external_docs'] = externalDocsMessage(doc['externalDocs']);
  return withExtensions(doc, out);
}
