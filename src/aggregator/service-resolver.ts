/**
 * The one place a Service reference (`namespace/name:port`) becomes an address, for every caller
 * kube-apiserver gives its service resolver to: APIServices (kube-aggregator), CRD conversion
 * webhooks and admission webhooks (kube's buildServiceResolver builds one resolver and hands it
 * to all of them). The routing is chosen by flag:
 * - `cluster-ip` (kube's default, `--enable-aggregator-routing=false`): the Service's cluster IP
 *   and service port (ResolveCluster);
 * - `endpoint` (`--enable-aggregator-routing=true`): a ready address of the Service's Endpoints
 *   with the target port of the same port name (ResolveEndpoint);
 * - `dns` (`--service-dns-routing`, the gateway's own): `<name>.<namespace>.svc:<port>`, for a
 *   gateway deployed in a cluster whose Services it does not store itself (the cluster DNS answers).
 * As in kube, `default/kubernetes:443` is the gateway itself (the loopback resolver). Before any
 * address, an APIService's Service gets kube's availability checks (ServiceNotFound,
 * ServicePortError, EndpointsNotFound, MissingEndpoints) when its kind is ClusterIP; a webhook's
 * does not (kube's webhook clients call the resolver alone, at dial time): see `webhookAddress`.
 * The static map of `--aggregator-service-address` (a backend process on the same host, outside
 * any cluster) is consulted first.
 */

/** The outcome of resolving `namespace/name:port`, as the availability controller reports it. */
export type ServiceResolution =
  | { readonly kind: 'address'; readonly host: string; readonly port: number }
  /** kube's ServiceNotFound: `service/NAME in "NS" is not present`. */
  | { readonly kind: 'service-not-found' }
  /** The service exists but cannot be reached: kube's ServicePortError, EndpointsNotFound or MissingEndpoints, with its message. */
  | { readonly kind: 'unreachable'; readonly reason: string; readonly message: string };

/**
 * Who asks: `apiservice` (the aggregator: kube's availability checks first, whose reasons and
 * messages its Available condition shows) or `webhook` (admission and conversion webhooks: kube's
 * ResolveCluster / ResolveEndpoint alone, with their error texts).
 */
export type ResolutionUse = 'apiservice' | 'webhook';

export interface ServiceResolver {
  resolve(namespace: string, name: string, port: number, use?: ResolutionUse): ServiceResolution;
}

export type ServiceRouting = 'cluster-ip' | 'endpoint' | 'dns';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** Reads a core/v1 object (services, endpoints) from wherever they are kept; undefined when absent or not served. */
export type CoreObjects = (resource: 'services' | 'endpoints', namespace: string, name: string) => Obj | undefined;

/** The slice of the resource catalog the resolver reads (the watch caches of core/v1 services and endpoints). */
export interface CatalogLookup {
  lookup(group: string, version: string, resource: string): { readonly store: { key(namespace: string, name: string): string; readonly cache: { get(key: string): { readonly value: unknown } | undefined } } } | undefined;
}

/** Core objects read from the watch caches: no store round trip; a corrupt object reads as absent. */
export function catalogObjects(catalog: CatalogLookup): CoreObjects {
  return (resource, namespace, name) => {
    const store = catalog.lookup('', 'v1', resource)?.store;
    if (!store) return undefined;
    try {
      const v = store.cache.get(store.key(namespace, name))?.value;
      return isObj(v) ? v : undefined;
    } catch {
      return undefined;
    }
  };
}

const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];

export interface ServedResolverOptions {
  readonly routing: ServiceRouting;
  /** Where the gateway itself listens (`default/kubernetes:443` resolves there), once known. */
  readonly loopback?: () => { readonly host: string; readonly port: number } | undefined;
}

/** Resolves through the Services and Endpoints the gateway stores, with kube's checks and routing. */
export class ServedServiceResolver implements ServiceResolver {
  constructor(
    private readonly objects: CoreObjects,
    private readonly opts: ServedResolverOptions,
  ) {}

  resolve(namespace: string, name: string, port: number, use: ResolutionUse = 'apiservice'): ServiceResolution {
    if (namespace === 'default' && name === 'kubernetes' && port === 443) {
      const self = this.opts.loopback?.();
      if (self) return { kind: 'address', ...self };
    }
    // In-cluster DNS routing: the Service lives in the host cluster, which the gateway does not see.
    if (this.opts.routing === 'dns') return { kind: 'address', host: `${name}.${namespace}.svc`, port };
    const svc = this.objects('services', namespace, name);
    if (!svc) return { kind: 'service-not-found' };
    const spec = isObj(svc.spec) ? svc.spec : {};
    const type = typeof spec.type === 'string' ? spec.type : 'ClusterIP';
    const svcPort = list(spec.ports).find((p) => p.port === port);
    const portName = typeof svcPort?.name === 'string' ? svcPort.name : '';
    const ns = JSON.stringify(namespace);
    // kube's availability controller checks a ClusterIP Service's port and endpoints whatever the routing.
    if (use === 'apiservice' && type === 'ClusterIP') {
      if (!svcPort) return { kind: 'unreachable', reason: 'ServicePortError', message: `service/${name} in ${ns} is not listening on port ${port}` };
      const endpoints = this.objects('endpoints', namespace, name);
      if (!endpoints) return { kind: 'unreachable', reason: 'EndpointsNotFound', message: `cannot find endpoints for service/${name} in ${ns}` };
      const active = list(endpoints.subsets).some((s) => list(s.addresses).length > 0 && list(s.ports).some((p) => (p.name ?? '') === portName));
      if (!active) return { kind: 'unreachable', reason: 'MissingEndpoints', message: `endpoints for service/${name} in ${ns} have no addresses with port name ${JSON.stringify(portName)}` };
    }
    return this.opts.routing === 'endpoint' ? this.endpoint(namespace, name, type, svcPort, portName, port) : this.clusterIP(name, type, spec, svcPort, port);
  }

  /** kube's ResolveCluster. */
  private clusterIP(name: string, type: string, spec: Obj, svcPort: Obj | undefined, port: number): ServiceResolution {
    if (type === 'ExternalName') return { kind: 'address', host: String(spec.externalName ?? ''), port };
    if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') return unsupported(type);
    if (spec.clusterIP === 'None') return { kind: 'unreachable', reason: 'FailedDiscoveryCheck', message: 'cannot route to service with ClusterIP "None"' };
    if (!svcPort) return { kind: 'unreachable', reason: 'ServicePortError', message: `no service port ${port} found for service ${JSON.stringify(name)}` };
    if (typeof spec.clusterIP !== 'string' || spec.clusterIP === '') return { kind: 'unreachable', reason: 'FailedDiscoveryCheck', message: `service ${JSON.stringify(name)} has no cluster IP` };
    return { kind: 'address', host: spec.clusterIP, port };
  }

  /** kube's ResolveEndpoint (v1.32 reads Endpoints): a random subset with the port name, a random address in it. */
  private endpoint(namespace: string, name: string, type: string, svcPort: Obj | undefined, portName: string, port: number): ServiceResolution {
    if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') return unsupported(type);
    if (!svcPort) return { kind: 'unreachable', reason: 'ServicePortError', message: `no service port ${port} found for service ${JSON.stringify(name)}` };
    const endpoints = this.objects('endpoints', namespace, name);
    // The lister's NotFound error, as kube's webhook clients report it.
    if (!endpoints) return { kind: 'unreachable', reason: 'EndpointsNotFound', message: `endpoints ${JSON.stringify(name)} not found` };
    const subsets = list(endpoints.subsets);
    const candidates: { host: string; port: number }[][] = [];
    for (const s of subsets) {
      const target = list(s.ports).find((p) => (p.name ?? '') === portName);
      const ips = list(s.addresses).flatMap((a) => (typeof a.ip === 'string' ? [a.ip] : []));
      if (target && typeof target.port === 'number' && ips.length > 0) candidates.push(ips.map((ip) => ({ host: ip, port: target.port as number })));
    }
    const chosen = pick(pick(candidates) ?? []);
    if (!chosen) return { kind: 'unreachable', reason: 'MissingEndpoints', message: `no endpoints available for service ${JSON.stringify(name)}` };
    return { kind: 'address', ...chosen };
  }
}

function unsupported(type: string): ServiceResolution {
  return { kind: 'unreachable', reason: 'FailedDiscoveryCheck', message: `unsupported service type ${JSON.stringify(type)}` };
}

/** `NAMESPACE/NAME=HOST[:PORT]` entries: a reference absent from the map goes to `fallback` (or is ServiceNotFound). */
export class StaticServiceResolver implements ServiceResolver {
  private readonly addresses = new Map<string, { host: string; port?: number }>();

  constructor(entries: readonly string[] = []) {
    for (const e of entries) this.addFlag(e);
  }

  /** Parses one flag value; throws with the flag's expected shape when malformed. */
  addFlag(entry: string): void {
    const m = /^([^/=]+)\/([^/=]+)=(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.trim());
    if (!m) throw new Error(`invalid --aggregator-service-address ${JSON.stringify(entry)}: expected NAMESPACE/NAME=HOST[:PORT]`);
    this.set(m[1]!, m[2]!, m[3]!.replace(/^\[|\]$/g, ''), m[4] === undefined ? undefined : Number(m[4]));
  }

  /** Registers (or moves) a service's address; without a port, the APIService's port is used. */
  set(namespace: string, name: string, host: string, port?: number): void {
    this.addresses.set(`${namespace}/${name}`, { host, ...(port === undefined ? {} : { port }) });
  }

  delete(namespace: string, name: string): void {
    this.addresses.delete(`${namespace}/${name}`);
  }

  resolve(namespace: string, name: string, port: number, use?: ResolutionUse): ServiceResolution {
    const a = this.addresses.get(`${namespace}/${name}`);
    if (!a) return this.fallback?.resolve(namespace, name, port, use) ?? { kind: 'service-not-found' };
    return { kind: 'address', host: a.host, port: a.port ?? port };
  }

  /** References the flags do not name resolve through `fallback` (the served Services). */
  fallback: ServiceResolver | undefined;
}

/** The gateway's resolver as the flags configure it: the static map first, then the served Services with the chosen routing. */
export function buildServiceResolver(objects: CoreObjects, opts: ServedResolverOptions & { readonly staticAddresses?: readonly string[] }): ServiceResolver {
  const byFlag = new StaticServiceResolver(opts.staticAddresses ?? []);
  byFlag.fallback = new ServedServiceResolver(objects, opts);
  return byFlag;
}

/**
 * Where a webhook given by service reference is dialled, resolved when it is called (kube resolves
 * in the client's dialer, so a Service or Endpoints created after the webhook configuration are
 * used at once): the address, or kube's error text (`service "NAME" not found`,
 * `no endpoints available for service "NAME"`, ...).
 */
export function webhookAddress(resolver: ServiceResolver, namespace: string, name: string, port: number): { readonly host: string; readonly port: number } | string {
  const r = resolver.resolve(namespace, name, port, 'webhook');
  if (r.kind === 'address') return { host: r.host, port: r.port };
  return r.kind === 'service-not-found' ? `service ${JSON.stringify(name)} not found` : r.message;
}

/** `host:port` with IPv6 hosts bracketed, as a dial target is written. */
export function hostPort(a: { readonly host: string; readonly port: number }): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}
