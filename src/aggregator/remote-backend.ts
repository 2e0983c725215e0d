/**
 * A remote API service (an APIService with `spec.service`) as the gateway reaches it: one TLS
 * agent per APIService (the caBundle verifies the backend as `<service>.<namespace>.svc`; the
 * front-proxy client certificate identifies the gateway), the caller's identity asserted in the
 * request-header names the backend trusts, the traffic contract enforced before anything is
 * sent, and the answer streamed back untouched (watches and chunked lists are never buffered).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors } from '../api/status-errors.ts';
import type { RequestUser } from '../request/user.ts';
import type { APIServiceSpec } from './apiservice.ts';
import type { ServiceResolution, ServiceResolver } from './service-resolver.ts';
import type { TrafficContract } from './traffic.ts';
import type { AggregatorMetrics, BackendProxyMetrics } from './metrics.ts';
import { BackendTransport } from './backend-transport.ts';
import { DeadlineSweep } from './deadline-sweep.ts';
import { ProxiedRequest } from './proxied-request.ts';
import { HOP_BY_HOP, dialError, sendPlain } from './proxy-http.ts';
import { proxyUpgrade, upgradeOf, type UpgradeSocket } from './upgrade.ts';

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

/**
 * `X-Remote-Extra-<key>`: kube's proxy escapes the key (header names are case-insensitive; keys
 * are not). Parentheses are the two characters encodeURIComponent keeps that a header name may
 * not hold.
 */
function extraHeaderName(prefix: string, key: string): string {
  return `${prefix}${encodeURIComponent(key).replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'))}`;
}

/** Identity headers made per user object (RemoteBackend.identityHeaders), with the header names they were made for. */
const identityHeadersOf = new WeakMap<RequestUser, { readonly names: IdentityHeaderNames; readonly headers: readonly (string | string[])[] }>();

export class RemoteBackend {
  /** HTTP/2 where the backend offers it, HTTP/1.1 otherwise (backend-transport.ts). */
  readonly transport: BackendTransport;
  /** Requests in flight that count against the contract's limit (not watches). */
  inflight = 0;
  /** Set by the availability controller: kube's proxy answers 503 at once for an unavailable APIService. */
  available = false;
  readonly serverName: string;
  /** The contract's time limits of the requests in flight (one timer for all of them). */
  readonly deadlines: DeadlineSweep<ProxiedRequest>;
  /** This APIService's proxy metrics (/metrics), when the server keeps metrics. */
  readonly metrics: BackendProxyMetrics | undefined;
  /** `proxy`, bound once (the front door calls it for every request of this backend). */
  readonly proxyHandler: (req: FastifyRequest, reply: FastifyReply, longRunning: boolean) => Promise<unknown>;
  /** Lower-cased header names a client may never pass on (see ProxySettings), with the credentials and framing ones. */
  private readonly dropped: ReadonlySet<string>;
  private readonly droppedPrefixes: readonly string[];

  constructor(
    readonly name: string,
    readonly spec: APIServiceSpec,
    readonly contract: TrafficContract,
    private readonly settings: ProxySettings,
  ) {
    const svc = spec.service!;
    this.serverName = `${svc.name}.${svc.namespace}.svc`;
    this.deadlines = new DeadlineSweep(DeadlineSweep.intervalFor(contract.timeoutMs));
    this.metrics = settings.metrics?.forBackend(name);
    this.proxyHandler = (req, reply, longRunning) => this.proxy(req, reply, longRunning);
    // The body is sent whole with its own length; the identity is the gateway's to assert.
    this.dropped = new Set([...HOP_BY_HOP, 'authorization', 'content-length', ...settings.strippedNames]);
    this.droppedPrefixes = ['impersonate-', ...settings.strippedPrefixes];
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

  /**
   * The headers sent to the backend (lower-case names, no `host`: the transport adds the
   * authority): the client's, minus hop-by-hop, credentials and identity claims, plus the
   * caller's identity.
   */
  private outgoingHeaders(req: FastifyRequest, user: RequestUser, bodyLength: number | undefined): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = {};
    const { dropped, droppedPrefixes } = this;
    const headers = req.headers as IncomingHttpHeaders;
    // Node gives header names in lower case (HTTP/1.1 and HTTP/2 alike).
    next: for (const k in headers) {
      const v = headers[k];
      if (v === undefined || k.charCodeAt(0) === 58 /* ':' */ || dropped.has(k)) continue;
      for (let i = 0; i < droppedPrefixes.length; i++) if (k.startsWith(droppedPrefixes[i]!)) continue next;
      out[k] = v;
    }
    const identity = this.identityHeaders(user);
    for (let i = 0; i < identity.length; i += 2) out[identity[i] as string] = identity[i + 1]!;
    if (bodyLength !== undefined) out['content-length'] = String(bodyLength);
    return out;
  }

  /**
   * The caller's identity as request headers, name then value: made once per user object (an
   * authenticator's cached answer is one object for all of a caller's requests) and header names.
   * The values are the user's own arrays, never changed (the header map is only read, when the
   * request is written).
   */
  private identityHeaders(user: RequestUser): readonly (string | string[])[] {
    const names = this.settings.identity;
    let made = identityHeadersOf.get(user);
    if (made !== undefined && made.names === names) return made.headers;
    const headers: (string | string[])[] = [names.username, user.username];
    if (user.groups.length > 0) headers.push(names.group, user.groups as string[]);
    for (const key in user.extra) {
      const values = user.extra[key]!;
      if (values.length > 0) headers.push(extraHeaderName(names.extraPrefix, key), values as string[]);
    }
    made = { names, headers };
    identityHeadersOf.set(user, made);
    return headers;
  }

  /**
   * Proxies one authenticated, authorized request. `longRunning` requests (watches) neither count
   * against the concurrency limit nor time out waiting for headers. Settles once the answer is
   * handed over (rejects with an ApiError the front door answers).
   */
  proxy(req: FastifyRequest, reply: FastifyReply, longRunning: boolean): Promise<unknown> {
    const metrics = this.settings.metrics;
    // exec/attach/port-forward style upgrades last as long as the session: long-running like watches.
    const upgrade = upgradeOf(req.raw);
    if (upgrade) longRunning = true;
    // kube-aggregator's proxy: an unavailable APIService is refused before any connection.
    if (!this.available) return Promise.resolve(sendPlain(reply, 503, 'service unavailable'));
    const { maxInflight, maxBodyBytes } = this.contract;
    const body = Buffer.isBuffer(req.body) ? req.body : undefined;
    if (body && body.length > maxBodyBytes) {
      metrics?.rejected(this.name, 'body-too-large');
      return Promise.reject(errors.requestEntityTooLarge(maxBodyBytes));
    }
    if (!longRunning && maxInflight > 0 && this.inflight >= maxInflight) {
      metrics?.rejected(this.name, 'concurrency');
      return Promise.reject(new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 }, { 'Retry-After': '1' }));
    }
    const target = this.resolve();
    if (target.kind !== 'address') return Promise.resolve(sendPlain(reply, 503, 'service unavailable'));
    const started = performance.now();
    const headers = this.outgoingHeaders(req, req.user, body?.length ?? (req.method === 'GET' || req.method === 'HEAD' ? undefined : 0));
    const authority = `${this.serverName}:${target.port}`;
    if (upgrade) return this.proxyUpgrade(req, reply, upgrade, target.host, target.port, authority, headers, started);
    if (!longRunning) this.inflight++;
    return new ProxiedRequest(this, req, reply, longRunning, started, target.host, target.port).run(headers, body, authority);
  }

  private async proxyUpgrade(req: FastifyRequest, reply: FastifyReply, upgrade: UpgradeSocket, host: string, port: number, authority: string, headers: OutgoingHttpHeaders, started: number): Promise<unknown> {
    try {
      const status = await proxyUpgrade(reply, upgrade, { host, port, serverName: this.serverName, tls: this.transport.secureOptions() }, req.method, req.raw.url ?? req.url, { ...headers, host: authority }, HOP_BY_HOP);
      this.metrics?.observe(status, started);
      return reply;
    } catch (err) {
      this.metrics?.observe(503, started);
      return sendPlain(reply, 503, dialError(err as NodeJS.ErrnoException, host, port));
    }
  }
}

