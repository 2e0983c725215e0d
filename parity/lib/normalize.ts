/**
 * Normalization: turns one server's answer into a view in which only what a client could tell apart
 * remains. What legitimately varies between two servers (uids, resourceVersions, timestamps,
 * generated names, per-request headers) is replaced by symbols, consistently within one scenario
 * on one server, so that "the object this PUT returned is the one that GET returned" still compares.
 */
import { parse as parseYaml } from 'yaml';
import type { RawResponse } from './http.ts';
import { decodeProtobufEnvelope, decodeProtobufFrame } from './protobuf-wire.ts';
import { filterDiscovery, isControllerObject, isControllerObjectProtobuf } from './served.ts';

/** Headers that differ per request or per transport and say nothing about API behaviour. */
const IGNORED_HEADERS = new Set([
  'audit-id', 'date', 'content-length', 'connection', 'keep-alive', 'transfer-encoding',
  'x-kubernetes-pf-flowschema-uid', 'x-kubernetes-pf-prioritylevel-uid',
]);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const HAS_UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const TIME_IN_TEXT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g;
const NOW_WINDOW_MS = 3 * 24 * 3600_000;

/** Symbol tables for one scenario on one server. */
export class NormalizeContext {
  private readonly uids = new Map<string, string>();
  private readonly rvs = new Map<string, string>();
  private readonly generated = new Map<string, string>();
  /** How many distinct uids / resourceVersions each object has had so far. */
  private readonly perObject = new Map<string, number>();
  /** Set per response by normalizeResponse: did the request address a collection? */
  collectionRequest = false;
  constructor(private readonly now: number = Date.now()) {}

  uid(value: string): string {
    return symbol(this.uids, value, 'uid');
  }
  rv(value: string): string {
    return symbol(this.rvs, value, 'rv');
  }
  /**
   * Symbols named after the object they belong to (`<uid:ConfigMap/a>`, `<rv:ConfigMap/a#3>`, the
   * third version of it seen). A write that only one server accepted then shifts the symbols of that
   * object only, instead of every later symbol of the scenario.
   */
  objectUid(value: string, object: string): string {
    const known = this.uids.get(value);
    if (known) return known;
    const n = (this.perObject.get(`uid ${object}`) ?? 0) + 1;
    this.perObject.set(`uid ${object}`, n);
    const sym = `<uid:${object}${n > 1 ? `#${n}` : ''}>`;
    this.uids.set(value, sym);
    return sym;
  }
  objectRv(value: string, object: string): string {
    const known = this.rvs.get(value);
    if (known) return known;
    const n = (this.perObject.get(`rv ${object}`) ?? 0) + 1;
    this.perObject.set(`rv ${object}`, n);
    const sym = `<rv:${object}#${n}>`;
    this.rvs.set(value, sym);
    return sym;
  }
  knownRv(value: string): string | undefined {
    return this.rvs.get(value);
  }
  /** Records a name made from generateName so that every later mention maps to the same symbol. */
  generatedName(prefix: string, name: string): string {
    return symbol(this.generated, name, `gen:${prefix}`);
  }
  knownGenerated(name: string): string | undefined {
    return this.generated.get(name);
  }
  /** Is this a timestamp the server made during the run (not a fixed one from the corpus)? */
  isNow(s: string): boolean {
    const t = Date.parse(s);
    return Number.isFinite(t) && Math.abs(t - this.now) < NOW_WINDOW_MS;
  }
  /** Rewrites uids, known resourceVersions and generated names inside free text (messages). */
  text(s: string): string {
    let out = s.replace(UUID, (u) => this.uid(u));
    // A client certificate's fingerprint (SelfSubjectReview credential-id): each server made its own admin certificate.
    out = out.replace(/X509SHA256=[0-9a-f]{64}/g, 'X509SHA256=<sha256>');
    // Go's %#v prints pointer fields as heap addresses (`Controller:(*bool)(0xc000a1c0a8)`).
    out = out.replace(/\((\*[\w.]+)\)\(0x[0-9a-f]+\)/g, '($1)(<ptr>)');
    // Go's %#v of a time the server made (a managedFields entry stamped by the request): its shape only.
    out = out.replace(/time\.Date\((\d+), time\.(\w+), (\d+), (\d+), (\d+), (\d+), \d+, time\.UTC\)/g, (t, y, mon, d, h, mi, sec) => {
      const ms = Date.UTC(Number(y), MONTH_NAMES.indexOf(mon), Number(d), Number(h), Number(mi), Number(sec));
      return Math.abs(ms - this.now) < NOW_WINDOW_MS ? 'time.Date(<now>)' : t;
    });
    // Objects quoted inside messages ("patch: Invalid value: \"{...}\"") carry their timestamps.
    out = out.replace(TIME_IN_TEXT, (t) => (this.isNow(t) ? timeShape(t) : t));
    for (const [name, sym] of this.generated) out = out.split(name).join(sym);
    // A too-large resourceVersion's "current" is the store's revision, which differs between servers.
    out = out.replace(/(Too large resource version: \d+, current: )\d+/g, '$1<rv>');
    // Numbers are resourceVersions only in messages about them ("... the ResourceVersion in record (42)"):
    // elsewhere "63" is a length limit that may happen to equal some resourceVersion.
    if (/resource ?version/i.test(out)) out = out.replace(/\b\d{1,19}\b/g, (n) => this.rvs.get(n) ?? n);
    return out;
  }
}

function symbol(table: Map<string, string>, value: string, kind: string): string {
  let s = table.get(value);
  if (!s) {
    s = `<${kind}#${table.size + 1}>`;
    table.set(value, s);
  }
  return s;
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A timestamp's shape: digits masked, precision and zone kept (precision is part of the contract). */
export function timeShape(s: string): string {
  const m = RFC3339.exec(s);
  if (!m) return s;
  return `<time${m[7] ? `.${'f'.repeat(m[7].length - 1)}` : ''}${m[8] === 'Z' ? 'Z' : m[8]}>`;
}

export interface View {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly kind: 'empty' | 'json' | 'json-stream' | 'yaml' | 'protobuf' | 'protobuf-stream' | 'text' | 'error';
  readonly body: unknown;
}

/**
 * Headers whose value varies legitimately, kept in shape only: the process start time, the
 * OpenAPI documents' build time, and
 * content hashes (ETags of discovery and OpenAPI documents, which hash the served kinds: kube
 * serves more, see served.ts).
 */
function maskHeader(name: string, value: string, ctx: NormalizeContext): string {
  if (name === 'process-start-time-unix' && /^\d+$/.test(value)) return '<epoch-seconds>';
  // When a document was built (OpenAPI Last-Modified): the server's start, not an API property.
  if (name === 'last-modified' && ctx.isNow(value)) return '<http-date>';
  if (name === 'etag' && /^"[0-9A-F]{128}"$/.test(value)) return '"<sha512>"';
  return value;
}

/**
 * Normalizes one response. `ctx` accumulates symbols across the scenario's steps; `collection`
 * says whether the request addressed a collection (a Table of a list carries the list's global
 * resourceVersion, a Table of one object that object's).
 */
export function normalizeResponse(res: RawResponse, ctx: NormalizeContext, collection = false): View {
  ctx.collectionRequest = collection;
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(res.headers)) {
    if (IGNORED_HEADERS.has(name)) continue;
    headers[name] = values.map((v) => maskHeader(name, ctx.text(v), ctx)).join(' | ');
  }
  if (res.error && res.status === 0) return { status: 0, headers, kind: 'error', body: res.error };
  const fullCt = (res.headers['content-type']?.[0] ?? '').replace(/\s+/g, '').toLowerCase();
  const ct = fullCt.startsWith('application/vnd.kubernetes.protobuf;stream=watch') ? 'application/vnd.kubernetes.protobuf;stream=watch' : fullCt.split(';')[0]!;
  const text = res.body.toString('utf8');
  if (res.body.length === 0) return { status: res.status, headers, kind: 'empty', body: '' };
  try {
    if (ct === 'application/json' || ct === 'application/json-patch+json') {
      const docs = parseJsonStream(text);
      // A watch stream is recognized by its events, not by their number: a stream of one event (or
      // of none left after dropping controller objects) is still a stream.
      const isWatch = docs.every((d) => d !== null && typeof d === 'object' && 'type' in d && 'object' in d);
      if (docs.length === 1 && !isWatch) return { status: res.status, headers, kind: 'json', body: normalizeValue(docs[0], ctx) };
      const events = filterEvents(docs);
      // A stream of nothing but controller objects' events (only kube runs those controllers) is
      // what a stream without events is on the wire: an empty body.
      if (isWatch && events.length === 0) return { status: res.status, headers, kind: 'empty', body: '' };
      return { status: res.status, headers, kind: 'json-stream', body: events.map((d) => normalizeValue(d, ctx)) };
    }
    if (ct === 'application/yaml') {
      return { status: res.status, headers, kind: 'yaml', body: normalizeValue(parseYaml(text), ctx) };
    }
    if (ct === 'application/vnd.kubernetes.protobuf') {
      return { status: res.status, headers, kind: 'protobuf', body: normalizeValue(maskProtobufListRv(decodeProtobufEnvelope(res.body)), ctx) };
    }
    if (ct === 'application/vnd.kubernetes.protobuf;stream=watch') {
      const frames = splitFrames(res.body).map((f) => decodeProtobufFrame(f)).filter((f) => !isControllerFrame(f));
      return { status: res.status, headers, kind: 'protobuf-stream', body: frames.map((f) => normalizeValue(f, ctx)) };
    }
  } catch (err) {
    return { status: res.status, headers, kind: 'text', body: `undecodable ${ct}: ${(err as Error).message}: ${ctx.text(text.slice(0, 300))}` };
  }
  return { status: res.status, headers, kind: 'text', body: ctx.text(text) };
}

/**
 * A protobuf list's ListMeta.resourceVersion (Unknown.raw field 1, its field 2) is the global revision,
 * moved by unrelated writes: `<rv>`, as walkListMeta does for JSON lists. Only lists: the same position
 * in an object's ObjectMeta is generateName.
 */
function maskProtobufListRv(decoded: unknown): unknown {
  const env = (decoded as { envelope?: Record<string, unknown> } | null)?.envelope;
  const kind = (env?.['1'] as Record<string, unknown> | undefined)?.['2'];
  const listMeta = (env?.['2'] as Record<string, unknown> | undefined)?.['1'];
  if (typeof kind !== 'string' || !kind.endsWith('List') || !listMeta || typeof listMeta !== 'object') return decoded;
  const lm = listMeta as Record<string, unknown>;
  if (typeof lm['2'] === 'string' && lm['2'] !== '') lm['2'] = '<rv>';
  // Items (field 2; one item decodes as a value, several as an array) without the controller
  // manager's objects, as for JSON lists.
  const list = env!['2'] as Record<string, unknown>;
  const items = list['2'];
  if (items !== undefined) {
    const kept = (Array.isArray(items) ? items : [items]).filter((it) => !isControllerObjectProtobuf(kind.slice(0, -4), it));
    if (kept.length === 0) delete list['2'];
    else list['2'] = kept.length === 1 ? kept[0] : kept;
  }
  return decoded;
}

/** Splits a protobuf watch stream into its frames (each a 4-byte big-endian length, then the frame). */
function splitFrames(body: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  let pos = 0;
  while (pos + 4 <= body.length) {
    const len = body.readUInt32BE(pos);
    frames.push(body.subarray(pos + 4, Math.min(body.length, pos + 4 + len)));
    pos += 4 + len;
  }
  return frames;
}

/** Splits a body of concatenated JSON documents (a watch stream, or one document). */
export function parseJsonStream(text: string): unknown[] {
  const docs: unknown[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) docs.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  if (docs.length === 0) docs.push(JSON.parse(text));
  return docs;
}

/**
 * Drops watch events about kube-controller-manager's own objects (and this server's namespace
 * publishers': kube-root-ca.crt). A Table stream's column definitions ride on its first event: when
 * that event is dropped, they move to the first event kept, as the stream would have had them
 * without it (otherwise whichever server's publisher happened to write inside the watched range
 * would look like a stream without headers).
 */
function filterEvents(docs: unknown[]): unknown[] {
  type TableEvent = { object?: { kind?: unknown; rows?: Array<{ object?: unknown }>; columnDefinitions?: unknown } } | null;
  let carried: unknown = null;
  const kept: unknown[] = [];
  for (const d of docs) {
    const o = (d as TableEvent)?.object;
    // A Table watch event carries the object as its one row.
    const isTable = o?.kind === 'Table' && Array.isArray(o.rows) && o.rows.length > 0;
    const dropped = isTable ? o!.rows!.every((r) => isControllerObject(r.object)) : isControllerObject(o);
    if (dropped) {
      if (isTable && o!.columnDefinitions != null && carried === null) carried = o!.columnDefinitions;
      continue;
    }
    if (isTable && carried !== null && o!.columnDefinitions == null) {
      kept.push({ ...(d as object), object: { ...o, columnDefinitions: carried } });
      carried = null;
      continue;
    }
    kept.push(d);
  }
  return kept;
}

/** The same for protobuf watch frames (WatchEvent: type 1, object 2 = runtime.Unknown raw bytes, decoded). */
function isControllerFrame(frame: unknown): boolean {
  const env = ((frame as Record<string, unknown> | null)?.['2'] as Record<string, unknown> | undefined)?.['1'] as Record<string, unknown> | undefined;
  const inner = env?.['k8s\\0'] as Record<string, unknown> | undefined;
  const kind = (inner?.['1'] as Record<string, unknown> | undefined)?.['2'];
  return typeof kind === 'string' && isControllerObjectProtobuf(kind, inner?.['2']);
}

/**
 * Normalizes a decoded JSON/YAML value. Keys carry the meaning: `uid` and `resourceVersion` are
 * symbolized, list and bookmark resourceVersions (global, moved by unrelated writes) become `<rv>`,
 * continue tokens become `<continue>`, server-made timestamps keep only their shape.
 */
export function normalizeValue(v: unknown, ctx: NormalizeContext): unknown {
  registerGenerated(v, ctx);
  return walk(filterDiscovery(v), ctx, []);
}

/**
 * First pass: learns generated names and the identity (kind/name) behind each object's uid and
 * resourceVersion, so that the second pass can name them wherever they appear (messages too).
 */
function registerGenerated(v: unknown, ctx: NormalizeContext, kindHint = ''): void {
  if (!v || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) registerGenerated(x, ctx, kindHint);
    return;
  }
  const o = v as Record<string, unknown>;
  registerRefusedGeneratedName(o, ctx);
  const md = o.metadata as Record<string, unknown> | undefined;
  if (md && typeof md === 'object') {
    if (typeof md.generateName === 'string' && typeof md.name === 'string' && md.name.startsWith(md.generateName) && md.name !== md.generateName) {
      ctx.generatedName(md.generateName, md.name);
    }
    if (typeof md.name === 'string' && !Array.isArray(o.items)) {
      const kind = typeof o.kind === 'string' ? o.kind : kindHint;
      const id = `${kind}/${ctx.knownGenerated(md.name) ?? md.name}`;
      if (typeof md.uid === 'string' && md.uid !== '') ctx.objectUid(md.uid, id);
      if (typeof md.resourceVersion === 'string' && /^\d+$/.test(md.resourceVersion)) ctx.objectRv(md.resourceVersion, id);
    }
  }
  // List items carry no kind of their own: take it from the list's kind.
  const itemKind = typeof o.kind === 'string' && o.kind.endsWith('List') ? o.kind.slice(0, -4) : kindHint;
  for (const [k, x] of Object.entries(o)) {
    if (k === 'metadata') continue;
    registerGenerated(x, ctx, k === 'items' ? itemKind : '');
  }
}

/**
 * A create refused for an invalid generateName still names the object with the random suffix
 * (`ConfigMap "Gen_k9wlg" is invalid: metadata.generateName: Invalid value: "Gen_"`): the Status
 * is the only place that name appears, so it is learnt from there.
 */
function registerRefusedGeneratedName(o: Record<string, unknown>, ctx: NormalizeContext): void {
  if (o.kind !== 'Status') return;
  const details = o.details as { name?: unknown; causes?: Array<{ field?: unknown; message?: unknown }> } | undefined;
  const name = details?.name;
  if (typeof name !== 'string') return;
  for (const c of details?.causes ?? []) {
    if (c.field !== 'metadata.generateName' || typeof c.message !== 'string') continue;
    const prefix = /^Invalid value: "([^"]*)"/.exec(c.message)?.[1];
    if (prefix && name.startsWith(prefix) && name.length > prefix.length) ctx.generatedName(prefix, name);
  }
}

function walk(v: unknown, ctx: NormalizeContext, path: readonly string[]): unknown {
  // A client certificate's fingerprint inside a list (SelfSubjectReview's credential-id).
  if (typeof v === 'string' && v.startsWith('X509SHA256=')) return ctx.text(v);
  if (Array.isArray(v)) {
    return v.map((x, i) => walk(x, ctx, [...path, String(i)]));
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const isList = Array.isArray(o.items);
    const isBookmark = o.type === 'BOOKMARK';
    for (const [k, x] of Object.entries(o)) {
      if (k === 'metadata' && x && typeof x === 'object' && (isList || o.kind === 'Table')) {
        // A Table of one object carries that object's resourceVersion; a Table of a list the list's.
        out[k] = walkListMeta(x as Record<string, unknown>, ctx, [...path, k], o.kind === 'Table' && !ctx.collectionRequest);
      } else if (k === 'items' && Array.isArray(x) && typeof o.kind === 'string' && o.kind.endsWith('List')) {
        // List items carry no kind of their own; the list's kind names it.
        const kind = o.kind.slice(0, -4);
        const kept = x.filter((item) => !isControllerObject({ kind, ...(item as object) }));
        out[k] = walkField(k, kept, ctx, [...path, k]);
      } else if (k === 'rows' && Array.isArray(x) && o.kind === 'Table') {
        // Table rows of kube-controller-manager's objects, as for list items.
        out[k] = walkField(k, x.filter((r) => !isControllerObject((r as { object?: unknown } | null)?.object)), ctx, [...path, k]);
      } else if (k === 'goVersion' && typeof x === 'string' && typeof o.gitVersion === 'string') {
        // /version: the reference is built locally with another Go release than the official build.
        out[k] = x.startsWith('go') ? '<go>' : x;
      } else if (k === 'object' && isBookmark && x && typeof x === 'object') {
        out[k] = bookmarkObject(x as Record<string, unknown>);
      } else {
        // managedFields name list entries by key, and ownerReferences by uid: `k:{"uid":"…"}`.
        out[HAS_UUID.test(k) ? ctx.text(k) : k] = walkField(k, x, ctx, [...path, k]);
      }
    }
    return out;
  }
  return v;
}

/** A bookmark's object carries only a (global) resourceVersion and maybe an annotation. */
function bookmarkObject(o: Record<string, unknown>): unknown {
  const md = { ...(o.metadata as Record<string, unknown> | undefined) };
  if (md.resourceVersion !== undefined) md.resourceVersion = '<rv>';
  return { ...o, metadata: md };
}

function walkListMeta(md: Record<string, unknown>, ctx: NormalizeContext, path: readonly string[], keepKnown = false): unknown {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(md)) {
    if (k === 'resourceVersion' && typeof x === 'string' && x !== '') out[k] = (keepKnown ? ctx.knownRv(x) : undefined) ?? '<rv>';
    else if (k === 'continue' && typeof x === 'string' && x !== '') out[k] = '<continue>';
    else out[k] = walkField(k, x, ctx, [...path, k]);
  }
  return out;
}

function entryKey(e: unknown): string {
  const m = (e ?? {}) as { manager?: string; operation?: string; subresource?: string; apiVersion?: string };
  return `${m.manager ?? ''}\u0000${m.operation ?? ''}\u0000${m.subresource ?? ''}\u0000${m.apiVersion ?? ''}`;
}

function walkField(key: string, x: unknown, ctx: NormalizeContext, path: readonly string[]): unknown {
  if (typeof x === 'string') {
    if (key === 'uid' && x !== '') return ctx.uid(x);
    if (key === 'resourceVersion' && /^\d+$/.test(x)) return ctx.rv(x);
    if (key === 'continue' && x !== '') return '<continue>';
    // Discovery's serverAddressByClientCIDRs names the server's own (random) port; protobuf trees
    // have no key names, so any loopback address with a port is masked there.
    if (key === 'serverAddress' || /^127\.0\.0\.1:\d+$/.test(x)) return x.replace(/:\d+$/, ':<port>');
    if (RFC3339.test(x) && ctx.isNow(x)) return timeShape(x);
    const gen = ctx.knownGenerated(x);
    if (gen) return gen;
    if (key === 'message' || key === 'reason' || key === 'note' || key === 'causes') return ctx.text(x);
    if (HAS_UUID.test(x) || x.startsWith('X509SHA256=')) return ctx.text(x);
    // A resourceVersion already seen (protobuf trees have no key names to go by); never a label or
    // annotation value, which are the user's strings ("1").
    if (/^\d+$/.test(x) && !path.some((p) => p === 'labels' || p === 'annotations')) return ctx.knownRv(x) ?? x;
    return x;
  }
  // managedFields are ordered by their (one-second) timestamps, so two entries written within the
  // run swap places depending on where the second boundary fell: compare them in a stable order.
  if (key === 'managedFields' && Array.isArray(x)) {
    const sorted = [...x].sort((a, b) => entryKey(a).localeCompare(entryKey(b)));
    return walk(sorted, ctx, path);
  }
  // Table cells: the Age column is a duration since creation ("5s"), which moves with the clock.
  if (key === 'cells' && Array.isArray(x)) {
    return x.map((c, i) => (typeof c === 'string' && /^(\d+[smhd])+$/.test(c) ? '<age>' : walk(c, ctx, [...path, String(i)])));
  }
  return walk(x, ctx, path);
}
