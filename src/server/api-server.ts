/**
 * Assembles a running API server from its parts: certificates, store, watch caches, resource
 * stores, controllers, and the front door; and takes it down again in order.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../storage/types.ts';
import { MemoryStore } from '../storage/memory-store.ts';
import { SqliteStore } from '../storage/sqlite-store.ts';
import { EtcdStore } from '../storage/etcd-store.ts';
import { WatchCache } from '../storage/watch-cache.ts';
import type { KubeObject, ResourceType } from '../api/types.ts';
import { builtinResourceTypes } from '../api/builtin.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../api/validation/metadata.ts';
import { validateAgainstSchema } from '../schema/validate.ts';
import { applyDefaults } from '../schema/defaults.ts';
import { ResourceStore, type WriteHooks } from '../registry/resource-store.ts';
import { decodeStored } from '../registry/stored-object.ts';
import { trackUpdate } from '../apply/index.ts';
import { applyContextFor } from '../registry/apply-context.ts';
import { apiVersionOf } from '../api/types.ts';
import { nowRfc3339 } from '../registry/object-meta.ts';
import { createAuthenticator } from '../authn/index.ts';
import { alwaysAllow, type Authorizer } from '../authz/authorizer.ts';
import { ensureCertificates } from './certs.ts';
import { writeAdminKubeconfig } from './kubeconfig.ts';
import type { ServerConfig } from './config.ts';
import { ResourceCatalog } from './api-context.ts';
import { buildFrontDoor } from './app.ts';
import { HealthEndpoint, type HealthCheck } from './health.ts';
import { WatchRegistry } from './handlers/watch.ts';
import { DiscoveryDocuments } from '../discovery/discovery.ts';
import { createOpenApiDocuments } from '../discovery/openapi-documents.ts';
import { NamespaceController, ensureBuiltinNamespaces, namespaceLifecycleAdmission } from '../controllers/namespace-lifecycle.ts';
import { GarbageCollector } from '../controllers/garbage-collector.ts';
import { EventTtlController } from '../controllers/event-ttl.ts';

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly kubeconfigPath: string;
  readonly caCert: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly store: Store;
  readonly app: FastifyInstance;
  /** Graceful shutdown: readyz fails for the shutdown delay, watches end, in-flight requests finish, the store closes. */
  shutdown(): Promise<void>;
}

export interface StartOptions {
  readonly config: ServerConfig;
  /** Use this store instead of opening one from the config (tests). */
  readonly store?: Store;
  readonly authorizer?: Authorizer;
  readonly logger?: boolean;
}

async function openStore(config: ServerConfig): Promise<Store> {
  switch (config.storageBackend) {
    case 'memory':
      return new MemoryStore({ historyMs: config.historyMs });
    case 'etcd':
      return EtcdStore.connect([...config.etcdServers]);
    default:
      return SqliteStore.open(join(config.dataDir, 'state.db'), { historyMs: config.historyMs });
  }
}

/** Starts a server per `config`; resolves once it listens and its caches are synced. */
export async function startApiServer(opts: StartOptions): Promise<RunningServer> {
  const { config } = opts;
  const certs = await ensureCertificates(config.dataDir);
  const serverCert = config.tlsCertFile ? await readFile(config.tlsCertFile, 'utf8') : certs.serverCert;
  const serverKey = config.tlsPrivateKeyFile ? await readFile(config.tlsPrivateKeyFile, 'utf8') : certs.serverKey;
  const clientCa = config.clientCaFile ? await readFile(config.clientCaFile, 'utf8') : certs.caCert;

  const store = opts.store ?? (await openStore(config));

  // One watch cache per storage prefix: kinds served in two groups share one.
  const caches = new Map<string, WatchCache<KubeObject>>();
  const catalog = new ResourceCatalog();
  const types: readonly ResourceType[] = builtinResourceTypes;
  let namespaceStore: ResourceStore | undefined;
  let admitNamespace: ReturnType<typeof namespaceLifecycleAdmission> | undefined;
  for (const rt of types) {
    let cache = caches.get(rt.storagePrefix);
    if (!cache) {
      cache = new WatchCache<KubeObject>({ store, prefix: rt.storagePrefix, decode: decodeStored, historyMs: config.historyMs });
      caches.set(rt.storagePrefix, cache);
    }
    const hooks: WriteHooks = {
      mutate: (op, obj, old, ctx) => {
        applyDefaults(obj, rt.schema);
        if (ctx.skipManagedFields) return;
        const tracked = trackUpdate(old, obj, applyContextFor(rt, ctx.manager ?? '', ctx.subresource ?? '', ctx.now));
        obj.metadata = tracked.metadata;
      },
      validate: async (op, obj) => {
        if (op === 'create' && rt.namespaced && admitNamespace) await admitNamespace({ group: rt.group, resource: rt.resource }, obj);
      },
    };
    const validateGeneric = (obj: KubeObject, old: KubeObject | null) => [
      ...(old ? validateObjectMetaUpdate(obj.metadata, old.metadata) : validateObjectMeta(obj.metadata, { namespaced: rt.namespaced, nameValidation: rt.nameValidation })),
      ...validateAgainstSchema(rt.storageConversion ? rt.storageConversion.fromStorage(obj) : obj, rt.schema),
    ];
    const rs = new ResourceStore(rt, store, cache, hooks, validateGeneric);
    catalog.add({ rt, store: rs });
    if (rt.group === '' && rt.resource === 'namespaces') namespaceStore = rs;
  }
  await Promise.all([...caches.values()].map((c) => c.start()));
  if (!namespaceStore) throw new Error('the namespaces resource type is missing');
  admitNamespace = namespaceLifecycleAdmission(namespaceStore);
  await ensureBuiltinNamespaces(namespaceStore);
  // One store per storage prefix: kinds served in two groups are one set of objects.
  const storesByPrefix = () => {
    const seen = new Set<string>();
    return catalog.all().filter((s) => !seen.has(s.rt.storagePrefix) && seen.add(s.rt.storagePrefix)).map((s) => s.store);
  };
  const namespaceController = new NamespaceController(namespaceStore, () => storesByPrefix().filter((s) => s.rt.namespaced));
  namespaceController.start();
  const garbageCollector = new GarbageCollector(storesByPrefix());
  garbageCollector.start();
  const eventStore = catalog.lookup('', 'v1', 'events')?.store;
  const eventTtl = eventStore ? new EventTtlController(eventStore, config.eventTtlMs ?? 60 * 60_000) : undefined;
  eventTtl?.start();

  let shuttingDown = false;
  const storeCheck: HealthCheck = { name: 'etcd', check: () => store.healthCheck() };
  const ok = (name: string): HealthCheck => ({ name, check: () => {} });
  const livez = new HealthEndpoint('livez', [ok('ping'), ok('log'), storeCheck, ok('poststarthook/start-apiserver-admission-initializer'), ok('poststarthook/generic-apiserver-start-informers'), ok('poststarthook/start-system-namespaces-controller')]);
  const readyz = new HealthEndpoint('readyz', [
    ok('ping'),
    ok('log'),
    storeCheck,
    { name: 'etcd-readiness', check: () => store.healthCheck() },
    ok('informer-sync'),
    ok('poststarthook/start-apiserver-admission-initializer'),
    ok('poststarthook/generic-apiserver-start-informers'),
    ok('poststarthook/start-system-namespaces-controller'),
    {
      name: 'shutdown',
      check: () => {
        if (shuttingDown) throw new Error('process is shutting down');
      },
    },
  ]);
  const healthz = new HealthEndpoint('healthz', [ok('ping'), ok('log'), storeCheck, ok('poststarthook/start-apiserver-admission-initializer'), ok('poststarthook/generic-apiserver-start-informers'), ok('poststarthook/start-system-namespaces-controller')]);

  const watches = new WatchRegistry();
  let discovery: DiscoveryDocuments | undefined;
  let url = '';
  const openapi = createOpenApiDocuments(() => catalog.types());
  const app = buildFrontDoor({
    tls: { key: serverKey, cert: serverCert, clientCa },
    authenticator: createAuthenticator({
      clientCa: [clientCa],
      tokenFile: config.tokenAuthFile,
      anonymous: config.anonymousAuth,
    }),
    authorizer: opts.authorizer ?? alwaysAllow,
    catalog,
    routes: {
      discovery: () => (discovery ??= new DiscoveryDocuments(catalog.types(), url.replace(/^https:\/\//, ''))),
      openapi: () => openapi,
      version: {
        major: '1',
        minor: '32',
        gitVersion: 'v1.32.0',
        gitCommit: '0000000000000000000000000000000000000000',
        gitTreeState: 'clean',
        buildDate: '2026-11-21T00:00:00Z',
        goVersion: 'go1.23.0',
        compiler: 'gc',
        platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
      },
    },
    health: { livez, readyz, healthz },
    watches,
    logger: opts.logger,
    limits: { maxRequestsInflight: config.maxRequestsInflight, maxMutatingRequestsInflight: config.maxMutatingRequestsInflight },
  });
  await app.listen({ port: config.securePort, host: config.bindAddress });
  const port = (app.server.address() as AddressInfo).port;
  const host = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress;
  url = `https://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  const kubeconfigPath = join(config.dataDir, 'admin.kubeconfig');
  await writeAdminKubeconfig(kubeconfigPath, { server: url, caPem: certs.caCert, certPem: certs.adminCert, keyPem: certs.adminKey });

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    kubeconfigPath,
    caCert: certs.caCert,
    adminCert: certs.adminCert,
    adminKey: certs.adminKey,
    store,
    app,
    shutdown: () =>
      (closing ??= (async () => {
        shuttingDown = true;
        if (config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
        watches.endAll();
        namespaceController.stop();
        garbageCollector.stop();
        eventTtl?.stop();
        await app.close();
        for (const c of caches.values()) c.stop();
        await store.close();
      })()),
  };
}
