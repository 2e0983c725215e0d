/**
 * The ValidatingAdmissionPolicy admission plugin (kube's validating policy dispatcher): for each
 * policy whose matchConstraints match the request, each of its bindings that matches too, and
 * each parameter object the binding selects, the policy is evaluated; failed validations become
 * denials, `Warning` headers or audit annotations per the binding's validationActions.
 *
 * The plugin reads policies, bindings, parameters and namespaces from memory (the watch caches),
 * so it never waits on storage; compiled policies are reused until their stored version changes.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/types.ts';
import { ApiError, groupResourceString, isApiError, type StatusReason } from '../../api/status-errors.ts';
import type { Authorizer as RequestAuthorizer } from '../../authz/authorizer.ts';
import { authorizerValue, toCelValue } from '../../cel/index.ts';
import { celAuthorizerFor, requestResourceOf } from '../cel-authorizer.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../registry/label-selector.ts';
import type { RequestUser } from '../../request/user.ts';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin, GroupVersionKind, GroupVersionResource } from '../types.ts';
import { CompiledCache, compileBinding, compilePolicy, type CompiledBinding, type CompiledPolicy } from './compiled.ts';
import { decisionErrorType, evaluatePolicy, type PolicyActivation, type PolicyDecision } from './evaluate.ts';
import { AdmissionMetrics } from '../metrics.ts';
import { matches, requestName, type MatchContext, type MatchedAs } from './matching.ts';

export const PLUGIN_NAME = 'ValidatingAdmissionPolicy';
const ADMISSIONREGISTRATION = 'admissionregistration.k8s.io';
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

/** A stored object as a watch cache lists it. */
export interface ListedObject {
  readonly key: string;
  readonly modRevision: number;
  readonly value: KubeObject;
}

/** Where the objects of a paramKind are read from. */
export interface ParamSource {
  readonly namespaced: boolean;
  /** From memory; on a miss, a consistent read (kube reads a param its informer has not seen yet directly). */
  get(namespace: string, name: string): KubeObject | undefined | Promise<KubeObject | undefined>;
  list(namespace: string, matches: (labels: Readonly<Record<string, string>>) => boolean): KubeObject[] | Promise<KubeObject[]>;
}

/**
 * The params cannot be read in the paramKind's version (its conversion webhook fails): kube's
 * param informer then never syncs, and the binding is a configuration error with this text.
 */
export class ParamsNotSynced extends Error {
  constructor(apiVersion: string, kind: string) {
    // kube formats the *v1.ParamKind with its generated String().
    super(`paramKind kind \`&ParamKind{APIVersion:${apiVersion},Kind:${kind},}\` not yet synced to use for admission`);
  }
}

export interface PolicyPluginDeps {
  /** Every ValidatingAdmissionPolicy, in name order. */
  policies(): readonly ListedObject[];
  /** Every ValidatingAdmissionPolicyBinding, in name order. */
  bindings(): readonly ListedObject[];
  /** The served kind `apiVersion`/`kind`, or undefined when nothing serves it. */
  paramSource(group: string, version: string, kind: string): ParamSource | undefined;
  /** A namespace object, or undefined. */
  namespace(name: string): KubeObject | undefined;
  /** Whether a resource is namespaced (for rule scopes); unknown resources count as namespaced when the request has a namespace. */
  namespaced(resource: GroupVersionResource): boolean | undefined;
  /** Other group/versions serving the same objects (matchPolicy Equivalent). */
  equivalents?(resource: GroupVersionResource, subresource: string): readonly MatchedAs[];
  /** An object of one resource as the equivalent resource serves it (kube converts to the version a policy matched). */
  convert?(obj: KubeObject, from: GroupVersionResource, to: GroupVersionResource): Promise<KubeObject>;
  /** The server's authorizer, for the `authorizer` variable; absent: every check has no opinion. */
  readonly authorizer?: RequestAuthorizer;
  /** Where the check metrics go; absent: not recorded. */
  readonly metrics?: AdmissionMetrics;
}

/** Without a server authorizer every check has no opinion. */
const NO_OPINION: RequestAuthorizer = { authorize: () => ({ decision: 'noOpinion', reason: '' }) };

const REASON_CODES: Readonly<Record<string, number>> = { Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413, Unauthorized: 401 };

interface Denial {
  readonly policy: string;
  readonly binding?: string;
  readonly message: string;
  readonly reason: string;
}

export class ValidatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;
  private readonly policyCache = new CompiledCache<CompiledPolicy>(compilePolicy);
  private readonly bindingCache = new CompiledCache<CompiledBinding>(compileBinding);

  private readonly metrics: AdmissionMetrics;

  constructor(private readonly deps: PolicyPluginDeps) {
    this.metrics = deps.metrics ?? new AdmissionMetrics();
  }

  handles(_operation: AdmissionOperation): boolean {
    return true;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    // kube never lets policies judge the admission configuration itself (a bad policy could lock it).
    if (attrs.resource.group === ADMISSIONREGISTRATION) return;
    const policies = this.policyCache.sync(this.deps.policies());
    if (policies.length === 0) return;
    const bindingsByPolicy = new Map<string, CompiledBinding[]>();
    for (const b of this.bindingCache.sync(this.deps.bindings())) {
      const list = bindingsByPolicy.get(b.policyName);
      if (list) list.push(b);
      else bindingsByPolicy.set(b.policyName, [b]);
    }
    const request = new RequestFacts(attrs, this.deps);
    const denials: Denial[] = [];
    for (const policy of policies) {
      const bindings = bindingsByPolicy.get(policy.name);
      if (bindings === undefined) continue;
      await this.dispatchPolicy(policy, bindings, request, denials);
    }
    if (denials.length > 0) throw denialError(attrs, denials[0]!);
  }

  private async dispatchPolicy(policy: CompiledPolicy, bindings: readonly CompiledBinding[], request: RequestFacts, denials: Denial[]): Promise<void> {
    const configError = (message: string, binding?: CompiledBinding) => {
      if (policy.failurePolicy === 'Ignore') return;
      const prefix = binding ? 'failed to configure binding' : 'failed to configure policy';
      denials.push({ policy: policy.name, binding: binding?.name, message: `${prefix}: ${message}`, reason: 'Invalid' });
    };
    if (policy.match === undefined) return configError(policy.matchError ?? 'invalid matchConstraints');
    const matchedAs = matches(policy.match, request.attrs, request);
    if (matchedAs === undefined) return;
    let params: ParamSource | undefined;
    if (policy.paramKind !== undefined) {
      const { group, version } = splitApiVersion(policy.paramKind.apiVersion);
      params = this.deps.paramSource(group, version, policy.paramKind.kind);
      if (params === undefined) return configError(`failed to find resource referenced by paramKind: '${group}/${version}, Kind=${policy.paramKind.kind}'`);
    }
    // kube's auditAnnotationCollector: the distinct values of each key over the bindings, joined.
    const annotations = new Map<string, string[]>();
    for (const binding of bindings) {
      if (binding.match === undefined && binding.matchError !== undefined) {
        configError(binding.matchError, binding);
        continue;
      }
      if (binding.match !== undefined && matches(binding.match, request.attrs, request) === undefined) continue;
      const collected = await collectParams(policy, binding, params, request.attrs);
      if ('error' in collected) {
        configError(collected.error, binding);
        continue;
      }
      // The objects in the matched version: a conversion that fails is the binding's configuration
      // error (kube-apiserver v1.32.4's text), so the failure policy decides.
      try {
        await request.convertFor(matchedAs.resource);
      } catch (err) {
        if (!isApiError(err)) throw err;
        configError(`failed to convert object version: ${err.message}`, binding);
        continue;
      }
      for (const param of collected.params) {
        const result = evaluatePolicy(policy, request.activation(matchedAs, param));
        if (!result.matched) continue;
        for (const a of result.auditAnnotations) {
          const values = annotations.get(a.key);
          if (values === undefined) annotations.set(a.key, [a.value]);
          else if (!values.includes(a.value)) values.push(a.value);
        }
        for (const d of result.decisions) {
          if (d.action === 'deny') this.act(policy, binding, d, request, denials);
          // kube records an admitted decision only when it erred (failurePolicy Ignore).
          else if (d.evaluationError) this.metrics.observePolicyCheck(policy.name, binding.name, decisionErrorType(d), 'allow', d.elapsed);
        }
      }
    }
    // An audit annotation, once set, is never overwritten (kube's AddAnnotation refuses).
    for (const [key, values] of annotations) if (!(key in request.attrs.auditAnnotations)) request.attrs.auditAnnotations[key] = values.join(', ');
  }

  /** One failed validation, per the binding's actions. */
  private act(policy: CompiledPolicy, binding: CompiledBinding, d: PolicyDecision, request: RequestFacts, denials: Denial[]): void {
    const errorType = decisionErrorType(d);
    if (d.denyAlways) {
      denials.push({ policy: policy.name, binding: binding.name, message: d.message, reason: d.reason });
      this.metrics.observePolicyCheck(policy.name, binding.name, errorType, 'deny', d.elapsed);
      return;
    }
    for (const action of binding.validationActions) {
      if (action === 'Deny') {
        denials.push({ policy: policy.name, binding: binding.name, message: d.message, reason: d.reason });
        this.metrics.observePolicyCheck(policy.name, binding.name, errorType, 'deny', d.elapsed);
      } else if (action === 'Warn') {
        request.attrs.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}': ${d.message}`);
        this.metrics.observePolicyCheck(policy.name, binding.name, errorType, 'warn', d.elapsed);
      } else if (action === 'Audit') {
        this.metrics.observePolicyCheck(policy.name, binding.name, errorType, 'audit', d.elapsed);
        // kube's audit annotations cannot be overwritten: the first failure of the request stays.
        if (VALIDATION_FAILURE_ANNOTATION in request.attrs.auditAnnotations) continue;
        request.attrs.auditAnnotations[VALIDATION_FAILURE_ANNOTATION] = JSON.stringify([
          { message: d.message, policy: policy.name, binding: binding.name, expressionIndex: d.index, validationActions: binding.validationActions },
        ]);
      }
    }
  }
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The parameter objects a binding selects (kube's CollectParams): none without a paramKind or a
 * paramRef (the policy then sees `params` null), else the named object or those the selector
 * matches, in the paramRef's namespace or the request's.
 */
async function collectParams(
  policy: CompiledPolicy,
  binding: CompiledBinding,
  source: ParamSource | undefined,
  attrs: AdmissionAttributes,
): Promise<{ params: (KubeObject | null)[] } | { error: string }> {
  const ref = binding.paramRef;
  if (policy.paramKind === undefined || source === undefined || ref === undefined) return { params: [null] };
  let namespace = '';
  if (source.namespaced) {
    namespace = ref.namespace !== '' ? ref.namespace : attrs.namespace;
    if (namespace === '') return { error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  } else if (ref.namespace !== '') {
    return { error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  }
  let found: KubeObject[];
  try {
    if (ref.name !== '') {
      const one = await source.get(namespace, ref.name);
      found = one ? [one] : [];
    } else {
      let selector;
      try {
        selector = labelSelectorFromObject((ref.selector ?? {}) as LabelSelectorObject);
      } catch (err) {
        return { error: err instanceof Error ? err.message : String(err) };
      }
      found = await source.list(namespace, (labels) => selector.matches(labels));
    }
  } catch (err) {
    if (err instanceof ParamsNotSynced) return { error: err.message };
    throw err;
  }
  if (found.length === 0) {
    if (ref.parameterNotFoundAction === 'Deny') return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
    return { params: [] };
  }
  return { params: found };
}

function denialError(attrs: AdmissionAttributes, denial: Denial): ApiError {
  const text = denial.binding !== undefined
    ? `ValidatingAdmissionPolicy '${denial.policy}' with binding '${denial.binding}' denied request: ${denial.message}`
    : `ValidatingAdmissionPolicy '${denial.policy}' denied request: ${denial.message}`;
  // admission.NewForbidden: the object's name, or its generateName before one is generated.
  const name = requestName(attrs) || attrs.object?.metadata?.generateName || '';
  const gr = { group: attrs.resource.group, resource: attrs.resource.resource };
  const reason = (denial.reason || 'Invalid') as StatusReason;
  return new ApiError(REASON_CODES[reason] ?? 422, reason, `${groupResourceString(gr)}${name ? ` "${name}"` : ''} is forbidden: ${text}`, {
    ...(name ? { name } : {}),
    group: gr.group,
    kind: gr.resource,
    causes: [{ message: text }],
  });
}

/**
 * What every policy evaluation of one request shares: the request in CEL form, the object and
 * old object converted once, the namespace, the authorizer.
 */
class RequestFacts implements MatchContext {
  readonly namespaced: boolean;
  /** The object and old object in CEL form, per resource they are seen as (the request's own, or an equivalent). */
  private readonly celObjects = new Map<string, { object: unknown; oldObject: unknown }>();
  private celNamespace: unknown;
  private namespaceObj: KubeObject | null | undefined;
  private celAuthorizer: unknown;
  private readonly uid = randomUUID();
  private readonly celParams = new Map<KubeObject, unknown>();
  private readonly requests = new Map<string, unknown>();

  constructor(
    readonly attrs: AdmissionAttributes,
    private readonly deps: PolicyPluginDeps,
  ) {
    this.namespaced = deps.namespaced(attrs.resource) ?? attrs.namespace !== '';
  }

  private namespaceObject(): KubeObject | null {
    if (this.namespaceObj === undefined) this.namespaceObj = this.attrs.namespace === '' ? null : this.deps.namespace(this.attrs.namespace) ?? null;
    return this.namespaceObj;
  }

  namespaceLabels(): Readonly<Record<string, string>> | undefined {
    return this.namespaceObject()?.metadata?.labels;
  }

  equivalents(): readonly MatchedAs[] {
    return this.deps.equivalents?.(this.attrs.resource, this.attrs.subresource) ?? [];
  }

  activation(matchedAs: MatchedAs, param: KubeObject | null): PolicyActivation {
    const objects = this.objectsAs(matchedAs.resource);
    this.celNamespace ??= toCelValue(namespaceForCel(this.namespaceObject()));
    this.celAuthorizer ??= authorizerValue(celAuthorizerFor(this.deps.authorizer ?? NO_OPINION, this.attrs.userInfo), requestResourceOf(this.attrs));
    let params: unknown = null;
    if (param !== null) {
      params = this.celParams.get(param);
      if (params === undefined) {
        params = toCelValue(param);
        this.celParams.set(param, params);
      }
    }
    return { object: objects.object, oldObject: objects.oldObject, request: this.request(matchedAs), namespaceObject: this.celNamespace, params, authorizer: this.celAuthorizer };
  }

  /** Converts the object and old object to `resource`'s version (once per request); `activation` needs it done. */
  async convertFor(resource: GroupVersionResource): Promise<void> {
    const key = `${resource.group}/${resource.version}/${resource.resource}`;
    if (this.celObjects.has(key)) return;
    const own = this.attrs.resource;
    const same = resource.group === own.group && resource.version === own.version && resource.resource === own.resource;
    const convert = this.deps.convert;
    const as = async (obj: KubeObject | null) => (obj === null || same || convert === undefined ? obj : convert(obj, own, resource));
    // Old object first, as kube's NewVersionedAttributes.
    const oldObject = await as(this.attrs.oldObject);
    const object = await as(this.attrs.object);
    this.celObjects.set(key, { object: toCelValue(object), oldObject: toCelValue(oldObject) });
  }

  private objectsAs(resource: GroupVersionResource): { object: unknown; oldObject: unknown } {
    const objects = this.celObjects.get(`${resource.group}/${resource.version}/${resource.resource}`);
    if (objects === undefined) throw new Error(`the request's objects were not converted to ${resource.group}/${resource.version} ${resource.resource}`);
    return objects;
  }

  /** kube's CEL `request`: the AdmissionRequest without object and oldObject, with the kind the policy matched as. */
  private request(matchedAs: MatchedAs): unknown {
    const key = `${matchedAs.resource.group}/${matchedAs.resource.version}/${matchedAs.resource.resource}`;
    let value = this.requests.get(key);
    if (value === undefined) {
      const a = this.attrs;
      value = toCelValue({
        uid: this.uid,
        kind: gvk(matchedAs.kind),
        resource: gvr(matchedAs.resource),
        subResource: a.subresource,
        requestKind: gvk(a.kind),
        requestResource: gvr(a.resource),
        requestSubResource: a.subresource,
        name: requestName(a),
        namespace: a.namespace,
        operation: a.operation,
        userInfo: userInfo(a.userInfo),
        dryRun: a.dryRun,
        options: a.options,
      });
      this.requests.set(key, value);
    }
    return value;
  }
}

const gvk = (k: GroupVersionKind) => ({ group: k.group, version: k.version, kind: k.kind });
const gvr = (r: GroupVersionResource) => ({ group: r.group, version: r.version, resource: r.resource });

function userInfo(u: RequestUser): Record<string, unknown> {
  return {
    username: u.username,
    ...(u.uid ? { uid: u.uid } : {}),
    groups: [...u.groups],
    ...(Object.keys(u.extra).length > 0 ? { extra: Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]])) } : {}),
  };
}

/** kube's namespaceObject: the namespace's identity, labels, annotations, finalizers, spec and status; no managed fields or owners. */
function namespaceForCel(ns: KubeObject | null): KubeObject | null {
  if (ns === null) return null;
  const m = ns.metadata ?? {};
  const metadata: Record<string, unknown> = {};
  for (const k of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers']) {
    if (m[k] !== undefined && m[k] !== null) metadata[k] = m[k];
  }
  return { apiVersion: 'v1', kind: 'Namespace', metadata, ...(ns.spec !== undefined ? { spec: ns.spec } : {}), ...(ns.status !== undefined ? { status: ns.status } : {}) };
}
