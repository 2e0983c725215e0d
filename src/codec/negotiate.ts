/**
 * Content negotiation as kube-apiserver does it: the Accept header picks a serializer (json,
 * yaml, protobuf when offered) and an optional conversion target (`as=Table`,
 * `as=PartialObjectMetadata[List]`, group meta.k8s.io, version v1 or v1beta1); Content-Type picks
 * the request-body decoder or patch kind. Failures are ApiError 406 / 415 with kube's text.
 */
import { ApiError, errors } from '../api/status-errors.ts';

export const MEDIA_JSON = 'application/json';
export const MEDIA_YAML = 'application/yaml';
export const MEDIA_PROTOBUF = 'application/vnd.kubernetes.protobuf';
/** CBOR (gate CBORServingAndStorage): one item per response, a CBOR sequence per watch. */
export const MEDIA_CBOR = 'application/cbor';
export const MEDIA_CBOR_SEQ = 'application/cbor-seq';

export type Serializer = 'json' | 'yaml' | 'protobuf' | 'cbor';
export type MetaVersion = 'v1' | 'v1beta1';

/** What this endpoint can produce. */
export interface Offer {
  /** Serializers in preference order; default json, yaml (add protobuf for built-in kinds). */
  readonly serializers?: readonly Serializer[];
  /** Whether the resource has a table convertor (custom resources and aggregated APIs may not). */
  readonly table?: boolean;
  /** Whether `as=` conversions are offered at all (discovery documents take none). */
  readonly conversions?: boolean;
  /**
   * Protobuf only for metadata conversions (PartialObjectMetadata and its list): kube's custom
   * resource negotiator, whose objects have no protobuf form. A 406 still names protobuf.
   */
  readonly protobufForMetadataOnly?: boolean;
}

export type Negotiated =
  | { readonly kind: 'json' | 'yaml' | 'protobuf' | 'cbor'; readonly serializer: Serializer; readonly mediaType: string; readonly pretty: boolean }
  | { readonly kind: 'table'; readonly serializer: Serializer; readonly mediaType: string; readonly pretty: boolean; readonly version: MetaVersion }
  | {
      readonly kind: 'partial-metadata' | 'partial-metadata-list';
      readonly serializer: Serializer;
      readonly mediaType: string;
      readonly pretty: boolean;
      readonly version: MetaVersion;
    };

export interface AcceptClause {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
  readonly params: Readonly<Record<string, string>>;
}

const MEDIA_OF: Record<Serializer, string> = { json: MEDIA_JSON, yaml: MEDIA_YAML, protobuf: MEDIA_PROTOBUF, cbor: MEDIA_CBOR };
/** The watch stream media type of a serializer (YAML has none). */
const STREAM_MEDIA_OF: Record<Serializer, string> = { json: `${MEDIA_JSON};stream=watch`, yaml: '', protobuf: `${MEDIA_PROTOBUF};stream=watch`, cbor: MEDIA_CBOR_SEQ };
const DEFAULT_SERIALIZERS: readonly Serializer[] = ['json', 'yaml'];

/** Parses an Accept header into clauses ordered as goautoneg orders them (q, then specificity; stable). */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const [range, ...paramParts] = part.split(';');
    const [rawType, rawSub] = (range ?? '').trim().split('/', 2) as [string, string | undefined];
    const type = rawType.trim().toLowerCase();
    let subtype: string;
    if (rawSub === undefined) {
      if (type !== '*') continue;
      subtype = '*';
    } else subtype = rawSub.trim().toLowerCase();
    if (!type || !subtype) continue;
    let q = 1;
    const params: Record<string, string> = {};
    for (const p of paramParts) {
      const eq = p.indexOf('=');
      const name = (eq < 0 ? p : p.slice(0, eq)).trim();
      const value = eq < 0 ? '' : p.slice(eq + 1).trim();
      if (!name) continue;
      if (name === 'q') {
        const parsed = Number.parseFloat(value);
        q = Number.isFinite(parsed) ? parsed : 0;
      } else params[name] = value;
    }
    clauses.push({ type, subtype, q, params });
  }
  const rank = (c: AcceptClause) => (c.type === '*' ? 0 : 2) + (c.subtype === '*' ? 0 : 1);
  return clauses
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || rank(b.c) - rank(a.c) || a.i - b.i)
    .map((x) => x.c);
}

/**
 * go-restful's Route.matchesAccept, checked before kube's handler runs: some Accept entry,
 * parameters stripped, is `*` + `/*` or exactly one of the types the route produces (so
 * `application/*` matches nothing). An absent Accept header counts as `*` + `/*`.
 */
export function restfulAccepts(accept: string | undefined, produces: readonly string[]): boolean {
  for (const entry of (accept || '*/*').split(',')) {
    const semi = entry.indexOf(';');
    const mediaType = (semi < 0 ? entry : entry.slice(0, semi)).trim();
    if (mediaType === '*/*' || produces.includes(mediaType)) return true;
  }
  return false;
}

/** Go's strconv.ParseBool, false when unparsable. */
function parseGoBool(v: string): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);
}

/**
 * kube's isPrettyPrint: a non-empty `pretty` query value decides; otherwise user agents that are
 * people (curl, Wget, browsers) get indented JSON.
 */
export function wantsPretty(prettyQuery: string | null | undefined, userAgent: string | undefined): boolean {
  if (prettyQuery) return parseGoBool(prettyQuery);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

type Match = { readonly serializer: Serializer; readonly target?: { kind: string; version: MetaVersion }; readonly pretty: boolean; readonly stream: string };

function matchClause(clause: AcceptClause, serializer: Serializer, offer: Offer): Match | undefined {
  const [type, subtype] = MEDIA_OF[serializer].split('/') as [string, string];
  const typeMatches =
    (clause.type === type && (clause.subtype === subtype || clause.subtype === '*')) || (clause.type === '*' && clause.subtype === '*');
  if (!typeMatches) return undefined;
  const p = clause.params;
  const stream = p['stream'] ?? '';
  if (stream && (serializer === 'yaml' || stream !== 'watch')) return undefined;
  const converting = 'as' in p || 'g' in p || 'v' in p;
  if (!converting) return serializer === 'protobuf' && offer.protobufForMetadataOnly ? undefined : { serializer, pretty: p['pretty'] === '1', stream };
  if (offer.conversions === false) return undefined;
  const as = p['as'] ?? '';
  const version = p['v'] ?? '';
  if (p['g'] !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) return undefined;
  if (as === 'Table') {
    if (!offer.table || serializer === 'protobuf') return undefined;
  } else if (as !== 'PartialObjectMetadata' && as !== 'PartialObjectMetadataList') return undefined;
  return { serializer, target: { kind: as, version }, pretty: p['pretty'] === '1', stream };
}

function firstMatch(accept: string | undefined, offer: Offer): Match | undefined {
  const serializers = offer.serializers ?? DEFAULT_SERIALIZERS;
  if (!accept || !accept.trim()) return { serializer: serializers[0]!, pretty: false, stream: '' };
  for (const clause of parseAccept(accept)) {
    // kube's negotiation orders clauses by q but never refuses one for q=0.
    for (const s of serializers) {
      const m = matchClause(clause, s, offer);
      if (m) return m;
    }
  }
  return undefined;
}

export interface NegotiateRequest {
  readonly accept: string | undefined;
  readonly offer?: Offer;
  /** The `pretty` query parameter, if any. */
  readonly prettyQuery?: string | null;
  readonly userAgent?: string;
}

/** Picks the response representation for a get or list; throws 406 listing the offered media types. */
export function negotiateOutput(req: NegotiateRequest): Negotiated {
  const offer = req.offer ?? {};
  const serializers = offer.serializers ?? DEFAULT_SERIALIZERS;
  const m = firstMatch(req.accept, offer);
  if (!m) throw errors.notAcceptable(serializers.map((s) => MEDIA_OF[s]));
  // Only JSON has an indenting serializer.
  const pretty = m.serializer === 'json' && (m.pretty || wantsPretty(req.prettyQuery, req.userAgent));
  const mediaType = MEDIA_OF[m.serializer];
  if (!m.target) return { kind: m.serializer, serializer: m.serializer, mediaType, pretty };
  const version = m.target.version;
  if (m.target.kind === 'Table') return { kind: 'table', serializer: m.serializer, mediaType, pretty, version };
  const kind = m.target.kind === 'PartialObjectMetadata' ? 'partial-metadata' : 'partial-metadata-list';
  return { kind, serializer: m.serializer, mediaType, pretty, version };
}

export interface NegotiatedWatch {
  readonly output: Negotiated;
  /** The Content-Type of the stream: `application/json` for JSON, `<type>;stream=watch` otherwise. */
  readonly contentType: string;
}

/**
 * Picks the representation of a watch stream. As in kube, the first acceptable clause decides,
 * and if its serializer cannot stream (YAML) the answer is 406 listing the streaming types.
 */
export function negotiateWatch(req: NegotiateRequest): NegotiatedWatch {
  const offer = req.offer ?? {};
  const serializers = offer.serializers ?? DEFAULT_SERIALIZERS;
  const streaming = serializers.filter((s) => s !== 'yaml').map((s) => STREAM_MEDIA_OF[s]);
  const m = firstMatch(req.accept, offer);
  // Nothing acceptable fails kube's list-handler negotiation (all media types listed); a
  // serializer that cannot stream fails later, listing the streaming ones.
  if (!m) throw errors.notAcceptable(serializers.map((s) => MEDIA_OF[s]));
  if (m.serializer === 'yaml') throw errors.notAcceptable(streaming);
  const output = negotiateOutput(req);
  const contentType = m.serializer === 'json' ? MEDIA_JSON : STREAM_MEDIA_OF[m.serializer];
  return { output, contentType };
}

export type BodyKind = 'json' | 'yaml' | 'protobuf' | 'cbor' | 'json-patch' | 'merge-patch' | 'strategic-merge-patch' | 'apply-patch';

export interface ParsedContentType {
  readonly kind: BodyKind;
  /** The bare media type, lower case, parameters removed. */
  readonly mediaType: string;
}

const PATCH_KINDS: Readonly<Record<string, BodyKind>> = {
  'application/json-patch+json': 'json-patch',
  'application/merge-patch+json': 'merge-patch',
  'application/strategic-merge-patch+json': 'strategic-merge-patch',
  'application/apply-patch+yaml': 'apply-patch',
  'application/apply-patch+cbor': 'apply-patch',
};

export interface ContentTypeContext {
  /** `patch` for PATCH requests, `body` for create/update. */
  readonly verb: 'body' | 'patch';
  /** Decoders for create/update bodies; default json, yaml. */
  readonly serializers?: readonly Serializer[];
  /** Strategic merge patch is offered for built-in kinds only. */
  readonly strategicMergePatch?: boolean;
  /** Server-side apply in CBOR (gate CBORServingAndStorage). */
  readonly applyCbor?: boolean;
}

/**
 * Names the decoder for a request body. An absent Content-Type means JSON for create/update (as in
 * kube) and is unsupported for patch. Unknown types throw 415 listing what is accepted.
 */
export function parseContentType(header: string | undefined, ctx: ContentTypeContext): ParsedContentType {
  const bare = (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (ctx.verb === 'patch') {
    const accepted = ['application/json-patch+json', 'application/merge-patch+json'];
    if (ctx.strategicMergePatch !== false) accepted.push('application/strategic-merge-patch+json');
    accepted.push('application/apply-patch+yaml');
    if (ctx.applyCbor) accepted.push('application/apply-patch+cbor');
    const kind = PATCH_KINDS[bare];
    // A type no PATCH route consumes is refused by go-restful; a known patch type the kind does not take, by the handler.
    if (!kind || (bare === 'application/apply-patch+cbor' && !ctx.applyCbor)) throw errors.restfulUnsupportedMediaType();
    if (!accepted.includes(bare)) throw unsupported(accepted);
    return { kind, mediaType: bare };
  }
  const serializers = ctx.serializers ?? DEFAULT_SERIALIZERS;
  const mediaType = bare || MEDIA_OF[serializers[0]!];
  const s = serializers.find((x) => MEDIA_OF[x] === mediaType);
  if (!s) throw unsupported(serializers.map((x) => MEDIA_OF[x]));
  return { kind: s, mediaType };
}

function unsupported(accepted: readonly string[]): ApiError {
  return errors.unsupportedMediaType(accepted);
}
