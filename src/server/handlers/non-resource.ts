/**
 * Non-resource paths: health, version, discovery and OpenAPI documents. Anything else is 404.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../api/status-errors.ts';
import type { RequestInfo } from '../request-info.ts';
import type { HealthEndpoint } from '../health.ts';
import { sendBytes, sendValue } from '../respond.ts';
import { wantsAggregated, type DiscoveryDocuments } from '../../discovery/discovery.ts';
import { negotiateOpenApiV2, OPENAPI_V2_PROTOBUF } from '../../discovery/openapi-v2-protobuf.ts';

export interface OpenApiDocuments {
  /** The Swagger 2.0 document, serialized once. */
  v2(): Buffer;
  /** The same document as gnostic's `openapi.v2.Document` protobuf, encoded once. */
  v2Protobuf(): Buffer;
  /** Upper-case hex SHA-512 of the JSON form: the ETag of both forms. */
  v2ETag(): string;
  /** The `/openapi/v3` index. */
  v3Index(): object;
  /** One group-version document (`api/v1`, `apis/<group>/<version>`), serialized once; undefined when not served. */
  v3(path: string): Buffer | undefined;
}

export interface NonResourceRoutes {
  readonly discovery: () => DiscoveryDocuments;
  readonly openapi: () => OpenApiDocuments;
  readonly version: object;
  /** Fixed documents served by path (service-account issuer discovery); undefined when not one. */
  readonly documents?: (path: string) => { readonly body: Buffer; readonly contentType: string; readonly cacheControl: string } | undefined;
}

export async function handleNonResource(
  req: FastifyRequest,
  reply: FastifyReply,
  info: RequestInfo,
  routes: NonResourceRoutes,
  health: { livez: HealthEndpoint; readyz: HealthEndpoint; healthz: HealthEndpoint },
): Promise<void> {
  const path = info.path.replace(/\/+$/, '') || '/';
  const parts = path.split('/').filter((p) => p);
  const method = req.method;
  const readOnly = method === 'GET' || method === 'HEAD';
  const accept = String(req.headers.accept ?? '');

  if (parts[0] === 'livez' || parts[0] === 'readyz' || parts[0] === 'healthz') {
    if (!readOnly) throw errors.methodNotSupported({ group: '', resource: '' }, method);
    const endpoint = health[parts[0]];
    const result = await endpoint.run(parts.slice(1).join('/'), req.searchParams);
    if (!result) throw errors.pathNotFound();
    reply.code(result.code).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache, private');
    reply.send(result.body);
    return;
  }
  if (!readOnly) throw errors.pathNotFound();
  if (path === '/version') return sendValue(req, reply, 200, routes.version);
  const doc = routes.documents?.(path);
  if (doc) {
    reply.code(200).header('content-type', doc.contentType).header('cache-control', doc.cacheControl).send(doc.body);
    return;
  }
  if (path === '/api' || path === '/apis') {
    const docs = routes.discovery();
    const aggregated = wantsAggregated(accept);
    if (aggregated) {
      const body = Buffer.from(JSON.stringify(path === '/api' ? docs.aggregatedApis : docs.aggregatedGroups));
      reply.header('vary', 'Accept');
      return sendBytes(req, reply, 200, body, aggregated);
    }
    return sendValue(req, reply, 200, path === '/api' ? docs.apiVersions : docs.apiGroupList);
  }
  if (parts[0] === 'api' && parts.length === 2) {
    const list = routes.discovery().resourceList('', parts[1]!);
    if (!list) throw errors.pathNotFound();
    return sendValue(req, reply, 200, list);
  }
  if (parts[0] === 'apis' && parts.length === 2) {
    const g = routes.discovery().group(parts[1]!);
    if (!g) throw errors.pathNotFound();
    return sendValue(req, reply, 200, g);
  }
  if (parts[0] === 'apis' && parts.length === 3) {
    const list = routes.discovery().resourceList(parts[1]!, parts[2]!);
    if (!list) throw errors.pathNotFound();
    return sendValue(req, reply, 200, list);
  }
  if (path === '/openapi/v2') {
    const docs = routes.openapi();
    const form = negotiateOpenApiV2(accept);
    if (!form) throw errors.notAcceptable(['application/json', OPENAPI_V2_PROTOBUF]);
    const etag = `"${docs.v2ETag()}"`;
    reply.header('vary', 'Accept').header('etag', etag);
    const ifNoneMatch = String(req.headers['if-none-match'] ?? '');
    if (ifNoneMatch && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) {
      reply.code(304).send();
      return;
    }
    if (form === 'protobuf') return sendBytes(req, reply, 200, docs.v2Protobuf(), OPENAPI_V2_PROTOBUF);
    return sendBytes(req, reply, 200, docs.v2(), 'application/json');
  }
  if (path === '/openapi/v3') return sendValue(req, reply, 200, routes.openapi().v3Index());
  if (parts[0] === 'openapi' && parts[1] === 'v3' && parts.length > 2) {
    const doc = routes.openapi().v3(parts.slice(2).join('/'));
    if (!doc) throw errors.pathNotFound();
    // Documents are addressed by content hash, so clients may cache them for long.
    if (req.searchParams.get('hash')) reply.header('cache-control', 'public, immutable');
    return sendBytes(req, reply, 200, doc, 'application/json');
  }
  if (path === '/') {
    return sendValue(req, reply, 200, { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v2', '/openapi/v3', '/readyz', '/version'] });
  }
  throw errors.pathNotFound();
}
