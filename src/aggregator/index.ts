/**
 * The aggregation layer as the server assembles it: the Aggregator (APIServices, backends,
 * availability, remote discovery) over the apiservices store, the proxy settings from the flags,
 * and the two things the front door asks of it: which backend serves a path, and discovery
 * merged with the local documents.
 */
import { readFile } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResourceCatalog } from '../registry/resource-catalog.ts';
import type { DiscoveryDocuments } from '../discovery/discovery.ts';
import type { OpenApiDocuments } from '../discovery/openapi-documents.ts';
import { withRemoteOpenApiV2 } from './openapi-v2.ts';
import type { MetricsRegistry } from '../metrics/index.ts';
import type { AggregatorFlags } from './flags.ts';
import { Aggregator, type LocalGroupVersion } from './aggregator.ts';
import { APIREGISTRATION_GROUP } from './apiservice.ts';
import { MergedDiscovery, type DiscoverySource } from './discovery-view.ts';
import { AggregatorMetrics } from './metrics.ts';
import { buildServiceResolver, catalogObjects, type ServiceResolver } from './service-resolver.ts';
import { DEFAULT_TRAFFIC } from './traffic.ts';

export { Aggregator } from './aggregator.ts';
export type { DiscoverySource } from './discovery-view.ts';
export { ServedServiceResolver, StaticServiceResolver, type ServiceResolver, type ServiceResolution } from './service-resolver.ts';

/** The part of the server's configuration the aggregation layer reads. */
export interface AggregationConfig {
  readonly aggregator?: AggregatorFlags;
  /** The request-header names the gateway asserts the caller's identity in (the first of each). */
  readonly requestheaderUsernameHeaders?: readonly string[];
  readonly requestheaderGroupHeaders?: readonly string[];
  readonly requestheaderExtraHeadersPrefix?: readonly string[];
}

/** A configuration the aggregation layer cannot start with (bad routing flags, an unreadable file): the user's to fix. */
export class AggregationConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AggregationConfigError';
  }
}

export interface AggregationOptions {
  readonly config: AggregationConfig;
  readonly catalog: ResourceCatalog;
  /** Group/versions served in process outside the catalog (TokenReview, the access reviews). */
  readonly extraLocalGroupVersions: readonly { group: string; version: string }[];
  readonly registry: MetricsRegistry;
  /** Default: gatewayServiceResolver(config, catalog). */
  readonly resolver?: ServiceResolver;
  readonly probeIntervalMs?: number;
  readonly probeTimeoutMs?: number;
  readonly warn: (msg: string) => void;
}

export interface Aggregation {
  readonly aggregator: Aggregator;
  readonly resolver: ServiceResolver;
  /** The handler of a request to a remote group/version, or undefined. */
  proxyFor(path: string): ((req: FastifyRequest, reply: FastifyReply, longRunning: boolean) => Promise<unknown>) | undefined;
  /** The local documents merged with the remote groups; rebuilt only when either changed. */
  discovery(local: DiscoveryDocuments): DiscoverySource;
  /** The `/openapi/v3` index with the remote group/versions' documents listed (served by their backends). */
  openapiV3Index(local: object): object;
  /** The OpenAPI documents with the remote groups in: `/openapi/v2` merged, the v3 index listing them. */
  openapi(local: OpenApiDocuments): OpenApiDocuments;
  stop(): void;
}

/**
 * The one service resolver of the gateway, as the flags configure it (--aggregator-service-address
 * first, then the served Services routed by --enable-aggregator-routing / --service-dns-routing).
 * kube-apiserver gives the same resolver to the aggregator and to admission and conversion
 * webhooks; so does the server. `self` is where the gateway listens (`default/kubernetes:443`).
 */
export function gatewayServiceResolver(config: AggregationConfig, catalog: ResourceCatalog, self?: () => { host: string; port: number } | undefined): ServiceResolver {
  try {
    return buildServiceResolver(catalogObjects(catalog), {
      routing: config.aggregator?.serviceRouting ?? 'cluster-ip',
      staticAddresses: config.aggregator?.serviceAddresses ?? [],
      ...(self ? { loopback: self } : {}),
    });
  } catch (err) {
    throw new AggregationConfigError((err as Error).message, { cause: err });
  }
}

async function readPem(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new AggregationConfigError(`cannot read --${flag} ${path}: ${(err as Error).message}`, { cause: err });
  }
}

export async function startAggregation(opts: AggregationOptions): Promise<Aggregation> {
  const { config, catalog } = opts;
  const flags = config.aggregator;
  const clientCert =
    flags?.proxyClientCertFile && flags.proxyClientKeyFile
      ? { cert: await readPem(flags.proxyClientCertFile, 'proxy-client-cert-file'), key: await readPem(flags.proxyClientKeyFile, 'proxy-client-key-file') }
      : undefined;
  const resolver = opts.resolver ?? gatewayServiceResolver(config, catalog);
  const lower = (xs: readonly string[] | undefined) => (xs ?? []).map((x) => x.toLowerCase());
  const usernames = lower(config.requestheaderUsernameHeaders);
  const groups = lower(config.requestheaderGroupHeaders);
  const extras = lower(config.requestheaderExtraHeadersPrefix);
  const metrics = new AggregatorMetrics(opts.registry);
  const apiServices = catalog.lookup(APIREGISTRATION_GROUP, 'v1', 'apiservices')?.store;
  if (!apiServices) throw new Error('the apiservices resource type is missing');
  const localGroupVersions = (): LocalGroupVersion[] => {
    const seen = new Map<string, LocalGroupVersion>();
    for (const s of catalog.all()) {
      const key = `${s.rt.group}/${s.rt.version}`;
      if (!seen.has(key)) seen.set(key, { group: s.rt.group, version: s.rt.version, custom: s.rt.unstructured === true });
    }
    for (const gv of opts.extraLocalGroupVersions) {
      const key = `${gv.group}/${gv.version}`;
      if (!seen.has(key)) seen.set(key, { ...gv, custom: false });
    }
    return [...seen.values()];
  };
  const aggregator = new Aggregator({
    apiServices,
    localGroupVersions,
    proxy: {
      ...(clientCert ? { clientCert } : {}),
      // Asserted in the first configured name of each kind (kube's defaults otherwise).
      identity: { username: usernames[0] ?? 'x-remote-user', group: groups[0] ?? 'x-remote-group', extraPrefix: extras[0] ?? 'x-remote-extra-' },
      strippedNames: new Set([...usernames, ...groups, 'x-remote-user', 'x-remote-group']),
      strippedPrefixes: [...extras, 'x-remote-extra-'],
      resolver,
      metrics,
    },
    trafficDefaults: flags?.traffic ?? DEFAULT_TRAFFIC,
    ...(opts.probeIntervalMs !== undefined ? { probeIntervalMs: opts.probeIntervalMs } : {}),
    ...(opts.probeTimeoutMs !== undefined ? { probeTimeoutMs: opts.probeTimeoutMs } : {}),
    warn: opts.warn,
  });
  await aggregator.start();
  // CRDs come and go: their automanaged APIServices follow.
  catalog.onChange(() => aggregator.requestSync());
  let view: { local: DiscoveryDocuments; generation: number; merged: MergedDiscovery } | undefined;
  let openapiView: { local: OpenApiDocuments; merged: OpenApiDocuments } | undefined;
  const openapiV3Index = (local: object): object => {
    const remote = aggregator.discovery.entries().filter((e) => e.openapiV3 !== undefined);
    if (remote.length === 0) return local;
    const paths: Record<string, unknown> = { ...(local as { paths?: Record<string, unknown> }).paths };
    for (const e of remote) paths[`apis/${e.spec.group}/${e.spec.version}`] ??= { serverRelativeURL: e.openapiV3 };
    // Keys sorted, as Go's encoding/json writes a map.
    return { paths: Object.fromEntries(Object.entries(paths).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) };
  };
  return {
    aggregator,
    resolver,
    proxyFor(path) {
      const backend = aggregator.backendFor(path);
      return backend?.proxyHandler;
    },
    discovery(local) {
      if (!view || view.local !== local || view.generation !== aggregator.generation) {
        view = { local, generation: aggregator.generation, merged: new MergedDiscovery(local, aggregator.discovery) };
      }
      return view.merged;
    },
    openapiV3Index,
    openapi(local) {
      if (openapiView?.local !== local) {
        const v2 = withRemoteOpenApiV2(local, () => aggregator.discovery.openapiV2Documents(), () => aggregator.generation);
        openapiView = { local, merged: { ...v2, v3Index: () => openapiV3Index(local.v3Index()) } };
      }
      return openapiView.merged;
    },
    stop: () => aggregator.stop(),
  };
}
