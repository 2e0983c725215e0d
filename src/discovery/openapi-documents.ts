/**
 * The published OpenAPI documents, built lazily from the served types and serialized once.
 */
import type { ResourceType } from '../api/types.ts';
import { buildOpenApiV2, buildOpenApiV3GroupVersion, groupVersions, openApiHash, v3GroupVersionPath } from '../schema/openapi.ts';
import type { OpenApiDocuments } from '../server/handlers/non-resource.ts';
import { encodeOpenApiV2Protobuf } from './openapi-v2-protobuf.ts';

export function createOpenApiDocuments(types: () => readonly ResourceType[]): OpenApiDocuments {
  let v2: { json: Buffer; etag: string } | undefined;
  let v2Protobuf: Buffer | undefined;
  // Like kube-openapi, the hash of the JSON bytes is the ETag of both forms.
  const buildV2 = () => {
    if (v2) return v2;
    const doc = buildOpenApiV2(types());
    const json = Buffer.from(JSON.stringify(doc));
    v2 = { json, etag: openApiHash(json) };
    return v2;
  };
  let v3: Map<string, { bytes: Buffer; hash: string }> | undefined;
  const buildV3 = () => {
    if (v3) return v3;
    v3 = new Map();
    const all = types();
    for (const { group, version } of groupVersions(all)) {
      const bytes = Buffer.from(JSON.stringify(buildOpenApiV3GroupVersion(all, group, version)));
      v3.set(v3GroupVersionPath(group, version), { bytes, hash: openApiHash(bytes) });
    }
    return v3;
  };
  // The documents change only with the served types; kube reports when its spec was last built.
  const lastModified = new Date(Math.floor(Date.now() / 1000) * 1000);
  return {
    lastModified: () => lastModified,
    v2: () => buildV2().json,
    // Encoded from the served JSON text, so the protobuf carries exactly what JSON clients see.
    v2Protobuf: () => (v2Protobuf ??= Buffer.from(encodeOpenApiV2Protobuf(JSON.parse(buildV2().json.toString('utf8')) as Record<string, unknown>))),
    v2ETag: () => buildV2().etag,
    v3Index: () => {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      // Keys sorted, as Go's encoding/json writes a map.
      for (const [key, doc] of [...buildV3()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
      return { paths };
    },
    v3: (path) => buildV3().get(path)?.bytes,
  };
}
