/**
 * Published OpenAPI documents: `/openapi/v2` (Swagger 2.0, one document) and `/openapi/v3`
 * (an index of group-versions, each its own OpenAPI 3.0 document), generated from the resource
 * types. Documents are static for a given type set: callers build them once, serialize them with
 * JSON.stringify, and serve `openApiHash` of those bytes as ETag and `hash` query.
 */
import { createHash } from 'node:crypto';
import type { ResourceType } from '../api/types.ts';
import {
  API_VERSION_DESCRIPTION,
  KIND_DESCRIPTION,
  LIST_META,
  LIST_METADATA_DESCRIPTION,
  OBJECT_META,
  OBJECT_METADATA_DESCRIPTION,
  metaDefinitions,
  v2Refs,
  v3Refs,
  type Json,
  type RefStyle,
} from './openapi-meta.ts';
import { resourcePaths, type DocVersion } from './openapi-paths.ts';
import type { Schema } from './types.ts';

/** Package-style prefix of a group-version's definitions: `io.k8s.api.core.v1`, `com.example.stable.v1`. */
export function definitionPrefix(group: string, version: string): string {
  if (group === '') return `io.k8s.api.core.${version}`;
  const special: Readonly<Record<string, string>> = {
    'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
    'apiregistration.k8s.io': 'io.k8s.kube-aggregator.pkg.apis.apiregistration',
    'flowcontrol.apiserver.k8s.io': 'io.k8s.api.flowcontrol',
    'internal.apiserver.k8s.io': 'io.k8s.api.apiserverinternal',
  };
  if (special[group]) return `${special[group]}.${version}`;
  if (!group.includes('.')) return `io.k8s.api.${group}.${version}`;
  if (group.endsWith('.k8s.io')) return `io.k8s.api.${group.split('.')[0]}.${version}`;
  return `${group.split('.').reverse().join('.')}.${version}`;
}

/** Definition name of a type's kind: `io.k8s.api.core.v1.ConfigMap`. */
export function definitionName(rt: Pick<ResourceType, 'group' | 'version' | 'kind'>): string {
  return `${definitionPrefix(rt.group, rt.version)}.${rt.kind}`;
}

/** The `/openapi/v3` key of a group-version: `api/v1` or `apis/<group>/<version>`. */
export function v3GroupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** Hex SHA-512 of a serialized document, upper-case as kube-apiserver prints it (ETag and `hash` query). */
export function openApiHash(serialized: string | Uint8Array): string {
  return createHash('sha512').update(serialized).digest('hex').toUpperCase();
}

/** The Swagger 2.0 document of every given type (`/openapi/v2`). */
export function buildOpenApiV2(types: readonly ResourceType[]): Json {
  const definitions: Record<string, Json> = { ...metaDefinitions(v2Refs) };
  const paths: Record<string, Json> = {};
  for (const rt of sortTypes(types)) {
    Object.assign(definitions, kindDefinitions(rt, 'v2'));
    Object.assign(paths, resourcePaths({ doc: 'v2', rt, ref: v2Refs.ref, kindName: definitionName(rt), listName: listDefinitionName(rt) }));
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: sortKeys(paths),
    definitions: sortKeys(definitions),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}

/** The OpenAPI 3.0 document of one group-version (`/openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>`). */
export function buildOpenApiV3GroupVersion(types: readonly ResourceType[], group: string, version: string): Json {
  const mine = sortTypes(types.filter((t) => t.group === group && t.version === version));
  const schemas: Record<string, Json> = { ...metaDefinitions(v3Refs) };
  const paths: Record<string, Json> = {};
  for (const rt of mine) {
    Object.assign(schemas, kindDefinitions(rt, 'v3'));
    Object.assign(paths, resourcePaths({ doc: 'v3', rt, ref: v3Refs.ref, kindName: definitionName(rt), listName: listDefinitionName(rt) }));
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: sortKeys(paths),
    components: {
      schemas: sortKeys(schemas),
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
  };
}

/** The `/openapi/v3` index: one entry per group-version with its hash-pinned URL. */
export function buildOpenApiV3Index(
  types: readonly ResourceType[],
  hashFor: (group: string, version: string) => string = (g, v) => openApiHash(JSON.stringify(buildOpenApiV3GroupVersion(types, g, v))),
): { paths: Record<string, { serverRelativeURL: string }> } {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const { group, version } of groupVersions(types)) {
    const key = v3GroupVersionPath(group, version);
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashFor(group, version)}` };
  }
  return { paths: sortKeys(paths) };
}

/** Distinct group-versions of a type set, core first, then by group and version. */
export function groupVersions(types: readonly ResourceType[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const t of types) seen.set(`${t.group}/${t.version}`, { group: t.group, version: t.version });
  return [...seen.values()].sort((a, b) => (a.group === b.group ? cmp(a.version, b.version) : cmp(a.group, b.group)));
}

function listDefinitionName(rt: ResourceType): string {
  return `${definitionPrefix(rt.group, rt.version)}.${rt.listKind}`;
}

/** The kind's definition and its list's definition, in the given document style. */
function kindDefinitions(rt: ResourceType, doc: DocVersion): Record<string, Json> {
  const r: RefStyle = doc === 'v3' ? v3Refs : v2Refs;
  const gvk = (kind: string) => [{ group: rt.group, kind, version: rt.version }];
  // A custom resource's v3 document is apiextensions' own: int-or-string spelled out as anyOf, no
  // zero defaults on references, list items referenced directly, the selectable fields listed.
  const crd = rt.unstructured === true;
  const crdV3 = crd && doc === 'v3';
  const selectable = crd ? { 'x-kubernetes-selectable-fields': Object.keys(rt.fieldSelectors).map((fieldPath) => ({ fieldPath })) } : {};
  // apiextensions' v2 of a custom resource that keeps unknown fields: an object and nothing more
  // (kubectl would refuse every field it does not see declared).
  const crdV2Open = crd && doc === 'v2' && rt.schema['x-kubernetes-preserve-unknown-fields'] === true;
  const kindSchema = crdV2Open ? {} : (publishedSchema(crd ? crdPublishedForm(rt.schema, doc) : rt.schema, doc, crdV3) as Json);
  const props = { ...((kindSchema['properties'] as Record<string, Json> | undefined) ?? {}) };
  props['apiVersion'] = { type: 'string', description: API_VERSION_DESCRIPTION, ...stripType(props['apiVersion']) };
  props['kind'] = { type: 'string', description: KIND_DESCRIPTION, ...stripType(props['kind']) };
  props['metadata'] = r.refWith(OBJECT_META, { ...(crdV3 ? {} : { default: {} }), description: OBJECT_METADATA_DESCRIPTION });
  const kindDef: Json = {
    // A custom resource's kind has only the description its schema gives (kube publishes none otherwise).
    ...(rt.unstructured ? {} : { description: `${rt.kind} is the Schema for the ${rt.resource} API.` }),
    ...kindSchema,
    type: 'object',
    ...(crdV2Open ? {} : { properties: sortKeys(props) }),
    'x-kubernetes-group-version-kind': gvk(rt.kind),
    ...selectable,
  };
  const listDef: Json = {
    description: `${rt.listKind} is a list of ${rt.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
      items: { type: 'array', description: crd ? `List of ${rt.resource}. More info: ${API_CONVENTIONS}` : `List of ${rt.resource}.`, items: crdV3 ? { $ref: `#/components/schemas/${definitionName(rt)}` } : r.refWith(definitionName(rt), { default: {} }) },
      kind: { type: 'string', description: KIND_DESCRIPTION },
      metadata: r.refWith(LIST_META, { ...(crdV3 ? {} : { default: {} }), description: LIST_METADATA_DESCRIPTION }),
    },
    'x-kubernetes-group-version-kind': gvk(rt.listKind),
    ...selectable,
  };
  return { [definitionName(rt)]: kindDef, [listDefinitionName(rt)]: listDef };
}

const API_CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';

/** An embedded resource's metadata: a reference to ObjectMeta, in each document's style. */
const EMBEDDED_METADATA: Record<DocVersion, Schema> = {
  v2: { description: OBJECT_METADATA_DESCRIPTION, $ref: `#/definitions/${OBJECT_META}` } as unknown as Schema,
  v3: { description: OBJECT_METADATA_DESCRIPTION, allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }] } as unknown as Schema,
};

/**
 * A custom resource's schema as apiextensions publishes it: its structural form (no externalDocs
 * or examples, which structural schemas do not carry); for v2 also kube's ToStructuralOpenAPIV2
 * (no junctors; a nullable value untyped and without items or properties; a value that keeps
 * unknown fields without items or properties, and untyped if an object; an array without items
 * untyped; nullable properties not required) and no defaults (pruned for v2).
 */
function crdPublishedForm(schema: Schema, doc: DocVersion): Schema {
  const walk = (s: Schema): Schema => {
    const { externalDocs: _d, example: _e, ...kept } = s as Schema & { externalDocs?: unknown; example?: unknown };
    const out: Record<string, unknown> = { ...kept };
    if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, walk(v)]));
    if (s.items) out.items = walk(s.items);
    if (typeof s.additionalProperties === 'object') out.additionalProperties = walk(s.additionalProperties);
    // An embedded resource is published with its type meta and metadata (kube's addEmbeddedProperties),
    // except in v2 where it keeps unknown fields (kubectl would then refuse the others).
    if (s['x-kubernetes-embedded-resource'] === true && !(doc === 'v2' && s['x-kubernetes-preserve-unknown-fields'] === true)) {
      out.properties = {
        ...(out.properties as Record<string, Schema> | undefined),
        apiVersion: { type: 'string', description: `apiVersion defines the versioned schema of this representation of an object. More info: ${API_CONVENTIONS}#resources` },
        kind: { type: 'string', description: `kind is a string value representing the type of this object. In CamelCase. More info: ${API_CONVENTIONS}#types-kinds` },
        metadata: EMBEDDED_METADATA[doc],
      };
      const required = [...(s.required ?? [])];
      for (const k of ['kind', 'apiVersion']) if (!required.includes(k)) required.push(k);
      out.required = required;
    }
    if (doc === 'v3') return out as Schema;
    for (const k of ['allOf', 'anyOf', 'oneOf', 'not', 'default']) delete out[k];
    if (s.nullable === true) {
      for (const k of ['type', 'nullable', 'items', 'properties']) delete out[k];
    }
    if (s['x-kubernetes-preserve-unknown-fields'] === true) {
      delete out.items;
      delete out.properties;
      if (out.type === 'object') delete out.type;
    }
    if (out.items === undefined && out.type === 'array') delete out.type;
    const nullableProps = Object.entries(s.properties ?? {}).filter(([, v]) => v.nullable === true).map(([k]) => k);
    if (Array.isArray(out.required) && nullableProps.length > 0) {
      const required = (out.required as string[]).filter((k) => !nullableProps.includes(k));
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
    if (typeof s.additionalProperties === 'object' && s.additionalProperties.nullable === true) delete out.required;
    return out as Schema;
  };
  return walk(schema);
}

/** Keeps a property's own description and extensions, dropping an empty placeholder. */
function stripType(p: Json | undefined): Json {
  if (!p) return {};
  const { type: _t, ...rest } = p;
  return rest;
}

/**
 * A schema as published: a plain JSON copy; Swagger 2.0 cannot say nullable, anyOf, oneOf or
 * not, so those are left out of v2 (as kube-apiserver does for CRDs).
 */
export function publishedSchema(schema: Schema, doc: DocVersion, intOrStringAnyOf = false): unknown {
  const walk = (s: Schema): Json => {
    const out: Json = {};
    // apiextensions publishes an int-or-string field with its two types spelled out.
    if (intOrStringAnyOf && s['x-kubernetes-int-or-string'] === true && s.anyOf === undefined && s.allOf === undefined) out['anyOf'] = [{ type: 'integer' }, { type: 'string' }];
    for (const [k, v] of Object.entries(s)) {
      if (v === undefined) continue;
      if (doc === 'v2' && (k === 'nullable' || k === 'anyOf' || k === 'oneOf' || k === 'not')) continue;
      if (k === 'properties') {
        const props: Record<string, Json> = {};
        for (const [pk, pv] of Object.entries(v as Record<string, Schema>)) props[pk] = walk(pv);
        out[k] = props;
      } else if (k === 'items' || k === 'not' || (k === 'additionalProperties' && typeof v === 'object')) {
        out[k] = walk(v as Schema);
      } else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf') {
        out[k] = (v as Schema[]).map(walk);
      } else {
        out[k] = structuredClone(v);
      }
    }
    return out;
  };
  return walk(schema);
}

function sortTypes(types: readonly ResourceType[]): ResourceType[] {
  return [...types].sort((a, b) => cmp(`${a.group}/${a.version}/${a.resource}`, `${b.group}/${b.version}/${b.resource}`));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(o).sort(cmp)) out[k] = o[k]!;
  return out;
}
