/**
 * Admission under load, so that no set of clients can exhaust the process:
 *
 * - kube-apiserver's in-flight limits (`--max-requests-inflight` 400 read-only,
 *   `--max-mutating-requests-inflight` 200 mutating): a request over its limit is 429 with
 *   kube's Status and `Retry-After: 1`. Long-running requests (request/long-running.ts: watches,
 *   exec, attach, log, port-forward, proxy), system:masters and the
 *   health endpoints are exempt, as in kube's WithMaxInFlightLimit (health endpoints so that
 *   probes stay fast under any load).
 * - A budget of request-body bytes for large bodies: a body over LARGE_BODY_BYTES waits for its
 *   share before it is read (the socket is not read meanwhile, so TCP holds the bytes, not us) and
 *   keeps it until its response is sent. That bounds both the memory of bodies being buffered and
 *   decoded at once and the event-loop time they take in a row, which is what keeps /readyz fast
 *   while many 3 MiB bodies arrive together.
 */
import { Transform, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../api/status-errors.ts';
import { LARGE_BODY_BYTES } from '../request/request-body.ts';
import { isLongRunning } from '../request/long-running.ts';
import { onResponseEnd } from '../request/response-end.ts';

export const DEFAULT_MAX_REQUESTS_INFLIGHT = 400;
export const DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT = 200;
/** Bytes of large bodies admitted at once: one at the 3 MiB limit (with some smaller ones beside it). Measured: 24 concurrent 3 MiB creates kept /readyz p99 near 0.2 s with this budget, 0.6 s with two, 1.5 s unbounded. */
export const DEFAULT_LARGE_BODY_BUDGET = 4 * 1024 * 1024;
/** Large bodies allowed to wait for the budget; more are turned away with 429. */
export const MAX_WAITING_LARGE_BODIES = 256;

/** kube's 429 for an exceeded limit: `errors.NewTooManyRequests(..., 1)` plus the header. */
export function tooManyRequests(message = 'Too many requests, please try again later.'): ApiError {
  return new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds: 1 }, { 'Retry-After': '1' });
}

/** A counting semaphore over weights (bytes), first come first served. */
export class WeightedSemaphore {
  private used = 0;
  private readonly waiters: { weight: number; grant: () => void }[] = [];

  constructor(
    readonly capacity: number,
    private readonly maxWaiters: number,
  ) {}

  get inUse(): number {
    return this.used;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves with a release function once `weight` fits; undefined when too many already wait. */
  acquire(weight: number): Promise<(() => void) | undefined> {
    const w = Math.min(weight, this.capacity);
    if (this.waiters.length === 0 && this.used + w <= this.capacity) {
      this.used += w;
      return Promise.resolve(this.releaser(w));
    }
    if (this.waiters.length >= this.maxWaiters) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push({ weight: w, grant: () => resolve(this.releaser(w)) }));
  }

  private releaser(w: number): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= w;
      this.pump();
    };
  }

  private pump(): void {
    while (this.waiters.length > 0 && this.used + this.waiters[0]!.weight <= this.capacity) {
      const next = this.waiters.shift()!;
      this.used += next.weight;
      // Granted from a later tick, so a release never runs the next body's work inside its own stack.
      setImmediate(next.grant);
    }
  }
}

export interface LoadLimitOptions {
  readonly maxRequestsInflight?: number;
  readonly maxMutatingRequestsInflight?: number;
  readonly largeBodyBudget?: number;
  readonly maxBodyBytes: number;
}

const HEALTH_PATH = /^\/(readyz|livez|healthz)(\/|$)/;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class LoadLimits {
  private readOnly = 0;
  private mutating = 0;
  readonly maxReadOnly: number;
  readonly maxMutating: number;
  readonly bodies: WeightedSemaphore;

  constructor(private readonly opts: LoadLimitOptions) {
    this.maxReadOnly = opts.maxRequestsInflight ?? DEFAULT_MAX_REQUESTS_INFLIGHT;
    this.maxMutating = opts.maxMutatingRequestsInflight ?? DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT;
    this.bodies = new WeightedSemaphore(opts.largeBodyBudget ?? DEFAULT_LARGE_BODY_BUDGET, MAX_WAITING_LARGE_BODIES);
  }

  get inflight(): { readOnly: number; mutating: number } {
    return { readOnly: this.readOnly, mutating: this.mutating };
  }

  // The most requests held at once since the last watermark read (kube's in-flight watermark).
  private peakReadOnly = 0;
  private peakMutating = 0;

  /** The most in-flight requests of each kind since the previous call (at least the current count); restarts the window. */
  takeInflightWatermark(): { readOnly: number; mutating: number } {
    const w = { readOnly: Math.max(this.peakReadOnly, this.readOnly), mutating: Math.max(this.peakMutating, this.mutating) };
    this.peakReadOnly = this.readOnly;
    this.peakMutating = this.mutating;
    return w;
  }

  /**
   * The in-flight gate, after authentication (it needs the user), as kube orders its filters.
   * Throws 429 when the request's class is full; otherwise holds a slot until the response ends.
   */
  admit(req: FastifyRequest, reply: FastifyReply): void {
    if (HEALTH_PATH.test(req.url)) return;
    if (isLongRunning(req.requestInfo)) return;
    if (req.user?.groups?.includes('system:masters')) return;
    const mutating = MUTATING.has(req.method);
    const limit = mutating ? this.maxMutating : this.maxReadOnly;
    // A limit of 0 means no limit, as for kube's flags.
    if (limit > 0 && (mutating ? this.mutating : this.readOnly) >= limit) throw tooManyRequests();
    this.countInflight(mutating, reply);
  }

  /**
   * Counts a request in the in-flight figures until its response ends, without limiting it: API
   * Priority and Fairness, which replaces the limits, keeps kube's in-flight gauges too.
   */
  countInflight(mutating: boolean, reply: FastifyReply): void {
    this.enter(mutating);
    onResponseEnd(reply.raw, mutating ? this.leaveMutating : this.leaveReadOnly);
  }

  /** Counts a request in flight; the caller calls `leave` with the same kind once its response ends. */
  enter(mutating: boolean): void {
    if (mutating) {
      if (++this.mutating > this.peakMutating) this.peakMutating = this.mutating;
    } else if (++this.readOnly > this.peakReadOnly) this.peakReadOnly = this.readOnly;
  }

  leave(mutating: boolean): void {
    if (mutating) this.mutating--;
    else this.readOnly--;
  }

  // One function per kind for the end work of every request, rather than a closure each.
  private readonly leaveMutating = () => void this.mutating--;
  private readonly leaveReadOnly = () => void this.readOnly--;

  /**
   * The large-body gate, before the body is read (preParsing); returns the body stream to read.
   * A body that declares its length waits for its share of the budget before it is read. A body of
   * unknown length (chunked, or streamed over HTTP/2 without Content-Length) is read at once and
   * takes the largest share allowed only when it turns out large: reserving that share up front
   * made such requests pass one at a time, whatever their size.
   */
  async admitBody(req: FastifyRequest, reply: FastifyReply, payload: Readable): Promise<Readable> {
    if (!MUTATING.has(req.method)) return payload;
    const declared = req.headers['content-length'];
    if (declared === undefined) {
      const streamed = req.headers['transfer-encoding'] !== undefined || httpVersion(req) >= 2;
      return streamed ? this.meteredBody(payload, reply) : payload;
    }
    const length = Number(declared);
    // Over the limit is refused by the body reader with 413 without reading it; no budget needed.
    if (!(length >= LARGE_BODY_BYTES) || length > this.opts.maxBodyBytes) return payload;
    const release = await this.bodies.acquire(length);
    if (!release) throw tooManyRequests();
    onResponseEnd(reply.raw, release);
    return payload;
  }

  /** The body passed through; past LARGE_BODY_BYTES it waits for the largest share of the budget. */
  private meteredBody(payload: Readable, reply: FastifyReply): Readable {
    const bodies = this.bodies;
    const share = this.opts.maxBodyBytes;
    let seen = 0;
    let admitted = false;
    const metered = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        seen += chunk.length;
        // Fastify compares this with a declared length; there is none here, but keep it true.
        (metered as Transform & { receivedEncodedLength?: number }).receivedEncodedLength = seen;
        if (admitted || seen < LARGE_BODY_BYTES) return done(null, chunk);
        admitted = true;
        bodies.acquire(share).then((release) => {
          if (!release) return done(tooManyRequests());
          onResponseEnd(reply.raw, release);
          done(null, chunk);
        }, done);
      },
    });
    payload.on('error', (err) => metered.destroy(err));
    return payload.pipe(metered);
  }
}

function httpVersion(req: FastifyRequest): number {
  return (req.raw as { httpVersionMajor?: number }).httpVersionMajor ?? 1;
}

