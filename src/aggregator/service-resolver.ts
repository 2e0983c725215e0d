/**
 * Where an APIService's `spec.service` is reached. kube-aggregator resolves a service reference
 * to an endpoint (`--enable-aggregator-routing`) or to the cluster IP; the Service kinds are not
 * served here yet, so the gateway resolves through this interface, and the lead wires the
 * Service/Endpoints-backed resolver in when those kinds land. The static resolver below maps
 * references to addresses given by flag (`--aggregator-service-address`), which is also how an
 * extension server outside any cluster (a process on the same host) is registered.
 */

/** The outcome of resolving `namespace/name:port`, as the availability controller reports it. */
export type ServiceResolution =
  | { readonly kind: 'address'; readonly host: string; readonly port: number }
  /** kube's ServiceNotFound: `service/NAME in "NS" is not present`. */
  | { readonly kind: 'service-not-found' }
  /** The service exists but cannot be reached: kube's ServicePortError, EndpointsNotFound or MissingEndpoints, with its message. */
  | { readonly kind: 'unreachable'; readonly reason: string; readonly message: string };

export interface ServiceResolver {
  resolve(namespace: string, name: string, port: number): ServiceResolution;
}

/** `NAMESPACE/NAME=HOST[:PORT]` entries: a reference absent from the map is ServiceNotFound. */
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

  resolve(namespace: string, name: string, port: number): ServiceResolution {
    const a = this.addresses.get(`${namespace}/${name}`);
    if (!a) return this.fallback?.resolve(namespace, name, port) ?? { kind: 'service-not-found' };
    return { kind: 'address', host: a.host, port: a.port ?? port };
  }

  /** References the flags do not name resolve through `fallback` (the Service/Endpoints resolver). */
  fallback: ServiceResolver | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/**
 * kube-aggregator's endpoint routing (`--enable-aggregator-routing=true`): the Service's port is
 * mapped to the target port of the first ready address of its Endpoints, with the availability
 * controller's reasons when that fails. Reads core/v1 services and endpoints from the watch
 * caches, whenever those kinds are served (`object` returns undefined otherwise).
 */
export class EndpointsServiceResolver implements ServiceResolver {
  constructor(private readonly object: (resource: 'services' | 'endpoints', namespace: string, name: string) => Obj | undefined) {}

  resolve(namespace: string, name: string, port: number): ServiceResolution {
    const svc = this.object('services', namespace, name);
    if (!svc) return { kind: 'service-not-found' };
    const ports = list(isObj(svc.spec) ? svc.spec.ports : undefined);
    const svcPort = ports.find((p) => p.port === port);
    if (!svcPort) return { kind: 'unreachable', reason: 'ServicePortError', message: `service/${name} in ${JSON.stringify(namespace)} is not listening on port ${port}` };
    const endpoints = this.object('endpoints', namespace, name);
    if (!endpoints) return { kind: 'unreachable', reason: 'EndpointsNotFound', message: `cannot find endpoints for service/${name} in ${JSON.stringify(namespace)}` };
    const portName = typeof svcPort.name === 'string' ? svcPort.name : '';
    for (const subset of list(endpoints.subsets)) {
      const address = list(subset.addresses)[0];
      const target = list(subset.ports).find((p) => (p.name ?? '') === portName);
      if (address && typeof address.ip === 'string' && target && typeof target.port === 'number') return { kind: 'address', host: address.ip, port: target.port };
    }
    return { kind: 'unreachable', reason: 'MissingEndpoints', message: `endpoints for service/${name} in ${JSON.stringify(namespace)} have no addresses with port name ${JSON.stringify(portName)}` };
  }
}
