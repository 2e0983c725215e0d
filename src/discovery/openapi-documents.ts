/**
 * The published OpenAPI documents, built lazily from the served types and serialized once.
 * Served types change while the server runs (custom resources): the v2 document is rebuilt on
 * the first request after a change; each v3 group-version document is rebuilt only when the
 * types of its own group-version changed, so adding one CRD does not rebuild the others.
 */
import type { ResourceType } from '../api/types.ts';
import { buildOpenApiV2, buildOpenApiV3GroupVersion, groupVersions, openApiHash, v3GroupVersionPath } from '../schema/openapi.ts';
import { encodeOpenApiV2Protobuf } from './openapi-v2-protobuf.ts';

/** The published OpenAPI documents, as the server answers them. */
export interface OpenApiDocuments {
  /** The Swagger 2.0 document, serialized once. */
  v2(): Buffer;
  /** The same document as gnostic's `openapi.v2.Document` protobuf, encoded once. */
  v2Protobuf(): Buffer;
  /** Upper-case hex SHA-512 of the JSON form: the ETag of both forms. */
  v2ETag(): string;
  /** When the documents were last built (Last-Modified). */
  lastModified(): Date;
  /** The `/openapi/v3` index. */
  v3Index(): object;
  /** One group-version document (`api/v1`, `apis/<group>/<version>`), serialized once; undefined when not served. */
  v3(path: string): Buffer | undefined;
}

interface V3Doc {
  /** The types the document was built from, by identity. */
  readonly types: readonly ResourceType[];
  readonly bytes: Buffer;
  readonly hash: string;
}

/**
 * `generation` moves on whenever the set of types changes (the catalog's); without one the
 * types are taken as fixed.
 */
export function createOpenApiDocuments(types: () => readonly ResourceType[], generation: () => number = () => 0): OpenApiDocuments {
  let v2: { json: Buffer; etag: string; generation: number } | undefined;
  let v2Protobuf: { bytes: Buffer; generation: number } | undefined;
  // Like kube-openapi, the hash of the JSON bytes is the ETag of both forms.
  const buildV2 = () => {
    const gen = generation();
    if (v2 && v2.generation === gen) return v2;
    const doc = buildOpenApiV2(types());
    const json = Buffer.from(JSON.stringify(doc));
    v2 = { json, etag: openApiHash(json), generation: gen };
    return v2;
  };
  const v3 = new Map<string, V3Doc>();
  let v3Generation = -1;
  let byGroupVersion = new Map<string, ResourceType[]>();
  /** The current types by v3 path, recomputed once per generation. */
  const current = () => {
    const gen = generation();
    if (gen !== v3Generation) {
      v3Generation = gen;
      byGroupVersion = new Map();
      for (const rt of types()) {
        const key = v3GroupVersionPath(rt.group, rt.version);
        let list = byGroupVersion.get(key);
        if (!list) byGroupVersion.set(key, (list = []));
        list.push(rt);
      }
      for (const key of v3.keys()) if (!byGroupVersion.has(key)) v3.delete(key);
    }
    return byGroupVersion;
  };
  const sameTypes = (a: readonly ResourceType[], b: readonly ResourceType[]) => a.length === b.length && a.every((t, i) => t === b[i]);
  const v3Doc = (key: string): V3Doc | undefined => {
    const mine = current().get(key);
    if (!mine) return undefined;
    const cached = v3.get(key);
    if (cached && sameTypes(cached.types, mine)) return cached;
    const { group, version } = mine[0]!;
    const bytes = Buffer.from(JSON.stringify(buildOpenApiV3GroupVersion(mine, group, version)));
    const doc = { types: mine, bytes, hash: openApiHash(bytes) };
    v3.set(key, doc);
    return doc;
  };
  // The documents change only with the served types; kube reports when its spec was last built.
  const lastModified = new Date(Math.floor(Date.now() / 1000) * 1000);
  return {
    lastModified: () => lastModified,
    v2: () => buildV2().json,
    // Encoded from the served JSON text, so the protobuf carries exactly what JSON clients see.
    v2Protobuf: () => {
      const json = buildV2();
      if (!v2Protobuf || v2Protobuf.generation !== json.generation) {
        v2Protobuf = { bytes: Buffer.from(encodeOpenApiV2Protobuf(JSON.parse(json.json.toString('utf8')) as Record<string, unknown>)), generation: json.generation };
      }
      return v2Protobuf.bytes;
    },
    v2ETag: () => buildV2().etag,
    v3Index: () => {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      // Keys sorted, as Go's encoding/json writes a map.
      for (const { group, version } of groupVersions(types())) {
        const key = v3GroupVersionPath(group, version);
        paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${v3Doc(key)!.hash}` };
      }
      return { paths: Object.fromEntries(Object.entries(paths).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) };
    },
    v3: (path) => v3Doc(path)?.bytes,
  };
}
