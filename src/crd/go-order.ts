/**
 * The field order kube-apiserver writes a CRD in: its Go structs' order (CustomResourceDefinitionSpec,
 * Names, Version, JSONSchemaProps, ...), whatever order the client sent. Custom resources, kept as
 * unstructured maps, are written with their keys sorted, as Go's encoding/json writes a map.
 */
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const ORDERS: Record<string, readonly string[]> = {
  spec: ['group', 'names', 'scope', 'versions', 'conversion', 'preserveUnknownFields'],
  names: ['plural', 'singular', 'shortNames', 'kind', 'listKind', 'categories'],
  version: ['name', 'served', 'storage', 'deprecated', 'deprecationWarning', 'schema', 'subresources', 'additionalPrinterColumns', 'selectableFields'],
  column: ['name', 'type', 'format', 'description', 'priority', 'jsonPath'],
  scale: ['specReplicasPath', 'statusReplicasPath', 'labelSelectorPath'],
  subresources: ['status', 'scale'],
  conversion: ['strategy', 'webhook'],
  webhook: ['clientConfig', 'conversionReviewVersions'],
  clientConfig: ['url', 'service', 'caBundle'],
  service: ['namespace', 'name', 'path', 'port'],
  status: ['conditions', 'acceptedNames', 'storedVersions'],
  condition: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  rule: ['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf'],
  schema: [
    'id', '$schema', '$ref', 'description', 'type', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
    'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties',
    'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties', 'additionalProperties', 'patternProperties', 'dependencies',
    'additionalItems', 'definitions', 'externalDocs', 'example', 'nullable', 'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type',
    'x-kubernetes-map-type', 'x-kubernetes-validations',
  ],
};

function ordered(o: Obj, order: readonly string[]): Obj {
  const out: Obj = {};
  for (const k of order) if (Object.hasOwn(o, k)) out[k] = o[k];
  for (const k of Object.keys(o)) if (!Object.hasOwn(out, k)) out[k] = o[k];
  return out;
}

function schemaInOrder(s: unknown): unknown {
  if (!isObj(s)) return s;
  const o = ordered(s, ORDERS.schema!);
  if (isObj(o.properties)) o.properties = Object.fromEntries(Object.entries(o.properties).map(([k, v]) => [k, schemaInOrder(v)]));
  if (isObj(o.items)) o.items = schemaInOrder(o.items);
  if (isObj(o.additionalProperties)) o.additionalProperties = schemaInOrder(o.additionalProperties);
  for (const k of ['allOf', 'oneOf', 'anyOf'] as const) if (Array.isArray(o[k])) o[k] = (o[k] as unknown[]).map(schemaInOrder);
  if (isObj(o.not)) o.not = schemaInOrder(o.not);
  if (Array.isArray(o['x-kubernetes-validations'])) o['x-kubernetes-validations'] = (o['x-kubernetes-validations'] as unknown[]).map((r) => (isObj(r) ? ordered(r, ORDERS.rule!) : r));
  return o;
}

/** Reorders a CRD's spec and status in place into Go's field order. */
export function crdInGoOrder(crd: Obj): void {
  if (isObj(crd.spec)) {
    const spec = ordered(crd.spec, ORDERS.spec!);
    if (isObj(spec.names)) spec.names = ordered(spec.names, ORDERS.names!);
    if (Array.isArray(spec.versions)) {
      spec.versions = spec.versions.map((v) => {
        if (!isObj(v)) return v;
        const out = ordered(v, ORDERS.version!);
        if (isObj(out.schema) && isObj(out.schema.openAPIV3Schema)) out.schema = { ...out.schema, openAPIV3Schema: schemaInOrder(out.schema.openAPIV3Schema) };
        if (isObj(out.subresources)) {
          const sub = ordered(out.subresources, ORDERS.subresources!);
          if (isObj(sub.scale)) sub.scale = ordered(sub.scale, ORDERS.scale!);
          out.subresources = sub;
        }
        if (Array.isArray(out.additionalPrinterColumns)) out.additionalPrinterColumns = out.additionalPrinterColumns.map((c) => (isObj(c) ? ordered(c, ORDERS.column!) : c));
        return out;
      });
    }
    if (isObj(spec.conversion)) {
      const conv = ordered(spec.conversion, ORDERS.conversion!);
      if (isObj(conv.webhook)) {
        const wh = ordered(conv.webhook, ORDERS.webhook!);
        if (isObj(wh.clientConfig)) {
          const cc = ordered(wh.clientConfig, ORDERS.clientConfig!);
          if (isObj(cc.service)) cc.service = ordered(cc.service, ORDERS.service!);
          wh.clientConfig = cc;
        }
        conv.webhook = wh;
      }
      spec.conversion = conv;
    }
    crd.spec = spec;
  }
  if (isObj(crd.status)) {
    const status = ordered(crd.status, ORDERS.status!);
    if (isObj(status.acceptedNames)) status.acceptedNames = ordered(status.acceptedNames, ORDERS.names!);
    if (Array.isArray(status.conditions)) status.conditions = status.conditions.map((c) => (isObj(c) ? ordered(c, ORDERS.condition!) : c));
    crd.status = status;
  }
}

/** A deep copy with every object's keys sorted (Go's encoding of map[string]interface{}). */
export function sortedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(sortedKeys) as T;
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys(v[k]);
  return out as T;
}
