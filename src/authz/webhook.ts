/**
 * The Webhook mode, as kube's plugin/pkg/authorizer/webhook: each decision is a
 * SubjectAccessReview (authorization.k8s.io v1 or v1beta1) POSTed to a remote service named by a
 * kubeconfig file. `allowed` allows, `denied` denies (ending the chain), neither is no opinion.
 * Answers are cached by the review's spec (allowed ones for authorizedTTL, others for
 * unauthorizedTTL); a cache hit is answered synchronously. A call that fails (transport error,
 * non-2xx, malformed answer) is retried like kube's (500/504/429 and resets, exponential backoff)
 * and then decided by the failure policy (NoOpinion or Deny) and reported as an evaluation error.
 * With match conditions (AuthorizationConfiguration only) the webhook is asked only when every
 * CEL condition over `request` (the v1 review's spec) is true.
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { RequestUser } from '../request/user.ts';
import { fieldRequirements, labelRequirements } from './selector-attributes.ts';
import type { Attributes, Authorizer, Decision, MaybePromise, RulesResult } from './authorizer.ts';
import { compile, evaluate, isCompileError, type CompiledExpression } from '../cel/index.ts';

export type FailurePolicy = 'NoOpinion' | 'Deny';

/** Where and how to reach the webhook: the one cluster and user of its kubeconfig. */
export interface WebhookConnection {
  readonly server: string;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly insecureSkipTlsVerify?: boolean;
}

export interface WebhookOptions {
  readonly connection: WebhookConnection;
  /** `v1` or `v1beta1`: the SubjectAccessReview version sent. */
  readonly version: 'v1' | 'v1beta1';
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
  /** Per call (each retry has the full timeout). */
  readonly timeoutMs: number;
  readonly failurePolicy: FailurePolicy;
  readonly matchConditions?: readonly CompiledExpression[];
  /** kube's DefaultAuthWebhookRetryBackoff: 500ms, factor 1.5, 5 attempts. */
  readonly retry?: { readonly initialMs: number; readonly factor: number; readonly steps: number };
  /** The AuthorizeWithSelectors gate (on unless false): the reviews sent carry the selectors' requirements. */
  readonly selectors?: boolean;
}

/** Reads a webhook kubeconfig (its current context, else its first cluster and user); throws a message naming the file. */
export function loadWebhookKubeconfig(path: string): WebhookConnection {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`invalid webhook kubeconfig ${path}: ${(err as Error).message}`);
  }
  const o = asObj(doc);
  const named = (list: unknown, name: string | undefined, field: string): Record<string, unknown> | undefined => {
    const items = Array.isArray(list) ? list.map(asObj) : [];
    const item = name !== undefined ? items.find((i) => i.name === name) : items[0];
    return item ? asObj(item[field]) : undefined;
  };
  const currentName = typeof o['current-context'] === 'string' && o['current-context'] !== '' ? o['current-context'] : undefined;
  const context = currentName !== undefined ? named(o.contexts, currentName, 'context') : undefined;
  const cluster = named(o.clusters, typeof context?.cluster === 'string' ? context.cluster : undefined, 'cluster');
  const user = named(o.users, typeof context?.user === 'string' ? context.user : undefined, 'user') ?? {};
  if (!cluster || typeof cluster.server !== 'string' || cluster.server === '') throw new Error(`invalid webhook kubeconfig ${path}: no cluster with a server`);
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new Error(`invalid webhook kubeconfig ${path}: server ${JSON.stringify(cluster.server)} is not a URL`);
  }
  if (url.protocol !== 'https:') throw new Error(`invalid webhook kubeconfig ${path}: the server must use https`);
  const fileOrData = (o2: Record<string, unknown>, key: string): string | undefined => {
    if (typeof o2[`${key}-data`] === 'string' && o2[`${key}-data`] !== '') return Buffer.from(o2[`${key}-data`] as string, 'base64').toString('utf8');
    if (typeof o2[key] === 'string' && o2[key] !== '') return readFileSync(o2[key] as string, 'utf8');
    return undefined;
  };
  const token = typeof user.token === 'string' && user.token !== '' ? user.token : typeof user.tokenFile === 'string' ? readFileSync(user.tokenFile, 'utf8').trim() : undefined;
  const ca = fileOrData(cluster, 'certificate-authority');
  const cert = fileOrData(user, 'client-certificate');
  const key = fileOrData(user, 'client-key');
  return {
    server: cluster.server,
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined ? { cert } : {}),
    ...(key !== undefined ? { key } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(cluster['insecure-skip-tls-verify'] === true ? { insecureSkipTlsVerify: true } : {}),
  };
}

function asObj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

interface CachedStatus {
  readonly decision: Decision;
  readonly expires: number;
}

/** kube's LRU expiring cache (8192 entries). */
class ExpiringCache {
  private readonly map = new Map<string, CachedStatus>();
  constructor(private readonly max = 8192) {}

  get(key: string, now: number): Decision | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expires <= now) {
      this.map.delete(key);
      return undefined;
    }
    return e.decision;
  }

  add(key: string, decision: Decision, ttlMs: number, now: number): void {
    if (ttlMs <= 0) return;
    this.map.delete(key);
    this.map.set(key, { decision, expires: now + ttlMs });
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

/** The v1 SubjectAccessReview spec kube builds from the attributes (the cache key and the CEL `request`). */
export function reviewSpec(attrs: Attributes, withSelectors = true): Record<string, unknown> {
  const u = attrs.user;
  const spec: Record<string, unknown> = {};
  if (attrs.isResourceRequest) {
    const ra: Record<string, unknown> = {};
    if (attrs.namespace) ra.namespace = attrs.namespace;
    if (attrs.verb) ra.verb = attrs.verb;
    if (attrs.apiGroup) ra.group = attrs.apiGroup;
    if (attrs.apiVersion) ra.version = attrs.apiVersion;
    if (attrs.resource) ra.resource = attrs.resource;
    if (attrs.subresource) ra.subresource = attrs.subresource;
    if (attrs.name) ra.name = attrs.name;
    // kube's AuthorizeWithSelectors gate: requirements only, those that parsed, never the raw text.
    const fs = withSelectors ? fieldRequirements(attrs.fieldSelector) : undefined;
    if (fs) ra.fieldSelector = { requirements: fs };
    const ls = withSelectors ? labelRequirements(attrs.labelSelector) : undefined;
    if (ls) ra.labelSelector = { requirements: ls };
    spec.resourceAttributes = ra;
  } else {
    spec.nonResourceAttributes = { ...(attrs.path ? { path: attrs.path } : {}), ...(attrs.verb ? { verb: attrs.verb } : {}) };
  }
  if (u.username) spec.user = u.username;
  if (u.groups.length > 0) spec.groups = [...u.groups];
  const extraKeys = Object.keys(u.extra);
  if (extraKeys.length > 0) spec.extra = Object.fromEntries(extraKeys.map((k) => [k, [...u.extra[k]!]]));
  if (u.uid) spec.uid = u.uid;
  return spec;
}

/** Compiles match conditions; returns the compiled programs or the first problem per expression. */
export function compileMatchConditions(expressions: readonly string[]): { compiled: CompiledExpression[]; errors: { index: number; message: string }[] } {
  const compiled: CompiledExpression[] = [];
  const errors: { index: number; message: string }[] = [];
  expressions.forEach((e, index) => {
    const c = compile(e, { variables: { request: { type: 'dyn' } } });
    if (isCompileError(c)) errors.push({ index, message: c.message });
    else compiled.push(c);
  });
  return { compiled, errors };
}

const NO_OPINION: Decision = Object.freeze({ decision: 'noOpinion', reason: '' });

export class WebhookAuthorizer implements Authorizer {
  private readonly cache = new ExpiringCache();
  private readonly agent: https.Agent;
  private readonly url: URL;

  constructor(private readonly opts: WebhookOptions) {
    const c = opts.connection;
    this.url = new URL(c.server);
    this.agent = new https.Agent({
      keepAlive: true,
      ...(c.ca ? { ca: c.ca } : {}),
      ...(c.cert ? { cert: c.cert } : {}),
      ...(c.key ? { key: c.key } : {}),
      rejectUnauthorized: !c.insecureSkipTlsVerify,
    });
  }

  close(): void {
    this.agent.destroy();
  }

  authorize(attrs: Attributes): MaybePromise<Decision> {
    const spec = reviewSpec(attrs, this.opts.selectors !== false);
    if (this.opts.matchConditions && this.opts.matchConditions.length > 0) {
      const m = this.match(spec);
      if (m === false) return NO_OPINION;
      if (typeof m === 'string') return this.onError(m);
    }
    const key = JSON.stringify(spec);
    const hit = this.cache.get(key, Date.now());
    if (hit) return hit;
    return this.ask(key, spec);
  }

  /** kube's webhook cannot list rules. */
  rulesFor(_user: RequestUser, _namespace: string): RulesResult {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'webhook authorizer does not support user rule resolution' };
  }

  /** kube's CELMatcher: any false skips; otherwise errors (all of them) fail; else true. */
  private match(spec: Record<string, unknown>): boolean | string {
    const errs: string[] = [];
    for (const c of this.opts.matchConditions!) {
      const r = evaluate(c, { request: spec });
      if (r.kind === 'error') errs.push(`cel evaluation error: expression '${c.expression}' resulted in error: ${r.message}`);
      else if (r.value === false) return false;
      else if (r.value !== true) errs.push(`cel evaluation error: expression '${c.expression}' eval result type should be bool but got ${typeof r.value}`);
    }
    if (errs.length === 0) return true;
    return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
  }

  private onError(error: string): Decision {
    return { decision: this.opts.failurePolicy === 'Deny' ? 'deny' : 'noOpinion', reason: '', error };
  }

  private async ask(key: string, spec: Record<string, unknown>): Promise<Decision> {
    const retry = this.opts.retry ?? { initialMs: 500, factor: 1.5, steps: 5 };
    let delay = retry.initialMs;
    let lastError = '';
    for (let attempt = 1; attempt <= retry.steps; attempt++) {
      const r = await this.post(spec);
      if ('status' in r) {
        const d = decisionOf(r.status);
        if (typeof d === 'string') return this.onError(d);
        if (d.error !== undefined) return d;
        this.cache.add(key, d, d.decision === 'allow' ? this.opts.authorizedTtlMs : this.opts.unauthorizedTtlMs, Date.now());
        return d;
      }
      lastError = r.error;
      if (!r.retry || attempt === retry.steps) break;
      await new Promise((res) => setTimeout(res, delay * (1 + Math.random() * 0.2)));
      delay *= retry.factor;
    }
    return this.onError(lastError);
  }

  /** One POST: the answer's status, or an error and whether kube would retry it. */
  private post(spec: Record<string, unknown>): Promise<{ status: unknown } | { error: string; retry: boolean }> {
    const version = this.opts.version;
    // v1beta1 names the groups `group`.
    const sentSpec = version === 'v1beta1' && spec.groups ? (({ groups, ...rest }) => ({ ...rest, group: groups }))(spec) : spec;
    const body = JSON.stringify({ apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec: sentSpec, status: { allowed: false } });
    const where = `Post ${JSON.stringify(this.url.href)}`;
    return new Promise((resolve) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': String(Buffer.byteLength(body)) };
      if (this.opts.connection.token) headers.authorization = `Bearer ${this.opts.connection.token}`;
      const req = https.request(this.url, { method: 'POST', agent: this.agent, headers, timeout: this.opts.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => resolve({ error: `${where}: ${e.message}`, retry: true }));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          if (code < 200 || code > 299) {
            resolve({ error: `an error on the server (${JSON.stringify(text.slice(0, 200))}) has prevented the request from succeeding (post subjectaccessreviews.authorization.k8s.io)`, retry: code === 500 || code === 504 || code === 429 });
            return;
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch (err) {
            resolve({ error: `couldn't decode the webhook's answer: ${(err as Error).message}`, retry: false });
            return;
          }
          resolve({ status: asObj(parsed).status });
        });
      });
      req.on('timeout', () => req.destroy(new Error(`context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
      req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: `${where}: ${e.message}`, retry: e.code === 'ECONNRESET' }));
      req.end(body);
    });
  }
}

/** kube's switch over the answer's status; a string is the error of a contradictory or malformed one. */
function decisionOf(raw: unknown): Decision | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { decision: 'noOpinion', reason: '' };
  const st = raw as Record<string, unknown>;
  if ((st.allowed !== undefined && typeof st.allowed !== 'boolean') || (st.denied !== undefined && typeof st.denied !== 'boolean') || (st.reason !== undefined && typeof st.reason !== 'string')) {
    return "couldn't decode the webhook's answer: status.allowed and status.denied must be booleans, status.reason a string";
  }
  const reason = typeof st.reason === 'string' ? st.reason : '';
  // kube denies with the error (the gate then answers 500), whatever the failure policy.
  if (st.allowed === true && st.denied === true) return { decision: 'deny', reason, error: 'webhook subject access review returned both allow and deny response' };
  if (st.denied === true) return { decision: 'deny', reason };
  if (st.allowed === true) return { decision: 'allow', reason };
  return { decision: 'noOpinion', reason };
}
