/**
 * The aggregator's resolver over served Services: a ready endpoint with aggregator routing, the
 * cluster IP without it, ExternalName's host, and kube-aggregator's not-found and missing cases.
 */
import { describe, expect, it } from 'vitest';
import { servedServiceResolver } from '../../src/services/aggregator-resolver.ts';
import type { ResourceCatalog } from '../../src/registry/resource-catalog.ts';

function catalogWith(objects: Record<string, unknown>): ResourceCatalog {
  const storeOf = (resource: string) => ({
    key: (ns: string, name: string) => `${resource}/${ns}/${name}`,
    cache: {
      get: (key: string) => (key in objects ? { value: objects[key] } : undefined),
      list: () => ({ entries: Object.entries(objects).filter(([k]) => k.startsWith(`${resource}/`)).map(([, value]) => ({ value })) }),
    },
  });
  return { lookup: (group: string, _v: string, resource: string) => (group === '' || resource === 'endpointslices' ? { store: storeOf(resource) } : undefined) } as unknown as ResourceCatalog;
}

const service = { metadata: { namespace: 'ext', name: 'api' }, spec: { type: 'ClusterIP', clusterIP: '10.0.0.7', ports: [{ port: 443, name: 'https', targetPort: 8443 }] } };

describe('servedServiceResolver', () => {
  it('routes to a ready endpoint, or to the cluster IP', () => {
    const endpoints = { subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ name: 'https', port: 8443 }] }] };
    const catalog = catalogWith({ 'services/ext/api': service, 'endpoints/ext/api': endpoints });
    expect(servedServiceResolver(catalog, { routeToEndpoints: true }).resolve('ext', 'api', 443)).toEqual({ kind: 'address', host: '192.0.2.10', port: 8443 });
    expect(servedServiceResolver(catalog, { routeToEndpoints: false }).resolve('ext', 'api', 443)).toEqual({ kind: 'address', host: '10.0.0.7', port: 443 });
  });

  it('reports kube-aggregator\'s cases', () => {
    const bare = catalogWith({ 'services/ext/api': service });
    const r = servedServiceResolver(bare, { routeToEndpoints: true });
    expect(r.resolve('ext', 'nope', 443)).toEqual({ kind: 'service-not-found' });
    expect(r.resolve('ext', 'api', 443)).toEqual({ kind: 'unreachable', reason: 'MissingEndpoints', message: 'endpoints for service/api in "ext" have no addresses with port 443' });
    expect(r.resolve('ext', 'api', 80)).toEqual({ kind: 'unreachable', reason: 'ServicePortError', message: 'service/api in "ext" is not listening on port 80' });
    const ext = catalogWith({ 'services/ext/api': { spec: { type: 'ExternalName', externalName: 'api.example.com' } } });
    expect(servedServiceResolver(ext, { routeToEndpoints: true }).resolve('ext', 'api', 443)).toEqual({ kind: 'address', host: 'api.example.com', port: 443 });
  });
});
