/**
 * MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the webhooks of the stored
 * configurations, matched against each request (rules with matchPolicy Equivalent, namespace and
 * object selectors, CEL matchConditions), called with an AdmissionReview (v1 or v1beta1, as the
 * webhook accepts), their answers applied (JSONPatch, warnings, audit annotations, denials with
 * kube's messages), and failures handled by failurePolicy.
 *
 * Mutating webhooks are called one after the other, each seeing the previous one's changes;
 * validating webhooks are called in parallel. Two safety features beyond kube (documented in the
 * README): a circuit breaker per webhook, and an audit-only rollout annotation on a configuration.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, errors, isApiError } from '../../api/status-errors.ts';
import type { KubeObject, ResourceType } from '../../api/types.ts';
import { ADMISSION_GROUP, MATCH_CONDITION_VARIABLES } from '../../api/kinds/admissionregistration.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { labelSelectorFromObject, type LabelSelector } from '../../registry/label-selector.ts';
import { cloneObject, jsonEqual } from '../../registry/object-meta.ts';
import { applyJsonPatch } from '../../patch/json-patch.ts';
import { pruneUnknownFields } from '../../schema/prune.ts';
import { authorizerValue, compile, evaluate, isCompileError, toCelValue, type CompiledExpression } from '../../cel/index.ts';
import type { Authorizer } from '../../authz/authorizer.ts';
import type { ResourceCatalog } from '../../registry/resource-catalog.ts';
import type { MetricsRegistry } from '../../metrics/registry.ts';
import type { AdmissionAttributes, AdmissionPlugin, GroupVersionKind, GroupVersionResource } from '../types.ts';
import type { AdmissionPluginDeps, ReinvocablePlugin } from '../chain.ts';
import { celAuthorizerFor, requestResourceOf } from '../cel-authorizer.ts';
import { AdmissionMetrics, type WebhookType } from '../metrics.ts';
import { convertEquivalent } from '../equivalent-conversion.ts';
import { CircuitBreaker, type BreakerSnapshot } from './breaker.ts';
import { CallError, WebhookClient } from './client.ts';
import { credentialsFor, webhookSettings, type WebhookSettings } from './settings.ts';
import { dialTarget, webhookTarget, type WebhookTarget } from './target.ts';
import { buildServiceResolver, catalogObjects, type ServiceResolver } from '../../aggregator/service-resolver.ts';

/** The annotation that puts a configuration's webhooks in audit-only mode: `"true"` or a comma-separated list of webhook names. */
export const AUDIT_ONLY_ANNOTATION = 'admission.kube-gateway.io/audit-only';
/** The annotation where the gateway publishes the state of each webhook's circuit breaker (JSON by webhook name). */
export const BREAKER_STATE_ANNOTATION = 'admission.kube-gateway.io/circuit-breakers';

type Phase = 'mutating' | 'validating';

interface Rule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  readonly scope: string;
}

interface MatchCondition {
  readonly name: string;
  readonly program: CompiledExpression | undefined;
  readonly error?: string;
}

/** One webhook of one stored configuration, prepared for matching and calling. */
interface Hook {
  readonly key: string;
  readonly configName: string;
  readonly name: string;
  readonly rules: readonly Rule[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly namespaceSelector: LabelSelector;
  readonly objectSelector: LabelSelector;
  readonly sideEffects: string;
  readonly timeoutMs: number;
  readonly reviewVersion: 'v1' | 'v1beta1' | undefined;
  readonly reinvokeIfNeeded: boolean;
  readonly matchConditions: readonly MatchCondition[];
  readonly auditOnly: boolean;
  /** Where the webhook is called (a service reference is resolved at each call); a string when the client config cannot be used. */
  readonly target: WebhookTarget | string;
  readonly breaker: CircuitBreaker;
}

const strs = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** Group/resource pairs kube never sends to webhooks: the admission configuration objects themselves. */
function isExemptResource(r: GroupVersionResource): boolean {
  return (
    r.group === ADMISSION_GROUP &&
    ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings'].includes(r.resource)
  );
}

/** kube's rule matcher: operation, group, version, resource/subresource with wildcards, scope. */
function ruleMatches(rule: Rule, op: string, gvr: GroupVersionResource, subresource: string, namespace: string): boolean {
  const any = (list: readonly string[], v: string) => list.includes('*') || list.includes(v);
  if (!any(rule.operations, op) || !any(rule.apiGroups, gvr.group) || !any(rule.apiVersions, gvr.version)) return false;
  const resOk = rule.resources.some((r) => {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? '' : r.slice(slash + 1);
    return (res === '*' || res === gvr.resource) && (sub === '*' || sub === subresource);
  });
  if (!resOk) return false;
  const isNamespaceObject = gvr.group === '' && gvr.resource === 'namespaces';
  if (rule.scope === 'Namespaced') return !isNamespaceObject && namespace !== '';
  if (rule.scope === 'Cluster') return isNamespaceObject || namespace === '';
  return true;
}

/** One invocation: the webhook and the version of the object it is sent. */
interface Invocation {
  readonly hook: Hook;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** The served type of that version, when it differs from the request's (matchPolicy Equivalent). */
  readonly convertTo?: ResourceType;
}

/** Reads the configurations of one kind from their watch cache and keeps them prepared until one changes. */
class HookSource {
  private hooks: Hook[] | undefined;
  private readonly breakers = new Map<string, CircuitBreaker>();
  private handle: { close(): void } | undefined;

  constructor(
    private readonly store: ResourceStore,
    private readonly phase: Phase,
    private readonly settings: WebhookSettings,
    private readonly publishBreaker: (configName: string, hookName: string, s: BreakerSnapshot) => void,
  ) {}

  start(): void {
    const cache = this.store.cache;
    this.handle = cache.watch(
      { fromRevision: cache.revision },
      {
        onEvent: () => {
          this.hooks = undefined;
        },
        onError: () => {
          this.hooks = undefined;
          setTimeout(() => this.start(), 1000).unref();
        },
      },
    );
  }

  stop(): void {
    this.handle?.close();
  }

  /** Each current webhook's breaker, for the metrics. */
  breakerStates(): Array<{ configuration: string; name: string; state: string; failures: number }> {
    return this.current().map((h) => {
      const snap = h.breaker.snapshot();
      return { configuration: h.configName, name: h.name, state: snap.state, failures: snap.consecutiveFailures };
    });
  }

  current(): readonly Hook[] {
    if (this.hooks) return this.hooks;
    const entries = this.store.cache.list({ keyPrefix: this.store.listPrefix('') }).entries;
    // kube calls webhooks in the order of their configurations' names, then their order within.
    const configs = entries.map((e) => e.value).sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    const hooks: Hook[] = [];
    const live = new Set<string>();
    for (const cfg of configs) {
      for (const raw of (cfg.webhooks as Record<string, unknown>[] | undefined) ?? []) {
        const hook = this.prepare(cfg, raw);
        hooks.push(hook);
        live.add(hook.key);
      }
    }
    for (const k of this.breakers.keys()) if (!live.has(k)) this.breakers.delete(k);
    this.hooks = hooks;
    return hooks;
  }

  private prepare(cfg: KubeObject, raw: Record<string, unknown>): Hook {
    const configName = cfg.metadata?.name ?? '';
    const name = String(raw.name ?? '');
    const key = `${cfg.metadata?.uid ?? configName}/${name}`;
    let breaker = this.breakers.get(key);
    if (!breaker) {
      breaker = new CircuitBreaker(this.settings.breaker, (s) => this.publishBreaker(configName, name, s));
      this.breakers.set(key, breaker);
    }
    const auditAnnotation = cfg.metadata?.annotations?.[AUDIT_ONLY_ANNOTATION];
    const auditOnly = auditAnnotation === 'true' || (auditAnnotation ?? '').split(',').map((s) => s.trim()).includes(name);
    const versions = strs(raw.admissionReviewVersions);
    const selector = (v: unknown): LabelSelector => {
      try {
        return labelSelectorFromObject((v ?? {}) as never);
      } catch {
        // Validation refuses bad selectors; one that slipped through selects nothing.
        return labelSelectorFromObject(null);
      }
    };
    return {
      key,
      configName,
      name,
      rules: ((raw.rules as Record<string, unknown>[] | undefined) ?? []).map((r) => ({
        operations: strs(r.operations),
        apiGroups: strs(r.apiGroups),
        apiVersions: strs(r.apiVersions),
        resources: strs(r.resources),
        scope: typeof r.scope === 'string' ? r.scope : '*',
      })),
      failurePolicy: raw.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
      matchPolicy: raw.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
      namespaceSelector: selector(raw.namespaceSelector),
      objectSelector: selector(raw.objectSelector),
      sideEffects: String(raw.sideEffects ?? 'Unknown'),
      timeoutMs: (typeof raw.timeoutSeconds === 'number' ? raw.timeoutSeconds : 10) * 1000,
      reviewVersion: versions.find((v): v is 'v1' | 'v1beta1' => v === 'v1' || v === 'v1beta1'),
      reinvokeIfNeeded: this.phase === 'mutating' && raw.reinvocationPolicy === 'IfNeeded',
      matchConditions: ((raw.matchConditions as Record<string, unknown>[] | undefined) ?? []).map((mc) => {
        const compiled = compile(String(mc.expression ?? ''), { variables: MATCH_CONDITION_VARIABLES, expressions: 'stored' });
        return isCompileError(compiled) ? { name: String(mc.name), program: undefined, error: compiled.message } : { name: String(mc.name), program: compiled };
      }),
      auditOnly,
      target: webhookTarget(raw.clientConfig, typeof raw.timeoutSeconds === 'number' ? raw.timeoutSeconds : 10, (host, port) => credentialsFor(this.settings, host, port)),
      breaker,
    };
  }

}

/** A call that failed (failurePolicy applies), with the status code kube's ErrCallingWebhook carries (metrics). */
class CallingError extends Error {
  constructor(
    message: string,
    /**
     * As kube-apiserver v1.32.4 reports them (read from its metrics): 400 for a call that failed
     * (connection, timeout, an undecodable body), the webhook's HTTP status for a non-2xx answer,
     * 503 for an answer that is not a valid AdmissionReview response, 500 for a match condition error.
     */
    readonly code = 400,
  ) {
    super(message);
  }
}

/** The shared machinery of both plugins. */
class WebhookDispatcher {
  readonly source: HookSource;

  constructor(
    readonly phase: Phase,
    private readonly catalog: ResourceCatalog,
    private readonly authorizer: Authorizer,
    private readonly client: WebhookClient,
    settings: WebhookSettings,
    private readonly metrics: AdmissionMetrics,
    private readonly resolver: ServiceResolver,
  ) {
    const store = catalog.lookup(ADMISSION_GROUP, 'v1', phase === 'mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations')?.store;
    if (!store) throw new Error(`the ${phase} webhook configuration kind is not served`);
    this.source = new HookSource(store, phase, settings, (config, hook, s) => this.publishBreaker(store, config, hook, s));
  }

  /** Records breaker state on the configuration, as the server (no admission), without waiting for it. */
  private publishBreaker(store: ResourceStore, configName: string, hookName: string, s: BreakerSnapshot): void {
    void store
      .update(
        '',
        configName,
        (current) => {
          if (!current) throw errors.notFound(store.gr, configName);
          const meta = current.metadata!;
          let states: Record<string, unknown> = {};
          try {
            states = JSON.parse(meta.annotations?.[BREAKER_STATE_ANNOTATION] ?? '{}') as Record<string, unknown>;
          } catch {
            states = {};
          }
          if (s.state === 'closed') delete states[hookName];
          else states[hookName] = s;
          const annotations = { ...(meta.annotations ?? {}) };
          if (Object.keys(states).length === 0) delete annotations[BREAKER_STATE_ANNOTATION];
          else annotations[BREAKER_STATE_ANNOTATION] = JSON.stringify(states);
          meta.annotations = annotations;
          if (Object.keys(annotations).length === 0) delete meta.annotations;
          delete meta.resourceVersion;
          return current;
        },
        { dryRun: false, warnings: [], now: new Date(), manager: 'kube-gateway-admission', subresource: '' },
        { allowCreate: false, subresource: '' },
      )
      .catch((err: unknown) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: `recording the circuit breaker of webhook ${hookName}: ${(err as Error).message}` })}\n`));
  }

  /** kube's `type` label: the mutating dispatcher reports `admit`. */
  private get metricType(): WebhookType {
    return this.phase === 'mutating' ? 'admit' : 'validating';
  }

  /** A call the webhook answered with allowed. */
  observeAllowed(hook: Hook, a: AdmissionAttributes, started: number): void {
    this.metrics.observeWebhook(hook.name, this.metricType, a.operation, 200, false, (performance.now() - started) / 1000);
  }

  /** A denial; in audit-only mode it refuses nothing and is recorded as not rejected. */
  observeDenied(hook: Hook, a: AdmissionAttributes, started: number, code: number): void {
    const rejected = !hook.auditOnly;
    if (rejected) this.metrics.observeWebhookRejection(hook.name, this.metricType, a.operation, 'no_error', code);
    this.metrics.observeWebhook(hook.name, this.metricType, a.operation, code, rejected, (performance.now() - started) / 1000);
  }

  /** A failed call: a rejection under failurePolicy Fail, a fail-open under Ignore (kube's ErrCallingWebhook). */
  observeCallFailure(hook: Hook, a: AdmissionAttributes, started: number, err: CallingError): void {
    const rejected = hook.failurePolicy === 'Fail' && !hook.auditOnly;
    if (rejected) this.metrics.observeWebhookRejection(hook.name, this.metricType, a.operation, 'calling_webhook_error', err.code);
    this.metrics.observeWebhook(hook.name, this.metricType, a.operation, err.code, rejected, (performance.now() - started) / 1000);
    if (hook.failurePolicy === 'Ignore') this.metrics.observeWebhookFailOpen(hook.name, this.metricType);
  }

  /** A refusal by the gateway itself (dry run unsupported, a patch that does not apply). */
  observeInternal(hook: Hook, a: AdmissionAttributes, started: number): void {
    this.metrics.observeWebhookRejection(hook.name, this.metricType, a.operation, 'apiserver_internal_error', 0);
    this.metrics.observeWebhook(hook.name, this.metricType, a.operation, 0, true, (performance.now() - started) / 1000);
  }

  /** The webhooks this request goes to, each with the version it is sent. */
  async matching(a: AdmissionAttributes): Promise<Invocation[]> {
    if (isExemptResource(a.resource)) return [];
    const hooks = this.source.current();
    if (hooks.length === 0) return [];
    const out: Invocation[] = [];
    let nsLabels: Record<string, string> | undefined | null = null;
    for (const hook of hooks) {
      const inv = this.ruleMatch(hook, a);
      if (!inv) continue;
      if (!hook.objectSelector.empty && !hook.objectSelector.matches(a.object?.metadata?.labels) && !hook.objectSelector.matches(a.oldObject?.metadata?.labels)) continue;
      if (!hook.namespaceSelector.empty) {
        if (nsLabels === null) nsLabels = await this.namespaceLabels(a);
        // Cluster-scoped objects (other than namespaces) match any namespace selector.
        if (nsLabels !== undefined && !hook.namespaceSelector.matches(nsLabels)) continue;
      }
      out.push(inv);
    }
    return out;
  }

  private ruleMatch(hook: Hook, a: AdmissionAttributes): Invocation | undefined {
    if (hook.rules.some((r) => ruleMatches(r, a.operation, a.resource, a.subresource, a.namespace))) return { hook, kind: a.kind, resource: a.resource };
    if (hook.matchPolicy !== 'Equivalent') return undefined;
    const view = this.isView(a);
    for (const eq of this.equivalents(a)) {
      const gvr = { group: eq.group, version: eq.version, resource: eq.resource };
      if (hook.rules.some((r) => ruleMatches(r, a.operation, gvr, a.subresource, a.namespace))) {
        // A subresource of another kind (a Scale) is the same object in every version: nothing to convert.
        if (view) return { hook, kind: a.kind, resource: gvr };
        return { hook, kind: { group: eq.group, version: eq.version, kind: eq.kind }, resource: gvr, convertTo: eq };
      }
    }
    return undefined;
  }

  /** Served types that are the same objects as the request's in another group or version (they share storage). */
  private equivalents(a: AdmissionAttributes): ResourceType[] {
    const self = this.catalog.lookup(a.resource.group, a.resource.version, a.resource.resource)?.rt;
    if (!self) return [];
    return this.catalog.types().filter((t) => t !== self && t.storagePrefix === self.storagePrefix);
  }

  /** The labels of the request's namespace (of the namespace object itself for namespaces); undefined for cluster-scoped objects. */
  private async namespaceLabels(a: AdmissionAttributes): Promise<Record<string, string> | undefined> {
    if (a.resource.group === '' && a.resource.resource === 'namespaces') return (a.object ?? a.oldObject)?.metadata?.labels ?? {};
    if (a.namespace === '') return undefined;
    const ns = this.catalog.lookup('', 'v1', 'namespaces')?.store;
    if (!ns) return {};
    const cached = ns.cache.get(ns.key('', a.namespace));
    if (cached) return cached.value.metadata?.labels ?? {};
    try {
      return (await ns.get('', a.namespace, '')).value.metadata?.labels ?? {};
    } catch {
      // kube: a namespace that cannot be found leaves the request unmatched by label; the lifecycle plugin already answered.
      return {};
    }
  }

  /**
   * The object in the invoked version (a conversion webhook is asked for custom resources that
   * have one). A failed conversion fails the request whatever the failure policy: kube's 500
   * InternalError, which the mutating dispatcher wraps once more (as kube-apiserver v1.32.4 answers).
   */
  async convert(obj: KubeObject | null, from: AdmissionAttributes, to: ResourceType | undefined): Promise<KubeObject | null> {
    if (!obj || !to) return obj;
    try {
      return await convertEquivalent(obj, this.requestType(from), to);
    } catch (err) {
      throw this.conversionFailure(err);
    }
  }

  /** The inverse of `convert`, for a mutated object. */
  async convertBack(obj: KubeObject, from: AdmissionAttributes, to: ResourceType | undefined): Promise<KubeObject> {
    const self = this.requestType(from);
    if (!to || !self) return obj;
    try {
      return await convertEquivalent(obj, to, self);
    } catch (err) {
      throw this.conversionFailure(err);
    }
  }

  private conversionFailure(err: unknown): unknown {
    if (!isApiError(err)) return err;
    const internal = errors.internal(err.message);
    return this.phase === 'mutating' ? errors.internal(internal.message) : internal;
  }

  private requestType(a: AdmissionAttributes): ResourceType | undefined {
    return this.catalog.lookup(a.resource.group, a.resource.version, a.resource.resource)?.rt;
  }

  /** Drops the fields the request's kind does not have (a patched object decoded into the Go type). */
  prune(obj: KubeObject, a: AdmissionAttributes): void {
    const rt = this.catalog.lookup(a.resource.group, a.resource.version, a.resource.resource)?.rt;
    if (rt && !this.isView(a)) pruneUnknownFields(obj, rt.schema);
  }

  /** Whether the request's objects are of another kind than the resource's (kube's scale subresource: autoscaling/v1 Scale). */
  private isView(a: AdmissionAttributes): boolean {
    const rt = this.requestType(a);
    return rt !== undefined && (rt.kind !== a.kind.kind || rt.group !== a.kind.group || rt.version !== a.kind.version);
  }

  /** The AdmissionRequest kube sends, as a plain object. */
  request(a: AdmissionAttributes, inv: Invocation, uid: string, object: KubeObject | null, oldObject: KubeObject | null): Record<string, unknown> {
    const u = a.userInfo;
    return {
      uid,
      kind: inv.kind,
      resource: inv.resource,
      ...(a.subresource ? { subResource: a.subresource } : {}),
      requestKind: a.kind,
      requestResource: a.resource,
      ...(a.subresource ? { requestSubResource: a.subresource } : {}),
      ...(a.name ? { name: a.name } : {}),
      ...(a.namespace ? { namespace: a.namespace } : {}),
      operation: a.operation,
      userInfo: {
        username: u.username,
        ...(u.uid ? { uid: u.uid } : {}),
        ...(u.groups.length > 0 ? { groups: u.groups } : {}),
        ...(Object.keys(u.extra).length > 0 ? { extra: u.extra } : {}),
      },
      object,
      oldObject,
      dryRun: a.dryRun,
      options: a.options,
    };
  }

  /** Whether the match conditions let the request through; throws CallingError when one fails to evaluate. */
  conditionsMatch(hook: Hook, req: Record<string, unknown>, a: AdmissionAttributes): boolean {
    if (hook.matchConditions.length === 0) return true;
    const activation = {
      object: toCelValue(req.object),
      oldObject: toCelValue(req.oldObject),
      request: toCelValue(req),
      authorizer: authorizerValue(celAuthorizerFor(this.authorizer, a.userInfo), requestResourceOf(a)),
    };
    let error: string | undefined;
    for (const mc of hook.matchConditions) {
      if (!mc.program) {
        error ??= `compilation failed for match condition ${JSON.stringify(mc.name)}: ${mc.error}`;
        continue;
      }
      const r = evaluate(mc.program, activation);
      if (r.kind === 'error') error ??= `expression '${mc.program.expression}' resulted in error: ${r.message}`;
      // Any false condition skips the webhook, even when another one errs (kube's order of precedence).
      else if (r.value === false) return false;
      else if (r.value !== true) error ??= `expression '${mc.program.expression}' resulted in error: must evaluate to bool`;
    }
    if (error) throw new CallingError(error, 500);
    return true;
  }

  /** Calls one webhook; returns its AdmissionResponse. Throws CallingError for anything that is not a well-formed answer. */
  async call(inv: Invocation, req: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { hook } = inv;
    if (typeof hook.target === 'string') throw new CallingError(hook.target, 400);
    if (!hook.reviewVersion) throw new CallingError(`webhook does not accept known AdmissionReview versions`);
    if (!hook.breaker.tryAcquire()) {
      throw new CallingError(`circuit breaker open after ${hook.breaker.snapshot().consecutiveFailures} consecutive failures (last: ${hook.breaker.snapshot().lastError ?? 'unknown'}); not calling the webhook until the cool-down ends`);
    }
    const apiVersion = `admission.k8s.io/${hook.reviewVersion}`;
    const body = Buffer.from(JSON.stringify({ kind: 'AdmissionReview', apiVersion, request: req }));
    let response: Record<string, unknown>;
    let code = 400;
    try {
      const endpoint = dialTarget(hook.target, this.resolver);
      if (endpoint instanceof CallError) throw endpoint;
      const res = await this.client.post(endpoint, body, hook.timeoutMs);
      if (res.status < 200 || res.status > 299) {
        code = res.status;
        throw new CallError(`an error on the server (${JSON.stringify(res.body.toString('utf8').slice(0, 256))}) has prevented the request from succeeding`);
      }
      let review: Record<string, unknown>;
      try {
        review = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
      } catch (err) {
        throw new CallError(`failed to decode the webhook response: ${(err as Error).message}`);
      }
      code = 503;
      response = verifyResponse(review, hook.reviewVersion, String(req.uid), this.phase === 'mutating');
      hook.breaker.success();
    } catch (err) {
      const message = err instanceof CallError ? `failed to call webhook: ${err.message}` : (err as Error).message;
      hook.breaker.failure(message);
      throw new CallingError(message, code);
    }
    return response;
  }
}

/** kube's VerifyAdmissionResponse; throws CallError with its wording. */
function verifyResponse(review: Record<string, unknown>, version: 'v1' | 'v1beta1', uid: string, mutating: boolean): Record<string, unknown> {
  const invalid = (m: string) => new CallError(`received invalid webhook response: ${m}`);
  if (!review || typeof review !== 'object' || Array.isArray(review)) throw invalid('the response is not an AdmissionReview object');
  if (version === 'v1') {
    if (review.apiVersion !== 'admission.k8s.io/v1') throw invalid(`expected webhook response of admission.k8s.io/v1, got ${String(review.apiVersion ?? '')}`);
    if (review.kind !== 'AdmissionReview') throw invalid(`expected webhook response of kind AdmissionReview, got ${String(review.kind ?? '')}`);
  }
  const r = review.response as Record<string, unknown> | undefined | null;
  if (!r || typeof r !== 'object') throw invalid('webhook response was absent');
  if (version === 'v1' && r.uid !== uid) throw invalid(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(String(r.uid ?? ''))}`);
  const patchType = typeof r.patchType === 'string' ? r.patchType : '';
  const hasPatch = typeof r.patch === 'string' && r.patch.length > 0;
  if (mutating) {
    if (version === 'v1' && patchType === '' && hasPatch) throw invalid('webhook returned response.patch but not response.patchType');
    if (patchType !== '' && patchType !== 'JSONPatch') throw invalid(`webhook returned invalid response.patchType of ${JSON.stringify(patchType)}`);
  } else if (version === 'v1') {
    if (hasPatch) throw invalid('validating webhook may not return response.patch');
    if (patchType !== '') throw invalid('validating webhook may not return response.patchType');
  }
  return r;
}

/** kube's webhookerrors.ToStatusErr: the webhook's Status, with "admission webhook ... denied the request". */
function denial(hookName: string, status: Record<string, unknown> | undefined): ApiError {
  const deniedBy = `admission webhook ${JSON.stringify(hookName)} denied the request`;
  const s = status ?? {};
  const code = typeof s.code === 'number' && s.code >= 400 ? s.code : 403;
  const message = typeof s.message === 'string' && s.message ? `${deniedBy}: ${s.message}` : typeof s.reason === 'string' && s.reason ? `${deniedBy}: ${s.reason}` : `${deniedBy} without explanation`;
  return new ApiError(code, (typeof s.reason === 'string' ? s.reason : '') as never, message, (s.details ?? undefined) as never);
}

/** What a refusal turns into in audit-only mode: a warning and an audit annotation instead. */
function auditOnly(a: AdmissionAttributes, hook: Hook, what: string): void {
  a.warnings.push(`admission webhook ${JSON.stringify(hook.name)} (audit-only) would have denied the request: ${what}`);
  a.auditAnnotations[`${hook.name}/audit-only-denial`] = what;
}

/** The webhook's warnings and audit annotations, as kube records them. */
function recordResponse(a: AdmissionAttributes, hook: Hook, r: Record<string, unknown>): void {
  for (const w of strs(r.warnings)) if (w) a.warnings.push(w);
  const ann = r.auditAnnotations;
  if (ann && typeof ann === 'object') for (const [k, v] of Object.entries(ann as Record<string, unknown>)) a.auditAnnotations[`${hook.name}/${k}`] = String(v);
}

/** A calling failure under the webhook's failurePolicy: kube's InternalError for Fail, nothing for Ignore. */
function callFailure(a: AdmissionAttributes, hook: Hook, err: CallingError): void {
  const message = `failed calling webhook ${JSON.stringify(hook.name)}: ${err.message}`;
  if (hook.failurePolicy === 'Ignore') {
    a.auditAnnotations[`${hook.name}/failed-open`] = message;
    return;
  }
  if (hook.auditOnly) {
    auditOnly(a, hook, message);
    return;
  }
  throw errors.internal(message);
}

/** Dry run reaches only webhooks without side effects (kube's NewDryRunUnsupportedErr otherwise). */
function checkDryRun(a: AdmissionAttributes, hook: Hook): void {
  if (a.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
    throw errors.badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
  }
}

/** The dispatchers whose breakers one registry reports (the family is registered once per registry). */
const breakerSources = new WeakMap<MetricsRegistry, Array<{ type: Phase; source: HookSource }>>();

const breakerStateValue: Record<string, number> = { closed: 0, 'half-open': 1, open: 2 };

function registerBreakerMetrics(registry: MetricsRegistry, type: Phase, source: HookSource): void {
  let sources = breakerSources.get(registry);
  if (!sources) {
    sources = [];
    breakerSources.set(registry, sources);
    const list = sources;
    registry.collector({
      name: 'kube_gateway_admission_webhook_circuit_breaker_state',
      help: 'State of each admission webhook circuit breaker: 0 closed, 1 half-open, 2 open.',
      type: 'gauge',
      collect: () =>
        list.flatMap(({ type: t, source: src }) =>
          src.breakerStates().map((b) => ({ labels: { type: t, configuration: b.configuration, name: b.name }, value: breakerStateValue[b.state] ?? 0 })),
        ),
    });
  }
  sources.push({ type, source });
}

interface PluginOptions {
  readonly client: WebhookClient;
  readonly settings: WebhookSettings;
  readonly metrics: AdmissionMetrics;
  readonly resolver: ServiceResolver;
}

/**
 * Each plugin has its own pool of connections, closed with the server. Service references resolve
 * through the server's one service resolver; without one (a chain built on its own), through the
 * served Services with kube's default routing (cluster IP).
 */
function pluginOptions(deps: AdmissionPluginDeps): PluginOptions {
  return {
    client: new WebhookClient(),
    settings: webhookSettings(deps.config, deps.configDir),
    metrics: deps.metrics ?? new AdmissionMetrics(),
    resolver: deps.serviceResolver ?? buildServiceResolver(catalogObjects(deps.catalog), { routing: 'cluster-ip' }),
  };
}

/** ValidatingAdmissionWebhook: every matching webhook is called in parallel; the first refusal (in order) wins. */
export function validatingAdmissionWebhook(deps: AdmissionPluginDeps): AdmissionPlugin {
  const { client, settings, metrics, resolver } = pluginOptions(deps);
  const d = new WebhookDispatcher('validating', deps.catalog, deps.authorizer, client, settings, metrics, resolver);
  return {
    name: 'ValidatingAdmissionWebhook',
    registerMetrics: (registry) => registerBreakerMetrics(registry, 'validating', d.source),
    // Without configurations the plugin has nothing to do: the write path then skips copying the object.
    handles: () => d.source.current().length > 0,
    async ready() {
      d.source.start();
    },
    stop() {
      d.source.stop();
      client.close();
    },
    async validate(a) {
      const invocations = await d.matching(a);
      if (invocations.length === 0) return;
      // As kube, the objects are converted once per version the webhooks matched, before any call
      // (old object first); a failed conversion fails the request.
      const versioned = new Map<ResourceType | undefined, { object: KubeObject | null; oldObject: KubeObject | null }>();
      for (const inv of invocations) {
        if (versioned.has(inv.convertTo)) continue;
        const oldObject = await d.convert(a.oldObject, a, inv.convertTo);
        versioned.set(inv.convertTo, { object: await d.convert(a.object, a, inv.convertTo), oldObject });
      }
      const outcomes = await Promise.all(
        invocations.map(async (inv): Promise<ApiError | undefined> => {
          const hook = inv.hook;
          const uid = randomUUID();
          const { object, oldObject } = versioned.get(inv.convertTo)!;
          const req = d.request(a, inv, uid, object, oldObject);
          const started = performance.now();
          try {
            if (!d.conditionsMatch(hook, req, a)) return undefined;
            checkDryRun(a, hook);
            const r = await d.call(inv, req);
            recordResponse(a, hook, r);
            if (r.allowed === true) {
              d.observeAllowed(hook, a, started);
              return undefined;
            }
            const err = denial(hook.name, r.status as Record<string, unknown> | undefined);
            d.observeDenied(hook, a, started, err.code);
            if (hook.auditOnly) {
              auditOnly(a, hook, err.message);
              return undefined;
            }
            return err;
          } catch (err) {
            if (!(err instanceof CallingError)) {
              d.observeInternal(hook, a, started);
              throw err;
            }
            d.observeCallFailure(hook, a, started, err);
            try {
              callFailure(a, hook, err);
              return undefined;
            } catch (failure) {
              return failure as ApiError;
            }
          }
        }),
      );
      const refusal = outcomes.find((o) => o !== undefined);
      if (refusal) throw refusal;
    },
  };
}

/** Per request: the object as each IfNeeded webhook left it, for the reinvocation decision. */
const reinvocationState = new WeakMap<AdmissionAttributes, Map<string, { inv: Invocation; index: number; after: string }>>();

/** MutatingAdmissionWebhook: webhooks in order, each seeing the last one's patches; IfNeeded ones once more when changed after them. */
export function mutatingAdmissionWebhook(deps: AdmissionPluginDeps): ReinvocablePlugin {
  const { client, settings, metrics, resolver } = pluginOptions(deps);
  const d = new WebhookDispatcher('mutating', deps.catalog, deps.authorizer, client, settings, metrics, resolver);

  /** kube's mutation audit annotation: which webhook ran in which round and whether it changed the object. */
  const annotateMutation = (a: AdmissionAttributes, inv: Invocation, round: number, index: number, mutated: boolean) => {
    a.auditAnnotations[`mutation.webhook.admission.k8s.io/round_${round}_index_${index}`] = JSON.stringify({ configuration: inv.hook.configName, webhook: inv.hook.name, mutated });
  };

  const invoke = async (a: AdmissionAttributes, inv: Invocation, round: number, index: number): Promise<void> => {
    const hook = inv.hook;
    const uid = randomUUID();
    const oldObject = await d.convert(a.oldObject, a, inv.convertTo);
    const object = await d.convert(a.object, a, inv.convertTo);
    const req = d.request(a, inv, uid, object, oldObject);
    const started = performance.now();
    let r: Record<string, unknown>;
    try {
      if (!d.conditionsMatch(hook, req, a)) return;
      checkDryRun(a, hook);
      r = await d.call(inv, req);
    } catch (err) {
      if (!(err instanceof CallingError)) {
        d.observeInternal(hook, a, started);
        throw err;
      }
      d.observeCallFailure(hook, a, started, err);
      callFailure(a, hook, err);
      return;
    }
    recordResponse(a, hook, r);
    if (r.allowed !== true) {
      const err = denial(hook.name, r.status as Record<string, unknown> | undefined);
      d.observeDenied(hook, a, started, err.code);
      if (hook.auditOnly) auditOnly(a, hook, err.message);
      else throw err;
      return;
    }
    if (typeof r.patch !== 'string' || r.patch === '' || !object || !a.object) {
      d.observeAllowed(hook, a, started);
      annotateMutation(a, inv, round, index, false);
      return;
    }
    // kube: a patch that does not decode or apply is an internal error, whatever the failure policy.
    let patched: unknown;
    try {
      const ops = JSON.parse(Buffer.from(r.patch, 'base64').toString('utf8')) as unknown;
      patched = applyJsonPatch(object, ops);
    } catch (err) {
      d.observeInternal(hook, a, started);
      throw errors.internal(err instanceof ApiError || err instanceof Error ? err.message : String(err));
    }
    if (!patched || typeof patched !== 'object' || Array.isArray(patched)) {
      d.observeInternal(hook, a, started);
      throw errors.internal('the patched object is not an object');
    }
    d.observeAllowed(hook, a, started);
    const back = await d.convertBack(patched as KubeObject, a, inv.convertTo);
    // The patched object becomes the kind's type again: fields the type does not have are dropped, as decoding does.
    d.prune(back, a);
    if (hook.auditOnly) {
      // Audit-only mutations are reported, not applied.
      if (!jsonEqual(back, a.object)) auditOnly(a, hook, 'the webhook returned a patch that was not applied');
      return;
    }
    const target = a.object;
    annotateMutation(a, inv, round, index, !jsonEqual(back, target));
    for (const k of Object.keys(target)) delete target[k];
    Object.assign(target, cloneObject(back));
  };

  return {
    name: 'MutatingAdmissionWebhook',
    registerMetrics: (registry) => registerBreakerMetrics(registry, 'mutating', d.source),
    // Without configurations the plugin has nothing to do: the write path then skips copying the object.
    handles: () => d.source.current().length > 0,
    async ready() {
      d.source.start();
    },
    stop() {
      d.source.stop();
      client.close();
    },
    async admit(a) {
      const invocations = await d.matching(a);
      if (invocations.length === 0) return;
      const state = new Map<string, { inv: Invocation; index: number; after: string }>();
      for (const [index, inv] of invocations.entries()) {
        await invoke(a, inv, 0, index);
        if (inv.hook.reinvokeIfNeeded) state.set(inv.hook.key, { inv, index, after: JSON.stringify(a.object) });
      }
      if (state.size > 0) reinvocationState.set(a, state);
    },
    async reinvoke(a) {
      const state = reinvocationState.get(a);
      if (!state) return;
      reinvocationState.delete(a);
      const now = JSON.stringify(a.object);
      for (const { inv, index, after } of state.values()) {
        // Reinvoked once, only when something changed the object after this webhook's call.
        if (after !== now) await invoke(a, inv, 1, index);
      }
    },
  };
}
