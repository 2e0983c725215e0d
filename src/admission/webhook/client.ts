/**
 * Calls admission webhooks over HTTPS through a pool of keep-alive connections: one agent per
 * trust and client identity (caBundle, client certificate), so a warm pool serves every request
 * without a new handshake. Failures become CallError with the wording of Go's HTTP client
 * (`Post "https://...": dial tcp ...: connect: connection refused`), as kube-apiserver reports them.
 */
import https from 'node:https';
import { createHash } from 'node:crypto';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { isIP } from 'node:net';

/** Where and how one webhook is reached. */
export interface WebhookEndpoint {
  /** The URL as kube names it in messages (`https://svc.ns.svc:443/path?timeout=10s`). */
  readonly url: string;
  /** Where to connect; differs from the URL's host when a service is resolved through the override map. */
  readonly dialHost: string;
  readonly dialPort: number;
  /** The name the serving certificate must carry (the URL's host). */
  readonly serverName: string;
  readonly path: string;
  /** PEM trust roots; absent: the system roots. */
  readonly ca?: string;
  readonly clientCert?: { readonly cert: string; readonly key: string };
  readonly bearerToken?: string;
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

export class WebhookClient {
  private readonly agents = new Map<string, https.Agent>();

  private agentFor(ep: WebhookEndpoint): https.Agent {
    const key = createHash('sha256')
      .update(`${ep.ca ?? ''}\u0000${ep.clientCert?.cert ?? ''}\u0000${ep.clientCert?.key ?? ''}`)
      .digest('hex');
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
  post(ep: WebhookEndpoint, body: Buffer, timeoutMs: number): Promise<CallResult> {
    const deadline = Date.now() + timeoutMs;
    return this.attempt(ep, body, deadline, true);
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
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
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
