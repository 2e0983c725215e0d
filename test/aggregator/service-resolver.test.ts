/** Service references: the flag map first, then Services and Endpoints with kube-aggregator's reasons. */
import { expect, test } from 'vitest';
import { EndpointsServiceResolver, StaticServiceResolver } from '../../src/aggregator/service-resolver.ts';

const objects: Record<string, Record<string, unknown>> = {
  'services/ns/api': { spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } },
  'endpoints/ns/api': { subsets: [{ addresses: [{ ip: '10.0.0.7' }], ports: [{ name: 'https', port: 8443 }] }] },
  'services/ns/noeps': { spec: { ports: [{ port: 443 }] } },
  'services/ns/empty': { spec: { ports: [{ name: 'https', port: 443 }] } },
  'endpoints/ns/empty': { subsets: [{ notReadyAddresses: [{ ip: '10.0.0.8' }], ports: [{ name: 'https', port: 8443 }] }] },
};
const endpoints = new EndpointsServiceResolver((resource, namespace, name) => objects[`${resource}/${namespace}/${name}`]);

test('Endpoints: the ready address and target port of the service port', () => {
  expect(endpoints.resolve('ns', 'api', 443)).toEqual({ kind: 'address', host: '10.0.0.7', port: 8443 });
  expect(endpoints.resolve('ns', 'nosuch', 443)).toEqual({ kind: 'service-not-found' });
  expect(endpoints.resolve('ns', 'api', 80)).toEqual({ kind: 'unreachable', reason: 'ServicePortError', message: 'service/api in "ns" is not listening on port 80' });
  expect(endpoints.resolve('ns', 'noeps', 443)).toEqual({ kind: 'unreachable', reason: 'EndpointsNotFound', message: 'cannot find endpoints for service/noeps in "ns"' });
  expect(endpoints.resolve('ns', 'empty', 443)).toEqual({ kind: 'unreachable', reason: 'MissingEndpoints', message: 'endpoints for service/empty in "ns" have no addresses with port name "https"' });
});

test('flags: NAMESPACE/NAME=HOST[:PORT] win, the rest falls back; malformed entries are refused', () => {
  const r = new StaticServiceResolver(['ns/api=127.0.0.1:9443', 'ns/other=[::1]']);
  r.fallback = endpoints;
  expect(r.resolve('ns', 'api', 443)).toEqual({ kind: 'address', host: '127.0.0.1', port: 9443 });
  expect(r.resolve('ns', 'other', 443)).toEqual({ kind: 'address', host: '::1', port: 443 });
  expect(r.resolve('ns', 'noeps', 443)).toMatchObject({ reason: 'EndpointsNotFound' });
  expect(() => new StaticServiceResolver(['api=1.2.3.4'])).toThrow('invalid --aggregator-service-address "api=1.2.3.4": expected NAMESPACE/NAME=HOST[:PORT]');
});
