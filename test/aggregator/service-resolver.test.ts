/**
 * The gateway's one service resolver: kube's availability checks, then the cluster IP (default),
 * a ready endpoint (--enable-aggregator-routing) or the in-cluster DNS name
 * (--service-dns-routing); default/kubernetes:443 is the gateway itself; the flag map first.
 * The same resolver serves admission and conversion webhooks (`webhookAddress`): kube's resolver
 * alone, without the availability checks, with its error texts.
 */
import { describe, expect, it } from 'vitest';
import { ServedServiceResolver, StaticServiceResolver, buildServiceResolver, catalogObjects, webhookAddress, type CoreObjects } from '../../src/aggregator/service-resolver.ts';
import { FlagError, parseFlags } from '../../src/server/config.ts';

const objects: Record<string, Record<string, unknown>> = {
  'services/ns/api': { spec: { type: 'ClusterIP', clusterIP: '10.96.0.20', ports: [{ name: 'https', port: 443, targetPort: 8443 }] } },
  'endpoints/ns/api': {
    subsets: [
      { notReadyAddresses: [{ ip: '10.0.0.9' }], ports: [{ name: 'https', port: 8443 }] },
      { addresses: [{ ip: '10.0.0.7' }, { ip: '10.0.0.8' }], ports: [{ name: 'metrics', port: 9000 }, { name: 'https', port: 8443 }] },
    ],
  },
  'services/ns/noeps': { spec: { clusterIP: '10.96.0.21', ports: [{ port: 443 }] } },
  'services/ns/empty': { spec: { clusterIP: '10.96.0.22', ports: [{ name: 'https', port: 443 }] } },
  'endpoints/ns/empty': { subsets: [{ notReadyAddresses: [{ ip: '10.0.0.8' }], ports: [{ name: 'https', port: 8443 }] }] },
  'services/ns/headless': { spec: { clusterIP: 'None', ports: [{ port: 443 }] } },
  'endpoints/ns/headless': { subsets: [{ addresses: [{ ip: 'fd00::5' }], ports: [{ port: 8443 }] }] },
  'services/ns/ext': { spec: { type: 'ExternalName', externalName: 'api.example.com' } },
  'services/ns/np': { spec: { type: 'NodePort', clusterIP: '10.96.0.23', ports: [{ port: 443 }] } },
};
const core: CoreObjects = (resource, namespace, name) => objects[`${resource}/${namespace}/${name}`];
const self = () => ({ host: '127.0.0.1', port: 6443 });
const clusterIP = new ServedServiceResolver(core, { routing: 'cluster-ip', loopback: self });
const endpoint = new ServedServiceResolver(core, { routing: 'endpoint', loopback: self });
const dns = new ServedServiceResolver(core, { routing: 'dns', loopback: self });

describe('kube-aggregator availability checks (a ClusterIP Service, any routing)', () => {
  it.each([clusterIP, endpoint])('reports kube\'s reasons and messages', (r) => {
    expect(r.resolve('ns', 'nosuch', 443)).toEqual({ kind: 'service-not-found' });
    expect(r.resolve('ns', 'api', 80)).toEqual({ kind: 'unreachable', reason: 'ServicePortError', message: 'service/api in "ns" is not listening on port 80' });
    expect(r.resolve('ns', 'noeps', 443)).toEqual({ kind: 'unreachable', reason: 'EndpointsNotFound', message: 'cannot find endpoints for service/noeps in "ns"' });
    expect(r.resolve('ns', 'empty', 443)).toEqual({ kind: 'unreachable', reason: 'MissingEndpoints', message: 'endpoints for service/empty in "ns" have no addresses with port name "https"' });
  });
});

describe('routing', () => {
  it('cluster IP (kube\'s default): the cluster IP and the service port; ExternalName its host; headless refused', () => {
    expect(clusterIP.resolve('ns', 'api', 443)).toEqual({ kind: 'address', host: '10.96.0.20', port: 443 });
    expect(clusterIP.resolve('ns', 'ext', 8443)).toEqual({ kind: 'address', host: 'api.example.com', port: 8443 });
    expect(clusterIP.resolve('ns', 'np', 443)).toEqual({ kind: 'address', host: '10.96.0.23', port: 443 });
    expect(clusterIP.resolve('ns', 'np', 80)).toMatchObject({ kind: 'unreachable', message: 'no service port 80 found for service "np"' });
    expect(clusterIP.resolve('ns', 'headless', 443)).toMatchObject({ kind: 'unreachable', message: 'cannot route to service with ClusterIP "None"' });
  });

  it('endpoint (--enable-aggregator-routing): a ready address with the target port of the same port name, never a not-ready one', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const r = endpoint.resolve('ns', 'api', 443);
      expect(r).toMatchObject({ kind: 'address', port: 8443 });
      if (r.kind === 'address') seen.add(r.host);
    }
    // kube picks at random among the ready addresses.
    expect([...seen].sort()).toEqual(['10.0.0.7', '10.0.0.8']);
    expect(endpoint.resolve('ns', 'headless', 443)).toEqual({ kind: 'address', host: 'fd00::5', port: 8443 });
    expect(endpoint.resolve('ns', 'ext', 443)).toMatchObject({ kind: 'unreachable', message: 'unsupported service type "ExternalName"' });
  });

  it('dns (--service-dns-routing): NAME.NAMESPACE.svc, without reading stored Services', () => {
    expect(dns.resolve('ns', 'nosuch', 443)).toEqual({ kind: 'address', host: 'nosuch.ns.svc', port: 443 });
    expect(dns.resolve('other', 'api', 8443)).toEqual({ kind: 'address', host: 'api.other.svc', port: 8443 });
  });

  it('default/kubernetes:443 is the gateway itself in every routing (kube\'s loopback resolver)', () => {
    for (const r of [clusterIP, endpoint, dns]) expect(r.resolve('default', 'kubernetes', 443)).toEqual({ kind: 'address', host: '127.0.0.1', port: 6443 });
    expect(clusterIP.resolve('default', 'kubernetes', 8443)).toEqual({ kind: 'service-not-found' });
  });
});

describe('the flag map, the catalog and the conversion webhook adapter', () => {
  it('--aggregator-service-address wins; the rest falls back; malformed entries are refused', () => {
    const r = buildServiceResolver(core, { routing: 'endpoint', staticAddresses: ['ns/api=127.0.0.1:9443', 'ns/other=[::1]'] });
    expect(r.resolve('ns', 'api', 443)).toEqual({ kind: 'address', host: '127.0.0.1', port: 9443 });
    expect(r.resolve('ns', 'other', 443)).toEqual({ kind: 'address', host: '::1', port: 443 });
    expect(r.resolve('ns', 'noeps', 443)).toMatchObject({ reason: 'EndpointsNotFound' });
    expect(() => new StaticServiceResolver(['api=1.2.3.4'])).toThrow('invalid --aggregator-service-address "api=1.2.3.4": expected NAMESPACE/NAME=HOST[:PORT]');
  });

  it('reads the watch caches; nothing resolves while services are not served', () => {
    const catalog = {
      lookup: (group: string, _v: string, resource: string) =>
        group === '' ? { store: { key: (ns: string, name: string) => `${resource}/${ns}/${name}`, cache: { get: (k: string) => (objects[k] ? { value: objects[k] } : undefined) } } } : undefined,
    };
    expect(new ServedServiceResolver(catalogObjects(catalog), { routing: 'endpoint' }).resolve('ns', 'headless', 443)).toEqual({ kind: 'address', host: 'fd00::5', port: 8443 });
    expect(new ServedServiceResolver(catalogObjects({ lookup: () => undefined }), { routing: 'endpoint' }).resolve('ns', 'api', 443)).toEqual({ kind: 'service-not-found' });
  });

  it('webhooks: the routing alone (no availability checks), kube\'s texts for what does not resolve', () => {
    // A Service without Endpoints still has its cluster IP: kube's webhook client dials it.
    expect(webhookAddress(clusterIP, 'ns', 'noeps', 443)).toEqual({ host: '10.96.0.21', port: 443 });
    expect(webhookAddress(clusterIP, 'ns', 'api', 443)).toEqual({ host: '10.96.0.20', port: 443 });
    expect(webhookAddress(clusterIP, 'ns', 'nosuch', 443)).toBe('service "nosuch" not found');
    expect(webhookAddress(clusterIP, 'ns', 'api', 80)).toBe('no service port 80 found for service "api"');
    expect(webhookAddress(endpoint, 'ns', 'headless', 443)).toEqual({ host: 'fd00::5', port: 8443 });
    expect(webhookAddress(endpoint, 'ns', 'noeps', 443)).toBe('endpoints "noeps" not found');
    expect(webhookAddress(endpoint, 'ns', 'empty', 443)).toBe('no endpoints available for service "empty"');
    expect(webhookAddress(dns, 'ns', 'nosuch', 8443)).toEqual({ host: 'nosuch.ns.svc', port: 8443 });
    // The flag map and the loopback resolver apply to webhooks too.
    expect(webhookAddress(buildServiceResolver(core, { routing: 'endpoint', staticAddresses: ['ns/noeps=127.0.0.1:9443'] }), 'ns', 'noeps', 443)).toEqual({ host: '127.0.0.1', port: 9443 });
    expect(webhookAddress(endpoint, 'default', 'kubernetes', 443)).toEqual({ host: '127.0.0.1', port: 6443 });
  });

  it('flags: cluster IP by default, endpoint or dns by flag, not both', () => {
    const routing = (argv: string[]) => {
      const c = parseFlags(argv);
      return 'help' in c ? undefined : (c.aggregator?.serviceRouting ?? 'cluster-ip');
    };
    expect(routing([])).toBe('cluster-ip');
    expect(routing(['--enable-aggregator-routing=true'])).toBe('endpoint');
    expect(routing(['--service-dns-routing'])).toBe('dns');
    expect(() => parseFlags(['--enable-aggregator-routing', '--service-dns-routing'])).toThrow(FlagError);
  });
});
