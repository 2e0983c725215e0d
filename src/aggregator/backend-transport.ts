/**
 * How the gateway talks to one extension API server: HTTP/2 when the backend offers it in ALPN
 * (as kube-aggregator's Go transport does; Go API servers offer h2), HTTP/1.1 with keep-alive
 * when it does not. One TLS configuration for both: the caBundle (or insecureSkipTLSVerify), the
 * server name `<service>.<namespace>.svc`, the front-proxy client certificate.
 *
 * HTTP/2 multiplexes every proxied request and watch of a backend on few connections; a session
 * takes at most the backend's SETTINGS_MAX_CONCURRENT_STREAMS streams (a watch holds one for its
 * whole life), so a further session opens when every session is full. A session that received
 * GOAWAY, or is closing, takes no new stream. A backend that answered `http/1.1` is remembered
 * for a minute, then ALPN is asked again (it may have been upgraded). Upgrade requests (exec,
 * attach, port-forward) never use this: they need their own HTTP/1.1 connection (see upgrade.ts).
 *
 * Every proxied request passes through here, so the per-request path allocates one call object
 * and uses module-level stream listeners (no closures, no promise) when a session is open.
 */
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { judgeLostStream, type GoawayReceived } from './lost-stream.ts';

export interface BackendTls {
  readonly ca?: string;
  readonly rejectUnauthorized: boolean;
  readonly clientCert?: { readonly cert: string; readonly key: string };
  /** The name the backend's certificate is verified for (SNI too). */
  readonly serverName: string;
}

/** What a backend answered: status, headers, and the body as a stream. */
export interface UpstreamResponse {
  readonly status: number;
  /** The backend's headers; over HTTP/2 they include pseudo-headers (`:status`), which consumers skip. */
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable;
  readonly protocol: 'h2' | 'http/1.1';
}

/**
 * How a caller hears the outcome of one exchange: exactly one of the two is called. (An object
 * rather than callbacks: the proxy passes its per-request state itself.)
 */
export interface UpstreamListener {
  /** The backend's response headers arrived; the body streams from `res.body`. */
  upstreamResponse(res: UpstreamResponse): void;
  /** No response: the backend could not be reached, the call was destroyed, or its stream was lost (lost-stream.ts). */
  upstreamFailed(err: NodeJS.ErrnoException): void;
}

export interface UpstreamCall {
  /** Ends the exchange (client gone, timeout): the response stream, or the pending response, fails with `err`. */
  destroy(err?: Error): void;
}

export interface UpstreamRequest extends UpstreamCall {
  readonly response: Promise<UpstreamResponse>;
}

/** How long a backend that declined h2 is spoken to in HTTP/1.1 before ALPN is asked again. */
const H1_MEMORY_MS = 60_000;

/** Streams a session takes before the backend's SETTINGS say (RFC 9113's recommended minimum). */
const DEFAULT_MAX_STREAMS = 100;

interface Session {
  readonly session: ClientHttp2Session;
  /** Streams open on it, counting those reserved by a call about to open one. */
  active: number;
  /** The backend's SETTINGS_MAX_CONCURRENT_STREAMS, kept current from its settings frames. */
  maxStreams: number;
  /** The last GOAWAY the backend sent on it: no new stream goes to it after one. */
  goaway?: GoawayReceived;
  /** The socket error that ended it (ECONNRESET...), if one did. */
  socketError?: NodeJS.ErrnoException;
}

/** A session that may take a new stream: not closing, not destroyed, no GOAWAY received, a free stream. */
function usable(s: Session): boolean {
  return s.goaway === undefined && s.active < s.maxStreams && !s.session.closed && !s.session.destroyed;
}

const CALL = Symbol('kube-gateway.upstream-call');
const SESSION = Symbol('kube-gateway.upstream-session');
/** A stream knows its call and its session (a call sent again has a new stream, maybe on another session). */
type CallStream = ClientHttp2Stream & { [CALL]?: Call; [SESSION]?: Session };

const END_STREAM = { endStream: true };
const OPEN_STREAM = { endStream: false };

/** One request to the backend, sent again at most once (lost-stream.ts). */
class Call implements UpstreamCall {
  destroyed: Error | undefined = undefined;
  /** The response headers arrived, or the listener heard of a failure. */
  settled = false;
  retried = false;
  stream: ClientHttp2Stream | undefined = undefined;
  session: Session | undefined = undefined;
  h1: ClientRequest | undefined = undefined;

  constructor(
    readonly transport: BackendTransport,
    readonly host: string,
    readonly port: number,
    readonly key: string,
    readonly method: string,
    readonly path: string,
    readonly authority: string,
    readonly headers: OutgoingHttpHeaders,
    readonly body: Buffer | undefined,
    readonly listener: UpstreamListener,
  ) {}

  /** Sends on an open session when there is one, else opens a connection first. */
  start(): void {
    const t = this.transport;
    if (t.speaksH1(this.key)) return this.startH1();
    const s = t.openSession(this.key);
    if (s) return this.startH2(s);
    t.connectFor(this.host, this.port, this.key).then(
      (opened) => {
        if (!opened) this.startH1();
        else if (usable(opened)) this.startH2(opened);
        // Filled by the calls that waited with us: another session.
        else if (opened.goaway === undefined && !opened.session.closed && !opened.session.destroyed) this.start();
        else this.retryOr(Object.assign(new Error('http2: client connection lost'), { code: 'KGW_H2_LOST' }));
      },
      (err: NodeJS.ErrnoException) => this.fail(err),
    );
  }

  fail(err: NodeJS.ErrnoException): void {
    if (this.settled) return;
    this.settled = true;
    this.listener.upstreamFailed(this.destroyed ?? err);
  }

  private startH2(s: Session): void {
    if (this.destroyed) return this.fail(this.destroyed);
    s.active++;
    this.session = s;
    const h = this.headers;
    h[':method'] = this.method;
    h[':path'] = this.path;
    h[':authority'] = this.authority;
    const hasBody = this.body !== undefined && this.body.length > 0;
    let stream: CallStream;
    try {
      stream = s.session.request(h, hasBody ? OPEN_STREAM : END_STREAM);
    } catch (err) {
      s.active--;
      // A header this request cannot carry: its own failure, the session stays.
      if (!s.session.closed && !s.session.destroyed) return this.fail(err as NodeJS.ErrnoException);
      // The session closed under us (between our check and now): lost before it was sent.
      this.transport.retire(s);
      return this.retryOr(err as NodeJS.ErrnoException);
    }
    if (s.session.destroyed) {
      // Node destroys the session for a header name it refuses and leaves the stream unopened, never to close: fail now.
      s.active--;
      stream.destroy();
      this.transport.retire(s);
      return this.fail(Object.assign(new Error('http2: client connection lost'), { code: 'KGW_H2_LOST' }));
    }
    stream[CALL] = this;
    stream[SESSION] = s;
    this.stream = stream;
    stream.on('response', onH2Response);
    stream.on('error', onH2Error);
    stream.on('close', onH2Close);
    if (hasBody) stream.end(this.body);
  }

  private startH1(): void {
    if (this.destroyed) return this.fail(this.destroyed);
    const t = this.transport;
    const h = this.headers;
    h.host = this.authority;
    const req = https.request({ host: this.host, port: this.port, servername: t.serverName, method: this.method, path: this.path, headers: h, agent: t.agent });
    this.h1 = req;
    req.once('error', (err: NodeJS.ErrnoException) => this.fail(err));
    req.once('response', (res: IncomingMessage) => {
      if (this.settled) return;
      this.settled = true;
      this.listener.upstreamResponse({ status: res.statusCode ?? 502, headers: res.headers, body: res, protocol: 'http/1.1' });
    });
    req.end(this.body);
  }

  /** The current stream ended before its response headers. */
  lost(): void {
    if (this.settled) return;
    if (this.destroyed) return this.fail(this.destroyed);
    const s = this.session!;
    const stream = this.stream!;
    const session = s.session;
    const verdict = judgeLostStream(
      { id: stream.id, rstCode: stream.rstCode, goaway: s.goaway, connectionLost: session.destroyed || s.socketError !== undefined, socketError: s.socketError },
      this.method === 'GET' || this.method === 'HEAD' || this.method === 'OPTIONS',
      this.body !== undefined && this.body.length > 0,
    );
    // A session that lost its connection or was told to go away takes no new stream (a refused stream alone leaves it in use).
    if (s.goaway || session.destroyed || session.closed) this.transport.retire(s);
    if (verdict.retry) this.retryOr(verdict.error);
    else this.fail(verdict.error);
  }

  private retryOr(err: NodeJS.ErrnoException): void {
    if (this.retried) return this.fail(err);
    this.retried = true;
    // The lost stream's last events are ignored from now on.
    this.stream = undefined;
    this.session = undefined;
    delete this.headers[':method'];
    delete this.headers[':path'];
    delete this.headers[':authority'];
    this.start();
  }

  destroy(err: Error = new Error('aborted')): void {
    this.destroyed ??= err;
    if (this.h1) this.h1.destroy(err);
    else if (this.stream) this.stream.destroy(err);
    // Not sent yet (a connection opening): it fails as soon as it would be.
    else this.fail(err);
  }
}

function onH2Response(this: CallStream, headers: IncomingHttpHeaders): void {
  const call = this[CALL]!;
  if (call.stream !== this || call.settled) return;
  call.settled = true;
  call.listener.upstreamResponse({ status: Number(headers[':status'] ?? 502), headers, body: this, protocol: 'h2' });
}

/** Before the response: the call decides (lost-stream.ts). After it: the body's consumer sees the error; this listener only keeps it from being unhandled. */
function onH2Error(this: CallStream): void {
  const call = this[CALL]!;
  if (call.stream === this) call.lost();
}

function onH2Close(this: CallStream): void {
  this[SESSION]!.active--;
  const call = this[CALL]!;
  // A stream closed without an answer or an error (its session went away with the connection) is lost too.
  if (call.stream === this) call.lost();
}

/** The promise face of a call (the gateway's own requests: discovery, availability, namespace cleanup). */
class PromisedCall implements UpstreamListener {
  resolve!: (res: UpstreamResponse) => void;
  reject!: (err: Error) => void;
  readonly response = new Promise<UpstreamResponse>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });
  upstreamResponse(res: UpstreamResponse): void {
    this.resolve(res);
  }
  upstreamFailed(err: NodeJS.ErrnoException): void {
    this.reject(err);
  }
}

export class BackendTransport {
  /** HTTP/1.1 connections (backends without h2), kept alive. */
  readonly agent: https.Agent;
  readonly serverName: string;
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
    this.serverName = tlsOpts.serverName;
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
   * Sends one request: `headers` (lower-case names, no connection-specific ones, no `host`) are
   * taken over and completed with `authority` as HTTP/2 pseudo-headers or `host`; `body` is sent
   * whole (the front door has read it already). `listener` hears the response headers or the
   * failure. A stream lost with its session before its answer is sent once more on another
   * session when lost-stream.ts says it is safe, as Go's transport does.
   */
  send(host: string, port: number, method: string, path: string, authority: string, headers: OutgoingHttpHeaders, body: Buffer | undefined, listener: UpstreamListener): UpstreamCall {
    const key = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const call = new Call(this, host, port, key, method, path, authority, headers, body, listener);
    call.start();
    return call;
  }

  /** `send` with a promise; `headers.host` is the authority. */
  request(host: string, port: number, method: string, path: string, headers: OutgoingHttpHeaders, body: Buffer | undefined): UpstreamRequest {
    const { host: authority, ...rest } = headers;
    const promised = new PromisedCall();
    const call = this.send(host, port, method, path, String(authority ?? `${this.serverName}:${port}`), rest, body, promised);
    return { response: promised.response, destroy: (err) => call.destroy(err) };
  }

  /** Whether `key` is spoken to in HTTP/1.1 for now. */
  speaksH1(key: string): boolean {
    const until = this.h1Until.get(key);
    return until !== undefined && until > Date.now();
  }

  /** An open session of `key` with a free stream, if any. */
  openSession(key: string): Session | undefined {
    const list = this.sessions.get(key);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) if (usable(list[i]!)) return list[i];
    return undefined;
  }

  /**
   * Drops a session one of whose streams failed: no new stream goes to it, and it is closed
   * gracefully, so the other streams it carries (answers whose bodies are still arriving, watches)
   * finish, as Go's transport retires a connection. Destroying it here cut those answers short:
   * one stream's error became a 500 for every request sharing the connection.
   */
  retire(s: Session): void {
    for (const [key, list] of this.sessions) {
      const rest = list.filter((x) => x !== s);
      if (rest.length === list.length) continue;
      if (rest.length > 0) this.sessions.set(key, rest);
      else this.sessions.delete(key);
    }
    if (!s.session.closed && !s.session.destroyed) s.session.close();
  }

  /**
   * A new session to `key` (undefined: the backend speaks HTTP/1.1 only); one negotiation at a
   * time per address, which every call arriving meanwhile waits for. Rejects when the backend
   * cannot be reached.
   */
  connectFor(host: string, port: number, key: string): Promise<Session | undefined> {
    const pending = this.connecting.get(key);
    if (pending) return pending;
    const opening = this.connect(host, port, key);
    this.connecting.set(key, opening);
    const done = () => {
      if (this.connecting.get(key) === opening) this.connecting.delete(key);
    };
    opening.then(done, done);
    return opening;
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
        const entry: Session = { session, active: 0, maxStreams: DEFAULT_MAX_STREAMS };
        const list = this.sessions.get(key) ?? [];
        list.push(entry);
        this.sessions.set(key, list);
        const forget = () => {
          const cur = this.sessions.get(key)?.filter((s) => s !== entry) ?? [];
          if (cur.length > 0) this.sessions.set(key, cur);
          else this.sessions.delete(key);
        };
        session.once('close', forget);
        session.on('remoteSettings', (settings: http2.Settings) => {
          entry.maxStreams = settings.maxConcurrentStreams ?? DEFAULT_MAX_STREAMS;
        });
        session.on('goaway', (code: number, lastStreamId: number) => {
          entry.goaway = { code, lastStreamId };
          forget();
        });
        // A session error ends its streams (each fails on its own); the session is simply dropped.
        session.on('error', (err: NodeJS.ErrnoException) => {
          if (err.code !== undefined && !err.code.startsWith('ERR_HTTP2')) entry.socketError ??= err;
          forget();
        });
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
