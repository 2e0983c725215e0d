/**
 * Conversion webhooks named by service reference dial the Service's target port on the first
 * address of its Endpoints; nothing resolves without them.
 */
import { describe, expect, it } from 'vitest';
import { endpointServiceResolver } from '../../src/crd/service-resolver.ts';
import type { ResourceCatalog } from '../../src/registry/resource-catalog.ts';

function catalogWith(objects: Record<string, Record<string, unknown>>): Pick<ResourceCatalog, 'lookup'> {
  return {
    lookup: (group: string, version: string, resource: string) => {
      if (group !== '' || version !== 'v1' || !(resource === 'services' || resource === 'endpoints')) return undefined;
      const store = {
        key: (ns: string, name: string) => `${resource}/${ns}/${name}`,
        cache: { get: (key: string) => (objects[key] ? { value: objects[key] } : undefined) },
      };
      return { rt: {}, store } as never;
    },
  };
}

describe('service references of conversion webhooks', () => {
  const service = { spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] } };
  const endpoints = { subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 9443 }] }] };

  it('maps the service port to the endpoint port of the same name', () => {
    const resolve = endpointServiceResolver(catalogWith({ 'services/conv/hook': service, 'endpoints/conv/hook': endpoints }));
    expect(resolve('hook', 'conv', 443)).toBe('127.0.0.1:9443');
    expect(resolve('hook', 'conv', 8443)).toBeUndefined();
  });

  it('resolves nothing without the Service, its Endpoints, or services being served', () => {
    expect(endpointServiceResolver(catalogWith({ 'services/conv/hook': service }))('hook', 'conv', 443)).toBeUndefined();
    expect(endpointServiceResolver(catalogWith({ 'endpoints/conv/hook': endpoints }))('hook', 'conv', 443)).toBeUndefined();
    expect(endpointServiceResolver({ lookup: () => undefined })('hook', 'conv', 443)).toBeUndefined();
  });

  it('brackets IPv6 addresses', () => {
    const v6 = { subsets: [{ addresses: [{ ip: '::1' }], ports: [{ name: 'https', port: 9443 }] }] };
    expect(endpointServiceResolver(catalogWith({ 'services/conv/hook': service, 'endpoints/conv/hook': v6 }))('hook', 'conv', 443)).toBe('[::1]:9443');
  });
});
