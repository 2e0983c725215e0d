/**
 * Where a webhook given as a service reference (`service: {namespace, name, port}`) is dialled:
 * the Service's port is mapped to its target port and the first ready address of its Endpoints,
 * as kube's endpoint service resolver does. Nothing resolves while core/v1 services and endpoints
 * are not served, or the Service or its addresses do not exist.
 */
import type { ResourceCatalog } from '../registry/resource-catalog.ts';
import type { ServiceResolver } from './conversion-webhook.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

export function endpointServiceResolver(catalog: Pick<ResourceCatalog, 'lookup'>): ServiceResolver {
  const object = (resource: string, namespace: string, name: string): Obj | undefined => {
    const store = catalog.lookup('', 'v1', resource)?.store;
    return store?.cache.get(store.key(namespace, name))?.value as Obj | undefined;
  };
  return (name, namespace, port) => {
    const svc = object('services', namespace, name);
    const spec = svc && isObj(svc.spec) ? svc.spec : undefined;
    if (!spec) return undefined;
    const svcPort = list(spec.ports).find((p) => p.port === port);
    if (!svcPort) return undefined;
    const endpoints = object('endpoints', namespace, name);
    for (const subset of list(endpoints?.subsets)) {
      const address = list(subset.addresses)[0];
      if (!address || typeof address.ip !== 'string') continue;
      const ports = list(subset.ports);
      // A named service port matches the endpoint port of that name; an unnamed one the only port.
      const target = ports.find((p) => (svcPort.name ?? '') === (p.name ?? '')) ?? (ports.length === 1 ? ports[0] : undefined);
      if (!target || typeof target.port !== 'number') continue;
      return address.ip.includes(':') ? `[${address.ip}]:${target.port}` : `${address.ip}:${target.port}`;
    }
    return undefined;
  };
}
