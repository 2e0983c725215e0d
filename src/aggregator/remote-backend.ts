/**
 * A remote API service (an APIService with `spec.service`) as the gateway reaches it: one TLS
 * agent per APIService (the caBundle verifies the backend as `<service>.<namespace>.svc`; the
 * front-proxy client certificate identifies the gateway), the caller's identity asserted in the
 * request-header names the backend trusts, the traffic contract enforced before anything is
 * sent, and the answer streamed back untouched (watches and chunked lists are never buffered).
 */
import https from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors } from '../api/status-errors.ts';
import type { RequestUser } from '../request/user.ts';
import type { APIServiceSpec } from './apiservice.ts';
import type { ServiceResolution, ServiceResolver } from './service-resolver.ts';
import type { TrafficContract } from './traffic.ts';
import type { AggregatorMetrics } from './metrics.ts';

/** The header names the gateway asserts the caller's identity in (the first of each configured list). */
export interface IdentityHeaderNames {
  readonly username: string;
  readonly group: string;
  readonly extraPrefix: string;
}

export interface ProxySettings {
  /** `--proxy-client-cert-file` / `--proxy-client-key-file`: the gateway's identity towards backends. */
  readonly clientCert?: { readonly cert: string; readonly key: string };
  readonly identity: IdentityHeaderNames;
  /**
   * Lower-cased header names and prefixes a client may never pass through: every configured
   * request-header name and kube's X-Remote-* defaults. A client that sends them is not refused
   * (kube strips them too); they are simply dropped, so only the gateway asserts identity.
   */
  readonly strippedNames: ReadonlySet<string>;
  readonly strippedPrefixes: readonly string[];
  readonly resolver: ServiceResolver;
  readonly metrics?: AggregatorMetrics;
}

/** Hop-by-hop headers (RFC 9110 7.6.1) and those HTTP/2 forbids: never forwarded either way. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'http2-settings', 'proxy-authorization', 'proxy-authenticate']);

/** Go's `dial tcp HOST:PORT: connect: connection refused`-style text for a socket error, as kube's proxy writes it. */
function dialError(err: NodeJS.ErrnoException, host: string, port: number): string {
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return `read tcp ${addr}: read: connection reset by peer`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    default:
      return err.message;
  }
}

export class RemoteBackend {
  readonly agent: https.Agent;
  /** Requests in flight that count against the contract's limit (not watches). */
  inflight = 0;
  /** Set by the availability controller: kube's proxy answers 503 at once for an unavailable APIService. */
  available = false;
  readonly serverName: string;

  constructor(
    readonly name: string,
    readonly spec: APIServiceSpec,
    readonly contract: TrafficContract,
    private readonly settings: ProxySettings,
  ) {
    const svc = spec.service!;
    this.serverName = `${svc.name}.${svc.namespace}.svc`;
    this.agent = new https.Agent({
      keepAlive: true,
      // Enough sockets for the contract's concurrency plus the long-running requests beside it.
      maxSockets: Infinity,
      maxFreeSockets: 64,
      ...(spec.caBundle ? { ca: spec.caBundle } : {}),
      rejectUnauthorized: !spec.insecureSkipTLSVerify,
      ...(settings.clientCert ? { cert: settings.clientCert.cert, key: settings.clientCert.key } : {}),
    });
  }

  /** Where the service is now. */
  resolve(): ServiceResolution {
    const svc = this.spec.service!;
    return this.settings.resolver.resolve(svc.namespace, svc.name, svc.port);
  }

  close(): void {
    this.agent.destroy();
  }

  /**
   * A request of the gateway's own (discovery, availability, namespace cleanup): `method` `path`, the body
   * read whole (bounded by `maxBytes`), within `timeoutMs`. Rejects with a message kube's
   * availability controller would print.
   */
  fetch(path: string, headers: OutgoingHttpHeaders, timeoutMs: number, maxBytes = 16 * 1024 * 1024, method = 'GET'): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
    const target = this.resolve();
    if (target.kind !== 'address') return Promise.reject(new Error(target.kind === 'service-not-found' ? 'service not found' : target.message));
    return new Promise((resolve, reject) => {
      // kube-aggregator's own requests (availability, discovery) are made as system:kube-aggregator in system:masters.
      const { identity } = this.settings;
      const asAggregator = { [identity.username]: 'system:kube-aggregator', [identity.group]: 'system:masters' };
      const req = https.request({ host: target.host, port: target.port, servername: this.serverName, method, path, headers: { ...headers, ...asAggregator, host: `${this.serverName}:${target.port}` }, agent: this.agent, timeout: timeoutMs });
      const timer = setTimeout(() => req.destroy(new Error(`Get "https://${this.serverName}:${target.port}${path}": context deadline exceeded`)), timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new Error(err.message.startsWith('Get "') ? err.message : `Get "https://${this.serverName}:${target.port}${path}": ${dialError(err, target.host, target.port)}`));
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) req.destroy(new Error(`response of ${path} over ${maxBytes} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
      req.end();
    });
  }

  /** The headers sent to the backend: the client's, minus hop-by-hop, credentials and identity claims, plus the caller's identity. */
  private outgoingHeaders(req: FastifyRequest, user: RequestUser, host: string, bodyLength: number | undefined): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = {};
    const { strippedNames, strippedPrefixes, identity } = this.settings;
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || k.startsWith(':')) continue;
      const lower = k.toLowerCase();
      if (HOP_BY_HOP.has(lower) || lower === 'authorization' || lower === 'content-length' || lower.startsWith('impersonate-')) continue;
      if (strippedNames.has(lower) || strippedPrefixes.some((p) => lower.startsWith(p))) continue;
      out[lower] = v;
    }
    out.host = host;
    out[identity.username] = user.username;
    if (user.groups.length > 0) out[identity.group] = [...user.groups];
    for (const [key, values] of Object.entries(user.extra)) {
      // kube's proxy escapes the extra key (headers are case-insensitive; keys are not).
      if (values.length > 0) out[`${identity.extraPrefix}${encodeURIComponent(key)}`] = [...values];
    }
    if (bodyLength !== undefined) out['content-length'] = String(bodyLength);
    return out;
  }

  /**
   * Proxies one authenticated, authorized request. `longRunning` requests (watches) neither count
   * against the concurrency limit nor time out waiting for headers.
   */
  async proxy(req: FastifyRequest, reply: FastifyReply, longRunning: boolean): Promise<unknown> {
    const metrics = this.settings.metrics;
    // kube-aggregator's proxy: an unavailable APIService is refused before any connection.
    if (!this.available) return sendPlain(reply, 503, 'service unavailable');
    const { maxInflight, maxBodyBytes, timeoutMs } = this.contract;
    const body = Buffer.isBuffer(req.body) ? req.body : undefined;
    if (body && body.length > maxBodyBytes) {
      metrics?.rejected(this.name, 'body-too-large');
      throw errors.requestEntityTooLarge(maxBodyBytes);
    }
    if (!longRunning && maxInflight > 0 && this.inflight >= maxInflight) {
      metrics?.rejected(this.name, 'concurrency');
      throw new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 }, { 'Retry-After': '1' });
    }
    const target = this.resolve();
    if (target.kind !== 'address') return sendPlain(reply, 503, 'service unavailable');
    const started = process.hrtime.bigint();
    if (!longRunning) this.inflight++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (!longRunning) this.inflight--;
    };
    const headers = this.outgoingHeaders(req, req.user, `${this.serverName}:${target.port}`, body?.length ?? (req.method === 'GET' || req.method === 'HEAD' ? undefined : 0));
    const upstream = https.request({ host: target.host, port: target.port, servername: this.serverName, method: req.method, path: req.raw.url ?? req.url, headers, agent: this.agent });
    // A client that goes away ends the backend request too (a watch must not outlive its client).
    const onClientClose = () => {
      if (!reply.raw.writableFinished) upstream.destroy();
    };
    reply.raw.on('close', onClientClose);
    let timer: NodeJS.Timeout | undefined;
    if (!longRunning && timeoutMs > 0) timer = setTimeout(() => upstream.destroy(Object.assign(new Error('timeout'), { code: 'KGW_TIMEOUT' })), timeoutMs);
    let res: IncomingMessage;
    try {
      res = await new Promise<IncomingMessage>((resolve, reject) => {
        upstream.on('response', resolve);
        upstream.on('error', reject);
        upstream.end(body);
      });
    } catch (err) {
      clearTimeout(timer);
      release();
      reply.raw.off('close', onClientClose);
      const e = err as NodeJS.ErrnoException;
      metrics?.observe(this.name, e.code === 'KGW_TIMEOUT' ? 504 : 503, started);
      if (e.code === 'KGW_TIMEOUT') throw errors.timeout(`the extension API server of APIService ${this.name} did not answer within ${timeoutMs / 1000}s`);
      return sendPlain(reply, 503, dialError(e, target.host, target.port));
    }
    clearTimeout(timer);
    const status = res.statusCode ?? 502;
    res.on('close', () => {
      release();
      reply.raw.off('close', onClientClose);
      metrics?.observe(this.name, status, started);
    });
    reply.code(status);
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined || HOP_BY_HOP.has(k)) continue;
      reply.header(k, v);
    }
    return reply.send(res);
  }
}

/** Go's http.Error: plain text, nosniff, the message and a newline. */
function sendPlain(reply: FastifyReply, code: number, message: string): FastifyReply {
  return reply.code(code).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache, private').send(`${message}\n`);
}
