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
  /** kube's MissingEndpoints: the service exists, but no ready endpoint serves the port. */
  | { readonly kind: 'missing-endpoints'; readonly message: string };

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
    if (!a) return { kind: 'service-not-found' };
    return { kind: 'address', host: a.host, port: a.port ?? port };
  }
}
