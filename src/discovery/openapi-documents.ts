/**
 * The published OpenAPI documents, built lazily from the served types and serialized once.
 */
import type { ResourceType } from '../api/types.ts';
import { buildOpenApiV2, buildOpenApiV3GroupVersion, groupVersions, openApiHash, v3GroupVersionPath } from '../schema/openapi.ts';
import type { OpenApiDocuments } from '../server/handlers/non-resource.ts';

export function createOpenApiDocuments(types: () => readonly ResourceType[]): OpenApiDocuments {
  let v2: Buffer | undefined;
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
  return {
    v2: () => (v2 ??= Buffer.from(JSON.stringify(buildOpenApiV2(types())))),
    v3Index: () => {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const [key, doc] of buildV3()) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
      return { paths };
    },
    v3: (path) => buildV3().get(path)?.bytes,
  };
}
