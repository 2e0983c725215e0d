/**
 * A remote API service (an APIService with `spec.service`) as the gateway reaches it: one TLS
 * agent per APIService (the caBundle verifies the backend as `<service>.<namespace>.svc`; the
 * front-proxy client certificate identifies the gateway), the caller's identity asserted in the
 * request-header names the backend trusts, the traffic contract enforced before anything is
 * sent, and the answer streamed back untouched (watches and chunked lists are never buffered).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors } from '../api/status-errors.ts';
import type { RequestUser } from '../request/user.ts';
import type { APIServiceSpec } from './apiservice.ts';
import type { ServiceResolution, ServiceResolver } from './service-resolver.ts';
import type { TrafficContract } from './traffic.ts';
import type { AggregatorMetrics } from './metrics.ts';
import { BackendTransport, type UpstreamResponse } from './backend-transport.ts';
import { proxyUpgrade, upgradeOf } from './upgrade.ts';

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

/** Identity headers made per user object (RemoteBackend.identityHeaders), with the header names they were made for. */
const identityHeadersOf = new WeakMap<RequestUser, { readonly names: IdentityHeaderNames; readonly headers: readonly (string | readonly string[])[] }>();

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
  /** HTTP/2 where the backend offers it, HTTP/1.1 otherwise (backend-transport.ts). */
  readonly transport: BackendTransport;
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
    this.transport = new BackendTransport({
      serverName: this.serverName,
      rejectUnauthorized: !spec.insecureSkipTLSVerify,
      ...(spec.caBundle ? { ca: spec.caBundle } : {}),
      ...(settings.clientCert ? { clientCert: settings.clientCert } : {}),
    });
  }

  /** Where the service is now. */
  resolve(): ServiceResolution {
    const svc = this.spec.service!;
    return this.settings.resolver.resolve(svc.namespace, svc.name, svc.port);
  }

  close(): void {
    this.transport.close();
  }

  /**
   * A request of the gateway's own (discovery, availability, namespace cleanup): `method` `path`, the body
   * read whole (bounded by `maxBytes`), within `timeoutMs`. Rejects with a message kube's
   * availability controller would print.
   */
  fetch(path: string, headers: OutgoingHttpHeaders, timeoutMs: number, maxBytes = 16 * 1024 * 1024, method = 'GET'): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    const target = this.resolve();
    if (target.kind !== 'address') return Promise.reject(new Error(target.kind === 'service-not-found' ? 'service not found' : target.message));
    // kube-aggregator's own requests (availability, discovery) are made as system:kube-aggregator in system:masters.
    const { identity } = this.settings;
    const asAggregator = { [identity.username]: 'system:kube-aggregator', [identity.group]: 'system:masters' };
    const url = `https://${this.serverName}:${target.port}${path}`;
    const exchange = this.transport.request(target.host, target.port, method, path, { ...headers, ...asAggregator, host: `${this.serverName}:${target.port}` }, undefined);
    const timer = setTimeout(() => exchange.destroy(new Error(`Get "${url}": context deadline exceeded`)), timeoutMs);
    const failed = (err: NodeJS.ErrnoException) => new Error(err.message.startsWith('Get "') ? err.message : `Get "${url}": ${dialError(err, target.host, target.port)}`);
    return exchange.response.then(
      (res) =>
        new Promise((resolve, reject) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.body.on('data', (c: Buffer) => {
            size += c.length;
            if (size > maxBytes) exchange.destroy(new Error(`response of ${path} over ${maxBytes} bytes`));
            else chunks.push(c);
          });
          res.body.once('end', () => {
            clearTimeout(timer);
            resolve({ status: res.status, headers: res.headers, body: Buffer.concat(chunks) });
          });
          res.body.once('error', (err) => {
            clearTimeout(timer);
            reject(failed(err));
          });
        }),
      (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        throw failed(err);
      },
    );
  }

  /** The headers sent to the backend: the client's, minus hop-by-hop, credentials and identity claims, plus the caller's identity. */
  private outgoingHeaders(req: FastifyRequest, user: RequestUser, host: string, bodyLength: number | undefined): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = {};
    const { strippedNames, strippedPrefixes } = this.settings;
    const headers = req.headers;
    next: for (const k in headers) {
      const v = headers[k];
      if (v === undefined || k.charCodeAt(0) === 58 /* ':' */) continue;
      // Node gives header names in lower case already.
      const lower = k.toLowerCase();
      if (HOP_BY_HOP.has(lower) || lower === 'authorization' || lower === 'content-length' || lower.startsWith('impersonate-')) continue;
      if (strippedNames.has(lower)) continue;
      for (let i = 0; i < strippedPrefixes.length; i++) if (lower.startsWith(strippedPrefixes[i]!)) continue next;
      out[lower] = v;
    }
    out.host = host;
    const identity = this.identityHeaders(user);
    for (let i = 0; i < identity.length; i += 2) out[identity[i] as string] = identity[i + 1] as string | string[];
    if (bodyLength !== undefined) out['content-length'] = String(bodyLength);
    return out;
  }

  /**
   * The caller's identity as request headers, name then value: made once per user object (an
   * authenticator's cached answer is one object for all of a caller's requests). The values are
   * never changed once made.
   */
  private identityHeaders(user: RequestUser): readonly (string | readonly string[])[] {
    let made = identityHeadersOf.get(user);
    if (made !== undefined && made.names === this.settings.identity) return made.headers;
    const names = this.settings.identity;
    const headers: (string | readonly string[])[] = [names.username, user.username];
    if (user.groups.length > 0) headers.push(names.group, [...user.groups]);
    for (const [key, values] of Object.entries(user.extra)) {
      // kube's proxy escapes the extra key (headers are case-insensitive; keys are not).
      if (values.length > 0) headers.push(`${names.extraPrefix}${encodeURIComponent(key)}`, [...values]);
    }
    made = { names, headers };
    identityHeadersOf.set(user, made);
    return headers;
  }

  /**
   * Proxies one authenticated, authorized request. `longRunning` requests (watches) neither count
   * against the concurrency limit nor time out waiting for headers.
   */
  async proxy(req: FastifyRequest, reply: FastifyReply, longRunning: boolean): Promise<unknown> {
    const metrics = this.settings.metrics;
    // exec/attach/port-forward style upgrades last as long as the session: long-running like watches.
    const upgrade = upgradeOf(req.raw);
    if (upgrade) longRunning = true;
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
    if (upgrade) {
      try {
        const status = await proxyUpgrade(reply, upgrade, { host: target.host, port: target.port, serverName: this.serverName, tls: this.transport.secureOptions() }, req.method, req.raw.url ?? req.url, headers, HOP_BY_HOP);
        metrics?.observe(this.name, status, started);
        return reply;
      } catch (err) {
        metrics?.observe(this.name, 503, started);
        return sendPlain(reply, 503, dialError(err as NodeJS.ErrnoException, target.host, target.port));
      }
    }
    const exchange = this.transport.request(target.host, target.port, req.method, req.raw.url ?? req.url, headers, body);
    // A client that goes away ends the backend request too (a watch must not outlive its client).
    const onClientClose = () => {
      if (!reply.raw.writableFinished) exchange.destroy();
    };
    reply.raw.on('close', onClientClose);
    let timer: NodeJS.Timeout | undefined;
    if (!longRunning && timeoutMs > 0) timer = setTimeout(() => exchange.destroy(Object.assign(new Error('timeout'), { code: 'KGW_TIMEOUT' })), timeoutMs);
    let res: UpstreamResponse;
    try {
      res = await exchange.response;
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
    const status = res.status;
    res.body.once('close', () => {
      release();
      reply.raw.off('close', onClientClose);
      metrics?.observe(this.name, status, started);
    });
    reply.code(status);
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined || HOP_BY_HOP.has(k)) continue;
      reply.header(k, v);
    }
    // A small answer of declared length is read here and sent whole: a stream handed to Fastify
    // can be reported closed early ("Premature close", a 500) when a short HTTP/2 answer completes
    // before Fastify's end-of-stream check is attached, though every byte arrived.
    const declared = Number(res.headers['content-length']);
    const hasBody = req.method !== 'HEAD' && status !== 204 && status !== 304;
    if (!longRunning && hasBody && Number.isInteger(declared) && declared >= 0 && declared <= WHOLE_ANSWER_BYTES) {
      const whole = await readDeclared(res.body, declared);
      if (whole) return reply.send(whole);
      // Fewer bytes than declared: the backend's answer was cut off.
      reply.raw.destroy();
      return reply;
    }
    return reply.send(res.body);
  }
}

/** Answers up to this size (kube objects, mostly) are sent whole rather than streamed. */
const WHOLE_ANSWER_BYTES = 1024 * 1024;

/** The body of an answer of `length` declared bytes, or undefined when it ends (or fails) short. */
export function readDeclared(body: Readable, length: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const done = () => {
      body.off('data', onData);
      resolve(got === length ? Buffer.concat(chunks, got) : undefined);
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      got += c.length;
    };
    body.on('data', onData);
    body.once('end', done);
    body.once('close', done);
    body.once('error', done);
  });
}

/** Go's http.Error: plain text, nosniff, the message and a newline. */
function sendPlain(reply: FastifyReply, code: number, message: string): FastifyReply {
  return reply.code(code).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache, private').send(`${message}\n`);
}
