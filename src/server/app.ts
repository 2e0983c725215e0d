/**
 * The front door: one Fastify app on one TLS port (HTTP/2 and HTTP/1.1), and the request
 * pipeline assembled here, in order. Order matters: request info is parsed once, before
 * authentication; authentication before authorization; authorization before any handler
 * touches storage.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { errors, isApiError } from '../api/status-errors.ts';
import type { Authenticator } from '../authn/types.ts';
import { peerOfSocket } from '../authn/x509.ts';
import { parseRequestInfo, queryBool, requestInfoError, requestPath, requestQuery, splitPath, type RequestInfo, type ResourceRequestInfo } from '../request/request-info.ts';
import { RouteTable, type RouteResolution } from './routes.ts';
import { checkRequestTimeout } from './request-timeout.ts';
import { MEDIA_CBOR, MEDIA_CBOR_SEQ, MEDIA_JSON, MEDIA_PROTOBUF, MEDIA_YAML, restfulAccepts } from '../codec/negotiate.ts';
import { decodeBody, protobufServed } from '../backend/local/body.ts';

/** The media types of a built-in resource's routes, in kube's order (installer.go's Produces). */
const builtinMediaTypes = [MEDIA_JSON, MEDIA_YAML, MEDIA_PROTOBUF];
const builtinStreamingMediaTypes = [...builtinMediaTypes, `${MEDIA_JSON};stream=watch`, `${MEDIA_PROTOBUF};stream=watch`];
// With gate CBORServingAndStorage, in the order kube lists them.
const cborMediaTypes = [...builtinMediaTypes, MEDIA_CBOR];
const cborStreamingMediaTypes = [...cborMediaTypes, `${MEDIA_JSON};stream=watch`, `${MEDIA_PROTOBUF};stream=watch`, MEDIA_CBOR_SEQ];
import type { LocalBackend } from '../backend/types.ts';
import { addWarnings, sendError, sendPageNotFound, sendValue } from './respond.ts';
import type { RequestUser } from '../request/user.ts';
import type { HealthEndpoint } from './health.ts';
import { handleNonResource, type NonResourceRoutes } from './handlers/non-resource.ts';
import { requestBodyOf, serveSubresource, serveVerb, type VerbContext } from './handlers/resource.ts';
import { handleWatch, WatchRegistry } from './handlers/watch.ts';
import { createOnlyOutput, handleCreateOnly, type CreateOnlyEndpoints } from './handlers/create-only.ts';
import { attributesOf, isPromise, type Authorizer } from '../authz/authorizer.ts';
import { forbiddenError } from '../authz/forbidden.ts';
import { hasImpersonationHeaders, impersonate } from '../authn/impersonation.ts';
import { answerAccessReview, isAccessReviewPath } from '../authz/access-review.ts';
import { clientErrorHandler, continueHandler, frameworkErrorHandler, GO_MAX_HEADER_BYTES, markStreamedHttp2Body } from './protocol-errors.ts';
import { LoadLimits, type LoadLimitOptions } from './load-limits.ts';
import { ANSWERED, type ApfFilter } from '../flowcontrol/filter.ts';
import { nonResourceTarget, type ApiServerMetrics, type RequestTarget, type ServerMetrics } from '../metrics/index.ts';
import { accessReviewTypes } from '../api/kinds/access-review-types.ts';
import { createOnlyManagedFields } from '../registry/apply-context.ts';
import { managerFor } from '../backend/local/field-manager.ts';
import type { KubeObject } from '../api/types.ts';
import { defaultFeatureGates, type FeatureGates } from '../features/index.ts';
import type { Auditor } from '../audit/index.ts';
import { ApiEnablement } from '../features/runtime-config.ts';
import { deprecationOf } from '../features/deprecation.ts';
import type { ResponseHooksLater } from './handlers/watch-http2.ts';

/** Kube-apiserver's default request body limit. */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

export interface FrontDoorOptions {
  readonly tls: { readonly key: string; readonly cert: string; readonly clientCa?: string };
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  /** The backend of every group/version served in process (its catalog says which). */
  readonly local: LocalBackend;
  readonly routes: NonResourceRoutes;
  readonly health: { readonly livez: HealthEndpoint; readonly readyz: HealthEndpoint; readonly healthz: HealthEndpoint };
  readonly watches: WatchRegistry;
  /** Resources answered without storage (TokenReview, serviceaccounts/token, ...). */
  readonly createOnly?: CreateOnlyEndpoints;
  readonly logger?: boolean;
  /** In-flight limits and the large-body budget (kube's defaults when absent). */
  readonly limits?: Omit<LoadLimitOptions, 'maxBodyBytes'>;
  /** kube's request metrics are recorded here when given. */
  readonly metrics?: ServerMetrics;
  /** The server's feature gates (kube's defaults when absent); handlers read them as `req.server.features`. */
  readonly features?: FeatureGates;
  /** API Priority and Fairness; when given it replaces the in-flight limits (the large-body budget stays). */
  readonly apf?: ApfFilter;
  /** Audit (src/audit): audit IDs always, events when a policy is configured. */
  readonly audit?: Auditor;
  /** The aggregation layer: the proxy handler of a path in a remote group/version, or undefined (src/aggregator). */
  readonly proxyFor?: (path: string) => ((req: FastifyRequest, reply: FastifyReply, longRunning: boolean) => Promise<unknown>) | undefined;
  /** --runtime-config: built-in versions and resources not served are not routed (all served when absent). */
  readonly apiEnablement?: ApiEnablement;
}

declare module 'fastify' {
  interface FastifyInstance {
    loadLimits: LoadLimits;
    features: FeatureGates;
    /** kube's request metrics, for handlers that record their own (watches). */
    apiMetrics: ApiServerMetrics | undefined;
    /**
     * The onResponse hooks' work (request metrics, audit) for a response Fastify stops following (a
     * watch on its raw HTTP/2 stream, handlers/watch-http2.ts): taken from the request now, run with
     * the status code when the response ends, holding neither the request nor its reply.
     */
    responseHooksLater(req: FastifyRequest, reply: FastifyReply): ResponseHooksLater;
  }
  interface FastifyRequest {
    requestInfo: RequestInfo;
    user: RequestUser;
    searchParams: URLSearchParams;
    /** The URL path as Go's net/url decodes it (escapes decoded, dot segments kept). */
    routePath: string;
    /** What the request metrics record this request as; set once it reaches a route kube instruments. */
    metricsTarget?: RequestTarget;
  }
}

/** What the hooks set on a request: here (requestInfo, user, ...), in src/audit and in src/flowcontrol. */
const REQUEST_PROPERTIES = ['searchParams', 'routePath', 'requestInfo', 'user', 'metricsTarget', 'audit', 'auditID', 'auditReceived', 'watchInitialized'] as const;

function noFastifySchemas(): never {
  throw new Error('Fastify route schemas are not used: handlers decode and validate bodies themselves');
}

/** Builds the Fastify app with the whole request pipeline; does not listen. */
export function buildFrontDoor(opts: FrontDoorOptions): FastifyInstance {
  // Typed as the default (HTTP/1) instance: handlers use only the compatible request/response surface.
  const app = Fastify({
    http2: true,
    https: {
      allowHTTP1: true,
      key: opts.tls.key,
      cert: opts.tls.cert,
      ...(opts.tls.clientCa ? { ca: opts.tls.clientCa } : {}),
      // Client certificates are asked for but checked by the authenticator, so that requests
      // without one can still authenticate by token or as anonymous.
      requestCert: true,
      rejectUnauthorized: false,
      settings: { maxHeaderListSize: GO_MAX_HEADER_BYTES },
      maxSessionMemory: 64,
    },
    bodyLimit: maxRequestBodyBytes,
    // Idle HTTP/2 sessions carry long, quiet watches: let the watch timeout end them instead.
    http2SessionTimeout: 2 * 60 * 60 * 1000,
    logger: opts.logger ? { level: 'warn' } : false,
    // Every request shares the server's logger: a per-request child (Fastify's default, for a reqId
    // binding) costs about 1 KB and a microsecond per request, and stays as long as a watch does.
    // Our few request logs name the method and URL themselves.
    childLoggerFactory: (logger: FastifyBaseLogger) => logger,
    return503OnClosing: false,
    // Our own router works on the request info; Fastify only needs to reach the one handler.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 4096 },
    // No route declares a Fastify schema; without these, Fastify loads ajv and fast-json-stringify
    // at construction, about a tenth of a second of every start.
    schemaController: { compilersFactory: { buildValidator: noFastifySchemas, buildSerializer: noFastifySchemas } },
    // Requests refused below the pipeline answer as Go's net/http does, not in Fastify's JSON.
    // (Spread untyped: Fastify's HTTP/2 typings do not carry these two options.)
    ...({ clientErrorHandler, frameworkErrors: frameworkErrorHandler } as object),
  }) as unknown as FastifyInstance;

  app.decorate('features', opts.features ?? defaultFeatureGates());
  const apiMetrics = opts.metrics?.apiserver;
  app.decorate('apiMetrics', apiMetrics);

  // Expect: 100-continue: refuse an oversized body before inviting it (see protocol-errors.ts).
  const server = app.server as unknown as NodeJS.EventEmitter & { maxHeaderSize?: number };
  // HTTP/1.1 headers up to Go's limit (Node's own default is 16 KiB); HTTP/2's is in the settings above.
  server.maxHeaderSize = GO_MAX_HEADER_BYTES;
  server.on('checkContinue', continueHandler(maxRequestBodyBytes, (req, res) => server.emit('request', req, res)));

  // Every property the pipeline sets on a request, declared up front (Fastify's advice): requests
  // then have one shape from construction on, rather than a hidden-class change per property added
  // by a hook on every request.
  for (const name of REQUEST_PROPERTIES) app.decorateRequest(name, undefined);

  // Bodies are decoded by the handlers per Content-Type (JSON, YAML, patches); Fastify keeps raw bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxRequestBodyBytes }, (_req, body, done) => done(null, body));

  // 0. Audit: the audit ID (Audit-Id response header) before anything can answer.
  const audit = opts.audit;
  if (audit) app.addHook('onRequest', async (req, reply) => audit.begin(req, reply));

  // 1. Request info, parsed once from method, path and query.
  app.addHook('onRequest', async (req, reply) => {
    markStreamedHttp2Body(req);
    req.searchParams = requestQuery(req.url);
    req.routePath = requestPath(req.url);
    req.requestInfo = parseRequestInfo(req.method, req.routePath, req.searchParams);
    const infoError = requestInfoError(req.routePath, req.url);
    if (infoError !== undefined) {
      return sendInternalErrorText(reply, req.url, infoError);
    }
    // kube's request-deadline filter runs before authentication.
    checkRequestTimeout(req.requestInfo, req.searchParams);
  });

  // 2. Authentication: client certificate, bearer token, or anonymous; a bad token is 401.
  app.addHook('onRequest', async (req) => {
    const raw = req.raw as unknown as { socket?: unknown; stream?: { session?: { socket?: unknown } } };
    const socket = raw.stream?.session?.socket ?? raw.socket;
    const started = apiMetrics ? performance.now() : 0;
    let result;
    try {
      result = opts.authenticator.authenticate({
        headers: req.headers as Record<string, string | string[] | undefined>,
        ...peerOf(socket),
        rawHeaders: req.raw.rawHeaders,
        path: req.routePath,
        // Lets a token sent again on the same connection skip re-hashing (src/authn/bearer-token.ts).
        ...(typeof socket === 'object' && socket !== null ? { connection: socket } : {}),
      });
      // A certificate or a cached token is answered synchronously: no promise to wait for.
      if (isPromise(result)) result = await result;
    } catch (err) {
      apiMetrics?.authenticated('error', (performance.now() - started) / 1000);
      throw err;
    }
    apiMetrics?.authenticated(result.ok ? 'success' : 'failure', (performance.now() - started) / 1000);
    if (!result.ok) throw result.error;
    req.user = result.user;
    // Audit: the policy decides now that the user is known (RequestReceived).
    audit?.authenticated(req);
  });

  // 2a. Impersonation (kube's filter order: after authentication, before the in-flight limits).
  app.addHook('onRequest', async (req, reply) => {
    if (!hasImpersonationHeaders(req.headers)) return;
    const outcome = await impersonate(req.user, req.raw.rawHeaders, opts.authorizer);
    if (outcome.kind === 'impersonated') req.user = outcome.user;
    else if (outcome.kind === 'forbidden') throw outcome.error;
    else if (outcome.kind === 'invalid') return sendInternalErrorText(reply, req.url, outcome.message);
  });

  // 2b. kube's in-flight limits (after authentication: system:masters is exempt).
  const limits = new LoadLimits({ ...opts.limits, maxBodyBytes: maxRequestBodyBytes });
  app.decorate('loadLimits', limits);
  const apf = opts.apf;
  // Callback hooks: a request that need not wait goes on without a promise and a microtask turn.
  if (apf) {
    app.addHook('onRequest', (req, reply, done) => {
      const admission = apf.admit(req, reply);
      if (admission === undefined) done();
      else if (admission !== ANSWERED) admission.then((goOn) => goOn && done(), done);
    });
  } else {
    app.addHook('onRequest', (req, reply, done) => {
      limits.admit(req, reply);
      done();
    });
  }
  // Large bodies wait for their share of the body budget (before they are read when their length is declared).
  app.addHook('preParsing', async (req, reply, payload) => limits.admitBody(req, reply, payload));

  // 3. Authorization of the request info: the configured chain decides; anything but allow is kube's 403.
  app.addHook('onRequest', async (req, reply) => {
    const attrs = attributesOf(req.user, req.requestInfo, req.searchParams);
    const started = apiMetrics ? performance.now() : 0;
    let decision = opts.authorizer.authorize(attrs);
    // Only a mode that calls out (Webhook) answers with a promise: RBAC-only gates stay synchronous.
    if (isPromise(decision)) decision = await decision;
    if (apiMetrics) {
      const result = decision.decision === 'allow' ? 'allowed' : decision.error !== undefined ? 'error' : decision.decision === 'deny' ? 'denied' : 'no-opinion';
      apiMetrics.authorized(result, (performance.now() - started) / 1000);
    }
    audit?.authorized(req, reply, decision);
    // kube's filter: an evaluation error (a webhook that failed) without an allow is a plain-text 500.
    if (decision.decision !== 'allow' && decision.error !== undefined) return sendInternalErrorText(reply, req.url, decision.error);
    // kube's responsewriters.Forbidden marks the denial nosniff.
    if (decision.decision !== 'allow') {
      reply.header('x-content-type-options', 'nosniff');
      throw forbiddenError(attrs, decision.reason);
    }
  });

  // 3b. kube's request metrics, recorded when the response is done (watches: when they end).
  const metrics = opts.metrics?.apiserver;
  if (metrics) {
    // A callback hook, not an async one: every response passes through it, and a promise each is measurable.
    app.addHook('onResponse', (req, reply, done) => {
      const target = req.metricsTarget;
      if (target !== undefined) {
        try {
          const length = reply.getHeader('content-length');
          metrics.observe(target, req.method, req.headers['content-type'], req.url, req.searchParams, reply.statusCode, reply.elapsedTime / 1000, length === undefined ? -1 : Number(length));
        } catch (err) {
          req.log.error({ err }, 'recording request metrics');
        }
      }
      done();
    });
  }

  // 3c. Audit: the response stages (ResponseStarted, ResponseComplete, Panic).
  audit?.install(app);

  // 3d. The same two hooks, for a response that ends outside Fastify.
  app.decorate('responseHooksLater', (req: FastifyRequest, reply: FastifyReply): ResponseHooksLater => {
    const target = req.metricsTarget;
    return {
      startedAt: performance.now() - reply.elapsedTime,
      observe: metrics && target !== undefined ? metrics.observerFor(target, req.method, req.headers['content-type'], req.url, req.searchParams) : undefined,
      completeAudit: audit?.completeLater(req),
    };
  });

  app.setErrorHandler((err, req, reply) => {
    // Fastify's fallback for a method no route registers (FOO, PROPFIND): kube's router answers
    // 405 on its web services' paths and Go's plain 404 elsewhere.
    if ((err as { code?: string }).code === 'FST_ERR_NOT_FOUND') {
      const tokens = splitPath(requestPath(req.url));
      const restful = tokens[0] === 'api' || tokens[0] === 'version' || (tokens[0] === 'apis' && tokens.length >= 2 && opts.local.catalog.all().some((s) => s.rt.group === tokens[1]));
      if (!restful) return sendPageNotFound(reply);
      return sendError(req, reply, errors.methodNotAllowed());
    }
    sendError(req, reply, err);
  });

  // 4. Routing, as kube-apiserver's director and go-restful route: a group/version's resource
  // paths go to the route table, everything else to the non-resource paths.
  const enablement = opts.apiEnablement ?? ApiEnablement.all();
  const tables = new Map<string, { generation: number; table: RouteTable | undefined }>();
  const routeTable = (group: string, version: string): RouteTable | undefined => {
    const resources = opts.local.catalog.groupVersion(group, version);
    if (!resources) return undefined;
    const key = `${group}/${version}`;
    let cached = tables.get(key);
    // Custom resources come and go: a table is rebuilt when the catalog changed since.
    if (!cached || cached.generation !== opts.local.catalog.generation) {
      // Resources --runtime-config turned off are not routed; a version with none left is not served.
      const served = [...resources.values()].map((s) => s.rt).filter((rt) => enablement.resourceEnabled(rt.group, rt.version, rt.resource));
      cached = { generation: opts.local.catalog.generation, table: served.length > 0 ? new RouteTable(served) : undefined };
      tables.set(key, cached);
    }
    return cached.table;
  };
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    // Computed, never stored resources (TokenReview, serviceaccounts/NAME/token) have their own handler.
    const info = req.requestInfo;
    req.metricsTarget = info.isResourceRequest ? undefined : nonResourceTarget(req.routePath);
    // A remote group/version (an APIService with a service): authenticated and authorized above, proxied as is.
    const proxy = opts.proxyFor?.(req.routePath);
    if (proxy) {
      if (info.isResourceRequest) req.metricsTarget = info;
      if (req.audit) req.audit.passedThrough = true;
      await proxy(req, reply, info.isResourceRequest && info.verb === 'watch');
      return;
    }
    const enabled = info.isResourceRequest && enablement.resourceEnabled(info.apiGroup, info.apiVersion, info.resource);
    const createOnly = enabled ? opts.createOnly?.find(info, req.routePath) : undefined;
    if (createOnly && info.isResourceRequest) {
      req.metricsTarget = info;
      await handleCreateOnly(req, reply, info, createOnly, req.user);
      return;
    }
    // The access reviews are served from the authorizer, not from a stored resource's route table.
    if (enabled && isAccessReviewPath(info.apiGroup, info.apiVersion, info.resource)) {
      req.metricsTarget = info;
      await handleAccessReview(req, reply, info, opts.authorizer);
      return;
    }
    const gv = groupVersionPath(req.routePath, (group, version) => routeTable(group, version) !== undefined);
    if (!gv) {
      await handleNonResource(req, reply, req.routePath, opts.routes, opts.health);
      return;
    }
    if (gv.rest.length === 0) {
      // The group/version's own web service root: its discovery document, GET only.
      if (req.method !== 'GET') throw errors.methodNotAllowed();
      await handleNonResource(req, reply, req.routePath, opts.routes, opts.health);
      return;
    }
    const resolution = routeTable(gv.group, gv.version)!.resolve(req.method, gv.rest);
    await routeResource(req, reply, resolution, opts);
  };
  // Every method reaches the same router, which answers 405 for those a path does not serve.
  app.setNotFoundHandler(handler);
  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url: '/', handler });
  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url: '/*', handler });
  return app;
}

/** kube's responsewriters.InternalError (as its authorization and authentication filters send it): plain text naming the request URI, HTML-escaped. */
function sendInternalErrorText(reply: FastifyReply, url: string, message: string): FastifyReply {
  const text = `Internal Server Error: ${JSON.stringify(url)}: ${message}`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  // (kube's cache-control filter wraps the whole chain: this answer is marked too.)
  return reply.code(500).header('cache-control', 'no-cache, private').header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(`${text}\n`);
}

/** The access reviews: create-only, answered by the authorizer, never stored (see src/authz/access-review.ts). */
async function handleAccessReview(req: FastifyRequest, reply: FastifyReply, info: ResourceRequestInfo, authorizer: Authorizer): Promise<void> {
  const namespaced = info.resource === 'localsubjectaccessreviews';
  if (info.subresource !== '' || info.name !== '' || namespaced !== (info.namespace !== '')) throw errors.pathNotFound();
  // kube's generic answer: these resources register no verb but create.
  if (info.verb !== 'create') throw errors.methodNotAllowed();
  const rt = accessReviewTypes[info.resource];
  const fmt = createOnlyOutput(req, rt);
  // kubectl and client-go send these as protobuf.
  const body = await decodeBody(requestBodyOf(req), req.server.features.enabled('CBORServingAndStorage'), 'body', undefined, undefined, true);
  // Ownership of what the body sets, as kube's create handler stamps it before the authorizer answers.
  const managedFields = rt && body.value && typeof body.value === 'object' ? createOnlyManagedFields(rt, body.value as KubeObject, managerFor(req.searchParams, String(req.headers['user-agent'] ?? '')), '', new Date()) : undefined;
  // Stamped before validation, as kube's create handler does: a review refused for its metadata shows them.
  if (managedFields && managedFields.length > 0) {
    const review = body.value as KubeObject;
    review.metadata = { ...review.metadata, managedFields };
  }
  const answer = await answerAccessReview(info.resource, body.value, req.user, info.namespace, authorizer, req.server.features.enabled('AuthorizeWithSelectors'));
  const meta = (answer as { metadata?: { managedFields?: unknown } } | undefined)?.metadata;
  if (meta && managedFields && managedFields.length > 0) meta.managedFields = managedFields;
  sendValue(req, reply, 201, answer, fmt);
}

// Reading the peer chain is costly (it materializes every certificate); a connection's chain never changes.
const peerBySocket = new WeakMap<object, ReturnType<typeof peerOfSocket>>();
function peerOf(socket: unknown): ReturnType<typeof peerOfSocket> {
  if (typeof socket !== 'object' || socket === null) return peerOfSocket(socket);
  let peer = peerBySocket.get(socket);
  if (!peer) {
    peer = peerOfSocket(socket);
    peerBySocket.set(socket, peer);
  }
  return peer;
}

/**
 * The group/version web service a path belongs to (`/api/v1/...`, `/apis/<group>/<version>/...`)
 * with the path segments below it, or undefined for every other path. Segments are go-restful's
 * tokens: empty inner segments are kept, so `/api/v1//namespaces` matches no route.
 */
function groupVersionPath(path: string, served: (group: string, version: string) => boolean): { group: string; version: string; rest: string[] } | undefined {
  // The director matches web service roots against the raw path: `//api/v1` is not below `/api`.
  if (!path.startsWith('/api/') && !path.startsWith('/apis/')) return undefined;
  const tokens = splitPath(path);
  if (tokens[0] === 'api' && tokens.length >= 2 && served('', tokens[1]!)) return { group: '', version: tokens[1]!, rest: tokens.slice(2) };
  if (tokens[0] === 'apis' && tokens.length >= 3 && served(tokens[1]!, tokens[2]!)) {
    return { group: tokens[1]!, version: tokens[2]!, rest: tokens.slice(3) };
  }
  return undefined;
}

async function routeResource(req: FastifyRequest, reply: FastifyReply, route: RouteResolution, opts: FrontDoorOptions): Promise<void> {
  if (route.kind === 'not-found') throw errors.pathNotFound();
  if (route.kind === 'method-not-allowed') throw errors.methodNotAllowed();
  const { rt } = route;
  const served = opts.local.catalog.lookup(rt.group, rt.version, rt.resource)!;
  // go-restful checks Accept against the route's media types before kube's handler runs.
  // (Custom resources are served by kube's CRD handler, outside go-restful: no such check.)
  if (protobufServed(rt)) {
    const streaming = route.action === 'list' || route.action === 'watchlist' || route.action === 'watch';
    const cbor = req.server.features.enabled('CBORServingAndStorage');
    const produces = cbor ? (streaming ? cborStreamingMediaTypes : cborMediaTypes) : streaming ? builtinStreamingMediaTypes : builtinMediaTypes;
    if (!restfulAccepts(String(req.headers.accept ?? ''), produces)) throw errors.restfulNotAcceptable(produces);
  }
  // `/namespaces//configmaps/x`: the route matched with an empty namespace; kube's store refuses
  // to address an object (or a collection delete) without one. Lists across namespaces are fine.
  if (rt.namespaced && route.namespace === '' && ['get', 'update', 'patch', 'delete', 'deletecollection'].includes(route.action)) {
    throw errors.badRequest('Namespace parameter required.');
  }
  // Handlers take namespace, name and subresource from the matched route's parameters.
  const info = req.requestInfo;
  const base = info.isResourceRequest ? info : undefined;
  const c: VerbContext = {
    req,
    reply,
    info: {
      isResourceRequest: true,
      path: req.routePath,
      verb: base?.verb ?? '',
      apiPrefix: rt.group === '' ? 'api' : 'apis',
      apiGroup: rt.group,
      apiVersion: rt.version,
      resource: rt.resource,
      subresource: route.subresource,
      namespace: route.namespace,
      name: route.name,
    },
    served,
    query: req.searchParams,
    user: req.user,
  };
  req.metricsTarget = c.info;
  // A deprecated version: kube's Warning, and apiserver_requested_deprecated_apis (audit reads deprecationOf too).
  const deprecation = deprecationOf(rt);
  if (deprecation) {
    if (deprecation.warning !== '') addWarnings(reply, [deprecation.warning]);
    opts.metrics?.apiserver.deprecatedRequested(rt.group, rt.version, rt.resource, route.subresource, deprecation.removedRelease);
  }
  // 5. The local backend: a subresource with its own verbs (a custom resource's scale), else the verb.
  const sub = route.subresource === '' ? undefined : opts.local.subresources.find((s) => s.serves(rt, route.subresource));
  if (sub) return serveSubresource(c, sub);
  switch (route.action) {
    case 'list': {
      // kube's list handler serves a watch when asked with `?watch=` (any value but 0/false).
      const watch = req.searchParams.getAll('watch');
      if (watch.length > 0 && queryBool(watch[0]!)) return handleWatch(c, opts.watches);
      return serveVerb(c, opts.local.verbs, 'list');
    }
    case 'watchlist':
    case 'watch':
      return handleWatch(c, opts.watches);
    case 'create':
      if (route.subresource !== '') throw errors.methodNotSupported({ group: rt.group, resource: `${rt.resource}/${route.subresource}` }, 'create');
      return serveVerb(c, opts.local.verbs, 'create');
    default:
      return serveVerb(c, opts.local.verbs, route.action);
  }
}

export { isApiError, sendValue };
