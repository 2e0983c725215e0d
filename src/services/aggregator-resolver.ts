/**
 * The aggregator's ServiceResolver (src/aggregator/service-resolver.ts) backed by the served
 * Services: kube-aggregator's two ways, a ready endpoint (`--enable-aggregator-routing=true`,
 * what a gateway outside the cluster network can reach) or the cluster IP. For the lead to wire
 * in beside (or instead of) the static resolver of --aggregator-service-address.
 */
import type { ServiceResolution, ServiceResolver } from '../aggregator/service-resolver.ts';
import type { ResourceCatalog } from '../registry/resource-catalog.ts';
import { resolveServiceReference } from './resolve.ts';

export function servedServiceResolver(catalog: ResourceCatalog, opts: { readonly routeToEndpoints: boolean }): ServiceResolver {
  return {
    resolve(namespace: string, name: string, port: number): ServiceResolution {
      const out = resolveServiceReference(catalog, { namespace, name, port });
      if (!out.ok) return out.reason === 'ServiceNotFound' ? { kind: 'service-not-found' } : { kind: 'unreachable', reason: out.reason, message: out.message };
      const svc = out.service;
      if (svc.externalName !== undefined) return { kind: 'address', host: svc.externalName, port };
      if (!opts.routeToEndpoints && svc.clusterIP !== '') return { kind: 'address', host: svc.clusterIP, port };
      // kube-aggregator picks a ready endpoint at random.
      const ep = svc.endpoints[Math.floor(Math.random() * svc.endpoints.length)];
      if (!ep) return { kind: 'unreachable', reason: 'MissingEndpoints', message: `endpoints for service/${name} in "${namespace}" have no addresses with port ${port}` };
      return { kind: 'address', host: ep.ip, port: ep.port };
    },
  };
}
