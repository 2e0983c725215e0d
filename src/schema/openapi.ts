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
  const crdV3 = rt.unstructured === true && doc === 'v3';
  const kindSchema = publishedSchema(rt.schema, doc, crdV3) as Json;
  const props = { ...((kindSchema['properties'] as Record<string, Json> | undefined) ?? {}) };
  props['apiVersion'] = { type: 'string', description: API_VERSION_DESCRIPTION, ...stripType(props['apiVersion']) };
  props['kind'] = { type: 'string', description: KIND_DESCRIPTION, ...stripType(props['kind']) };
  props['metadata'] = r.refWith(OBJECT_META, { ...(crdV3 ? {} : { default: {} }), description: OBJECT_METADATA_DESCRIPTION });
  const selectable = crdV3 ? { 'x-kubernetes-selectable-fields': Object.keys(rt.fieldSelectors).map((fieldPath) => ({ fieldPath })) } : {};
  const kindDef: Json = {
    // A custom resource's kind has only the description its schema gives (kube publishes none otherwise).
    ...(rt.unstructured ? {} : { description: `${rt.kind} is the Schema for the ${rt.resource} API.` }),
    ...kindSchema,
    type: 'object',
    properties: sortKeys(props),
    'x-kubernetes-group-version-kind': gvk(rt.kind),
    ...selectable,
  };
  const listDef: Json = {
    description: `${rt.listKind} is a list of ${rt.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
      items: { type: 'array', description: `List of ${rt.resource}.`, items: crdV3 ? { $ref: `#/components/schemas/${definitionName(rt)}` } : r.refWith(definitionName(rt), { default: {} }) },
      kind: { type: 'string', description: KIND_DESCRIPTION },
      metadata: r.refWith(LIST_META, { ...(crdV3 ? {} : { default: {} }), description: LIST_METADATA_DESCRIPTION }),
    },
    'x-kubernetes-group-version-kind': gvk(rt.listKind),
    ...selectable,
  };
  return { [definitionName(rt)]: kindDef, [listDefinitionName(rt)]: listDef };
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
