/**
 * Calls admission webhooks over HTTPS, as kube-apiserver's webhook client does: HTTP/2 when the
 * endpoint may use it (`http2Allowed`: kube offers `h2` only to URL webhooks on a loopback host,
 * so that calls through a Service spread over its pods, kubernetes issue 75791) and the webhook
 * offers it in the TLS handshake (ALPN `h2`), else HTTP/1.1.
 *
 * - HTTP/2: one multiplexed session per webhook address and identity, kept while used and closed
 *   after 90 s idle (Go's IdleConnTimeout); a session the webhook closed (GOAWAY, reset) is
 *   replaced on the next call, and a call that failed on a stale session before any answer is
 *   sent once more on a fresh one.
 * - HTTP/1.1: a pool of keep-alive connections, one agent per trust and client identity
 *   (caBundle, client certificate), so a warm pool serves every request without a new handshake.
 *
 * The protocol is learnt from the first connection to an address (one handshake offering both)
 * and remembered for 5 minutes, so a webhook that starts offering HTTP/2 is picked up.
 * Failures become CallError with the wording of Go's HTTP client
 * (`Post "https://...": dial tcp ...: connect: connection refused`), as kube-apiserver reports them.
 */
import https from 'node:https';
import http2 from 'node:http2';
import { createHash } from 'node:crypto';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { isIP } from 'node:net';

/** Where and how one webhook is reached. */
export interface WebhookEndpoint {
  /** The URL as kube names it in messages (`https://svc.ns.svc:443/path?timeout=10s`). */
  readonly url: string;
  /** Where to connect; for a service reference, where the gateway's service resolver says (target.ts). */
  readonly dialHost: string;
  readonly dialPort: number;
  /** The name the serving certificate must carry (the URL's host). */
  readonly serverName: string;
  readonly path: string;
  /** PEM trust roots; absent: the system roots. */
  readonly ca?: string;
  readonly clientCert?: { readonly cert: string; readonly key: string };
  readonly bearerToken?: string;
  /** HTTP/2 may be offered: a URL webhook whose host is `localhost` or a loopback IP (target.ts). */
  readonly http2Allowed?: boolean;
}

export class CallError extends Error {
  constructor(
    message: string,
    /** The call timed out (for the breaker and kube's wording). */
    readonly timeout = false,
  ) {
    super(message);
    this.name = 'CallError';
  }
}

export interface CallResult {
  readonly status: number;
  readonly body: Buffer;
}

/** Largest webhook response read (kube limits the response body too). */
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

/** Go's http.Transport IdleConnTimeout: an HTTP/2 session unused this long is closed. */
const H2_IDLE_MS = 90_000;
/** How long an address that answered with HTTP/1.1 is not asked for HTTP/2 again. */
const HTTP1_MEMORY_MS = 5 * 60_000;

/** What the first handshake with an address gave: an HTTP/2 session, or the knowledge that it speaks HTTP/1.1. */
type Connection = { readonly h2: http2.ClientHttp2Session } | { readonly http1: true };

export class WebhookClient {
  private readonly agents = new Map<string, https.Agent>();
  /** HTTP/2 sessions (or their handshakes in progress) by address and identity. */
  private readonly sessions = new Map<string, Promise<Connection>>();
  /** Addresses that chose HTTP/1.1, with when that was learnt. */
  private readonly http1 = new Map<string, number>();
  private closed = false;
  /** Sessions that carried a call already (a failure on one may be a stale session, worth one retry). */
  private readonly usedSessions = new WeakSet<http2.ClientHttp2Session>();

  private identityKey(ep: WebhookEndpoint): string {
    return createHash('sha256')
      .update(`${ep.ca ?? ''}\u0000${ep.clientCert?.cert ?? ''}\u0000${ep.clientCert?.key ?? ''}`)
      .digest('hex');
  }

  private addressKey(ep: WebhookEndpoint): string {
    return `${ep.dialHost}\u0000${ep.dialPort}\u0000${ep.serverName}\u0000${this.identityKey(ep)}`;
  }

  private agentFor(ep: WebhookEndpoint): https.Agent {
    const key = this.identityKey(ep);
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new https.Agent({
        keepAlive: true,
        maxSockets: 256,
        maxFreeSockets: 64,
        ...(ep.ca ? { ca: ep.ca } : {}),
        ...(ep.clientCert ? { cert: ep.clientCert.cert, key: ep.clientCert.key } : {}),
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** POSTs `body` (JSON) and resolves with the response; rejects with CallError. */
  async post(ep: WebhookEndpoint, body: Buffer, timeoutMs: number): Promise<CallResult> {
    const deadline = Date.now() + timeoutMs;
    if (!ep.http2Allowed) return this.attempt(ep, body, deadline, true);
    const key = this.addressKey(ep);
    const learnt = this.http1.get(key);
    if (learnt !== undefined && Date.now() - learnt < HTTP1_MEMORY_MS) return this.attempt(ep, body, deadline, true);
    const conn = await this.connection(ep, key, deadline);
    if ('http1' in conn) return this.attempt(ep, body, deadline, true);
    return this.h2Attempt(ep, key, conn.h2, body, deadline, true);
  }

  /**
   * The HTTP/2 session for an address, made on first use: a TLS handshake offering `h2` and
   * `http/1.1`; a webhook choosing HTTP/1.1 is remembered and served by the keep-alive agent.
   */
  private connection(ep: WebhookEndpoint, key: string, deadline: number): Promise<Connection> {
    const existing = this.sessions.get(key);
    if (existing) return existing;
    const made = new Promise<Connection>((resolve, reject) => {
      const what = `Post ${JSON.stringify(ep.url)}`;
      const socket: TLSSocket = tlsConnect({
        host: ep.dialHost,
        port: ep.dialPort,
        ...(isIP(ep.serverName) ? {} : { servername: ep.serverName }),
        ALPNProtocols: ['h2', 'http/1.1'],
        ...(ep.ca ? { ca: ep.ca } : {}),
        ...(ep.clientCert ? { cert: ep.clientCert.cert, key: ep.clientCert.key } : {}),
        checkServerIdentity: (_host, cert) => tlsIdentityError(ep.serverName, cert),
      });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new CallError(`${what}: context deadline exceeded`, true));
      }, Math.max(0, deadline - Date.now()));
      socket.once('error', (err: Error & { code?: string }) => {
        clearTimeout(timer);
        reject(new CallError(`${what}: ${goNetError(err, ep)}`));
      });
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        if (socket.alpnProtocol !== 'h2') {
          // HTTP/1.1: this handshake is not wasted on the agent's pool; the next calls use the agent.
          socket.destroy();
          this.http1.set(key, Date.now());
          resolve({ http1: true });
          return;
        }
        const session = http2.connect(`https://${ep.serverName.includes(':') ? `[${ep.serverName}]` : ep.serverName}:${ep.dialPort}`, { createConnection: () => socket });
        const forget = () => {
          if (this.sessions.get(key) === made) this.sessions.delete(key);
        };
        session.on('close', forget);
        session.on('goaway', forget);
        // Errors end the session; calls on it see their own stream errors.
        session.on('error', forget);
        session.setTimeout(H2_IDLE_MS, () => session.close());
        // An idle session does not keep the process alive.
        session.unref();
        resolve({ h2: session });
      });
    });
    this.sessions.set(key, made);
    made.then(
      (c) => {
        if ('http1' in c && this.sessions.get(key) === made) this.sessions.delete(key);
        if (this.closed && 'h2' in c) c.h2.destroy();
      },
      () => {
        if (this.sessions.get(key) === made) this.sessions.delete(key);
      },
    );
    return made;
  }

  /** One call on an HTTP/2 session; a stale session's failure before any answer is retried once on a new one. */
  private h2Attempt(ep: WebhookEndpoint, key: string, session: http2.ClientHttp2Session, body: Buffer, deadline: number, mayRetry: boolean): Promise<CallResult> {
    const what = `Post ${JSON.stringify(ep.url)}`;
    const reused = mayRetry && this.usedSessions.has(session);
    this.usedSessions.add(session);
    return new Promise<CallResult>((resolve, reject) => {
      let settled = false;
      let answered = false;
      let stream: http2.ClientHttp2Stream;
      const fail = (message: string, timeout = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
        if (reused && !timeout && !answered && Date.now() < deadline) {
          // The webhook closed the session while it was idle: the request never reached it.
          if (!session.closed && !session.destroyed) session.close();
          this.sessions.delete(key);
          resolve(this.connection(ep, key, deadline).then((c) => ('h2' in c ? this.h2Attempt(ep, key, c.h2, body, deadline, false) : this.attempt(ep, body, deadline, false))));
          return;
        }
        reject(new CallError(`${what}: ${message}`, timeout));
      };
      const timer = setTimeout(() => fail('context deadline exceeded', true), Math.max(0, deadline - Date.now()));
      try {
        stream = session.request({
          ':method': 'POST',
          ':path': ep.path,
          ':authority': authorityOf(ep.url),
          'content-type': 'application/json',
          accept: 'application/json, */*',
          'content-length': String(body.length),
          ...(ep.bearerToken ? { authorization: `Bearer ${ep.bearerToken}` } : {}),
        });
      } catch (err) {
        // A session that closed between its handshake and this call.
        stream = { destroyed: true } as http2.ClientHttp2Stream;
        fail(goNetError(err as Error & { code?: string }, ep));
        return;
      }
      let status = 0;
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('response', (headers) => {
        answered = true;
        status = Number(headers[':status'] ?? 0);
      });
      stream.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) fail('response body too large');
        else chunks.push(c);
      });
      stream.on('end', () => {
        if (settled) return;
        if (!answered) return fail('unexpected EOF');
        settled = true;
        clearTimeout(timer);
        resolve({ status, body: Buffer.concat(chunks) });
      });
      stream.on('error', (err: Error & { code?: string }) => fail(goNetError(err, ep)));
      stream.on('close', () => {
        if (!settled) fail(answered ? 'unexpected EOF' : 'EOF');
      });
      stream.end(body);
    });
  }

  /**
   * One attempt. A pooled connection the webhook closed while idle fails before any answer; that
   * request never reached the webhook, so it is sent once more on a new connection (as Go's
   * transport does for a connection lost before the request was written).
   */
  private attempt(ep: WebhookEndpoint, body: Buffer, deadline: number, mayRetry: boolean): Promise<CallResult> {
    const what = `Post ${JSON.stringify(ep.url)}`;
    return new Promise<CallResult>((resolve, reject) => {
      let settled = false;
      let answered = false;
      const fail = (message: string, timeout = false, err?: Error & { code?: string }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        const staleConnection = mayRetry && !timeout && !answered && req.reusedSocket && (err?.code === 'ECONNRESET' || err?.message === 'socket hang up');
        if (staleConnection && Date.now() < deadline) {
          resolve(this.attempt(ep, body, deadline, false));
          return;
        }
        reject(new CallError(`${what}: ${message}`, timeout));
      };
      const req = https.request(
        {
          method: 'POST',
          host: ep.dialHost,
          port: ep.dialPort,
          path: ep.path,
          // SNI carries host names only (RFC 6066); an IP URL is still verified against the IP.
          ...(isIP(ep.serverName) ? {} : { servername: ep.serverName }),
          agent: this.agentFor(ep),
          headers: {
            host: ep.serverName,
            'content-type': 'application/json',
            accept: 'application/json, */*',
            'content-length': String(body.length),
            ...(ep.bearerToken ? { authorization: `Bearer ${ep.bearerToken}` } : {}),
          },
          // Node checks the certificate against `servername`; an IP URL is checked as an IP SAN.
          checkServerIdentity: (_host, cert) => tlsIdentityError(ep.serverName, cert),
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE_BYTES) fail('response body too large');
            else chunks.push(c);
          });
          res.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
          });
          res.on('error', (err) => fail(goNetError(err, ep)));
          res.on('aborted', () => fail('unexpected EOF'));
        },
      );
      const timer = setTimeout(() => fail('context deadline exceeded', true), Math.max(0, deadline - Date.now()));
      req.on('error', (err: Error & { code?: string }) => fail(goNetError(err, ep), false, err));
      req.end(body);
    });
  }

  close(): void {
    this.closed = true;
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
    for (const s of this.sessions.values()) s.then((c) => 'h2' in c && c.h2.destroy(), () => undefined);
    this.sessions.clear();
  }
}

/** The `:authority` Go sends: the URL's host, with its port unless it is 443. */
function authorityOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

function tlsIdentityError(name: string, cert: PeerCertificate): Error | undefined {
  return checkServerIdentity(name.replace(/^\[|\]$/g, ''), cert);
}

/** A socket or TLS error in Go's net/http wording. */
function goNetError(err: Error & { code?: string }, ep: WebhookEndpoint): string {
  const addr = `${ep.dialHost.includes(':') ? `[${ep.dialHost}]` : ep.dialHost}:${ep.dialPort}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${ep.dialHost}: no such host`;
    case 'ECONNRESET':
    case 'EPIPE':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${ep.serverName}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      if (err.message === 'socket hang up') return 'EOF';
      return err.message;
  }
}
