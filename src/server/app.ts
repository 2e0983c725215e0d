/**
 * The front door: one Fastify app on one TLS port (HTTP/2 and HTTP/1.1), and the request
 * pipeline assembled here, in order. Order matters: request info is parsed once, before
 * authentication; authentication before authorization; authorization before any handler
 * touches storage.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError, errors, isApiError } from '../api/status-errors.ts';
import type { Authenticator } from '../authn/types.ts';
import { peerOfSocket } from '../authn/x509.ts';
import { parseRequestInfo, type RequestInfo, type ResourceRequestInfo } from './request-info.ts';
import type { ResourceCatalog } from './api-context.ts';
import { sendError, sendValue } from './respond.ts';
import type { RequestUser } from './user.ts';
import type { HealthEndpoint } from './health.ts';
import { handleNonResource, type NonResourceRoutes } from './handlers/non-resource.ts';
import { handleCreate, handleDelete, handleDeleteCollection, handleGet, handleList, handlePatch, handleUpdate, type VerbContext } from './handlers/resource.ts';
import { handleWatch, WatchRegistry } from './handlers/watch.ts';
import { attributesOf, type Authorizer } from '../authz/authorizer.ts';
import { forbiddenError } from '../authz/forbidden.ts';
import { answerAccessReview, isAccessReviewPath } from '../authz/access-review.ts';
import { decodeBody } from './handlers/body.ts';
import { clientErrorHandler, continueHandler, frameworkErrorHandler, GO_MAX_HEADER_BYTES, markStreamedHttp2Body } from './protocol-errors.ts';
import { LoadLimits, type LoadLimitOptions } from './load-limits.ts';

/** Kube-apiserver's default request body limit. */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

export interface FrontDoorOptions {
  readonly tls: { readonly key: string; readonly cert: string; readonly clientCa?: string };
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  readonly catalog: ResourceCatalog;
  readonly routes: NonResourceRoutes;
  readonly health: { readonly livez: HealthEndpoint; readonly readyz: HealthEndpoint; readonly healthz: HealthEndpoint };
  readonly watches: WatchRegistry;
  readonly logger?: boolean;
  /** In-flight limits and the large-body budget (kube's defaults when absent). */
  readonly limits?: Omit<LoadLimitOptions, 'maxBodyBytes'>;
}

declare module 'fastify' {
  interface FastifyInstance {
    loadLimits: LoadLimits;
  }
  interface FastifyRequest {
    requestInfo: RequestInfo;
    user: RequestUser;
    searchParams: URLSearchParams;
  }
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
    return503OnClosing: false,
    // Our own router works on the request info; Fastify only needs to reach the one handler.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 4096 },
    // Requests refused below the pipeline answer as Go's net/http does, not in Fastify's JSON.
    // (Spread untyped: Fastify's HTTP/2 typings do not carry these two options.)
    ...({ clientErrorHandler, frameworkErrors: frameworkErrorHandler } as object),
  }) as unknown as FastifyInstance;

  // Expect: 100-continue: refuse an oversized body before inviting it (see protocol-errors.ts).
  const server = app.server as unknown as NodeJS.EventEmitter & { maxHeaderSize?: number };
  // HTTP/1.1 headers up to Go's limit (Node's own default is 16 KiB); HTTP/2's is in the settings above.
  server.maxHeaderSize = GO_MAX_HEADER_BYTES;
  server.on('checkContinue', continueHandler(maxRequestBodyBytes, (req, res) => server.emit('request', req, res)));

  // Bodies are decoded by the handlers per Content-Type (JSON, YAML, patches); Fastify keeps raw bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxRequestBodyBytes }, (_req, body, done) => done(null, body));

  // 1. Request info, parsed once from method, path and query.
  app.addHook('onRequest', async (req) => {
    markStreamedHttp2Body(req);
    const url = new URL(req.url, 'https://localhost');
    req.searchParams = url.searchParams;
    req.requestInfo = parseRequestInfo(req.method, decodeURIComponentSafe(url.pathname), url.searchParams);
  });

  // 2. Authentication: client certificate, bearer token, or anonymous; a bad token is 401.
  app.addHook('onRequest', async (req) => {
    const raw = req.raw as unknown as { socket?: unknown; stream?: { session?: { socket?: unknown } } };
    const socket = raw.stream?.session?.socket ?? raw.socket;
    const result = await opts.authenticator.authenticate({ headers: req.headers as Record<string, string | string[] | undefined>, ...peerOf(socket) });
    if (!result.ok) throw result.error;
    req.user = result.user;
  });

  // 2b. kube's in-flight limits (after authentication: system:masters is exempt).
  const limits = new LoadLimits({ ...opts.limits, maxBodyBytes: maxRequestBodyBytes });
  app.decorate('loadLimits', limits);
  app.addHook('onRequest', async (req, reply) => limits.admit(req, reply));
  // Large bodies wait for their share of the body budget before they are read.
  app.addHook('preParsing', async (req, reply, payload) => {
    await limits.admitBody(req, reply);
    return payload;
  });

  // 3. Authorization of the request info: the configured chain decides; anything but allow is kube's 403.
  app.addHook('onRequest', async (req) => {
    const attrs = attributesOf(req.user, req.requestInfo, req.searchParams);
    const decision = opts.authorizer.authorize(attrs);
    if (decision.decision !== 'allow') throw forbiddenError(attrs, decision.reason);
  });

  app.setErrorHandler((err, req, reply) => sendError(req, reply, err));
  app.setNotFoundHandler((req, reply) => sendError(req, reply, errors.pathNotFound()));

  // 4. Routing: resource requests to their store, everything else to the non-resource routes.
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const info = req.requestInfo;
    if (!info.isResourceRequest || info.resource === '') {
      await handleNonResource(req, reply, info, opts.routes, opts.health);
      return;
    }
    if (isAccessReviewPath(info.apiGroup, info.apiVersion, info.resource)) {
      await handleAccessReview(req, reply, info, opts.authorizer);
      return;
    }
    await routeResource(req, reply, info, opts);
  };
  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url: '/', handler });
  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url: '/*', handler });
  return app;
}

/** The access reviews: create-only, answered by the authorizer, never stored (see src/authz/access-review.ts). */
async function handleAccessReview(req: FastifyRequest, reply: FastifyReply, info: ResourceRequestInfo, authorizer: Authorizer): Promise<void> {
  const namespaced = info.resource === 'localsubjectaccessreviews';
  if (info.extraParts.length > 0 || info.subresource !== '' || info.name !== '' || namespaced !== (info.namespace !== '')) throw errors.pathNotFound();
  // kube's generic answer: these resources register no verb but create.
  if (info.verb !== 'create') throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  // kubectl and client-go send these as protobuf.
  const body = await decodeBody(req, 'body', undefined, undefined, true);
  sendValue(req, reply, 201, answerAccessReview(info.resource, body.value, req.user, info.namespace, authorizer));
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

function decodeURIComponentSafe(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

async function routeResource(req: FastifyRequest, reply: FastifyReply, info: ResourceRequestInfo, opts: FrontDoorOptions): Promise<void> {
  const served = opts.catalog.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!served || info.extraParts.length > 0) throw errors.pathNotFound();
  const { rt } = served;
  const isNamespaces = rt.group === '' && rt.resource === 'namespaces';
  const finalize = info.subresource === 'finalize' && isNamespaces;
  if (info.subresource !== '' && !(info.subresource === 'status' && rt.hasStatus) && !finalize) throw errors.pathNotFound();
  // Namespaces' finalize subresource takes only PUT, as kube-apiserver's does.
  if (finalize && info.verb !== 'update') throw errors.methodNotSupported({ group: '', resource: 'namespaces/finalize' }, info.verb);
  const gr = { group: rt.group, resource: rt.resource };
  // A cluster-scoped resource under /namespaces/<ns>/ does not exist (namespaces themselves excepted).
  if (!rt.namespaced && info.namespace !== '' && !(rt.group === '' && rt.resource === 'namespaces')) throw errors.pathNotFound();
  const namespace = rt.namespaced ? info.namespace : '';
  const c: VerbContext = { req, reply, info: { ...info, namespace }, served, query: req.searchParams, user: req.user };
  const statusOnly = info.subresource === 'status';
  switch (info.verb) {
    case 'get':
      return info.name ? handleGet(c) : Promise.reject(errors.methodNotSupported(gr, 'get'));
    case 'list':
      if (statusOnly) throw errors.methodNotSupported(gr, 'list');
      return handleList(c);
    case 'watch':
      if (statusOnly) throw errors.methodNotSupported(gr, 'watch');
      return handleWatch(c, opts.watches);
    case 'create':
      if (info.name !== '' || (rt.namespaced && namespace === '')) throw errors.methodNotSupported(gr, 'create');
      return handleCreate(c);
    case 'update':
      if (info.name === '') throw errors.methodNotSupported(gr, 'update');
      return handleUpdate(c);
    case 'patch':
      if (info.name === '') throw errors.methodNotSupported(gr, 'patch');
      return handlePatch(c);
    case 'delete':
      if (statusOnly) throw errors.methodNotSupported(gr, 'delete');
      return handleDelete(c);
    case 'deletecollection':
      if (statusOnly) throw errors.methodNotSupported(gr, 'deletecollection');
      return handleDeleteCollection(c);
    default:
      throw errors.methodNotSupported(gr, String(info.verb));
  }
}

export { isApiError, sendValue };
