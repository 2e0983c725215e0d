/**
 * One request on its way through the proxy (RemoteBackend.proxy starts it): sent to the backend
 * by the transport, limited in time by the traffic contract, and answered to the client.
 *
 * A small answer of declared length (kube objects, mostly) is read whole and written in one go
 * on the client's own response: on the HTTP/2 stream itself (`respond` + `end`) or the HTTP/1.1
 * response (`writeHead` + `end`), past Fastify's reply, which is hijacked. What the pipeline
 * reads when a response finishes still sees it: the status (set on the raw response), the
 * headers the pipeline set (Audit-Id, the flow-control UIDs: taken from the reply), the content
 * length (on the reply), and the raw response's finish/close events (APF release, metrics, the
 * audit's ResponseComplete). Like kube-aggregator's proxy, the audit sees no response body.
 * Everything else (watches, chunked lists, large bodies, HEAD) is streamed through Fastify.
 *
 * Per request this is one object; stream events reach it through module-level listeners (the
 * object hangs on the stream under a symbol), not closures.
 */
import type { Http2ServerResponse } from 'node:http2';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../api/status-errors.ts';
import type { Expiring } from './deadline-sweep.ts';
import type { BackendTransport, UpstreamCall, UpstreamListener, UpstreamResponse } from './backend-transport.ts';
import type { DeadlineSweep } from './deadline-sweep.ts';
import type { BackendProxyMetrics } from './metrics.ts';
import type { TrafficContract } from './traffic.ts';
import { HOP_BY_HOP, copyAnswerHeaders, dialError, sendPlain } from './proxy-http.ts';

/** What a proxied request needs of its backend (remote-backend.ts's RemoteBackend). */
export interface ProxyTarget {
  readonly name: string;
  readonly contract: TrafficContract;
  readonly transport: BackendTransport;
  readonly deadlines: DeadlineSweep<ProxiedRequest>;
  readonly metrics: BackendProxyMetrics | undefined;
  /** Requests in flight that count against the contract's limit. */
  inflight: number;
}

/** Answers up to this size are read whole and written in one go rather than streamed. */
export const WHOLE_ANSWER_BYTES = 1024 * 1024;

const EXCHANGE = Symbol('kube-gateway.proxied-request');
type Tagged<T> = T & { [EXCHANGE]?: ProxiedRequest };

const TIMEOUT = 'KGW_TIMEOUT';

export class ProxiedRequest implements UpstreamListener, Expiring {
  deadline = 0;
  /** The answer is out, or the exchange failed: a client going away no longer ends the backend call. */
  done = false;
  call: UpstreamCall | undefined = undefined;
  private resolve!: (v: unknown) => void;
  private reject!: (e: unknown) => void;
  private released = false;
  private upstream: UpstreamResponse | undefined = undefined;
  private chunks: Buffer[] = [];
  private received = 0;
  private expected = 0;

  constructor(
    private readonly backend: ProxyTarget,
    private readonly req: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly longRunning: boolean,
    /** performance.now() when the proxy took the request. */
    private readonly started: number,
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Sends the request; settles once the answer is handed over (or the error is, as an ApiError to throw). */
  run(headers: OutgoingHttpHeaders, body: Buffer | undefined, authority: string): Promise<unknown> {
    const done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const raw = this.reply.raw as Tagged<FastifyReply['raw']>;
    raw[EXCHANGE] = this;
    // A client that goes away ends the backend request too (a watch must not outlive its client).
    raw.on('close', onClientClose);
    const { timeoutMs } = this.backend.contract;
    if (!this.longRunning && timeoutMs > 0) {
      this.deadline = this.started + timeoutMs;
      this.backend.deadlines.add(this);
    }
    this.call = this.backend.transport.send(this.host, this.port, this.req.method, this.req.raw.url ?? this.req.url, authority, headers, body, this);
    return done;
  }

  /** The contract's time to the backend's response headers ran out. */
  expire(): void {
    this.call?.destroy(Object.assign(new Error('timeout'), { code: TIMEOUT }));
  }

  upstreamFailed(err: NodeJS.ErrnoException): void {
    this.backend.deadlines.delete(this);
    this.finish(err.code === TIMEOUT ? 504 : 503);
    if (err.code === TIMEOUT) {
      this.reject(errors.timeout(`the extension API server of APIService ${this.backend.name} did not answer within ${this.backend.contract.timeoutMs / 1000}s`));
    } else {
      this.resolve(sendPlain(this.reply, 503, dialError(err, this.host, this.port)));
    }
  }

  upstreamResponse(res: UpstreamResponse): void {
    this.backend.deadlines.delete(this);
    this.upstream = res;
    const status = res.status;
    const declared = Number(res.headers['content-length']);
    if (!this.longRunning && status >= 200 && status <= 599 && status !== 204 && status !== 304 && this.req.method !== 'HEAD' && Number.isInteger(declared) && declared >= 0 && declared <= WHOLE_ANSWER_BYTES) {
      // Read whole, then written in one go: a stream handed to Fastify could also be reported
      // closed early ("Premature close", a 500) when a short HTTP/2 answer completed before
      // Fastify's end-of-stream check was attached, though every byte arrived.
      this.expected = declared;
      const body = res.body as Tagged<Readable>;
      body[EXCHANGE] = this;
      body.on('data', onWholeData);
      body.on('end', onWholeEnd);
      body.on('close', onWholeEnd);
      body.on('error', onWholeEnd);
      return;
    }
    const body = res.body as Tagged<Readable>;
    body[EXCHANGE] = this;
    body.once('close', onStreamedClose);
    const reply = this.reply;
    if (status < 100 || status > 599) {
      // Node's HTTP/1.1 parser takes any three digits; neither Fastify nor HTTP/2 can answer with more than 599.
      body.destroy();
      return this.resolve(sendPlain(reply, 503, `malformed HTTP status code "${status}"`));
    }
    try {
      reply.code(status);
      for (const k in res.headers) {
        const v = res.headers[k];
        if (v !== undefined && k.charCodeAt(0) !== 58 /* ':' */ && !HOP_BY_HOP.has(k)) reply.header(k, v);
      }
      this.resolve(reply.send(body));
    } catch (err) {
      // An answer the front door cannot pass on: the request fails (a 500), the gateway goes on.
      body.destroy();
      this.reject(err);
    }
  }

  /** Every byte the backend declared arrived, or the body ended short. */
  wholeEnded(): void {
    if (this.done) return;
    const status = this.upstream!.status;
    this.finish(status);
    const reply = this.reply;
    // Hijacked: Fastify neither answers after us nor runs its send path; its response hooks still run on finish.
    reply.hijack();
    if (this.received !== this.expected) {
      // The backend's answer was cut off: so is the client's.
      reply.raw.destroy();
      return this.resolve(reply);
    }
    const whole = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.received);
    reply.header('content-length', String(whole.length));
    const out = copyAnswerHeaders(this.upstream!.headers, reply.getHeaders() as OutgoingHttpHeaders);
    const raw = reply.raw as Http2ServerResponse | ServerResponse;
    try {
      if ('stream' in raw) {
        const stream = raw.stream;
        // The client went away meanwhile: nothing to answer.
        if (!stream.destroyed && !stream.closed) {
          raw.statusCode = status;
          out[':status'] = status;
          stream.respond(out);
          stream.end(whole);
        }
      } else {
        raw.writeHead(status, out);
        raw.end(whole);
      }
    } catch {
      // A header the client's protocol cannot carry: the answer cannot go out as it is, so none does.
      raw.destroy();
    }
    this.resolve(reply);
  }

  /** A streamed answer's body ended (or failed): the exchange is over. */
  streamedClosed(): void {
    this.finish(this.upstream!.status);
  }

  gotChunk(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.received += chunk.length;
  }

  /** The exchange is over for the contract and the metrics. */
  finish(status: number): void {
    if (this.done) return;
    this.done = true;
    if (!this.released) {
      this.released = true;
      if (!this.longRunning) this.backend.inflight--;
    }
    this.backend.metrics?.observe(status, this.started);
  }
}

function onClientClose(this: Tagged<FastifyReply['raw']>): void {
  const ex = this[EXCHANGE]!;
  if (!ex.done && !this.writableFinished) ex.call?.destroy();
}

function onWholeData(this: Tagged<Readable>, chunk: Buffer): void {
  this[EXCHANGE]!.gotChunk(chunk);
}

function onWholeEnd(this: Tagged<Readable>): void {
  this[EXCHANGE]!.wholeEnded();
}

function onStreamedClose(this: Tagged<Readable>): void {
  this[EXCHANGE]!.streamedClosed();
}
