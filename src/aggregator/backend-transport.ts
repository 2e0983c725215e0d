/**
 * How the gateway talks to one extension API server: HTTP/2 when the backend offers it in ALPN
 * (as kube-aggregator's Go transport does; Go API servers offer h2), HTTP/1.1 with keep-alive
 * when it does not. One TLS configuration for both: the caBundle (or insecureSkipTLSVerify), the
 * server name `<service>.<namespace>.svc`, the front-proxy client certificate.
 *
 * HTTP/2 multiplexes every proxied request and watch of a backend on few connections; a session
 * takes at most the backend's SETTINGS_MAX_CONCURRENT_STREAMS streams (a watch holds one for its
 * whole life), so a further session opens when every session is full. A backend that answered
 * `http/1.1` is remembered for a minute, then ALPN is asked again (it may have been upgraded).
 * Upgrade requests (exec, attach, port-forward) never use this: they need their own HTTP/1.1
 * connection (see upgrade.ts).
 */
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

export interface BackendTls {
  readonly ca?: string;
  readonly rejectUnauthorized: boolean;
  readonly clientCert?: { readonly cert: string; readonly key: string };
  /** The name the backend's certificate is verified for (SNI too). */
  readonly serverName: string;
}

/** What a backend answered: status, headers (no HTTP/2 pseudo-headers), and the body as a stream. */
export interface UpstreamResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable;
  readonly protocol: 'h2' | 'http/1.1';
}

export interface UpstreamRequest {
  readonly response: Promise<UpstreamResponse>;
  /** Ends the exchange (client gone, timeout): the response stream, or the pending response, fails with `err`. */
  destroy(err?: Error): void;
}

/** Headers HTTP/2 forbids on a request (RFC 9113 8.2.2); `host` becomes `:authority`. */
const H2_FORBIDDEN = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'te', 'http2-settings']);

/** How long a backend that declined h2 is spoken to in HTTP/1.1 before ALPN is asked again. */
const H1_MEMORY_MS = 60_000;

interface Session {
  readonly session: ClientHttp2Session;
  active: number;
  /** The last stream the backend said it would process, once it sent GOAWAY. */
  goawayLastStreamId?: number;
}

export class BackendTransport {
  /** HTTP/1.1 connections (backends without h2), kept alive. */
  readonly agent: https.Agent;
  /** HTTP/2 sessions by `host:port` (the address may move with endpoint routing). */
  private readonly sessions = new Map<string, Session[]>();
  /** `host:port` -> until when it is spoken to in HTTP/1.1. */
  private readonly h1Until = new Map<string, number>();
  /** One ALPN negotiation at a time per address: requests arriving meanwhile wait for its session. */
  private readonly connecting = new Map<string, Promise<Session | undefined>>();
  private closed = false;
  /** Sessions opened so far (tests and the bench read it: few sessions means multiplexing). */
  sessionsOpened = 0;

  constructor(private readonly tlsOpts: BackendTls) {
    this.agent = new https.Agent({
      keepAlive: true,
      // Enough sockets for the contract's concurrency plus the long-running requests beside it.
      maxSockets: Infinity,
      maxFreeSockets: 64,
      ...this.secureOptions(),
    });
  }

  /** The TLS options of every connection to this backend (upgrade.ts opens its own). */
  secureOptions(): tls.ConnectionOptions {
    const t = this.tlsOpts;
    return { ...(t.ca ? { ca: t.ca } : {}), rejectUnauthorized: t.rejectUnauthorized, ...(t.clientCert ? { cert: t.clientCert.cert, key: t.clientCert.key } : {}) };
  }

  close(): void {
    this.closed = true;
    this.agent.destroy();
    for (const list of this.sessions.values()) for (const s of list) s.session.destroy();
    this.sessions.clear();
  }

  /**
   * Sends one request; `body` is sent whole (the front door has read it already). Sent once more,
   * on a new connection, as Go's transport does:
   * - any request the backend did not process: refused (REFUSED_STREAM), or above the last stream
   *   its GOAWAY promised to finish (a backend shutting down gracefully);
   * - an idempotent request whose HTTP/2 connection died before any answer (a backend killed
   *   without GOAWAY): it may have been processed, but doing it again is harmless.
   * A write whose connection died after it was sent is not sent again: the caller answers 503.
   */
  request(host: string, port: number, method: string, path: string, headers: OutgoingHttpHeaders, body: Buffer | undefined): UpstreamRequest {
    let destroyed: Error | undefined;
    let h1: ReturnType<typeof https.request> | undefined;
    let h2: ClientHttp2Stream | undefined;
    const idempotent = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
    const attempt = async (mayRetry: boolean): Promise<UpstreamResponse> => {
      const s = await this.sessionFor(host, port);
      return new Promise<UpstreamResponse>((resolve, reject) => {
        if (destroyed) {
          if (s) s.active--;
          return reject(destroyed);
        }
        if (s) {
          const h2Headers: OutgoingHttpHeaders = { ':method': method, ':path': path, ':authority': String(headers.host ?? `${this.tlsOpts.serverName}:${port}`) };
          for (const [k, v] of Object.entries(headers)) if (v !== undefined && !H2_FORBIDDEN.has(k.toLowerCase())) h2Headers[k.toLowerCase()] = v;
          let answered = false;
          const stream = s.session.request(h2Headers, { endStream: body === undefined || body.length === 0 });
          h2 = stream;
          let settled = false;
          const failed = (err: NodeJS.ErrnoException) => {
            if (answered || settled) return;
            settled = true;
            const deadConnection = s.session.closed || s.session.destroyed || err.code === 'ECONNRESET' || String(err.code ?? '').startsWith('ERR_HTTP2');
            const unprocessed = stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM || (s.goawayLastStreamId !== undefined && stream.id !== undefined && stream.id > s.goawayLastStreamId);
            if (!destroyed && mayRetry && (unprocessed || (idempotent && deadConnection))) {
              // This session is done for: the retry opens a new connection (and sees the backend's real state).
              this.forget(s);
              attempt(false).then(resolve, reject);
            } else reject(destroyed ?? err);
          };
          stream.once('error', failed);
          stream.once('close', () => {
            s.active--;
            // A stream closed without an answer or an error (its session went away with the connection)
            // fails too. (The error only then: an Error's stack trace is dear, and most streams were answered.)
            if (answered || settled) return;
            failed(Object.assign(new Error(`stream closed before a response (code ${stream.rstCode})`), { code: 'ERR_HTTP2_STREAM_CLOSED_EARLY' }));
          });
          stream.once('response', (h) => {
            answered = true;
            const out: IncomingHttpHeaders = {};
            for (const k in h) if (k.charCodeAt(0) !== 58 /* ':' */) out[k] = h[k] as string | string[];
            resolve({ status: Number(h[':status'] ?? 502), headers: out, body: stream, protocol: 'h2' });
          });
          if (body && body.length > 0) stream.end(body);
          return;
        }
        const req = https.request({ host, port, servername: this.tlsOpts.serverName, method, path, headers, agent: this.agent });
        h1 = req;
        req.once('error', reject);
        req.once('response', (res: IncomingMessage) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: res, protocol: 'http/1.1' }));
        req.end(body);
      });
    };
    return {
      response: attempt(true),
      destroy(err = new Error('aborted')) {
        destroyed ??= err;
        h1?.destroy(err);
        h2?.destroy(err);
      },
    };
  }

  /**
   * Drops a session one of whose streams failed: no new stream goes to it, and it is closed
   * gracefully, so the other streams it carries (answers whose bodies are still arriving, watches)
   * finish, as Go's transport retires a connection. Destroying it here cut those answers short:
   * one stream's error became a 500 for every request sharing the connection.
   */
  private forget(s: Session): void {
    for (const [key, list] of this.sessions) {
      const rest = list.filter((x) => x !== s);
      if (rest.length === list.length) continue;
      if (rest.length > 0) this.sessions.set(key, rest);
      else this.sessions.delete(key);
    }
    if (!s.session.closed && !s.session.destroyed) s.session.close();
  }

  /**
   * An HTTP/2 session with a stream reserved (`active` counted already: the caller's stream gives
   * it back on close), or undefined to speak HTTP/1.1; rejects when the backend cannot be reached.
   */
  private async sessionFor(host: string, port: number): Promise<Session | undefined> {
    const s = await this.findSession(host, port);
    if (s) s.active++;
    return s;
  }

  private async findSession(host: string, port: number): Promise<Session | undefined> {
    const key = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    if ((this.h1Until.get(key) ?? 0) > Date.now()) return undefined;
    const live = (this.sessions.get(key) ?? []).filter((s) => !s.session.closed && !s.session.destroyed);
    const max = (s: Session) => s.session.remoteSettings.maxConcurrentStreams ?? 100;
    const free = live.find((s) => s.active < max(s));
    if (free) return free;
    const pending = this.connecting.get(key);
    if (pending) {
      // A backend that cannot be reached fails every waiter alike.
      const s = await pending;
      if (!s || s.active < max(s)) return s;
    }
    const opening = this.connect(host, port, key);
    this.connecting.set(key, opening);
    try {
      return await opening;
    } finally {
      if (this.connecting.get(key) === opening) this.connecting.delete(key);
    }
  }

  private connect(host: string, port: number, key: string): Promise<Session | undefined> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host, port, servername: this.tlsOpts.serverName, ALPNProtocols: ['h2', 'http/1.1'], ...this.secureOptions() });
      socket.once('error', reject);
      socket.once('secureConnect', () => {
        socket.off('error', reject);
        if (this.closed) {
          socket.destroy();
          return reject(new Error('backend closed'));
        }
        if (socket.alpnProtocol !== 'h2') {
          // The backend speaks HTTP/1.1 only: this handshake is dropped, the keep-alive agent takes over.
          this.h1Until.set(key, Date.now() + H1_MEMORY_MS);
          socket.destroy();
          return resolve(undefined);
        }
        const session = http2.connect(`https://${key}`, { createConnection: () => socket, settings: { initialWindowSize: 4 * 1024 * 1024 } });
        this.sessionsOpened++;
        const entry: Session = { session, active: 0 };
        const list = this.sessions.get(key) ?? [];
        list.push(entry);
        this.sessions.set(key, list);
        const forget = () => {
          const cur = this.sessions.get(key)?.filter((s) => s !== entry) ?? [];
          if (cur.length > 0) this.sessions.set(key, cur);
          else this.sessions.delete(key);
        };
        session.once('close', forget);
        session.once('goaway', (_code: number, lastStreamId: number) => {
          entry.goawayLastStreamId = lastStreamId;
          forget();
        });
        // A session error ends its streams (each fails on its own); the session is simply dropped.
        session.on('error', forget);
        session.once('connect', () => {
          session.setLocalWindowSize(16 * 1024 * 1024);
        });
        // An idle session must not keep the process alive.
        session.unref();
        resolve(entry);
      });
    });
  }
}
