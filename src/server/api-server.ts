/**
 * Assembles a running API server from its parts: certificates, store, watch caches, resource
 * stores, controllers, and the front door; and takes it down again in order.
 */
import { kubeVersionInfo } from '../discovery/version.ts';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../storage/types.ts';
import { MemoryStore } from '../storage/memory-store.ts';
import { SqliteStore } from '../storage/sqlite-store.ts';
import { WatchCache } from '../storage/watch-cache.ts';
import type { KubeObject, ResourceType } from '../api/types.ts';
import { builtinResourceTypes } from '../api/builtin.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../api/validation/metadata.ts';
import { validateAgainstSchema } from '../schema/validate.ts';
import { ResourceStore, type WriteHooks } from '../registry/resource-store.ts';
import { decodeStored } from '../registry/stored-object.ts';
import { decodedWrite } from '../registry/apply-context.ts';
import { apiVersionOf } from '../api/types.ts';
import { nowRfc3339 } from '../registry/object-meta.ts';
import {
  createAuthenticator,
  createServiceAccountTokenAuthenticator,
  loadServiceAccountKeys,
  ServiceAccountKeyError,
  ServiceAccountTokenIssuer,
  type ServiceAccountGetter,
} from '../authn/index.ts';
import { selfSubjectReviewEndpoint, tokenRequestEndpoint, tokenReviewEndpoint, type ObjectReader } from '../authn/endpoints.ts';
import { CreateOnlyEndpoints } from './handlers/create-only.ts';
import { authenticationDiscoveryTypes } from '../api/kinds/authentication.ts';
import { issuerDiscoveryDocuments } from '../authn/issuer-discovery.ts';
import { isApiError } from '../api/status-errors.ts';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from './config.ts';
import type { Authorizer } from '../authz/authorizer.ts';
import { buildAuthorizer } from '../authz/index.ts';
import { ACCESS_REVIEW_RESOURCES } from '../authz/access-review.ts';
import { DEFAULT_AUTHORIZATION_MODES } from '../authz/modes.ts';
import { RbacIndex } from '../authz/rbac/index.ts';
import { feedRbacIndex } from '../authz/rbac/feed.ts';
import { ensureRbacPolicy } from '../authz/rbac/bootstrap.ts';
import { ClusterRoleAggregator } from '../authz/rbac/aggregation.ts';
import { EscalationGuard, type RbacResource } from '../authz/rbac/escalation.ts';
import { RBAC_GROUP } from '../api/kinds/rbac.ts';
import { ensureCertificatesForServer } from './certs.ts';
import { writeAdminKubeconfig } from './kubeconfig.ts';
import type { ServerConfig } from './config.ts';
import { ResourceCatalog } from '../registry/resource-catalog.ts';
import { buildFrontDoor } from './app.ts';
import { HealthEndpoint, kubeHealthChecks } from './health.ts';
import { PostStartHooks } from './post-start-hooks.ts';
import type { HealthCheck } from '../metrics/slis.ts';
import { WatchRegistry } from './handlers/watch.ts';
import { DiscoveryDocuments } from '../discovery/discovery.ts';
import { createOpenApiDocuments } from '../discovery/openapi-documents.ts';
import { NamespaceController, ensureBuiltinNamespaces, type NamespaceControllerTiming, type RemoteNamespacedContent } from '../controllers/namespace-lifecycle.ts';
import { AdmissionChain, AdmissionPluginError, buildAdmissionChain, enabledPluginNames } from '../admission/chain.ts';
import { AuditPolicyError } from '../audit/policy.ts';
import { AuditConfigError, createAuditor } from '../audit/setup.ts';
import { deprecationOf } from '../features/deprecation.ts';
import type { AdmissionPlugin } from '../admission/types.ts';
import '../admission/plugins/index.ts';
import { admissionWriteHooks } from '../admission/write-hooks.ts';
import { policyStatusController } from '../admission/policy/index.ts';
import { admittedCreateOnly } from '../admission/create-only.ts';
import { AdmissionConfigError, loadAdmissionConfiguration } from '../admission/config-file.ts';
import { GarbageCollector } from '../controllers/garbage-collector.ts';
import { EventTtlController } from '../controllers/event-ttl.ts';
import { lockDataDir, type DataDirLock } from './data-dir.ts';
import { StartupError } from './startup-error.ts';
import { AuthnSetupError, setupTokenAuthenticators, type AuthnSetupOptions } from '../authn/setup.ts';
import { BOOTSTRAP_NAMESPACE, createBootstrapTokenAuthenticator } from '../authn/bootstrap-token.ts';
import { BootstrapSigner, TokenCleaner } from '../authn/bootstrap-controllers.ts';
import { NamespacePublishers } from '../authn/namespace-publishers.ts';
import { createLegacyServiceAccountTokenAuthenticator, LegacyTokenController } from '../authn/legacy-serviceaccount-token.ts';
import { ClusterAuthenticationTrustController, type ClusterAuthenticationInfo } from '../authn/cluster-authentication-info.ts';
import { answerPlainHttpOnTlsPort } from './plain-http.ts';
import { createServerMetrics, createSliMetrics, metricsResponse, type ServerMetrics } from '../metrics/index.ts';
import { AuthMetrics } from '../metrics/auth-metrics.ts';
import { ServiceAllocators } from '../services/service-allocation.ts';
import { CrdController } from '../crd/controller.ts';
import { CRD_GROUP } from '../crd/kind.ts';
import type { FieldError } from '../api/field-errors.ts';
import { defaultFeatureGates, registerFeatureMetrics } from '../features/index.ts';
import { FLOWCONTROL_GROUP } from '../flowcontrol/kinds.ts';
import { FlowControl } from '../flowcontrol/controller.ts';
import { ApfFilter } from '../flowcontrol/filter.ts';
import { startWorkEstimation } from '../flowcontrol/estimation.ts';
import { apfDebugDocument } from '../flowcontrol/debug.ts';
import { RunOnceControllers } from '../leader/run-once.ts';
import { startRunOnceControllers, watchFanoutCheck, withWatchFanout } from '../leader/setup.ts';
import { localVerbs } from '../backend/local/verbs.ts';
import { scaleSubresource } from '../crd/scale.ts';
import { AggregationConfigError, gatewayServiceResolver, startAggregation, type ServiceResolver } from '../aggregator/index.ts';
import { acceptUpgrades } from '../aggregator/upgrade.ts';
import { ApiEnablement, RuntimeConfigError } from '../features/runtime-config.ts';
import { instrumentStore, registerStorageMetrics, storageTypeIndex } from '../metrics/storage.ts';
import { registerNodeRuntimeMetrics } from '../metrics/process.ts';

/** Custom resources: generic ObjectMeta checks only; the schema is checked by the type's own strategy, with kube's CR options. */
function customResourceMetaValidation(rt: ResourceType) {
  return (obj: KubeObject, old: KubeObject | null): FieldError[] =>
    old
      ? [...validateObjectMeta(obj.metadata, { namespaced: rt.namespaced, nameValidation: 'path-segment' }), ...validateObjectMetaUpdate(obj.metadata, old.metadata)]
      : validateObjectMeta(obj.metadata, { namespaced: rt.namespaced, nameValidation: rt.nameValidation });
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly kubeconfigPath: string;
  /** The data dir as an absolute path; this server holds its lock until shutdown. */
  readonly dataDir: string;
  readonly caCert: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly store: Store;
  readonly app: FastifyInstance;
  /** The server's metrics registry (served at /metrics): modules register their families on it. */
  readonly metrics: ServerMetrics;
  /** The one service resolver: where APIServices, admission and conversion webhooks given by service reference are dialled. */
  readonly serviceResolver: ServiceResolver;
  /**
   * Resolves once every post-start hook (the default RBAC policy, system namespaces, APF bootstrap
   * configuration, ...) has finished; /readyz fails until then, as kube-apiserver's does.
   */
  waitForPostStartHooks(): Promise<void>;
  /** Graceful shutdown: readyz fails for the shutdown delay, watches end, in-flight requests finish, the store closes. */
  shutdown(): Promise<void>;
}

export interface StartOptions {
  readonly config: ServerConfig;
  /** Use this store instead of opening one from the config (tests). */
  readonly store?: Store;
  readonly authorizer?: Authorizer;
  readonly logger?: boolean;
  /** How long an unreachable etcd is retried at start before giving up; default ETCD_DIAL_TIMEOUT_MS. */
  readonly etcdDialTimeoutMs?: number;
  /** Aborts a start that is still waiting (for etcd): it undoes itself and rejects. */
  readonly signal?: AbortSignal;
  /** When the namespace controller acts; default kube-controller-manager's delays (tests shorten them). */
  readonly namespaceControllerTiming?: NamespaceControllerTiming;
  /** Admission plugins run after the configured ones, in both phases (tests observe attributes with them). */
  readonly extraAdmissionPlugins?: readonly AdmissionPlugin[];
  /** false: no per-request metrics are recorded (bench:metrics measures their cost); /metrics still answers. */
  readonly recordMetrics?: boolean;
  /** Aggregation: where APIService service references resolve (default: --aggregator-service-address), how often backends are probed. */
  readonly serviceResolver?: ServiceResolver;
  readonly aggregatorProbeIntervalMs?: number;
}

/** kube-apiserver's etcd dial timeout: its storage backend waits this long for a first connection. */
export const ETCD_DIAL_TIMEOUT_MS = 20_000;

async function openStore(config: ServerConfig, etcdDialTimeoutMs: number, signal: AbortSignal | undefined): Promise<Store> {
  switch (config.storageBackend) {
    case 'memory':
      return new MemoryStore({ historyMs: config.historyMs });
    case 'etcd':
      // Scale out: with --watch-fanout, watches come from Redis streams (src/storage/fanout).
      return withWatchFanout(await connectEtcd(config.etcdServers, etcdDialTimeoutMs, signal), config);
    default:
      try {
        return SqliteStore.open(join(config.dataDir, 'state.db'), { historyMs: config.historyMs });
      } catch (err) {
        const path = resolve(config.dataDir, 'state.db');
        const code = (err as { code?: string }).code;
        if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
          throw new StartupError(`${path} is not a kube-gateway SQLite store (${(err as Error).message}); pass a different --data-dir`, { cause: err });
        }
        throw new StartupError(`cannot open the store ${path} (${code ?? 'error'}: ${(err as Error).message}); make the data dir writable or pass a different --data-dir`, { cause: err });
      }
  }
}

/**
 * Connects to etcd, retrying with backoff while it is unreachable (etcd often starts alongside),
 * for as long as kube-apiserver's dial timeout; then a StartupError.
 */
async function connectEtcd(servers: readonly string[], timeoutMs: number, signal: AbortSignal | undefined): Promise<Store> {
  // Loaded only for this backend: the etcd client (gRPC) costs about 25 MB and a tenth of a second at start.
  const { EtcdStore } = await import('../storage/etcd-store.ts');
  const deadline = Date.now() + timeoutMs;
  let delay = 100;
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await EtcdStore.connect([...servers]);
    } catch (err) {
      if (Date.now() + delay >= deadline) {
        const reason = ((err as Error).message ?? String(err)).split('\n')[0];
        throw new StartupError(
          `cannot reach etcd at ${servers.join(',')} within ${Math.round(timeoutMs / 1000)}s (${reason}); start etcd there or fix --etcd-servers`,
          { cause: err },
        );
      }
      await sleep(delay, signal);
      delay = Math.min(delay * 2, 2000);
    }
  }
}

/** Waits `ms`, or less when `signal` aborts (the caller then sees it aborted). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A listen failure as one line: what is wrong with the address and what to do. */
function listenError(err: unknown, config: ServerConfig): unknown {
  const code = (err as { code?: string }).code;
  const where = `${config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress}:${config.securePort}`;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(`cannot listen on ${where}: the port is in use by another process; stop it or pass a different --secure-port (0 picks a free port)`, { cause: err });
    case 'EACCES':
    case 'EPERM':
      return new StartupError(`cannot listen on ${where}: permission denied; pass a --secure-port above 1023 or run with the privilege to bind it`, { cause: err });
    case 'EADDRNOTAVAIL':
      return new StartupError(`cannot listen on ${where}: ${config.bindAddress} is not an address of this machine; pass a different --bind-address`, { cause: err });
    default:
      return err;
  }
}

/**
 * Starts a server per `config`; resolves once it listens and its caches are synced. The data dir
 * is locked first, so a second server on it fails before touching anything; a start that fails
 * later undoes what it did (closes the store, frees the port, unlocks, and removes the data dir if
 * it created it) and rejects, with a StartupError when the cause is the user's to fix.
 */
export async function startApiServer(opts: StartOptions): Promise<RunningServer> {
  const lock = lockDataDir(opts.config.dataDir);
  const undo: Array<() => unknown> = [];
  try {
    return await startLocked(opts, lock, undo);
  } catch (err) {
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch {
        // Keep undoing: the start's own error is the one to report.
      }
    }
    lock.release();
    if (lock.created) await rm(lock.path, { recursive: true, force: true });
    throw err;
  }
}

async function startLocked(opts: StartOptions, lock: DataDirLock, undo: Array<() => unknown>): Promise<RunningServer> {
  const { config } = opts;
  const features = config.featureGates ?? defaultFeatureGates();
  for (const msg of features.warnings) process.stderr.write(`${JSON.stringify({ level: 'warn', msg })}\n`);
  const cacheReads = { consistent: features.enabled('ConsistentListFromCache'), snapshots: features.enabled('ListFromCacheSnapshot') };
  // --runtime-config against every built-in resource (stored kinds, reviews, TokenReview): what is served.
  let apiEnablement: ApiEnablement;
  try {
    apiEnablement = ApiEnablement.resolve(config.runtimeConfig ?? new Map(), [...builtinResourceTypes, ...authenticationDiscoveryTypes, ...ACCESS_REVIEW_RESOURCES]);
  } catch (err) {
    if (err instanceof RuntimeConfigError) throw new StartupError(err.message, { cause: err });
    throw err;
  }
  const servedApi = <T extends { group: string; version: string; resource: string }>(r: T) => apiEnablement.resourceEnabled(r.group, r.version, r.resource);
  // The store first: a data dir whose store cannot be opened gets no certificates written into it.
  const store = opts.store ?? (await openStore(config, opts.etcdDialTimeoutMs ?? ETCD_DIAL_TIMEOUT_MS, opts.signal));
  if (!opts.store) undo.push(() => store.close());

  const certs = await ensureCertificatesForServer(config.dataDir);
  const serverCert = config.tlsCertFile ? await readFile(config.tlsCertFile, 'utf8') : certs.serverCert;
  const serverKey = config.tlsPrivateKeyFile ? await readFile(config.tlsPrivateKeyFile, 'utf8') : certs.serverKey;
  const clientCa = config.clientCaFile ? await readFile(config.clientCaFile, 'utf8') : certs.caCert;

  // One watch cache per storage prefix: kinds served in two groups share one.
  const caches = new Map<string, WatchCache<KubeObject>>();
  const catalog = new ResourceCatalog();
  // etcd_request_duration_seconds for every backend: the resource stores see the store through a
  // timing decorator (the registry exists only later, so the recorder is bound then).
  let recordStorage: (operation: string, type: string, seconds: number) => void = () => undefined;
  let storageTypes: { generation: number; prefixes: Map<string, string> } | undefined;
  const storagePrefixes = () => {
    if (storageTypes?.generation !== catalog.generation) {
      const prefixes = new Map(catalog.all().map(({ rt }) => [rt.storagePrefix, rt.group === '' ? rt.resource : `${rt.resource}.${rt.group}`] as const));
      storageTypes = { generation: catalog.generation, prefixes };
    }
    return storageTypes.prefixes;
  };
  const timedStore = opts.recordMetrics === false ? store : instrumentStore(store, storageTypeIndex(storagePrefixes), (op, type, s) => recordStorage(op, type, s));
  const types: readonly ResourceType[] = builtinResourceTypes;
  let namespaceStore: ResourceStore | undefined;
  // Admission: the plugin names and their configuration are checked before anything is served.
  let admissionChain: AdmissionChain | undefined;
  let admissionNames: string[];
  let admissionConfigs;
  try {
    admissionNames = enabledPluginNames(config.enableAdmissionPlugins ?? [], config.disableAdmissionPlugins ?? []);
    admissionConfigs = await loadAdmissionConfiguration(config.admissionControlConfigFile);
  } catch (err) {
    if (err instanceof AdmissionPluginError || err instanceof AdmissionConfigError) throw new StartupError(err.message, { cause: err });
    throw err;
  }
  // Services: cluster IPs and node ports from their ranges (src/services), kept in the store.
  let serviceAllocators: ServiceAllocators;
  try {
    serviceAllocators = new ServiceAllocators({ store, clusterIpRange: config.serviceClusterIpRange, nodePortRange: config.serviceNodePortRange });
  } catch (err) {
    throw new StartupError(`invalid --service-cluster-ip-range or --service-node-port-range: ${(err as Error).message}`, { cause: err });
  }
  const rbacIndex = new RbacIndex();
  let authorizer: Authorizer | undefined;
  let closeAuthorizer = (): void => undefined;
  const escalation = new EscalationGuard(rbacIndex, () => authorizer);
  // The store of one resource type, built-in or custom, with the server's write hooks (admission included).
  const storeFor = (rt: ResourceType, cache: WatchCache<KubeObject>, validateKind?: (obj: KubeObject, old: KubeObject | null) => FieldError[]): ResourceStore => {
    let served: (o: KubeObject) => KubeObject = (o) => o;
    const rbacResource = rt.group === RBAC_GROUP ? (rt.resource as RbacResource) : undefined;
    const admission = admissionWriteHooks(rt, () => admissionChain, (o) => served(o));
    const hooks: WriteHooks = {
      decoded: (_op, obj, old, ctx) => decodedWrite(rt, obj, old, ctx),
      // Mutating admission, then RBAC privilege escalation prevention where kube's RBAC registry checks it (before validation).
      mutate: async (op, obj, old, ctx) => {
        await admission.mutate(op, obj, old, ctx);
        if (rbacResource && obj && op !== 'delete' && ctx.user) await escalation.check(rbacResource, obj, old, ctx.user);
      },
      validate: admission.validate,
      ...(rt.group === '' && rt.resource === 'services'
        ? { allocate: (op, obj, old, ctx) => serviceAllocators.allocate(op, obj, old, ctx), removed: (obj) => serviceAllocators.release(obj) }
        : {}),
    };
    const validateGeneric = (obj: KubeObject, old: KubeObject | null) => [
      // On update, kube's validateCommonFields: generic ObjectMeta checks (path-segment names), then the update checks.
      ...(old
        ? [...validateObjectMeta(obj.metadata, { namespaced: rt.namespaced, nameValidation: 'path-segment' }), ...validateObjectMetaUpdate(obj.metadata, old.metadata)]
        : validateObjectMeta(obj.metadata, { namespaced: rt.namespaced, nameValidation: rt.nameValidation })),
      ...validateAgainstSchema(rt.storageConversion ? rt.storageConversion.fromStorage(obj) : obj, rt.schema, '', { listTypeUniqueness: false, required: false }),
    ];
    const rs = new ResourceStore(rt, timedStore, cache, hooks, validateKind ?? validateGeneric, cacheReads);
    served = (o) => rs.served(o);
    return rs;
  };
  for (const rt of types) {
    let cache = caches.get(rt.storagePrefix);
    if (!cache) {
      cache = new WatchCache<KubeObject>({ store, prefix: rt.storagePrefix, decode: decodeStored, historyMs: config.historyMs });
      caches.set(rt.storagePrefix, cache);
    }
    const rs = storeFor(rt, cache);
    catalog.add({ rt, store: rs });
    if (rt.group === '' && rt.resource === 'namespaces') namespaceStore = rs;
  }
  undo.push(() => {
    for (const c of caches.values()) c.stop();
  });
  await Promise.all([...caches.values()].map((c) => c.start()));
  await serviceAllocators.start();
  await serviceAllocators.repair(servicesInCache(catalog));
  if (!namespaceStore) throw new Error('the namespaces resource type is missing');
  // Custom resources: served from the CRDs in store before the server listens, then as they change.
  let url = '';
  // One service resolver for APIServices, conversion and admission webhooks, as kube-apiserver builds it (default/kubernetes:443 is this server).
  const serviceResolver =
    opts.serviceResolver ??
    (await aggregationStartup(async () =>
      gatewayServiceResolver(config, catalog, () => {
        const m = /^https:\/\/(.+):(\d+)$/.exec(url);
        return m ? { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) } : undefined;
      }),
    ));
  const crdController = new CrdController({
    crds: catalog.lookup(CRD_GROUP, 'v1', 'customresourcedefinitions')!.store,
    catalog,
    cacheFor: async (prefix) => {
      const cache = new WatchCache<KubeObject>({ store, prefix, decode: decodeStored, historyMs: config.historyMs });
      await cache.start();
      return cache;
    },
    storeFor: (rt, cache) => storeFor(rt, cache, customResourceMetaValidation(rt)),
    warn: (msg) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg })}\n`),
    ratcheting: features.enabled('CRDValidationRatcheting'),
    resolveService: serviceResolver,
  });
  // The start's own writes (namespaces, the default RBAC policy, ...) are few large batches: committed on the event loop.
  store.preferEventLoopCommits?.(true);
  await crdController.start();
  undo.push(() => crdController.stop());
  // Bootstrap work that kube-apiserver runs as post-start hooks: started once the server listens.
  const postStartHooks = new PostStartHooks();
  postStartHooks.add('start-system-namespaces-controller', () => ensureBuiltinNamespaces(namespaceStore));
  // RBAC: the policy index follows the watch caches; the default policy is reconciled once the server listens
  // (until then requests are authorized against the stored policy, as kube's are; system:masters always).
  const rbacStore = (resource: string) => {
    const s = catalog.lookup(RBAC_GROUP, 'v1', resource)?.store;
    if (!s) throw new Error(`the ${resource}.${RBAC_GROUP} resource type is missing`);
    return s;
  };
  const rbacStores = { roles: rbacStore('roles'), clusterRoles: rbacStore('clusterroles'), roleBindings: rbacStore('rolebindings'), clusterRoleBindings: rbacStore('clusterrolebindings') };
  const stopRbacFeed = feedRbacIndex(rbacIndex, {
    roles: rbacStores.roles.cache,
    clusterRoles: rbacStores.clusterRoles.cache,
    roleBindings: rbacStores.roleBindings.cache,
    clusterRoleBindings: rbacStores.clusterRoleBindings.cache,
  });
  undo.push(stopRbacFeed);
  const aggregator = new ClusterRoleAggregator(rbacStores.clusterRoles, (err) =>
    process.stderr.write(`${JSON.stringify({ level: 'warn', msg: `clusterrole aggregation: ${err.message}` })}\n`),
  );
  undo.push(() => aggregator.stop());
  postStartHooks.add('rbac/bootstrap-roles', async () => {
    for (const err of await ensureRbacPolicy(rbacStores)) process.stderr.write(`${JSON.stringify({ level: 'warn', msg: `unable to reconcile the default RBAC policy: ${err.message}` })}\n`);
    // Aggregated roles (admin, edit, view) settled over the reconciled defaults.
    await aggregator.start();
  });
  // Reloads of the authentication/authorization configuration files and authorizer decisions, counted before /metrics exists.
  const authMetrics = new AuthMetrics();
  if (!opts.authorizer) {
    const built = buildAuthorizer(
      {
        modes: config.authorizationModes ?? DEFAULT_AUTHORIZATION_MODES,
        policyFile: config.authorizationPolicyFile,
        webhookConfigFile: config.authorizationWebhookConfigFile,
        webhookVersion: config.authorizationWebhookVersion,
        webhookAuthorizedTtlMs: config.authorizationWebhookCacheAuthorizedTtlMs,
        webhookUnauthorizedTtlMs: config.authorizationWebhookCacheUnauthorizedTtlMs,
        configFile: config.authorizationConfigFile,
        metrics: authMetrics,
        selectors: features.enabled('AuthorizeWithSelectors'),
      },
      rbacIndex,
      (msg) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg })}\n`),
    );
    undo.push(() => built.close());
    closeAuthorizer = () => built.close();
    authorizer = built.authorizer;
  } else authorizer = opts.authorizer;
  try {
    const built = await buildAdmissionChain(admissionNames, { catalog, authorizer, serviceResolver }, admissionConfigs);
    const chain = opts.extraAdmissionPlugins?.length ? new AdmissionChain([...built.plugins, ...opts.extraAdmissionPlugins], built.metrics) : built;
    undo.push(() => chain.stop());
    await chain.ready();
    admissionChain = chain;
  } catch (err) {
    if (err instanceof AdmissionPluginError || err instanceof AdmissionConfigError) throw new StartupError(err.message, { cause: err });
    throw err;
  }
  // One store per storage prefix: kinds served in two groups are one set of objects.
  const storesByPrefix = () => {
    const seen = new Set<string>();
    return catalog.all().filter((s) => !seen.has(s.rt.storagePrefix) && seen.add(s.rt.storagePrefix)).map((s) => s.store);
  };
  // Every namespaced resource, as discovery lists them: the controller reports remaining content per resource.
  // kube-controller-manager's controllers: they run once per cluster (on the elected replica with --leader-elect).
  const runOnce = new RunOnceControllers();
  undo.push(() => runOnce.stop());
  const nsStore = namespaceStore;
  // Remote namespaced content (aggregated API services) is known once the aggregation layer starts, below.
  let remoteContent: RemoteNamespacedContent | undefined;
  const remoteNamespaced: RemoteNamespacedContent = {
    discover: () => remoteContent?.discover() ?? { resources: [], failed: [] },
    deleteAll: (r, ns) => remoteContent?.deleteAll(r, ns) ?? Promise.resolve(0),
  };
  runOnce.add(() => new NamespaceController(nsStore, () => catalog.all().filter((s) => s.rt.namespaced).map((s) => s.store), opts.namespaceControllerTiming, remoteNamespaced));
  // Built-in stores at its start; custom resource stores as their CRDs are served (those served already at its start too).
  let garbageCollector: GarbageCollector | undefined;
  const crStores = new Map<string, { storage: ResourceStore; kinds: string[]; stop?: () => void }>();
  runOnce.add(() => {
    const gc = new GarbageCollector(storesByPrefix().filter((s) => !s.rt.unstructured));
    return {
      start: () => {
        gc.start();
        garbageCollector = gc;
        for (const cr of crStores.values()) cr.stop = gc.addStore(cr.storage, cr.kinds);
      },
      stop: () => {
        if (garbageCollector === gc) garbageCollector = undefined;
        gc.stop();
      },
    };
  });
  crdController.listen({
    served: (name, storage, crTypes) => {
      const cr = { storage, kinds: crTypes.map((t) => `${apiVersionOf(t)}/${t.kind}`), stop: undefined as (() => void) | undefined };
      crStores.set(name, cr);
      if (garbageCollector) cr.stop = garbageCollector.addStore(cr.storage, cr.kinds);
    },
    unserved: (name) => {
      crStores.get(name)?.stop?.();
      crStores.delete(name);
    },
  });
  const policyStatus = policyStatusController(catalog, (err) =>
    process.stderr.write(`${JSON.stringify({ level: 'warn', msg: `validatingadmissionpolicy status: ${err.message}` })}\n`),
  );
  policyStatus?.start();
  undo.push(() => policyStatus?.stop());
  const eventStore = catalog.lookup('', 'v1', 'events')?.store;
  if (eventStore) runOnce.add(() => new EventTtlController(eventStore, config.eventTtlMs ?? 60 * 60_000));
  // kube-controller-manager's service-account controller and root-CA publisher: `default` and `kube-root-ca.crt` in every namespace.
  const publisherStores = { namespaces: namespaceStore, serviceAccounts: catalog.lookup('', 'v1', 'serviceaccounts')?.store, configMaps: catalog.lookup('', 'v1', 'configmaps')?.store };
  if (config.identityControllers !== false) runOnce.add(() => new NamespacePublishers(publisherStores, certs.caCert));
  // kube-controller-manager's tokencleaner and bootstrapsigner, with bootstrap tokens on.
  runOnce.add(() => {
    const controllers = bootstrapTokenControllers(config, catalog);
    return { start: () => controllers.forEach((c) => c.start()), stop: () => controllers.forEach((c) => c.stop()) };
  });

  let shuttingDown = false;
  const storeCheck: HealthCheck = { name: 'etcd', check: () => store.healthCheck() };
  const healthParts = {
    store: storeCheck,
    storeReadiness: { name: 'etcd-readiness', check: () => store.healthCheck() },
    shutdown: {
      name: 'shutdown',
      check: () => {
        if (shuttingDown) throw new Error('process is shutting down');
      },
    },
    postStartHook: (hook: string) => postStartHooks.check(hook),
  };
  const slis = createSliMetrics();
  const observeHealth = slis.observeHealthcheck.bind(slis);
  const livez = new HealthEndpoint('livez', kubeHealthChecks('livez', healthParts), observeHealth);
  const readyChecks = kubeHealthChecks('readyz', healthParts);
  // Scale out: how watches are served (Redis streams or etcd directly), before the shutdown check.
  const fanoutCheck = watchFanoutCheck(store);
  if (fanoutCheck) readyChecks.splice(readyChecks.length - 1, 0, fanoutCheck);
  const readyz = new HealthEndpoint('readyz', readyChecks, observeHealth);
  const healthz = new HealthEndpoint('healthz', kubeHealthChecks('healthz', healthParts), observeHealth);

  const authn = await buildAuthentication(config, catalog, clientCa, () => admissionChain, authMetrics);
  undo.push(() => authn.close());
  // kube-controller-manager's service-account-token controller: legacy token Secrets filled, orphans deleted.
  const secretStore = catalog.lookup('', 'v1', 'secrets')?.store;
  const saStore = catalog.lookup('', 'v1', 'serviceaccounts')?.store;
  if (secretStore && saStore && config.identityControllers !== false) runOnce.add(() => new LegacyTokenController(secretStore, saStore, authn.signingKey, certs.caCert));
  // Scale out: with --leader-elect the set runs while this replica holds the controllers' Lease.
  const elector = startRunOnceControllers(config, catalog, runOnce, store);
  undo.push(() => elector?.stop());
  const configMapStore = catalog.lookup('', 'v1', 'configmaps')?.store;
  const trustController = configMapStore ? new ClusterAuthenticationTrustController(configMapStore, authn.trust) : undefined;
  trustController?.start();
  undo.push(() => trustController?.stop());

  // API Priority and Fairness (src/flowcontrol): the bootstrap configuration is ensured and followed
  // whether or not the filter is on (kube's config producer belongs to the API group); the filter,
  // its headers and its debug dumps only with --enable-priority-and-fairness (default true).
  const apfEnabled = config.enablePriorityAndFairness !== false;
  const flowControl = new FlowControl({
    flowSchemas: catalog.lookup(FLOWCONTROL_GROUP, 'v1', 'flowschemas')!.store,
    priorityLevels: catalog.lookup(FLOWCONTROL_GROUP, 'v1', 'prioritylevelconfigurations')!.store,
    serverConcurrencyLimit: (config.maxRequestsInflight ?? 400) + (config.maxMutatingRequestsInflight ?? 200),
    warn: (msg) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg })}\n`),
  });
  undo.push(() => flowControl.stop());
  flowControl.follow();
  postStartHooks.add('priority-and-fairness-config-producer', () => flowControl.ensureBootstrap());

  const watches = new WatchRegistry();
  let discovery: DiscoveryDocuments | undefined;
  // The documents before the last change: groups whose types did not change keep their pieces.
  let lastDiscovery: DiscoveryDocuments | undefined;
  // Custom resources come and go: OpenAPI documents are rebuilt lazily per group-version after a change, discovery per group.
  const openapi = createOpenApiDocuments(() => catalog.types().filter(servedApi), () => catalog.generation);
  catalog.onChange(() => {
    discovery = undefined;
  });
  const metrics = createServerMetrics({
    inflight: () => app.loadLimits.takeInflightWatermark(),
    // One count per storage prefix (events.k8s.io Events are the core Events), named as kube names them.
    storageObjects: () =>
      Promise.all(
        storesByPrefix().map(async ({ rt }) => ({
          labels: { resource: rt.group === '' ? rt.resource : `${rt.resource}.${rt.group}` },
          value: await store.count(rt.storagePrefix).catch(() => -1),
        })),
      ),
  });
  admissionChain?.registerMetrics(metrics.registry);
  registerFeatureMetrics(metrics.registry, features);
  recordStorage = registerStorageMetrics(metrics.registry);
  const nodeRuntime = registerNodeRuntimeMetrics(metrics.registry);
  undo.push(() => nodeRuntime.stop());
  authMetrics.register(metrics.registry);
  // APF request widths (src/flowcontrol/estimation.ts): object counts polled as kube's storage polls them.
  const estimation = apfEnabled
    ? startWorkEstimation({
        served: () => catalog.all(),
        store,
        pollPeriodMs: config.etcdCountMetricPollPeriodMs ?? 60_000,
        watchList: features.enabled('WatchList'),
        consistentListFromCache: cacheReads.consistent,
      })
    : undefined;
  undo.push(() => estimation?.stop());
  const apf = apfEnabled ? new ApfFilter(flowControl, { metrics: metrics.registry, inflight: { enter: (mutating) => app.loadLimits.enter(mutating), leave: (mutating) => app.loadLimits.leave(mutating) }, ...(estimation ? { estimator: estimation.estimator, watches: estimation.watches } : {}) }) : undefined;
  // Audit (src/audit): a bad policy or webhook kubeconfig stops the start naming the field.
  let auditor;
  try {
    // The deprecation facts the front door's Warning and metric use (src/features/deprecation.ts).
    auditor = await createAuditor(config.audit, (group, version, resource) => {
      const rt = catalog.lookup(group, version, resource)?.rt;
      const d = rt ? deprecationOf(rt) : undefined;
      return d ? { deprecated: true, ...(d.removedRelease ? { removedRelease: d.removedRelease } : {}) } : undefined;
    });
  } catch (err) {
    if (err instanceof AuditPolicyError || err instanceof AuditConfigError) throw new StartupError(err.message, { cause: err });
    throw err;
  }
  auditor.registerMetrics(metrics.registry);
  undo.push(() => void auditor.close());
  // Aggregation layer (src/aggregator): APIServices (local ones automanaged), remote backends, merged discovery.
  const aggregation = await aggregationStartup(() => startAggregation({
    config,
    catalog,
    extraLocalGroupVersions: [...authenticationDiscoveryTypes, ...ACCESS_REVIEW_RESOURCES].map((r) => ({ group: r.group, version: r.version })),
    registry: metrics.registry,
    resolver: serviceResolver,
    ...(opts.aggregatorProbeIntervalMs !== undefined ? { probeIntervalMs: opts.aggregatorProbeIntervalMs } : {}),
    warn: (msg) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg })}\n`),
  }));
  undo.push(() => aggregation.stop());
  remoteContent = aggregation.aggregator.namespacedContent();
  const app = buildFrontDoor({
    tls: { key: serverKey, cert: serverCert, clientCa },
    authenticator: authn.authenticator,
    createOnly: authn.endpoints,
    authorizer,
    // The in-process backend: built-in kinds and custom resources, over the generic store.
    local: { kind: 'local', catalog, verbs: localVerbs, subresources: [scaleSubresource] },
    routes: {
      discovery: () =>
        aggregation.discovery(
          (discovery ??= lastDiscovery =
            new DiscoveryDocuments(
              [...catalog.types(), ...authenticationDiscoveryTypes].filter(servedApi),
              url.replace(/^https:\/\//, ''),
              ACCESS_REVIEW_RESOURCES.filter(servedApi),
              lastDiscovery,
            )),
        ),
      // Remote group/versions' OpenAPI v3 documents are listed in the index and proxied to their backends.
      openapi: () => aggregation.openapi(openapi),
      documents: apfEnabled ? (path) => authn.documents(path) ?? apfDocument(flowControl, path) : authn.documents,
      version: kubeVersionInfo(),
      metrics: (acceptEncoding) => metricsResponse(metrics.registry, acceptEncoding),
      metricsSlis: (acceptEncoding) => metricsResponse(slis.registry, acceptEncoding),
      ...(config.logDir !== undefined ? { logDir: config.logDir } : {}),
    },
    ...(opts.recordMetrics === false ? {} : { metrics }),
    features,
    ...(apf ? { apf } : {}),
    audit: auditor,
    apiEnablement,
    health: { livez, readyz, healthz },
    watches,
    proxyFor: (path) => aggregation.proxyFor(path),
    logger: opts.logger,
    limits: { maxRequestsInflight: config.maxRequestsInflight, maxMutatingRequestsInflight: config.maxMutatingRequestsInflight },
  });
  undo.push(() => app.close());
  answerPlainHttpOnTlsPort(app.server);
  // Upgrade requests (exec, attach, port-forward over SPDY or WebSocket) go through the same front door; remote groups pipe them on.
  acceptUpgrades(app.server as import('node:https').Server);
  // From now on clients write too: concurrent commits may move to the writer thread again.
  store.preferEventLoopCommits?.(false);
  try {
    await app.listen({ port: config.securePort, host: config.bindAddress });
  } catch (err) {
    throw listenError(err, config);
  }
  const port = (app.server.address() as AddressInfo).port;
  const host = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress;
  url = `https://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  authn.setExternalUrl(url);
  // Written only now that this server holds the data dir and listens: it names this server's URL.
  const kubeconfigPath = join(lock.path, 'admin.kubeconfig');
  await writeAdminKubeconfig(kubeconfigPath, { server: url, caPem: certs.caCert, certPem: certs.adminCert, keyPem: certs.adminKey });
  void postStartHooks.run((name, err) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: `post-start hook ${name} failed: ${err.message}` })}\n`));

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    kubeconfigPath,
    dataDir: lock.path,
    caCert: certs.caCert,
    adminCert: certs.adminCert,
    adminKey: certs.adminKey,
    store,
    app,
    metrics,
    serviceResolver,
    waitForPostStartHooks: () => postStartHooks.done(),
    shutdown: () =>
      (closing ??= (async () => {
        shuttingDown = true;
        postStartHooks.stop();
        if (config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
        // Bootstrap writes under way end before the controllers and the store they use.
        await postStartHooks.done();
        watches.endAll();
        crdController.stop();
        aggregation.stop();
        await elector?.stop();
        runOnce.stop();
        trustController?.stop();
        policyStatus?.stop();
        flowControl.stop();
        stopRbacFeed();
        aggregator.stop();
        admissionChain?.stop();
        closeAuthorizer();
        authn.close();
        nodeRuntime.stop();
        await app.close();
        await auditor.close();
        for (const c of caches.values()) c.stop();
        await store.close();
        lock.release();
      })()),
  };
}

/**
 * The authentication gate and the authentication.k8s.io endpoints: client certificates, the
 * token file, service-account tokens (keys from flags or generated into the data dir), then
 * anonymous; TokenRequest, TokenReview and SelfSubjectReview over the same token steps.
 */
async function buildAuthentication(config: ServerConfig, catalog: ResourceCatalog, clientCa: string, admission: () => AdmissionChain | undefined, authMetrics: AuthMetrics) {
  let keys;
  try {
    keys = await loadServiceAccountKeys({ dataDir: config.dataDir, signingKeyFile: config.serviceAccountSigningKeyFile, keyFiles: config.serviceAccountKeyFiles });
  } catch (err) {
    if (err instanceof ServiceAccountKeyError) throw new StartupError(err.message, { cause: err });
    throw err;
  }
  const issuers = config.serviceAccountIssuers?.length ? config.serviceAccountIssuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const apiAudiences = config.apiAudiences?.length ? config.apiAudiences : issuers;
  const objects = catalogReader(catalog);
  const live = async (resource: 'serviceaccounts' | 'secrets', ns: string, name: string) => {
    const obj = await objects.get(resource, ns, name);
    return obj ? { uid: String(obj.metadata?.uid ?? ''), deletionTimestamp: obj.metadata?.deletionTimestamp ?? null } : undefined;
  };
  const getter: ServiceAccountGetter = { serviceAccount: (ns, name) => live('serviceaccounts', ns, name), secret: (ns, name) => live('secrets', ns, name) };
  const requestheaderCa = config.requestheaderClientCaFile ? await readRequestheaderCa(config.requestheaderClientCaFile) : undefined;
  // OIDC / structured configuration, bootstrap tokens and the token webhook (src/authn/setup.ts).
  let extra;
  try {
    extra = await setupTokenAuthenticators({ ...authnSetupOptions(config, issuers, apiAudiences, catalog), metrics: authMetrics });
  } catch (err) {
    if (err instanceof AuthnSetupError) throw new StartupError(err.message, { cause: err });
    throw err;
  }
  const authenticator = createAuthenticator({
    ...(requestheaderCa
      ? {
          requestHeader: {
            clientCa: [requestheaderCa],
            allowedNames: config.requestheaderAllowedNames ?? [],
            usernameHeaders: config.requestheaderUsernameHeaders ?? [],
            groupHeaders: config.requestheaderGroupHeaders ?? [],
            extraHeaderPrefixes: config.requestheaderExtraHeadersPrefix ?? [],
          },
        }
      : {}),
    clientCa: [clientCa],
    tokenFile: config.tokenAuthFile,
    anonymous: extra.anonymous,
    apiAudiences,
    ...(config.tokenSuccessCacheTtlMs !== undefined ? { tokenCache: { successTtlMs: config.tokenSuccessCacheTtlMs } } : {}),
    tokenAuthenticators: [
      createServiceAccountTokenAuthenticator({
        issuers,
        audiences: apiAudiences,
        keys: keys.verificationKeys,
        ...(config.serviceAccountLookup === false ? {} : { getter }),
      }),
      createLegacyServiceAccountTokenAuthenticator({
        keys: keys.verificationKeys,
        ...(config.serviceAccountLookup === false
          ? {}
          : { lookup: { secret: (ns: string, name: string) => objects.get('secrets', ns, name), serviceAccount: (ns: string, name: string) => objects.get('serviceaccounts', ns, name) } }),
      }),
      ...extra.tokenAuthenticators,
    ],
  });
  const issuer = new ServiceAccountTokenIssuer(issuers[0]!, keys.signingKey);
  const endpoints = new CreateOnlyEndpoints()
    .add(
      '',
      'v1',
      'serviceaccounts',
      'token',
      admittedCreateOnly(
        tokenRequestEndpoint({ issuer, apiAudiences, maxExpirationSeconds: config.serviceAccountMaxTokenExpirationSeconds ?? 0, objects }),
        { group: '', version: 'v1', resource: 'serviceaccounts' },
        'token',
        admission,
      ),
      { namespaced: true },
    )
    .add('authentication.k8s.io', 'v1', 'tokenreviews', '', tokenReviewEndpoint({ review: (t, a) => authenticator.reviewToken(t, a), apiAudiences }), { namespaced: false })
    .add('authentication.k8s.io', 'v1', 'selfsubjectreviews', '', selfSubjectReviewEndpoint(), { namespaced: false });
  // The jwks_uri names this server's URL, known once it listens.
  let externalUrl = '';
  const documents = issuerDiscoveryDocuments(issuers[0]!, keys.verificationKeys, () => externalUrl);
  // What extension API servers are told to trust (the extension-apiserver-authentication ConfigMap).
  const trust: ClusterAuthenticationInfo = {
    clientCa,
    ...(requestheaderCa
      ? {
          requestHeaderCa: requestheaderCa,
          requestHeaderUsernameHeaders: config.requestheaderUsernameHeaders ?? [],
          requestHeaderGroupHeaders: config.requestheaderGroupHeaders ?? [],
          requestHeaderExtraHeaderPrefixes: config.requestheaderExtraHeadersPrefix ?? [],
          requestHeaderAllowedNames: config.requestheaderAllowedNames ?? [],
        }
      : {}),
  };
  return { authenticator, endpoints, documents, trust, signingKey: keys.signingKey, setExternalUrl: (u: string) => void (externalUrl = u), close: () => extra.close() };
}

/** What src/authn/setup.ts needs from the server: flags, issuers, audiences, Secrets, a log. */
function authnSetupOptions(config: ServerConfig, issuers: readonly string[], apiAudiences: readonly string[], catalog: ResourceCatalog): AuthnSetupOptions {
  const log = (msg: string) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg })}\n`);
  return {
    // Bootstrap tokens are looked up in the watch cache only, as kube's informer lister: an unknown token costs no store read.
    bootstrap: () => createBootstrapTokenAuthenticator({ getSecret: (name) => cachedObject(catalog, 'secrets', BOOTSTRAP_NAMESPACE, name), log }),
    flags: config.authn,
    serviceAccountIssuers: issuers,
    apiAudiences,
    anonymousAuth: config.anonymousAuth,
    log,
  };
}

async function readRequestheaderCa(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new StartupError(`cannot read --requestheader-client-ca-file ${path}: ${(err as Error).message}`, { cause: err });
  }
}

function bootstrapTokenControllers(config: ServerConfig, catalog: ResourceCatalog): Array<{ start(): void; stop(): void }> {
  const secrets = catalog.lookup('', 'v1', 'secrets')?.store;
  const configMaps = catalog.lookup('', 'v1', 'configmaps')?.store;
  if (!config.authn?.enableBootstrapTokenAuth || !secrets || !configMaps) return [];
  return [new TokenCleaner(secrets), new BootstrapSigner(secrets, configMaps)];
}

/** An object from the watch cache only (undefined when absent). */
async function cachedObject(catalog: ResourceCatalog, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
  const store = catalog.lookup('', 'v1', resource)?.store;
  if (!store) return undefined;
  try {
    return (await store.get(namespace, name, '0')).value;
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}

/**
 * Reads objects through the registry: the watch cache first (no round trip on every token), and
 * on a miss a consistent read, so an object created a moment ago is found (as kube's lookup does).
 */
/** Every Service in the watch cache (a corrupt one holds nothing). */
function servicesInCache(catalog: ResourceCatalog): KubeObject[] {
  const out: KubeObject[] = [];
  for (const e of catalog.lookup('', 'v1', 'services')?.store.cache.list().entries ?? []) {
    try {
      out.push(e.value);
    } catch {
      // skipped
    }
  }
  return out;
}

function catalogReader(catalog: ResourceCatalog): ObjectReader {
  return {
    async get(resource, namespace, name) {
      const store = catalog.lookup('', 'v1', resource)?.store;
      if (!store) return undefined;
      for (const rv of ['0', '']) {
        try {
          return (await store.get(namespace, name, rv)).value;
        } catch (err) {
          if (!(isApiError(err) && err.code === 404)) throw err;
        }
      }
      return undefined;
    },
  };
}

/** kube's APF debug dumps, as plain text (authorized like any non-resource path). */
function apfDocument(fc: FlowControl, path: string): { body: Buffer; contentType: string; cacheControl: string } | undefined {
  const text = apfDebugDocument(fc, path);
  return text === undefined ? undefined : { body: Buffer.from(text), contentType: 'text/plain; charset=utf-8', cacheControl: 'no-cache, private' };
}

/** The aggregation layer's configuration errors are the user's to fix: a StartupError, printed without a stack. */
async function aggregationStartup<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (err instanceof AggregationConfigError) throw new StartupError(err.message, { cause: err.cause });
    throw err;
  }
}
