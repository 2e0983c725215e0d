/**
 * The admission chain: the enabled plugins in kube-apiserver's fixed order, run as two phases.
 * `admit` runs every mutating plugin (and re-runs the reinvocable ones once when a later plugin
 * changed the object, kube's reinvocation); the caller then validates the object against its
 * schema again; `validate` runs every validating plugin. The first refusal (an ApiError thrown by
 * a plugin) ends the request.
 *
 * Which plugins run: kube's default-on set restricted to what this server serves, plus
 * --enable-admission-plugins, minus --disable-admission-plugins. Plugins register by name
 * (registerAdmissionPlugin); a kube plugin name with no registered implementation concerns kinds
 * this server does not serve (pods, nodes, services, storage) and enabling it is a startup error.
 */
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.ts';
import type { Authorizer } from '../authz/authorizer.ts';
import type { ResourceCatalog } from '../registry/resource-catalog.ts';
import { jsonEqual } from '../registry/object-meta.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import type { ServiceResolver } from '../aggregator/service-resolver.ts';
import { AdmissionMetrics } from './metrics.ts';

/** kube-apiserver v1.32's AllOrderedPlugins: the order plugins run in, whatever order the flags name them. */
export const ORDERED_PLUGIN_NAMES: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  // kube: webhook, resourcequota and deny plugins go at the end.
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

/** kube-apiserver v1.32's default-on plugins (everything not in DefaultOffAdmissionPlugins). */
export const DEFAULT_ON_PLUGIN_NAMES: ReadonlySet<string> = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodTopologyLabels',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
]);

/** What a plugin is built from. */
export interface AdmissionPluginDeps {
  /** The served resources and their stores (objects a plugin reads: namespaces, params, configurations). */
  readonly catalog: ResourceCatalog;
  readonly authorizer: Authorizer;
  /**
   * The plugin's own configuration from --admission-control-config-file: the embedded
   * `configuration` object or the parsed file its `path` names; undefined when none is given.
   */
  readonly config: unknown;
  /** The directory relative paths in the plugin's configuration are resolved against. */
  readonly configDir: string;
  /** kube's admission metrics, shared by the chain and its plugins (webhook calls, policy checks). */
  readonly metrics?: AdmissionMetrics;
  /** The server's one service resolver: where webhooks given by service reference are dialled. */
  readonly serviceResolver?: ServiceResolver;
}

export type AdmissionPluginFactory = (deps: AdmissionPluginDeps) => AdmissionPlugin | Promise<AdmissionPlugin>;

/**
 * A plugin that may run again when a later mutating plugin changed the object (kube's
 * ReinvocationContext; webhooks with reinvocationPolicy IfNeeded).
 */
export interface ReinvocablePlugin extends AdmissionPlugin {
  /** The second pass, after every mutating plugin ran once; does nothing when nothing changed after this plugin's calls. */
  reinvoke(attrs: AdmissionAttributes): Promise<void> | void;
}

const factories = new Map<string, AdmissionPluginFactory>();

/** Makes a plugin available to --enable-admission-plugins under kube's name. */
export function registerAdmissionPlugin(name: string, factory: AdmissionPluginFactory): void {
  if (!ORDERED_PLUGIN_NAMES.includes(name)) throw new Error(`admission plugin ${name} is not one of kube-apiserver's`);
  factories.set(name, factory);
}

/** The names with an implementation here. */
export function registeredAdmissionPlugins(): string[] {
  return ORDERED_PLUGIN_NAMES.filter((n) => factories.has(n));
}

/** A command line naming plugins that cannot run; the message says which and why. */
export class AdmissionPluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionPluginError';
  }
}

/**
 * The enabled plugin names in run order, as kube's admission options compute them (default-on
 * plus enabled minus disabled), with kube's messages for unknown or overlapping names, and a
 * clear refusal of plugins whose kinds are not served here. Default-on plugins without an
 * implementation are left out silently: they would have nothing to act on.
 */
export function enabledPluginNames(enable: readonly string[], disable: readonly string[]): string[] {
  const problems: string[] = [];
  for (const n of enable) if (!ORDERED_PLUGIN_NAMES.includes(n)) problems.push(`enable-admission-plugins plugin ${JSON.stringify(n)} is unknown`);
  for (const n of disable) if (!ORDERED_PLUGIN_NAMES.includes(n)) problems.push(`disable-admission-plugins plugin ${JSON.stringify(n)} is unknown`);
  const overlap = [...new Set(enable)].filter((n) => disable.includes(n)).sort();
  if (overlap.length > 0) problems.push(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  const unserved = enable.filter((n) => ORDERED_PLUGIN_NAMES.includes(n) && !factories.has(n));
  if (unserved.length > 0) {
    problems.push(
      `admission plugin(s) ${[...new Set(unserved)].join(', ')} act only on kinds kube-gateway does not serve (pods, nodes, services, storage, certificates); remove them from --enable-admission-plugins`,
    );
  }
  if (problems.length > 0) throw new AdmissionPluginError(problems.join('; '));
  return ORDERED_PLUGIN_NAMES.filter((n) => factories.has(n) && !disable.includes(n) && (DEFAULT_ON_PLUGIN_NAMES.has(n) || enable.includes(n)));
}

/** Builds the enabled plugins, each with its own configuration. */
export async function buildAdmissionChain(
  names: readonly string[],
  deps: Omit<AdmissionPluginDeps, 'config' | 'configDir' | 'metrics'>,
  configs: ReadonlyMap<string, { readonly config: unknown; readonly configDir: string }>,
): Promise<AdmissionChain> {
  const plugins: AdmissionPlugin[] = [];
  const metrics = new AdmissionMetrics();
  for (const name of names) {
    const factory = factories.get(name);
    if (!factory) throw new AdmissionPluginError(`admission plugin ${JSON.stringify(name)} is not registered`);
    const cfg = configs.get(name);
    plugins.push(await factory({ ...deps, config: cfg?.config, configDir: cfg?.configDir ?? process.cwd(), metrics }));
  }
  return new AdmissionChain(plugins, metrics);
}

/** The plugins of one server, in order; see the file comment. */
export class AdmissionChain {
  private readonly mutating: readonly AdmissionPlugin[];
  private readonly validating: readonly AdmissionPlugin[];

  constructor(
    readonly plugins: readonly AdmissionPlugin[],
    /** Recorded per phase and per plugin call, as kube's step and controller decorators do. */
    readonly metrics: AdmissionMetrics = new AdmissionMetrics(),
  ) {
    this.mutating = plugins.filter((p) => p.admit);
    this.validating = plugins.filter((p) => p.validate);
  }

  /** Whether any mutating plugin acts on `op` (callers skip copying the object when none does). */
  mutates(op: AdmissionOperation): boolean {
    return this.mutating.some((p) => p.handles(op));
  }

  validates(op: AdmissionOperation): boolean {
    return this.validating.some((p) => p.handles(op));
  }

  /**
   * The mutating phase, then kube's reinvocation: every reinvocable plugin that ran is offered a
   * second pass, which it takes only for the parts of it (webhooks with reinvocationPolicy
   * IfNeeded) whose view of the object was changed afterwards, by anyone.
   */
  async admit(attrs: AdmissionAttributes): Promise<void> {
    const started = this.metrics.enabled ? performance.now() : 0;
    let rejected = true;
    try {
      const ran: ReinvocablePlugin[] = [];
      for (const p of this.mutating) {
        if (!p.handles(attrs.operation)) continue;
        const pending = this.call(p, 'admit', attrs, ADMIT);
        if (pending) await pending;
        if (isReinvocable(p)) ran.push(p);
      }
      for (const p of ran) {
        const pending = this.call(p, 'admit', attrs, REINVOKE);
        if (pending) await pending;
      }
      rejected = false;
    } finally {
      if (this.metrics.enabled) this.metrics.observeStep('admit', attrs.operation, rejected, (performance.now() - started) / 1000);
    }
  }

  /** The validating phase. */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    const started = this.metrics.enabled ? performance.now() : 0;
    let rejected = true;
    try {
      for (const p of this.validating) {
        if (!p.handles(attrs.operation)) continue;
        const pending = this.call(p, 'validate', attrs, VALIDATE);
        if (pending) await pending;
      }
      rejected = false;
    } finally {
      if (this.metrics.enabled) this.metrics.observeStep('validate', attrs.operation, rejected, (performance.now() - started) / 1000);
    }
  }

  /**
   * One plugin call, recorded under the plugin's name (kube's WithControllerMetrics). A plugin
   * that answers synchronously (most built-in ones, and the webhook plugins without a matching
   * configuration) costs no promise and no turn of the microtask queue: a promise is returned
   * only when the plugin gave one.
   */
  private call(p: AdmissionPlugin, type: 'admit' | 'validate', attrs: AdmissionAttributes, run: PluginCall): Promise<void> | undefined {
    if (!this.metrics.enabled) {
      const answer = run(p, attrs);
      return isPromise(answer) ? answer : undefined;
    }
    const started = performance.now();
    const observe = (rejected: boolean) => this.metrics.observeController(p.name, type, attrs.operation, rejected, (performance.now() - started) / 1000);
    let answer;
    try {
      answer = run(p, attrs);
    } catch (err) {
      observe(true);
      throw err;
    }
    if (!isPromise(answer)) {
      observe(false);
      return undefined;
    }
    return answer.then(
      () => observe(false),
      (err: unknown) => {
        observe(true);
        throw err;
      },
    );
  }

  async ready(): Promise<void> {
    await Promise.all(this.plugins.map((p) => p.ready?.()));
  }

  stop(): void {
    for (const p of this.plugins) p.stop?.();
  }

  registerMetrics(registry: MetricsRegistry): void {
    this.metrics.attach(registry);
    for (const p of this.plugins) p.registerMetrics?.(registry);
  }
}

type PluginCall = (p: AdmissionPlugin, attrs: AdmissionAttributes) => Promise<void> | void;
// The three calls a chain makes, as functions made once rather than a closure per call.
const ADMIT: PluginCall = (p, attrs) => p.admit!(attrs);
const VALIDATE: PluginCall = (p, attrs) => p.validate!(attrs);
const REINVOKE: PluginCall = (p, attrs) => (p as ReinvocablePlugin).reinvoke(attrs);

function isPromise(v: Promise<void> | void): v is Promise<void> {
  return typeof (v as Promise<void> | undefined)?.then === 'function';
}

function isReinvocable(p: AdmissionPlugin): p is ReinvocablePlugin {
  return typeof (p as Partial<ReinvocablePlugin>).reinvoke === 'function';
}

/** Whether two objects are the same JSON (mutation detection for callers). */
export function sameObject(a: unknown, b: unknown): boolean {
  return jsonEqual(a, b);
}
