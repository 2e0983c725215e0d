/**
 * Where a Service reference (namespace, name, port: an APIService's `spec.service`) sends
 * traffic, as kube-aggregator's ResolveEndpoint and ResolveCluster read it: the Service port with
 * that number, the cluster IP, and the ready endpoint addresses with the target port, from the
 * Endpoints of the same name or else the EndpointSlices labelled with the service name. Read
 * from the watch caches, so it costs no store round trip. Errors are kube-aggregator's texts.
 */
import type { KubeObject } from '../api/types.ts';
import type { ResourceCatalog } from '../registry/resource-catalog.ts';

export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  /** The Service port (kube: default 443). */
  readonly port: number;
}

export interface ResolvedService {
  readonly type: string;
  /** The cluster IP ('' for headless and ExternalName services). */
  readonly clusterIP: string;
  /** The DNS name of an ExternalName service. */
  readonly externalName?: string;
  /** The Service port asked for. */
  readonly port: number;
  /** Ready endpoints: address and target port (empty when none are ready). */
  readonly endpoints: readonly { readonly ip: string; readonly port: number }[];
}

export type ResolveOutcome = { readonly ok: true; readonly service: ResolvedService } | { readonly ok: false; readonly reason: 'ServiceNotFound' | 'ServicePortError' | 'MissingEndpoints'; readonly message: string };

type Obj = Record<string, unknown>;

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

function cached(catalog: ResourceCatalog, group: string, version: string, resource: string, namespace: string, name: string): KubeObject | undefined {
  const served = catalog.lookup(group, version, resource);
  if (!served) return undefined;
  try {
    return served.store.cache.get(served.store.key(namespace, name))?.value;
  } catch {
    return undefined; // a corrupt object resolves to nothing
  }
}

const list = (o: unknown, key: string): Obj[] => {
  const v = o !== null && typeof o === 'object' ? (o as Obj)[key] : undefined;
  return Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as Obj[]) : [];
};

/**
 * Resolves `ref`. A Service without ready endpoints resolves with an empty list (callers that
 * route to endpoints report MissingEndpoints; callers that route to the cluster IP need none).
 */
export function resolveServiceReference(catalog: ResourceCatalog, ref: ServiceReference): ResolveOutcome {
  const svc = cached(catalog, '', 'v1', 'services', ref.namespace, ref.name);
  if (!svc) return { ok: false, reason: 'ServiceNotFound', message: `service/${ref.name} in "${ref.namespace}" is not present` };
  const spec = (svc.spec ?? {}) as Obj;
  const type = typeof spec.type === 'string' ? spec.type : 'ClusterIP';
  if (type === 'ExternalName') {
    return { ok: true, service: { type, clusterIP: '', externalName: String(spec.externalName ?? ''), port: ref.port, endpoints: [] } };
  }
  const svcPort = list(spec, 'ports').find((p) => p.port === ref.port);
  if (!svcPort) return { ok: false, reason: 'ServicePortError', message: `service/${ref.name} in "${ref.namespace}" is not listening on port ${ref.port}` };
  const portName = typeof svcPort.name === 'string' ? svcPort.name : '';
  const clusterIP = typeof spec.clusterIP === 'string' && spec.clusterIP !== 'None' ? spec.clusterIP : '';
  const endpoints = endpointsOf(catalog, ref, portName, svcPort);
  return { ok: true, service: { type, clusterIP, port: ref.port, endpoints } };
}

/** The ready addresses with the port named like the Service port (Endpoints first, then EndpointSlices). */
function endpointsOf(catalog: ResourceCatalog, ref: ServiceReference, portName: string, svcPort: Obj): { ip: string; port: number }[] {
  const out: { ip: string; port: number }[] = [];
  const ep = cached(catalog, '', 'v1', 'endpoints', ref.namespace, ref.name);
  if (ep) {
    for (const subset of list(ep, 'subsets')) {
      const port = list(subset, 'ports').find((p) => (typeof p.name === 'string' ? p.name : '') === portName);
      if (!port || typeof port.port !== 'number') continue;
      for (const a of list(subset, 'addresses')) if (typeof a.ip === 'string') out.push({ ip: a.ip, port: port.port });
    }
    return out;
  }
  const slices = catalog.lookup('discovery.k8s.io', 'v1', 'endpointslices');
  if (!slices) return out;
  for (const e of slices.store.cache.list().entries) {
    let slice: KubeObject;
    try {
      slice = e.value;
    } catch {
      continue;
    }
    if (slice.metadata?.namespace !== ref.namespace || slice.metadata?.labels?.[SERVICE_NAME_LABEL] !== ref.name) continue;
    if (slice.addressType === 'FQDN') continue;
    const port = list(slice, 'ports').find((p) => (typeof p.name === 'string' ? p.name : '') === portName);
    // A slice without ports serves the Service's target port when it is a number.
    const target = port && typeof port.port === 'number' ? port.port : typeof svcPort.targetPort === 'number' ? svcPort.targetPort : undefined;
    if (target === undefined) continue;
    for (const endpoint of list(slice, 'endpoints')) {
      const conditions = (endpoint.conditions ?? {}) as Obj;
      // kube: an absent ready condition counts as ready.
      if (conditions.ready === false) continue;
      for (const ip of Array.isArray(endpoint.addresses) ? endpoint.addresses : []) if (typeof ip === 'string') out.push({ ip, port: target });
    }
  }
  return out;
}
