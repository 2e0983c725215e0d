/**
 * Messages of k8s.io/apiextensions-apiserver apiextensions/v1 generated.proto (field numbers from
 * there), in Go struct order with Go's JSON facts from types.go and types_jsonschema.go:
 * CustomResourceDefinition and its list, the first objects an operator's client-go creates.
 *
 * JSONSchemaProps is recursive and has three union types whose JSON is not an object of their
 * fields (their Go types have their own MarshalJSON): `items` is a schema or a list of schemas,
 * `additionalProperties` and `additionalItems` a boolean or a schema, a `dependencies` entry a
 * schema or a list of property names. Their adapters are below. `default`, `example` and `enum`
 * items are any JSON value, held as its text (the JSON scalar type).
 */
import { message, type JsonAdapter, type KindDef, type MessageDef } from './schema-types.ts';

const P = 'apiextensions.';
const SCHEMA = `${P}JSONSchemaProps`;
const OR_ARRAY = `${P}JSONSchemaPropsOrArray`;
const OR_BOOL = `${P}JSONSchemaPropsOrBool`;
const OR_STRINGS = `${P}JSONSchemaPropsOrStringArray`;

export const APIEXTENSIONS_MESSAGES: readonly MessageDef[] = [
  message(`${P}CustomResourceDefinition`, [
    ['metadata', 1, 'ObjectMeta'],
    ['spec', 2, `${P}CustomResourceDefinitionSpec`],
    ['status', 3, `${P}CustomResourceDefinitionStatus`],
  ]),
  message(`${P}CustomResourceDefinitionSpec`, [
    ['group', 1, 'string', 'always'],
    ['names', 3, `${P}CustomResourceDefinitionNames`],
    ['scope', 4, 'string', 'always'],
    ['versions', 7, `[]${P}CustomResourceDefinitionVersion`, 'always'],
    ['conversion', 9, `${P}CustomResourceConversion`, 'pointer'],
    ['preserveUnknownFields', 10, 'bool'],
  ]),
  message(`${P}CustomResourceDefinitionNames`, [
    ['plural', 1, 'string', 'always'],
    ['singular', 2, 'string'],
    ['shortNames', 3, '[]string'],
    ['kind', 4, 'string', 'always'],
    ['listKind', 5, 'string'],
    ['categories', 6, '[]string'],
  ]),
  message(`${P}CustomResourceDefinitionVersion`, [
    ['name', 1, 'string', 'always'],
    ['served', 2, 'bool', 'always'],
    ['storage', 3, 'bool', 'always'],
    ['deprecated', 7, 'bool'],
    ['deprecationWarning', 8, 'string', 'pointer'],
    ['schema', 4, `${P}CustomResourceValidation`, 'pointer'],
    ['subresources', 5, `${P}CustomResourceSubresources`, 'pointer'],
    ['additionalPrinterColumns', 6, `[]${P}CustomResourceColumnDefinition`],
    ['selectableFields', 9, `[]${P}SelectableField`],
  ]),
  message(`${P}CustomResourceValidation`, [['openAPIV3Schema', 1, SCHEMA, 'pointer']]),
  message(`${P}CustomResourceSubresources`, [
    ['status', 1, `${P}CustomResourceSubresourceStatus`, 'pointer'],
    ['scale', 2, `${P}CustomResourceSubresourceScale`, 'pointer'],
  ]),
  message(`${P}CustomResourceSubresourceStatus`, []),
  message(`${P}CustomResourceSubresourceScale`, [
    ['specReplicasPath', 1, 'string', 'always'],
    ['statusReplicasPath', 2, 'string', 'always'],
    ['labelSelectorPath', 3, 'string', 'pointer'],
  ]),
  message(`${P}CustomResourceColumnDefinition`, [
    ['name', 1, 'string', 'always'],
    ['type', 2, 'string', 'always'],
    ['format', 3, 'string'],
    ['description', 4, 'string'],
    ['priority', 5, 'int32'],
    ['jsonPath', 6, 'string', 'always'],
  ]),
  message(`${P}SelectableField`, [['jsonPath', 1, 'string', 'always']]),
  message(`${P}CustomResourceConversion`, [
    ['strategy', 1, 'string', 'always'],
    ['webhook', 2, `${P}WebhookConversion`, 'pointer'],
  ]),
  message(`${P}WebhookConversion`, [
    ['clientConfig', 2, `${P}WebhookClientConfig`, 'pointer'],
    ['conversionReviewVersions', 3, '[]string', 'always'],
  ]),
  message(`${P}WebhookClientConfig`, [
    ['url', 3, 'string', 'pointer'],
    ['service', 1, `${P}ServiceReference`, 'pointer'],
    ['caBundle', 2, 'bytes'],
  ]),
  message(`${P}ServiceReference`, [
    ['namespace', 1, 'string', 'always'],
    ['name', 2, 'string', 'always'],
    ['path', 3, 'string', 'pointer'],
    ['port', 4, 'int32', 'pointer'],
  ]),
  message(`${P}CustomResourceDefinitionStatus`, [
    ['conditions', 1, `[]${P}CustomResourceDefinitionCondition`, 'always'],
    ['acceptedNames', 2, `${P}CustomResourceDefinitionNames`],
    ['storedVersions', 3, '[]string', 'always'],
  ]),
  message(`${P}CustomResourceDefinitionCondition`, [
    ['type', 1, 'string', 'always'],
    ['status', 2, 'string', 'always'],
    ['lastTransitionTime', 3, 'Time'],
    ['reason', 4, 'string'],
    ['message', 5, 'string'],
  ]),
  message(SCHEMA, [
    ['id', 1, 'string'],
    ['$schema', 2, 'string'],
    ['$ref', 3, 'string', 'pointer'],
    ['description', 4, 'string'],
    ['type', 5, 'string'],
    ['format', 6, 'string'],
    ['title', 7, 'string'],
    ['default', 8, 'JSON', 'pointer'],
    ['maximum', 9, 'double', 'pointer'],
    ['exclusiveMaximum', 10, 'bool'],
    ['minimum', 11, 'double', 'pointer'],
    ['exclusiveMinimum', 12, 'bool'],
    ['maxLength', 13, 'int64', 'pointer'],
    ['minLength', 14, 'int64', 'pointer'],
    ['pattern', 15, 'string'],
    ['maxItems', 16, 'int64', 'pointer'],
    ['minItems', 17, 'int64', 'pointer'],
    ['uniqueItems', 18, 'bool'],
    ['multipleOf', 19, 'double', 'pointer'],
    ['enum', 20, '[]JSON'],
    ['maxProperties', 21, 'int64', 'pointer'],
    ['minProperties', 22, 'int64', 'pointer'],
    ['required', 23, '[]string'],
    ['items', 24, OR_ARRAY, 'pointer'],
    ['allOf', 25, `[]${SCHEMA}`],
    ['oneOf', 26, `[]${SCHEMA}`],
    ['anyOf', 27, `[]${SCHEMA}`],
    ['not', 28, SCHEMA, 'pointer'],
    ['properties', 29, `map<string,${SCHEMA}>`],
    ['additionalProperties', 30, OR_BOOL, 'pointer'],
    ['patternProperties', 31, `map<string,${SCHEMA}>`],
    ['dependencies', 32, `map<string,${OR_STRINGS}>`],
    ['additionalItems', 33, OR_BOOL, 'pointer'],
    ['definitions', 34, `map<string,${SCHEMA}>`],
    ['externalDocs', 35, `${P}ExternalDocumentation`, 'pointer'],
    ['example', 36, 'JSON', 'pointer'],
    ['nullable', 37, 'bool'],
    ['x-kubernetes-preserve-unknown-fields', 38, 'bool', 'pointer'],
    ['x-kubernetes-embedded-resource', 39, 'bool'],
    ['x-kubernetes-int-or-string', 40, 'bool'],
    ['x-kubernetes-list-map-keys', 41, '[]string'],
    ['x-kubernetes-list-type', 42, 'string', 'pointer'],
    ['x-kubernetes-map-type', 43, 'string', 'pointer'],
    ['x-kubernetes-validations', 44, `[]${P}ValidationRule`],
  ]),
  message(OR_ARRAY, [
    ['schema', 1, SCHEMA, 'pointer'],
    ['jSONSchemas', 2, `[]${SCHEMA}`],
  ]),
  message(OR_BOOL, [
    ['allows', 1, 'bool', 'always'],
    ['schema', 2, SCHEMA, 'pointer'],
  ]),
  message(OR_STRINGS, [
    ['schema', 1, SCHEMA, 'pointer'],
    ['property', 2, '[]string'],
  ]),
  message(`${P}ExternalDocumentation`, [
    ['description', 1, 'string'],
    ['url', 2, 'string'],
  ]),
  message(`${P}ValidationRule`, [
    ['rule', 1, 'string', 'always'],
    ['message', 2, 'string'],
    ['messageExpression', 3, 'string'],
    ['reason', 4, 'string', 'pointer'],
    ['fieldPath', 5, 'string'],
    ['optionalOldSelf', 6, 'bool', 'pointer'],
  ]),
];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The Go types' MarshalJSON and UnmarshalJSON of the three unions. */
export const APIEXTENSIONS_ADAPTERS: ReadonlyMap<string, JsonAdapter> = new Map<string, JsonAdapter>([
  [
    OR_ARRAY,
    {
      // A list when it holds several schemas, else its one schema (null when none).
      toJson: (f) => (Array.isArray(f.jSONSchemas) && f.jSONSchemas.length > 0 ? f.jSONSchemas : (f.schema ?? null)),
      fromJson: (v) => (Array.isArray(v) ? { jSONSchemas: v } : isObject(v) ? { schema: v } : v === null ? {} : undefined),
    },
  ],
  [
    OR_BOOL,
    {
      // The schema when there is one (it allows), else the boolean.
      toJson: (f) => f.schema ?? f.allows === true,
      fromJson: (v) => (typeof v === 'boolean' ? { allows: v } : isObject(v) ? { allows: true, schema: v } : v === null ? {} : undefined),
    },
  ],
  [
    OR_STRINGS,
    {
      // The property names when there are some, else the schema (null when none).
      toJson: (f) => (Array.isArray(f.property) && f.property.length > 0 ? f.property : (f.schema ?? null)),
      fromJson: (v) => (Array.isArray(v) ? { property: v } : isObject(v) ? { schema: v } : v === null ? {} : undefined),
    },
  ],
]);

export const APIEXTENSIONS_KIND_DEFS: readonly KindDef[] = [
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', message: `${P}CustomResourceDefinition` },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinitionList', message: `${P}CustomResourceDefinitionList` },
];

export const APIEXTENSIONS_LIST_ITEMS: readonly string[] = [`${P}CustomResourceDefinition`];
