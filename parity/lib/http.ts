/**
 * The harness's HTTP client: one raw request to one server, answered as status, headers and body
 * bytes. No decoding and no retries, so what the harness compares is exactly what the server sent.
 */
import https from 'node:https';
import http2 from 'node:http2';

/** How to reach one server: its base URL and the TLS material of the admin identity. */
export interface Endpoint {
  readonly label: string;
  readonly url: string;
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface RawRequest {
  readonly method: string;
  /** Path and query, sent as given (no re-encoding), so malformed paths reach the server intact. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length (over HTTP/2: no content-length). */
  readonly chunked?: boolean;
  /** Use HTTP/2 (as kubectl and client-go do) instead of HTTP/1.1. */
  readonly http2?: boolean;
  /** Abort the request after this many milliseconds (watches end on their own before it). */
  readonly timeoutMs: number;
}

export interface RawResponse {
  readonly status: number;
  /** Header names lower-cased; repeated headers (Warning) keep every value in order. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly body: Buffer;
  /** Set when the client gave up or the connection failed; status is then 0. */
  readonly error?: string;
}

/** One agent per endpoint so keep-alive connections are reused across a run. */
const agents = new WeakMap<Endpoint, https.Agent>();

function agentFor(ep: Endpoint): https.Agent {
  let agent = agents.get(ep);
  if (!agent) {
    agent = new https.Agent({ ca: ep.ca, cert: ep.cert, key: ep.key, keepAlive: true, maxSockets: 8 });
    agents.set(ep, agent);
  }
  return agent;
}

/** One HTTP/2 session per endpoint, opened on first use. */
const sessions = new WeakMap<Endpoint, http2.ClientHttp2Session>();

function sessionFor(ep: Endpoint): http2.ClientHttp2Session {
  let session = sessions.get(ep);
  if (!session || session.closed || session.destroyed) {
    session = http2.connect(ep.url, { ca: ep.ca, cert: ep.cert, key: ep.key });
    session.on('error', () => sessions.delete(ep));
    sessions.set(ep, session);
  }
  return session;
}

function sendHttp2(ep: Endpoint, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve) => {
    const headers: http2.OutgoingHttpHeaders = { ':method': req.method, ':path': req.path, ...req.headers };
    delete headers['transfer-encoding'];
    if (req.body !== undefined && !req.chunked) headers['content-length'] = String(req.body.length);
    const chunks: Buffer[] = [];
    let status = 0;
    let resHeaders: Record<string, string[]> = {};
    let settled = false;
    const done = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, headers: resHeaders, body: Buffer.concat(chunks), ...(error ? { error } : {}) });
    };
    let stream: http2.ClientHttp2Stream;
    try {
      stream = sessionFor(ep).request(headers);
    } catch (err) {
      resolve({ status: 0, headers: {}, body: Buffer.alloc(0), error: (err as Error).message });
      return;
    }
    const timer = setTimeout(() => {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      done(`no complete answer within ${req.timeoutMs} ms`);
    }, req.timeoutMs);
    stream.on('response', (h) => {
      status = Number(h[':status'] ?? 0);
      resHeaders = {};
      for (const [name, value] of Object.entries(h)) {
        if (name.startsWith(':') || value === undefined) continue;
        resHeaders[name] = Array.isArray(value) ? value.map(String) : [String(value)];
      }
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => done());
    stream.on('error', (err) => done(err.message));
    if (req.body && req.chunked) {
      const half = Math.floor(req.body.length / 2);
      stream.write(req.body.subarray(0, half));
      stream.end(req.body.subarray(half));
    } else {
      stream.end(req.body);
    }
  });
}

/** Sends one request; never rejects (transport failures come back as status 0 with `error`). */
export function send(ep: Endpoint, req: RawRequest): Promise<RawResponse> {
  if (req.http2) return sendHttp2(ep, req);
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined && !req.chunked && headers['content-length'] === undefined) headers['content-length'] = String(req.body.length);
    let settled = false;
    const done = (r: RawResponse) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(r);
      }
    };
    const chunks: Buffer[] = [];
    const out = https.request(`${ep.url}${req.path}`, { method: req.method, headers, agent: agentFor(ep) }, (res) => {
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: collectHeaders(res.rawHeaders), body: Buffer.concat(chunks) }));
      res.on('error', (err) => done({ status: res.statusCode ?? 0, headers: collectHeaders(res.rawHeaders), body: Buffer.concat(chunks), error: err.message }));
    });
    const timer = setTimeout(() => {
      out.destroy(new Error(`no complete answer within ${req.timeoutMs} ms`));
    }, req.timeoutMs);
    out.on('error', (err) => done({ status: 0, headers: {}, body: Buffer.concat(chunks), error: err.message }));
    if (req.chunked && req.body) {
      // Two writes without a length: Node sends them as chunks.
      const half = Math.floor(req.body.length / 2);
      out.write(req.body.subarray(0, half));
      out.end(req.body.subarray(half));
    } else {
      out.end(req.body);
    }
  });
}

function collectHeaders(raw: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    (out[name] ??= []).push(raw[i + 1]!);
  }
  return out;
}

/** Closes the keep-alive connections of an endpoint (end of a run). */
export function closeEndpoint(ep: Endpoint): void {
  agents.get(ep)?.destroy();
  agents.delete(ep);
  sessions.get(ep)?.close();
  sessions.delete(ep);
}
