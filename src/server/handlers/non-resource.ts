/**
 * Every path that is not a group/version's resource path: health, version, discovery and the
 * OpenAPI documents. Each answers as the kube-apiserver component that serves it there:
 * go-restful web services (`/api`, `/version`, group/version roots, unknown versions of a served
 * group) take GET only (405 otherwise) and answer unknown sub-paths with a 404 Status; the
 * aggregator's `/apis` and `/apis/<group>` and the plain mux paths (health, OpenAPI) take any
 * method; anything else falls through to Go's `404 page not found` in plain text.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../api/status-errors.ts';
import { splitPath } from '../../request/request-info.ts';
import type { HealthEndpoint } from '../health.ts';
import { sendBytes, sendPageNotFound, sendValue } from '../respond.ts';
import { aggregatedDiscoveryVersion, type DiscoverySource } from '../../discovery/discovery.ts';
import { negotiateOpenApiV2, OPENAPI_V2_PROTOBUF } from '../../discovery/openapi-v2-protobuf.ts';
import { MEDIA_JSON, MEDIA_PROTOBUF, MEDIA_YAML, negotiateOutput, restfulAccepts, type Negotiated } from '../../codec/negotiate.ts';
import { GZIP_THRESHOLD_BYTES, acceptsGzip, maybeGzip } from '../../codec/compress.ts';
import { serveContent } from '../serve-content.ts';
import { openApiHash } from '../../schema/openapi.ts';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH } from '../../authn/issuer-discovery.ts';
import { serveLogs } from './logs.ts';
import type { OpenApiDocuments } from '../../discovery/openapi-documents.ts';

export interface NonResourceRoutes {
  /** The discovery documents, merged with remote groups by the aggregation layer. */
  readonly discovery: () => DiscoverySource;
  readonly openapi: () => OpenApiDocuments;
  readonly version: object;
  /** The /metrics answer (text format, maybe gzipped); absent when the server keeps no metrics. */
  readonly metrics?: (acceptEncoding: string | undefined) => Promise<{ readonly headers: Readonly<Record<string, string>>; readonly body: Buffer }>;
  /** The /metrics/slis answer (health check results), in the same form. */
  readonly metricsSlis?: (acceptEncoding: string | undefined) => Promise<{ readonly headers: Readonly<Record<string, string>>; readonly body: Buffer }>;
  /** --log-dir: served at /logs when given. */
  readonly logDir?: string;
  /** Fixed documents served by path (service-account issuer discovery); undefined when not one. */
  readonly documents?: (path: string) => { readonly body: Buffer; readonly contentType: string; readonly cacheControl: string } | undefined;
}

/** Fixed documents kube's index lists when they are served (service-account issuer discovery). */
const INDEXED_DOCUMENTS = [OPENID_CONFIGURATION_PATH, JWKS_PATH];

type Health = { livez: HealthEndpoint; readyz: HealthEndpoint; healthz: HealthEndpoint };

/** What discovery web services produce (go-restful's `Produces`). */
const discoveryMediaTypes = [MEDIA_JSON, MEDIA_YAML, MEDIA_PROTOBUF];


export async function handleNonResource(req: FastifyRequest, reply: FastifyReply, path: string, routes: NonResourceRoutes, health: Health): Promise<void> {
  const tokens = splitPath(path);
  const method = req.method;
  const accept = String(req.headers.accept ?? '');
  const first = tokens[0] ?? '';
  const below = (root: string): boolean => path === root || path.startsWith(`${root}/`);

  if ((first === 'livez' || first === 'readyz' || first === 'healthz') && below(`/${first}`)) {
    const result = await health[first].run(tokens.slice(1).join('/'), req.searchParams);
    if (!result) return sendPageNotFound(reply);
    reply.code(result.code).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-cache, private');
    if (result.nosniff) reply.header('x-content-type-options', 'nosniff');
    reply.send(method === 'HEAD' ? undefined : result.body);
    return;
  }
  if (first === 'version' && below('/version')) {
    restfulRoute(tokens.length === 1, method, accept, [MEDIA_JSON]);
    return sendValue(req, reply, 200, routes.version, discoveryFormat(req, [MEDIA_JSON]));
  }
  if (first === 'api' && below('/api')) {
    const list = tokens.length === 2 ? routes.discovery().resourceList('', tokens[1]!) : undefined;
    if (list) {
      // A served version's web service root (the router has checked the method).
      restfulRoute(true, method, accept, discoveryMediaTypes);
      return sendValue(req, reply, 200, list, discoveryFormat(req));
    }
    // Otherwise the legacy root's web service: `/api` itself, nothing below it.
    restfulRoute(tokens.length === 1, method, accept, discoveryMediaTypes);
    return sendDiscovery(req, reply, routes.discovery(), 'api');
  }
  if (first === 'apis' && below('/apis')) {
    const docs = routes.discovery();
    // `/apis` and `/apis/<group>` are the aggregator's: any method is served.
    if (tokens.length === 1) return sendDiscovery(req, reply, docs, 'apis');
    const group = docs.group(tokens[1]!);
    if (!group) return sendPageNotFound(reply);
    if (tokens.length === 2) return sendValue(req, reply, 200, group, discoveryFormat(req));
    if (tokens.length === 3) {
      const list = docs.resourceList(tokens[1]!, tokens[2]!);
      if (list) {
        restfulRoute(true, method, accept, discoveryMediaTypes);
        return sendValue(req, reply, 200, list, discoveryFormat(req));
      }
    }
    // Below a served group, the group's web service answers: it has no such route.
    throw errors.pathNotFound();
  }
  if (path === '/openapi/v2') {
    const docs = routes.openapi();
    const form = negotiateOpenApiV2(accept);
    if (!form) {
      // kube-openapi answers an unservable Accept with a bare 406 (inside kube's gzip handler).
      reply.code(406).header('vary', ['Accept-Encoding', 'Accept']).header('cache-control', 'no-cache, private').send();
      return;
    }
    // kube-openapi's handler: the ETag, then Go's http.ServeContent, wrapped in kube's gzip handler.
    const body = form === 'protobuf' ? docs.v2Protobuf() : docs.v2();
    const contentType = form === 'protobuf' ? OPENAPI_V2_PROTOBUF : 'application/json';
    return serveContent(req, reply, { body, contentType, etag: `"${docs.v2ETag()}"`, lastModified: docs.lastModified(), vary: ['Accept'], gzip: true });
  }
  if (path === '/openapi/v3') {
    // kube's v3 index goes through ServeContent without a content type: Go sniffs it as text, and
    // the index is rebuilt (so modified) on every request. Unlike kube's aggregator, the index
    // carries its hash as ETag: a client's HTTP cache (kubectl's) revalidates with
    // If-Modified-Since, which, within the second of its copy, answers 304 even when a CRD has
    // since been added; If-None-Match, which Go checks first, does not (issue 15).
    const body = Buffer.from(JSON.stringify(routes.openapi().v3Index()));
    const etag = `"${openApiHash(body)}"`;
    return serveContent(req, reply, { body, contentType: 'text/plain; charset=utf-8', etag, lastModified: new Date(Math.floor(Date.now() / 1000) * 1000) });
  }
  // kube's v3 handler owns everything below `/openapi/v3/` (the prefix itself included).
  if (path.startsWith('/openapi/v3/')) {
    const docs = routes.openapi();
    const doc = docs.v3(tokens.slice(2).join('/'));
    // kube's OpenAPI v3 handler answers an unknown document with an empty 404.
    if (!doc) {
      reply.code(404).header('cache-control', 'no-cache, private').send();
      return;
    }
    // Documents are addressed by content hash (kube-openapi's handler): the current hash is the
    // ETag; a stale hash is redirected to the current one; a matching one may be cached for long.
    const hash = openApiHash(doc);
    const asked = req.searchParams.get('hash');
    if (asked && asked !== hash) {
      reply.header('etag', `"${hash}"`).header('vary', 'Accept');
      reply.code(301).header('location', `/${tokens.join('/')}?hash=${hash}`).header('content-type', 'application/json').header('cache-control', 'no-cache, private').send();
      return;
    }
    const immutable = asked ? { cacheControl: 'public, immutable', headers: { expires: new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString().replace('GMT', 'UTC') } } : {};
    return serveContent(req, reply, { body: doc, contentType: 'application/json', etag: `"${hash}"`, lastModified: docs.lastModified(), vary: ['Accept'], ...immutable });
  }
  const metricsAnswer = path === '/metrics' ? routes.metrics : path === '/metrics/slis' ? routes.metricsSlis : undefined;
  if (metricsAnswer) {
    // promhttp's handler on kube's mux: any method, no nosniff header.
    const m = await metricsAnswer(req.headers['accept-encoding'] as string | undefined);
    reply.code(200).headers(m.headers).header('cache-control', 'no-cache, private');
    reply.send(method === 'HEAD' ? undefined : m.body);
    return;
  }
  if (routes.logDir !== undefined && first === 'logs' && below('/logs')) {
    // kube's logs web service has GET routes only.
    if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed();
    return serveLogs(req, reply, routes.logDir, path.slice('/logs'.length));
  }
  const doc = routes.documents?.(path);
  if (doc) {
    reply.code(200).header('content-type', doc.contentType).header('cache-control', doc.cacheControl).send(method === 'HEAD' ? undefined : doc.body);
    return;
  }
  if (path === '/') {
    // kube's index lists every path its mux serves, sorted as Go's sort.Strings (by code unit here, the paths are ASCII).
    const paths = [
      ...routes.discovery().paths,
      ...health.healthz.paths(),
      ...health.livez.paths(),
      ...health.readyz.paths(),
      // kube's OpenAPI v3 handler is registered at the path and as a prefix: both are listed.
      '/openapi/v2',
      '/openapi/v3',
      '/openapi/v3/',
      '/version',
      ...(routes.metrics ? ['/metrics'] : []),
      ...(routes.metricsSlis ? ['/metrics/slis'] : []),
      ...(routes.logDir !== undefined ? ['/logs'] : []),
      ...INDEXED_DOCUMENTS.filter((p) => routes.documents?.(p) !== undefined),
    ];
    return sendValue(req, reply, 200, { paths: paths.sort() });
  }
  return sendPageNotFound(reply);
}

/**
 * go-restful's checks for a web service with one GET route at its root: another path below the
 * root is 404, another method 405, an Accept naming none of `produces` (nor `*` + `/*`) 406.
 */
function restfulRoute(atRoot: boolean, method: string, accept: string, produces: readonly string[]): void {
  if (!atRoot) throw errors.pathNotFound();
  if (method !== 'GET') throw errors.methodNotAllowed();
  if (!restfulAccepts(accept, produces)) throw errors.restfulNotAcceptable(produces);
}

/** The encoding of a discovery document as asked: JSON, YAML or protobuf (meta/v1's discovery messages). */
function discoveryFormat(req: FastifyRequest, produces: readonly string[] = discoveryMediaTypes): Negotiated {
  const serializers = produces.map((m) => (m === MEDIA_YAML ? 'yaml' : m === MEDIA_PROTOBUF ? 'protobuf' : 'json') as 'json' | 'yaml' | 'protobuf');
  const fmt = negotiateOutput({
    accept: String(req.headers.accept ?? ''),
    offer: { serializers, table: false, conversions: false },
    prettyQuery: req.searchParams.get('pretty'),
    userAgent: String(req.headers['user-agent'] ?? ''),
  });
  return fmt;
}

/** Aggregated documents are served many times between changes: each is compressed once. */
const gzippedDocuments = new WeakMap<Buffer, ReturnType<typeof maybeGzip>>();
function gzippedDiscovery(body: Buffer, acceptEncoding: string, enabled: boolean): ReturnType<typeof maybeGzip> {
  if (!enabled || body.length <= GZIP_THRESHOLD_BYTES || !acceptsGzip(acceptEncoding)) return maybeGzip(body, acceptEncoding, false);
  let gz = gzippedDocuments.get(body);
  if (!gz) gzippedDocuments.set(body, (gz = maybeGzip(body, acceptEncoding)));
  return gz;
}

/** `/api` or `/apis`: aggregated discovery when the Accept header picks it, else the legacy list. */
function sendDiscovery(req: FastifyRequest, reply: FastifyReply, docs: DiscoverySource, root: 'api' | 'apis'): void {
  const version = aggregatedDiscoveryVersion(String(req.headers.accept ?? ''));
  if (!version) return sendValue(req, reply, 200, root === 'api' ? docs.apiVersions : docs.apiGroupList, discoveryFormat(req));
  const body = docs.aggregated(root, version);
  const etag = docs.aggregatedETag(root, version);
  reply.header('vary', 'Accept').header('etag', etag);
  const ifNoneMatch = String(req.headers['if-none-match'] ?? '');
  if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === etag)) {
    reply.code(304).send();
    return;
  }
  const gz = gzippedDiscovery(body, String(req.headers['accept-encoding'] ?? ''), req.server.features.enabled('APIResponseCompression'));
  reply.code(200).header('content-type', `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`).header('cache-control', 'public');
  for (const [k, v] of Object.entries(gz.headers)) reply.header(k, v);
  reply.send(req.method === 'HEAD' ? undefined : Buffer.from(gz.body.buffer, gz.body.byteOffset, gz.body.byteLength));
}
