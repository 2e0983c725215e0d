/**
 * Audit (kube-apiserver's k8s.io/apiserver/pkg/audit and its filters): every request gets an
 * audit ID (the client's `Audit-ID` header, or a new UUID) answered in the `Audit-Id` response
 * header, audit policy or not. With `--audit-policy-file`, each request gets one audit record:
 * its level from the policy, filled by the pipeline as it goes (the authorization decision, the
 * admission plugins' annotations through WriteContext.auditAnnotations, deprecation), and emitted
 * as audit.k8s.io/v1 Events at the stages the policy keeps:
 *
 * - RequestReceived once the user is known (after authentication);
 * - ResponseStarted when a long-running request (watch) writes its headers, and for a request
 *   refused by authentication (as kube's failed-authentication filter does);
 * - ResponseComplete when the response is done, or Panic when a handler threw something that is
 *   not an API error.
 *
 * Events go to the configured sinks (log file, webhook), each behind a bounded buffer (sinks.ts),
 * so a slow or dead backend costs requests nothing; dropped events are counted in kube's
 * apiserver_audit_error_total. The JSON is kube's: field order of audit.k8s.io/v1 Event, Go's
 * MicroTime timestamps, Go's HTML-safe escaping, annotation keys sorted.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseYaml } from 'yaml';
import type { KubeObject } from '../api/types.ts';
import type { RequestUser } from '../request/user.ts';
import { isApiError } from '../api/status-errors.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { decodeProtobufObject } from '../codec/protobuf/index.ts';
import { AuditPolicy, type AuditAttributes, type AuditLevel, type AuditStage, type RequestAuditConfig } from './policy.ts';
import type { AuditSink } from './sinks.ts';

export { AuditPolicy, AuditPolicyError } from './policy.ts';
export { LogSink, WebhookSink, type AuditSink, type SinkObserver } from './sinks.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's audit record; absent when the policy says None (or there is no policy). */
    audit?: AuditRecord;
    auditID?: string;
    auditReceived?: number;
  }
}

/** What the auditor needs to know about a resource: whether its version is deprecated. */
export interface DeprecationFacts {
  (group: string, version: string, resource: string): { readonly deprecated: boolean; readonly removedRelease?: string } | undefined;
}

const LEVEL_ORDER: Record<AuditLevel, number> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

/** One request's audit state. */
export class AuditRecord {
  /** Audit annotations; admission plugins write here through WriteContext.auditAnnotations. */
  readonly annotations: Record<string, string> = {};
  impersonatedUser: RequestUser | undefined;
  panic: unknown;
  responsePayload: unknown;
  responseType = '';
  started = false;
  /** The level's place in LEVEL_ORDER. */
  readonly rank: number;
  /**
   * The JSON text every event of the request repeats, made once: from `{"kind"` up to the stage's
   * value, and from requestURI through userAgent (made again once impersonation is known).
   */
  head: string | undefined;
  middle: string | undefined;
  /** The object reference's parts that only the request info decides: resource, and group and version. */
  refResource: string | undefined;
  refGroupVersion: string | undefined;
  /** The peer addresses as JSON, taken when the request was authenticated. */
  sourceIPs: string | undefined;
  /** `received` as the events write it. */
  receivedAt: string | undefined;
  /** The last event's object reference, as HTML-safe JSON, and what it was made of. */
  ref: { readonly namespace: string; readonly name: string; readonly uid: string; readonly resourceVersion: string; readonly json: string } | undefined;
  /** What the reference of the final event takes from the object a create or update decoded. */
  requestMeta: RequestMeta | undefined;
  /**
   * Passed to an extension server as it came (kube's aggregator proxy): nothing decodes the bodies,
   * so the events show neither object, the response's code only, and the URL's object reference.
   */
  passedThrough = false;

  constructor(
    readonly id: string,
    readonly config: RequestAuditConfig,
    readonly user: RequestUser | undefined,
    readonly received: number,
  ) {
    this.rank = LEVEL_ORDER[config.level];
  }

  atLeast(level: AuditLevel): boolean {
    return this.rank >= LEVEL_ORDER[level];
  }

  /** kube's LogRequestObject, told by the verb (RequestObjectLog): the fields are copied, as admission changes the object next. */
  requestObject(obj: KubeObject): void {
    const m = obj.metadata;
    this.requestMeta = { name: m?.name ?? '', namespace: m?.namespace ?? '', uid: m?.uid ?? '', resourceVersion: m?.resourceVersion ?? '' };
  }
}

/** What an event of a stage other than the usual two may add. */
interface EventExtra {
  /** The Status to show (a Panic's), instead of one decoded from the response. */
  readonly status?: Record<string, unknown>;
  /** kube's failed-authentication event: no user, no annotations. */
  readonly failedAuthentication?: boolean;
}

/** The request object's fields an event's object reference shows. */
interface RequestMeta {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/** The date and time up to the seconds' dot of the last second formatted (events come in bursts). */
let microSecond = NaN;
let microPrefix = '';

/** Go's MicroTime in RFC 3339 with microseconds, from epoch milliseconds with a fraction. */
export function microTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== microSecond) {
    microSecond = second;
    microPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const micros = Math.floor((ms - second * 1000) * 1000);
  return `${microPrefix}${String(micros).padStart(6, '0')}Z`;
}

/** The wall clock with sub-millisecond precision (`performance.timeOrigin` is a getter, and a slow one). */
const TIME_ORIGIN = performance.timeOrigin;
const nowMs = () => TIME_ORIGIN + performance.now();

/** Go's encoding/json escapes these in strings (HTML-safe output); kube's audit log shows them so. */
function goEscape(json: string): string {
  // Five indexOf scans are several times cheaper than one character-class scan of a long line.
  if (json.indexOf('<') < 0 && json.indexOf('>') < 0 && json.indexOf('&') < 0 && json.indexOf('\u2028') < 0 && json.indexOf('\u2029') < 0) return json;
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A string as Go's HTML-safe JSON. Each value is escaped as it is encoded, while its text is flat:
 * scanning a whole event would first copy its pieces into one string.
 */
export function jsonText(s: string): string {
  // Most values (names, paths, versions, user agents) need no escape at all: quoted as they are,
  // after a scan that costs a fraction of a call into JSON.stringify.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26 || (c >= 0xd800 && c <= 0xdfff) || c === 0x2028 || c === 0x2029) return goEscape(JSON.stringify(s));
  }
  return `"${s}"`;
}

/** What every event of a level starts with, up to its auditID. */
const EVENT_HEAD: Record<AuditLevel, string> = {
  None: '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"None","auditID":',
  Metadata: '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":',
  Request: '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":',
  RequestResponse: '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":',
};

/**
 * A user's JSON, kept with the user object: an authenticator answering from its cache (a
 * connection's certificate, a cached token) hands every request of a caller the same object.
 */
const userJsonOf = new WeakMap<RequestUser, string>();

/** kube's UserInfo as JSON: empty fields left out, in Go field order (HTML-safe, as the whole event). */
export function userJson(u: RequestUser | undefined): string {
  if (u === undefined) return '{}';
  let json = userJsonOf.get(u);
  if (json !== undefined) return json;
  const parts: string[] = [];
  if (u.username) parts.push(`"username":${JSON.stringify(u.username)}`);
  if (u.uid) parts.push(`"uid":${JSON.stringify(u.uid)}`);
  if (u.groups.length > 0) parts.push(`"groups":${JSON.stringify(u.groups)}`);
  if (Object.keys(u.extra).length > 0) parts.push(`"extra":${JSON.stringify(u.extra)}`);
  json = goEscape(`{${parts.join(',')}}`);
  userJsonOf.set(u, json);
  return json;
}

/** An IPv4 address Node shows in its IPv6-mapped form, as Go shows it. */
const plainIp = (ip: string): string => (ip.startsWith('::ffff:') && ip.indexOf('.') > 0 ? ip.slice(7) : ip);

/** A connection's peer address as SourceIPs JSON. */
const peerJsonOf = new WeakMap<object, string>();

/** kube's SourceIPs: X-Forwarded-For entries, then X-Real-Ip, then the connection's address, without repeats; as JSON. */
function sourceIPsJson(req: FastifyRequest): string {
  const raw = req.raw as unknown as { socket?: { remoteAddress?: string }; stream?: { session?: { socket?: { remoteAddress?: string } } } };
  const socket = raw.stream?.session?.socket ?? raw.socket;
  const peer = (): string => plainIp((socket?.remoteAddress ?? '').trim());
  const xff = req.headers['x-forwarded-for'];
  const real = req.headers['x-real-ip'];
  // The usual request: no proxy headers, the connection's address only (kept with the connection).
  if (typeof xff !== 'string' && typeof real !== 'string') {
    let json = socket === undefined ? undefined : peerJsonOf.get(socket);
    if (json === undefined) {
      const ip = peer();
      json = ip === '' ? '[]' : goEscape(`[${JSON.stringify(ip)}]`);
      if (socket !== undefined && ip !== '') peerJsonOf.set(socket, json);
    }
    return json;
  }
  const out: string[] = [];
  const add = (ip: string) => {
    const clean = plainIp(ip.trim());
    if (clean !== '' && !out.includes(clean)) out.push(clean);
  };
  if (typeof xff === 'string') for (const ip of xff.split(',')) add(ip);
  if (typeof real === 'string') add(real);
  add(peer());
  return goEscape(JSON.stringify(out));
}

function stripManagedFields(obj: unknown): unknown {
  if (!obj || typeof obj !== 'object') return obj;
  const o = obj as Record<string, unknown>;
  const meta = o.metadata as Record<string, unknown> | undefined;
  let out = o;
  if (meta && 'managedFields' in meta) {
    const { managedFields: _drop, ...rest } = meta;
    out = { ...o, metadata: rest };
  }
  if (Array.isArray(o.items)) out = { ...out, items: o.items.map(stripManagedFields) };
  return out;
}

/** The JSON (or YAML, or protobuf) body as an object; undefined when it is none of those. */
function decodedBody(body: unknown, contentType: string): unknown {
  if (!Buffer.isBuffer(body) || body.length === 0) return undefined;
  try {
    if (contentType.includes('protobuf')) return decodeProtobufObject(body).object;
    if (contentType.includes('yaml')) return parseYaml(body.toString('utf8'));
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A response's status when its body is not a Status: only the code. */
const plainStatuses = new Map<number, string>();
function plainStatus(code: number): string {
  let json = plainStatuses.get(code);
  if (json === undefined) plainStatuses.set(code, (json = `{"metadata":{},"code":${code}}`));
  return json;
}

const STATUS_PREFIX = /^\s*\{\s*"kind"\s*:\s*"Status"/;

const KIND_PREFIX = '{"kind":"';
const KIND_PREFIX_BYTES = Buffer.from(KIND_PREFIX, 'latin1');
const STATUS_KIND_BYTES = Buffer.from('Status"', 'latin1');

/** Whether a response body is a Status (JSON; this server writes `{"kind":"` first, others may space it out). */
export function isStatusBody(payload: unknown): boolean {
  if (typeof payload === 'string') {
    if (payload.startsWith(KIND_PREFIX)) return payload.startsWith('Status"', KIND_PREFIX.length);
    return STATUS_PREFIX.test(payload.slice(0, 40));
  }
  if (!Buffer.isBuffer(payload)) return false;
  if (payload.length >= KIND_PREFIX_BYTES.length + STATUS_KIND_BYTES.length && payload.compare(KIND_PREFIX_BYTES, 0, KIND_PREFIX_BYTES.length, 0, KIND_PREFIX_BYTES.length) === 0) {
    return payload.compare(STATUS_KIND_BYTES, 0, STATUS_KIND_BYTES.length, KIND_PREFIX_BYTES.length, KIND_PREFIX_BYTES.length + STATUS_KIND_BYTES.length) === 0;
  }
  return STATUS_PREFIX.test(payload.subarray(0, 40).toString('latin1'));
}

const DECISION = 'authorization.k8s.io/decision';
const REASON = 'authorization.k8s.io/reason';

/**
 * The annotations of most events, the authorization filter's two and nothing else, as HTML-safe
 * JSON by decision and reason: a server sees few distinct reasons (bounded all the same).
 */
const authorizationOnly = { allow: new Map<string, string>(), forbid: new Map<string, string>() };

/** `,"annotations":{...}` with keys sorted (Go's map encoding), HTML-safe, or nothing when there are none. */
function annotationsJson(annotations: Record<string, string>): string {
  const keys = Object.keys(annotations);
  if (keys.length === 0) return '';
  if (keys.length === 2 && keys[0] === DECISION && keys[1] === REASON) {
    const decision = annotations[DECISION] === 'allow' ? 'allow' : 'forbid';
    const byReason = authorizationOnly[decision];
    const reason = annotations[REASON]!;
    let json = byReason.get(reason);
    if (json === undefined) {
      json = goEscape(`,"annotations":{"${DECISION}":"${decision}","${REASON}":${JSON.stringify(reason)}}`);
      if (byReason.size >= 256) byReason.clear();
      byReason.set(reason, json);
    }
    return json;
  }
  keys.sort();
  let out = ',"annotations":{';
  for (let i = 0; i < keys.length; i++) out += `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:${JSON.stringify(annotations[keys[i]!])}`;
  return goEscape(`${out}}`);
}

/** The response body as an object: JSON text, or a protobuf buffer. */
function decodedPayload(payload: unknown, contentType: string): unknown {
  try {
    if (typeof payload === 'string') return JSON.parse(payload);
    if (Buffer.isBuffer(payload)) {
      if (contentType.includes('protobuf')) return decodeProtobufObject(payload).object;
      if (contentType.includes('json')) return JSON.parse(payload.toString('utf8'));
    }
  } catch {
    // Not an object kube would log.
  }
  return undefined;
}

export interface AuditorOptions {
  /** Without a policy only audit IDs are handed out. */
  readonly policy?: AuditPolicy;
  readonly sinks: readonly AuditSink[];
  readonly deprecation?: DeprecationFacts;
}

export class Auditor {
  private readonly policy: AuditPolicy | undefined;
  private readonly sinks: readonly AuditSink[];
  private events: { inc(by?: number): void } | undefined;
  private levels: { labels(...v: string[]): { inc(by?: number): void } } | undefined;
  /** apiserver_audit_level_total's series by level, found once. */
  private readonly levelSeries: ({ inc(by?: number): void } | undefined)[] = [];
  private errors: { labels(...v: string[]): { inc(by?: number): void } } | undefined;

  constructor(private readonly opts: AuditorOptions) {
    this.policy = opts.sinks.length > 0 ? opts.policy : undefined;
    this.sinks = opts.sinks;
  }

  get enabled(): boolean {
    return this.policy !== undefined;
  }

  /** kube's audit metrics (apiserver_audit_*). */
  registerMetrics(registry: MetricsRegistry): void {
    this.events = registry.counter({ name: 'apiserver_audit_event_total', help: 'Counter of audit events generated and sent to the audit backend.' }).labels();
    this.levels = registry.counter({ name: 'apiserver_audit_level_total', help: 'Counter of policy levels for audit events (1 per request).', labels: ['level'] });
    this.errors = registry.counter({ name: 'apiserver_audit_error_total', help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.', labels: ['plugin'] });
    registry.counter({ name: 'apiserver_audit_requests_rejected_total', help: 'Counter of apiserver requests rejected due to an error in audit logging backend.' }).labels();
  }

  /** For the sinks: events they could not take or deliver. */
  readonly observer = {
    error: (plugin: string, count: number, reason: string): void => {
      if (count > 0) this.errors?.labels(plugin).inc(count);
      this.lastError = reason;
    },
  };
  lastError: string | undefined;

  /** First of all: the audit ID, answered on every response (kube's WithAuditInit). */
  begin(req: FastifyRequest, reply: FastifyReply): void {
    const given = req.headers['audit-id'];
    const id = typeof given === 'string' && given !== '' ? given : randomUUID();
    req.auditID = id;
    // Fastify's headers (Node's fast writeHead path); hijacked replies (watches, proxied answers) copy them.
    reply.header('audit-id', id);
    if (this.policy) req.auditReceived = nowMs();
  }

  private attributes(req: FastifyRequest, user: RequestUser | undefined): AuditAttributes {
    const info = req.requestInfo;
    if (info?.isResourceRequest) {
      return { user, verb: info.verb, isResourceRequest: true, path: info.path, apiGroup: info.apiGroup, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name };
    }
    return { user, verb: info?.verb ?? req.method.toLowerCase(), isResourceRequest: false, path: info?.path ?? req.url, apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
  }

  private countLevel(level: AuditLevel): void {
    if (!this.levels) return;
    const rank = LEVEL_ORDER[level];
    let series = this.levelSeries[rank];
    if (!series) this.levelSeries[rank] = series = this.levels.labels(level);
    series.inc();
  }

  /** After authentication: the policy decides the level; RequestReceived is emitted (kube's WithAudit). */
  authenticated(req: FastifyRequest): void {
    if (!this.policy) return;
    const config = this.policy.evaluate(this.attributes(req, req.user));
    this.countLevel(config.level);
    if (config.level === 'None') return;
    const record = new AuditRecord(req.auditID ?? randomUUID(), config, req.user, req.auditReceived ?? nowMs());
    req.audit = record;
    // Taken now: a connection closed by the time the event is written no longer tells its peer.
    record.sourceIPs = sourceIPsJson(req);
    this.defer(req, record, 'RequestReceived', undefined);
  }

  /**
   * kube's MonitorRequest: a request its resource's handler served, for a deprecated version, is
   * annotated once the handler returns, so only the final stage shows it (not RequestReceived,
   * nor a watch's ResponseStarted, nor a request refused before the handler).
   */
  private annotateDeprecation(req: FastifyRequest, record: AuditRecord): void {
    const info = req.requestInfo;
    if (!info?.isResourceRequest || record.annotations['authorization.k8s.io/decision'] !== 'allow') return;
    const facts = this.opts.deprecation?.(info.apiGroup, info.apiVersion, info.resource);
    if (!facts?.deprecated) return;
    record.annotations['k8s.io/deprecated'] = 'true';
    if (facts.removedRelease) record.annotations['k8s.io/removed-release'] = facts.removedRelease;
  }

  /** The authorization filter's annotations (decision allow or forbid, and the reason). */
  authorized(req: FastifyRequest, reply: FastifyReply, decision: { readonly decision: string; readonly reason: string }): void {
    const record = req.audit;
    if (!record) return;
    // Impersonation ran between authentication and authorization.
    if (req.user !== record.user) {
      // A waiting RequestReceived shows the user before impersonation.
      this.writeDeferred();
      record.impersonatedUser = req.user;
      record.middle = undefined;
    }
    record.annotations['authorization.k8s.io/decision'] = decision.decision === 'allow' ? 'allow' : 'forbid';
    record.annotations['authorization.k8s.io/reason'] = decision.reason;
    // An allowed watch: its ResponseStarted goes out when it writes its headers. (Set here, the last
    // filter before the handler, rather than in a preHandler hook every request would pass through.)
    if (decision.decision === 'allow' && req.requestInfo?.verb === 'watch') this.watchResponseStarted(req, reply, record);
  }

  /** Where the write path puts admission's audit annotations for this request. */
  annotationsOf(req: FastifyRequest): Record<string, string> {
    return req.audit?.annotations ?? {};
  }

  /**
   * The response hooks: capture the body when the level needs it, emit the last stage. Callback
   * hooks, not async ones: every request passes through them, and a promise each is measurable.
   */
  install(app: FastifyInstance): void {
    if (!this.policy) return;
    app.addHook('onSend', (req, reply, payload, done) => {
      try {
        this.captureResponse(req, reply, payload);
      } catch (err) {
        this.observer.error('log', 1, (err as Error).message);
      }
      done(null, payload);
    });
    app.addHook('onError', (req, _reply, error, done) => {
      const record = req.audit;
      // An error that is not an API error is a defect: kube's Panic stage.
      if (record && !isApiError(error)) record.panic = error;
      done();
    });
    app.addHook('onResponse', (req, reply, done) => {
      const record = req.audit;
      if (record) {
        try {
          if (record.panic !== undefined) {
            const message = record.panic instanceof Error ? record.panic.message : String(record.panic);
            this.emitNow(req, record, 'Panic', 500, { status: { status: 'Failure', message: `APIServer panic'd: ${message}`, reason: 'InternalError', code: 500 } });
          } else {
            this.annotateDeprecation(req, record);
            this.defer(req, record, 'ResponseComplete', reply.statusCode);
          }
        } catch (err) {
          this.observer.error('log', 1, (err as Error).message);
        }
      }
      done();
    });
  }

  /**
   * ResponseComplete of a response Fastify stops following (a watch on its raw HTTP/2 stream): the
   * record and what the events show of the request are kept, not the request.
   */
  completeLater(req: FastifyRequest): ((code: number) => void) | undefined {
    const record = req.audit;
    if (!record) return undefined;
    const userAgent = req.headers['user-agent'];
    const view = { requestInfo: req.requestInfo, url: req.url, method: req.method, headers: userAgent === undefined ? {} : { 'user-agent': userAgent }, raw: {} } as unknown as FastifyRequest;
    return (code) => {
      try {
        this.annotateDeprecation(view, record);
        this.defer(view, record, 'ResponseComplete', code);
      } catch (err) {
        this.observer.error('log', 1, (err as Error).message);
      }
    };
  }

  /** A watch writes its headers itself (hijacked): ResponseStarted goes out as it does. */
  private watchResponseStarted(req: FastifyRequest, reply: FastifyReply, record: AuditRecord): void {
    const res = reply.raw as unknown as { writeHead: (...args: unknown[]) => unknown };
    const writeHead = res.writeHead;
    res.writeHead = (...args: unknown[]) => {
      res.writeHead = writeHead;
      const out = writeHead.apply(reply.raw, args);
      record.started = true;
      this.emitNow(req, record, 'ResponseStarted', typeof args[0] === 'number' ? args[0] : reply.raw.statusCode);
      return out;
    };
  }

  /** Keeps the response body when the event shows it (RequestResponse, or a Status); a refused authentication's event. */
  private captureResponse(req: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const record = req.audit;
    if (record) {
      if (record.passedThrough) return;
      if (record.atLeast('RequestResponse') || reply.statusCode >= 400 || isStatusBody(payload)) {
        record.responsePayload = reply.getHeader('content-encoding') === 'gzip' && Buffer.isBuffer(payload) ? gunzipSync(payload) : payload;
        record.responseType = String(reply.getHeader('content-type') ?? '');
      }
    } else if (reply.statusCode === 401 && this.policy) {
      // kube's failed-authentication filter: one ResponseStarted event, no user.
      const config = this.policy.evaluate(this.attributes(req, undefined));
      this.countLevel(config.level);
      if (config.level !== 'None') {
        const r = new AuditRecord(req.auditID ?? randomUUID(), config, undefined, req.auditReceived ?? nowMs());
        r.responsePayload = payload;
        r.responseType = String(reply.getHeader('content-type') ?? '');
        this.emitNow(req, r, 'ResponseStarted', 401, { failedAuthentication: true });
      }
    }
  }

  /**
   * Builds and sends one event, unless the policy omits its stage: written straight to JSON text
   * in kube's field order (no event object to build and stringify), the parts every stage repeats
   * made once per request.
   */
  /**
   * RequestReceived and ResponseComplete, the two events of nearly every request, are written at
   * the end of the event loop's turn, all of the turn's together: made back to back, the code and
   * the data they share stay in the processor's caches (made one by one between requests, the same
   * events cost about three times as much). The other stages, rare, are written at once, after
   * what is waiting, so the log keeps the order in which things happened.
   */
  private defer(req: FastifyRequest, record: AuditRecord, stage: 'RequestReceived' | 'ResponseComplete', code: number | undefined): void {
    this.deferred.push({ req, record, stage, code, at: stage === 'RequestReceived' ? record.received : nowMs() });
    if (this.deferred.length === 1) setImmediate(this.writeDeferred);
  }

  private deferred: { readonly req: FastifyRequest; readonly record: AuditRecord; readonly stage: AuditStage; readonly code: number | undefined; readonly at: number }[] = [];

  private readonly writeDeferred = (): void => {
    const events = this.deferred;
    if (events.length === 0) return;
    this.deferred = [];
    for (const e of events) {
      try {
        this.emit(e.req, e.record, e.stage, e.at, e.code, undefined);
      } catch (err) {
        this.observer.error('log', 1, (err as Error).message);
      }
    }
  };

  private emitNow(req: FastifyRequest, record: AuditRecord, stage: AuditStage, code: number, extra?: EventExtra): void {
    this.writeDeferred();
    this.emit(req, record, stage, nowMs(), code, extra);
  }

  /** An event's line: `code` is the response's (none for RequestReceived). */
  private emit(req: FastifyRequest, record: AuditRecord, stage: AuditStage, at: number, code: number | undefined, extra: EventExtra | undefined): void {
    if (record.config.omitStages.has(stage)) return;
    const failedAuthentication = extra?.failedAuthentication === true;
    const info = req.requestInfo;
    const final = stage === 'ResponseComplete' || stage === 'Panic';
    let requestObject: unknown;
    let objectRef = '';
    if (info?.isResourceRequest) {
      let namespace = info.namespace;
      let name = info.name;
      let uid = '';
      let resourceVersion = '';
      // kube's LogRequestObject completes the reference from the request's object (a create's name).
      if (final && !failedAuthentication && !record.passedThrough) {
        // The body is decoded only when the event shows something of it: a create's or update's
        // object (its name, uid, resourceVersion) at every level, any write's body at Request and up.
        const wantsObject = info.verb === 'create' || info.verb === 'update';
        const isWrite = wantsObject || info.verb === 'patch' || info.verb === 'delete' || info.verb === 'deletecollection';
        // At Metadata the verb's report saves decoding the body again.
        const known = wantsObject && !record.atLeast('Request') ? record.requestMeta : undefined;
        const body = known === undefined && isWrite && (wantsObject || record.atLeast('Request')) ? decodedBody(req.body, String(req.headers['content-type'] ?? '')) : undefined;
        const meta = known ?? (info.verb !== 'patch' && body && typeof body === 'object' ? ((body as { metadata?: Record<string, unknown> }).metadata ?? undefined) : undefined);
        if (meta) {
          if (!namespace && typeof meta.namespace === 'string' && meta.namespace) namespace = meta.namespace;
          if (!name && typeof meta.name === 'string' && meta.name) name = meta.name;
          if (typeof meta.uid === 'string' && meta.uid) uid = meta.uid;
          if (typeof meta.resourceVersion === 'string' && meta.resourceVersion) resourceVersion = meta.resourceVersion;
        }
        if (record.atLeast('Request') && body !== undefined) {
          requestObject = body;
          // The typed object's encoding writes a zero creationTimestamp as null.
          if (meta && info.verb !== 'delete' && info.verb !== 'deletecollection' && !('creationTimestamp' in meta)) {
            requestObject = reorderMetadata({ ...(body as object), metadata: { ...meta, creationTimestamp: null } });
          }
          if (record.config.omitManagedFields) requestObject = stripManagedFields(requestObject);
        }
      }
      // ObjectReference in Go field order; empty fields left out (omitempty), apiVersion always;
      // HTML-safe. An event whose reference is the previous event's (a get's, a delete's) reuses it.
      const last = record.ref;
      if (last !== undefined && last.namespace === namespace && last.name === name && last.uid === uid && last.resourceVersion === resourceVersion) objectRef = last.json;
      else {
        record.refResource ??= `,"objectRef":{"resource":${jsonText(info.resource)}`;
        record.refGroupVersion ??= `${info.apiGroup ? `,"apiGroup":${jsonText(info.apiGroup)}` : ''},"apiVersion":${jsonText(info.apiVersion)}`;
        objectRef =
          record.refResource +
          (namespace ? `,"namespace":${jsonText(namespace)}` : '') +
          (name ? `,"name":${jsonText(name)}` : '') +
          (uid ? `,"uid":${jsonText(uid)}` : '') +
          record.refGroupVersion +
          (resourceVersion ? `,"resourceVersion":${jsonText(resourceVersion)}` : '') +
          (info.subresource ? `,"subresource":${jsonText(info.subresource)}` : '') +
          '}';
        record.ref = { namespace, name, uid, resourceVersion, json: objectRef };
      }
    }
    let responseStatus = '';
    let responseObject: unknown;
    if (code !== undefined) {
      const given = extra?.status;
      // The usual case, a response that is not a Status: only its code.
      responseStatus = given ? goEscape(JSON.stringify({ metadata: {}, ...given, code })) : plainStatus(code);
      if (!given && record.responsePayload !== undefined) {
        const decoded = decodedPayload(record.responsePayload, record.responseType) as Record<string, unknown> | undefined;
        if (decoded && decoded.kind === 'Status') {
          const { kind: _k, apiVersion: _a, metadata: _m, ...status } = decoded;
          responseStatus = goEscape(JSON.stringify({ metadata: {}, ...status, code }));
        }
        if (final && record.atLeast('RequestResponse') && decoded !== undefined) {
          responseObject = record.config.omitManagedFields ? stripManagedFields(decoded) : decoded;
        }
      }
    }
    // The event as JSON, field by field in kube's order; the parts every stage repeats are made
    // once. Every value is made HTML-safe as it is encoded (user JSON and source IPs are, kept).
    record.head ??= `${EVENT_HEAD[record.config.level]}${jsonText(record.id)},"stage":"`;
    if (record.middle === undefined) {
      const userAgent = req.headers['user-agent'];
      record.middle =
        `,"requestURI":${jsonText(req.url)},"verb":${jsonText(info?.verb ?? req.method.toLowerCase())},"user":${userJson(record.user)}` +
        (record.impersonatedUser ? `,"impersonatedUser":${userJson(record.impersonatedUser)}` : '') +
        `,"sourceIPs":${record.sourceIPs ?? sourceIPsJson(req)}` +
        (userAgent ? `,"userAgent":${jsonText(typeof userAgent === 'string' ? userAgent : String(userAgent))}` : '');
    }
    let body = '';
    if (responseStatus) body += `,"responseStatus":${responseStatus}`;
    if (requestObject !== undefined) body += `,"requestObject":${goEscape(JSON.stringify(requestObject))}`;
    if (responseObject !== undefined) body += `,"responseObject":${goEscape(JSON.stringify(responseObject))}`;
    record.receivedAt ??= microTime(record.received);
    const timestamps = `,"requestReceivedTimestamp":"${record.receivedAt}","stageTimestamp":"${stage === 'RequestReceived' ? record.receivedAt : microTime(at)}"`;
    // RequestReceived comes before authorization: written later, it still shows no annotation.
    const annotations = failedAuthentication || stage === 'RequestReceived' ? '' : annotationsJson(record.annotations);
    const line = `${record.head}${stage}"${record.middle}${objectRef}${body}${timestamps}${annotations}}`;
    this.events?.inc();
    for (const s of this.sinks) s.push(line);
  }

  async close(): Promise<void> {
    this.writeDeferred();
    await Promise.all(this.sinks.map((s) => s.close()));
  }
}

/** ObjectMeta in Go field order (what the typed encoding writes), so creationTimestamp lands where kube writes it. */
const META_ORDER = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'];

/**
 * The request's object as kube's typed encoding writes it: kind, apiVersion and metadata first
 * (TypeMeta and ObjectMeta lead every Go kind), metadata in Go field order. The other fields keep
 * the client's order (kube would write the kind's Go order; see the README's audit notes).
 */
function reorderMetadata(obj: Record<string, unknown>): Record<string, unknown> {
  const meta = obj.metadata as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const k of META_ORDER) if (k in meta) ordered[k] = meta[k];
  for (const [k, v] of Object.entries(meta)) if (!(k in ordered)) ordered[k] = v;
  const { kind, apiVersion, metadata: _m, ...rest } = obj;
  return { ...(kind !== undefined ? { kind } : {}), ...(apiVersion !== undefined ? { apiVersion } : {}), metadata: ordered, ...rest };
}

