/**
 * A CRD's conversion webhook (strategy Webhook): sends a ConversionReview (v1 or v1beta1, the
 * first of conversionReviewVersions the server knows) over TLS and checks the answer as
 * kube-apiextensions-apiserver's webhookConverter does, with its error texts: every failure is a
 * reason-less 500 `conversion webhook for <group/version>, Kind=<kind> failed: ...`. Objects
 * already in the desired version are not sent; the converted objects keep the originals' metadata
 * except labels and annotations (kube's restoreObjectMeta).
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../api/types.ts';
import { ApiError } from '../api/status-errors.ts';
import { CallError, WebhookClient } from '../admission/webhook/client.ts';
import { dialTarget, webhookTarget, type WebhookTarget } from '../admission/webhook/target.ts';
import type { ServiceResolver } from '../aggregator/service-resolver.ts';
import { goJsonSyntaxError } from '../codec/json-syntax.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** kube's conversion webhook client timeout (the URL carries it as `?timeout=30s`). */
const TIMEOUT_SECONDS = 30;

/** Without the server's resolver (a webhook made on its own), no service reference resolves. */
const NO_SERVICES: ServiceResolver = { resolve: () => ({ kind: 'service-not-found' }) };

/** One connection pool for every conversion webhook of the server. */
const sharedClient = new WebhookClient();

export interface WebhookConversionConfig {
  readonly group: string;
  readonly kind: string;
  /** spec.conversion.webhook of the CRD. */
  readonly webhook: Obj;
  /** The server's one service resolver: where a `service` client config is dialled, resolved at each call. */
  readonly resolveService?: ServiceResolver;
}

/** A CRD's conversion webhook, ready to call. */
export class ConversionWebhook {
  private readonly target: WebhookTarget | string;
  private readonly reviewVersion: 'v1' | 'v1beta1' | undefined;

  constructor(
    private readonly cfg: WebhookConversionConfig,
    private readonly client: WebhookClient = sharedClient,
  ) {
    const versions = Array.isArray(cfg.webhook.conversionReviewVersions) ? cfg.webhook.conversionReviewVersions.map(str) : [];
    this.reviewVersion = versions.find((v): v is 'v1' | 'v1beta1' => v === 'v1' || v === 'v1beta1');
    this.target = webhookTarget(cfg.webhook.clientConfig, TIMEOUT_SECONDS);
  }

  /**
   * Converts `objects` to `desiredAPIVersion` in one review; objects already there are returned
   * as they are. Throws ApiError 500 with kube's text for one object (kube's storage converts
   * each object it decodes on its own).
   */
  async convert(objects: readonly KubeObject[], desiredAPIVersion: string): Promise<KubeObject[]> {
    const toSend = objects.filter((o) => o.apiVersion !== desiredAPIVersion);
    if (toSend.length === 0) return [...objects];
    // kube names the input's group/version/kind (the first object's here).
    const gvk = `${str(toSend[0]!.apiVersion)}, Kind=${str(toSend[0]!.kind) || this.cfg.kind}`;
    const fail = (msg: string) => new ApiError(500, '', `conversion webhook for ${gvk} ${msg}`);
    if (!this.reviewVersion) throw new ApiError(500, '', 'no supported conversion review versions');
    if (typeof this.target === 'string') throw fail(`failed: ${this.target}`);
    const uid = randomUUID();
    const apiVersion = `apiextensions.k8s.io/${this.reviewVersion}`;
    // kube sends the empty response beside the request (its review object carries both).
    const body = Buffer.from(
      JSON.stringify({ kind: 'ConversionReview', apiVersion, request: { uid, desiredAPIVersion, objects: toSend }, response: { uid: '', convertedObjects: null, result: { metadata: {} } } }),
    );
    let converted: unknown[];
    try {
      const endpoint = dialTarget(this.target, this.cfg.resolveService ?? NO_SERVICES);
      if (endpoint instanceof CallError) throw endpoint;
      const res = await this.client.post(endpoint, body, TIMEOUT_SECONDS * 1000);
      const text = res.body.toString('utf8');
      if (res.status < 200 || res.status > 299) throw new CallError(clientGoStatusError(res.status, text));
      converted = convertedObjectsOf(decodeReview(text), this.reviewVersion, uid);
    } catch (err) {
      if (err instanceof CallError || err instanceof ReviewError) throw fail(`failed: ${err.message}`);
      throw err;
    }
    if (converted.length !== toSend.length) throw fail(`returned ${converted.length} objects, expected ${toSend.length}`);
    let next = 0;
    return objects.map((original) => {
      if (original.apiVersion === desiredAPIVersion) return original;
      const index = next++;
      const out = converted[index];
      if (!isObj(out)) throw fail(`returned invalid object: Object 'Kind' is missing in '${JSON.stringify(out)}'`);
      if (out.apiVersion !== desiredAPIVersion) throw fail(`returned invalid object at index 0: invalid groupVersion (expected ${desiredAPIVersion}, received ${str(out.apiVersion)})`);
      if (out.kind !== original.kind) throw fail(`returned invalid object at index 0: invalid kind (expected ${str(original.kind)}, received ${str(out.kind)})`);
      const sameMeta = sameIdentity(original, out as KubeObject);
      if (sameMeta) throw fail(`returned invalid object: ${sameMeta}`);
      const restored = restoreObjectMeta(original, out as KubeObject);
      if (typeof restored === 'string') throw fail(`returned invalid metadata: ${restored}`);
      return restored;
    });
  }
}

class ReviewError extends Error {}

/** The answer decoded as client-go decodes it into a ConversionReview. */
function decodeReview(text: string): Obj {
  const syntax = goJsonSyntaxError(text, 10000);
  if (syntax !== undefined) throw new ReviewError(`couldn't get version/kind; json parse error: ${syntax}`);
  const value: unknown = JSON.parse(text);
  if (!isObj(value)) throw new ReviewError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  if (!value.kind) throw new ReviewError(`Object 'Kind' is missing in '${text}'`);
  return value;
}

/** kube's getConvertedObjectsFromResponse. */
function convertedObjectsOf(review: Obj, version: 'v1' | 'v1beta1', uid: string): unknown[] {
  const gvk = `${str(review.apiVersion)}, Kind=${str(review.kind)}`;
  if (version === 'v1' && gvk !== 'apiextensions.k8s.io/v1, Kind=ConversionReview') {
    throw new ReviewError(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvk}`);
  }
  const r = review.response;
  if (!isObj(r)) throw new ReviewError('no response provided');
  if (version === 'v1' && str(r.uid) !== uid) throw new ReviewError(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(str(r.uid))}`);
  const result = isObj(r.result) ? r.result : {};
  if (result.status !== 'Success') {
    throw new ReviewError(str(result.message) || `response.result.status was '${str(result.status)}', not 'Success'`);
  }
  return Array.isArray(r.convertedObjects) ? r.convertedObjects : [];
}

/** kube's validateConvertedObject: kind, name, namespace and uid stay. */
function sameIdentity(a: KubeObject, b: KubeObject): string | undefined {
  const am = isObj(a.metadata) ? a.metadata : {};
  const bm = isObj(b.metadata) ? b.metadata : {};
  if (str(a.kind) !== str(b.kind)) return `must have the same kind: ${str(a.kind)} != ${str(b.kind)}`;
  for (const [f, label] of [
    ['name', 'name'],
    ['namespace', 'namespace'],
    ['uid', 'UID'],
  ] as const) {
    if (str(am[f]) !== str(bm[f])) return `must have the same ${label}: ${str(am[f])} != ${str(bm[f])}`;
  }
  return undefined;
}

/** kube's restoreObjectMeta: the original metadata, with the webhook's labels and annotations. */
function restoreObjectMeta(original: KubeObject, converted: KubeObject): KubeObject | string {
  const answered = (converted as Obj).metadata;
  if (answered === undefined) return 'missing metadata in converted object';
  if (!isObj(answered)) return `invalid metadata of type ${goTypeName(answered)} in converted object`;
  const meta: Obj = structuredClone(isObj(original.metadata) ? original.metadata : {});
  for (const f of ['labels', 'annotations'] as const) {
    const v = answered[f];
    if (v === undefined || v === null) {
      delete meta[f];
      continue;
    }
    if (!isObj(v)) return `invalid metadata.${f} of type ${goTypeName(v)} in converted object`;
    for (const [k, x] of Object.entries(v)) if (typeof x !== 'string') return `metadata.${f}[${k}] must be a string, but is ${goTypeName(x)} in converted object`;
    meta[f] = v;
  }
  return { ...converted, metadata: meta };
}

/** The Go type JSON decoding gives a value (for kube's %T). */
function goTypeName(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return 'int64';
  return typeof v;
}

/** client-go's error for a non-2xx answer that is not a Status (NewGenericServerResponse). */
function clientGoStatusError(code: number, body: string): string {
  try {
    const s = JSON.parse(body) as Obj;
    if (isObj(s) && s.kind === 'Status' && typeof s.message === 'string' && s.message) return s.message;
  } catch {
    // not a Status: the generic wording below
  }
  const shown = JSON.stringify(body.length > 1024 ? body.slice(0, 1024) : body);
  if (code >= 500) return `an error on the server (${shown}) has prevented the request from succeeding`;
  switch (code) {
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'the server could not find the requested resource';
    case 409:
      return 'the server reported a conflict';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    default:
      return `the server responded with the status code ${code} but did not return more information`;
  }
}
