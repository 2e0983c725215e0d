/**
 * core/v1 Service, Endpoints and discovery.k8s.io/v1 EndpointSlice against a real server: kube's
 * defaults and validation messages (taken from kube-apiserver v1.32.4), cluster IP and node port
 * allocation from the configured ranges, allocation races, release on delete and type change,
 * dry runs that keep nothing, kubectl's columns, and the Service reference resolver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { parseIpRange } from '../../src/services/ip-range.ts';

let t: TestServer;
const NS = '/api/v1/namespaces/default';
const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
const create = (name: string, spec: Record<string, unknown>, query = '') => t.request('POST', `${NS}/services${query}`, { body: svc(name, spec) });

beforeAll(async () => {
  // Six usable addresses and five node ports: small enough to fill.
  t = await startTestServer({ config: { serviceClusterIpRange: '10.96.0.0/29', serviceNodePortRange: '30000-30004' } });
});
afterAll(async () => {
  await t?.close();
});

describe('ranges', () => {
  it('parses CIDRs as kube reserves them (network and broadcast addresses never handed out)', () => {
    const r = parseIpRange('10.96.0.0/29');
    expect([r.size, r.at(1), r.at(6), r.offsetOf('10.96.0.0'), r.offsetOf('10.96.0.7'), r.offsetOf('10.96.0.3')]).toEqual([6, '10.96.0.1', '10.96.0.6', undefined, undefined, 3]);
    const v6 = parseIpRange('fd00:10:96::/112');
    expect([v6.family, v6.at(1), v6.offsetOf('fd00:10:96::ff')]).toEqual(['IPv6', 'fd00:10:96::1', 255]);
    expect(() => parseIpRange('10.0.0.0')).toThrow('invalid CIDR address: 10.0.0.0');
  });

  it('refuses to start with a bad range', async () => {
    await expect(startTestServer({ config: { serviceClusterIpRange: 'nope' } })).rejects.toThrow(/service-cluster-ip-range.*invalid CIDR address: nope/);
  });
});

describe('Service', () => {
  it('defaults as kube-apiserver does and allocates a cluster IP from the range', async () => {
    const r = await create('web', { selector: { app: 'a' }, ports: [{ port: 80 }] });
    expect(r.status).toBe(201);
    const spec = r.json.spec;
    expect(parseIpRange('10.96.0.0/29').offsetOf(spec.clusterIP)).toBeDefined();
    expect(spec).toEqual({
      ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }],
      selector: { app: 'a' },
      clusterIP: spec.clusterIP,
      clusterIPs: [spec.clusterIP],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    });
    expect(r.json.status).toEqual({ loadBalancer: {} });
    // An update that leaves the address out keeps it; changing it is refused with kube's words.
    const put = await t.request('PUT', `${NS}/services/web`, { body: { ...r.json, spec: { ...spec, clusterIP: undefined, clusterIPs: undefined, ports: [{ port: 81 }] } } });
    expect(put.status).toBe(200);
    expect(put.json.spec.clusterIP).toBe(spec.clusterIP);
    // Allocation is random: move to an address other than the one given.
    const other = spec.clusterIP === '10.96.0.6' ? '10.96.0.5' : '10.96.0.6';
    const moved = await t.request('PUT', `${NS}/services/web`, { body: { ...put.json, spec: { ...put.json.spec, clusterIP: other, clusterIPs: [other] } } });
    await t.request('DELETE', `${NS}/services/web`);
    expect(moved.json.message).toBe(`Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"${other}"}: may not change once set`);
  });

  it('answers bad services with kube v1.32\'s messages', async () => {
    const cases: Array<[Record<string, unknown>, string, string?]> = [
      [{}, 'Service "s" is invalid: spec.ports: Required value'],
      [{ clusterIP: 'abc', ports: [{ port: 80 }] }, 'Service "s" is invalid: spec.clusterIPs[0]: Invalid value: "abc": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
      [{ type: 'Foo', ports: [{ port: 80 }] }, 'Service "s" is invalid: spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'],
      [{ sessionAffinity: 'Foo', ports: [{ port: 80 }] }, 'Service "s" is invalid: spec.sessionAffinity: Unsupported value: "Foo": supported values: "ClientIP", "None"'],
      [{ type: 'ExternalName' }, 'Service "s" is invalid: spec.externalName: Required value'],
      [
        { ports: [{ port: 0 }, { port: 80, protocol: 'XX' }, { port: 81, targetPort: 'Bad_Name' }] },
        'Service "s" is invalid: [spec.ports[0].name: Required value, spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[1].name: Required value, spec.ports[1].protocol: Unsupported value: "XX": supported values: "SCTP", "TCP", "UDP", spec.ports[2].name: Required value, spec.ports[2].targetPort: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)]',
      ],
      [
        { ports: [{ port: 80, name: 'a' }, { port: 80, name: 'a' }] },
        'Service "s" is invalid: [spec.ports[1].name: Duplicate value: "a", spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}]',
      ],
      [{ ports: [{ port: 80 }] }, 'Service "1abc" is invalid: metadata.name: Invalid value: "1abc": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')', '1abc'],
      [{ clusterIP: '10.97.1.1', ports: [{ port: 80 }] }, 'Service "s" is invalid: spec.clusterIPs: Invalid value: []string{"10.97.1.1"}: failed to allocate IP 10.97.1.1: the provided IP (10.97.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/29'],
      [{ type: 'NodePort', ports: [{ port: 80, nodePort: 1000 }] }, 'Service "s" is invalid: spec.ports[0].nodePort: Invalid value: 1000: provided port is not in the valid range. The range of valid ports is 30000-30004'],
    ];
    for (const [spec, message, name] of cases) {
      const r = await create(name ?? 's', spec);
      expect(r.status, message).toBe(422);
      expect(r.json.message).toBe(message);
    }
  });

  it('headless, ExternalName and LoadBalancer services get kube\'s fields', async () => {
    const headless = await create('headless', { clusterIP: 'None', ports: [{ port: 80 }] });
    expect(headless.json.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' });
    const ext = await create('ext', { type: 'ExternalName', externalName: 'example.com' });
    expect(ext.json.spec).toEqual({ type: 'ExternalName', sessionAffinity: 'None', externalName: 'example.com' });
    const lb = await create('lb', { type: 'LoadBalancer', ports: [{ port: 80 }] });
    expect(lb.json.spec).toMatchObject({ type: 'LoadBalancer', allocateLoadBalancerNodePorts: true, externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster', ipFamilyPolicy: 'SingleStack' });
    expect(lb.json.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    const table = await t.kubectl(['get', 'svc', '-n', 'default', 'headless', 'ext', 'lb']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/);
    expect(table.stdout).toMatch(/headless\s+ClusterIP\s+None\s+<none>\s+80\/TCP/);
    expect(table.stdout).toMatch(/ext\s+ExternalName\s+<none>\s+example\.com\s+<none>/);
    expect(table.stdout).toMatch(new RegExp(`lb\\s+LoadBalancer\\s+${lb.json.spec.clusterIP.replace(/\./g, '\\.')}\\s+<pending>\\s+80:${lb.json.spec.ports[0].nodePort}/TCP`));
    for (const n of ['headless', 'ext', 'lb']) await t.request('DELETE', `${NS}/services/${n}`);
  });

  it('two creates asking for the same IP: one wins, the other gets kube\'s 422', async () => {
    const [a, b] = await Promise.all([create('race-a', { clusterIP: '10.96.0.3', ports: [{ port: 80 }] }), create('race-b', { clusterIP: '10.96.0.3', ports: [{ port: 80 }] })]);
    expect([a.status, b.status].sort()).toEqual([201, 422]);
    const loser = a.status === 422 ? a : b;
    expect(loser.json.message).toMatch(/^Service "race-[ab]" is invalid: spec.clusterIPs: Invalid value: \[\]string\{"10.96.0.3"\}: failed to allocate IP 10.96.0.3: provided IP is already allocated$/);
    // The same for node ports.
    const [c, d] = await Promise.all([create('np-a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30002 }] }), create('np-b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30002 }] })]);
    expect([c.status, d.status].sort()).toEqual([201, 422]);
    expect((c.status === 422 ? c : d).json.message).toMatch(/spec.ports\[0\].nodePort: Invalid value: 30002: provided port is already allocated$/);
    for (const n of ['race-a', 'race-b', 'np-a', 'np-b']) await t.request('DELETE', `${NS}/services/${n}`);
  });

  it('fills the range, gives addresses back on delete, and keeps nothing for a dry run', async () => {
    // A dry run answers with kube's placeholder and takes nothing: all six addresses stay free.
    for (let i = 0; i < 8; i++) {
      const dry = await create(`dry-${i}`, { type: 'NodePort', ports: [{ port: 80 }] }, '?dryRun=All');
      expect(dry.status).toBe(201);
      expect(dry.json.spec.clusterIP).toBe('10.96.0.0');
      expect(dry.json.spec.ports[0].nodePort).toBe(30006);
    }
    const made: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await create(`fill-${i}`, { ports: [{ port: 80 }] });
      expect(r.status).toBe(201);
      made.push(r.json.spec.clusterIP);
    }
    expect(new Set(made).size).toBe(6);
    const full = await create('fill-6', { ports: [{ port: 80 }] });
    expect(full.status).toBe(500);
    expect(full.json.message).toBe('Internal error occurred: failed to allocate a serviceIP: range is full');
    // A failed create (the name is taken) gives its address back too.
    expect((await create('fill-0', { ports: [{ port: 80 }] })).status).toBe(500);
    expect((await t.request('DELETE', `${NS}/services/fill-2`)).status).toBe(200);
    const again = await create('fill-6', { ports: [{ port: 80 }] });
    expect(again.status).toBe(201);
    expect(again.json.spec.clusterIP).toBe(made[2]);
    // A name conflict after allocation: the address is given back, not leaked.
    await t.request('DELETE', `${NS}/services/fill-3`);
    const dup = await create('fill-0', { ports: [{ port: 80 }] });
    expect(dup.status).toBe(409);
    expect((await create('fill-7', { ports: [{ port: 80 }] })).json.spec.clusterIP).toBe(made[3]);
    for (const n of ['fill-0', 'fill-1', 'fill-4', 'fill-5', 'fill-6', 'fill-7']) await t.request('DELETE', `${NS}/services/${n}`);
  });

  it('node ports: allocated for NodePort, kept across updates, released when the type changes', async () => {
    const r = await create('np', { type: 'NodePort', ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] });
    expect(r.status).toBe(201);
    const [p1, p2] = r.json.spec.ports.map((p: { nodePort: number }) => p.nodePort);
    expect(new Set([p1, p2]).size).toBe(2);
    expect(r.json.spec.externalTrafficPolicy).toBe('Cluster');
    // An update that leaves the node ports out keeps them.
    const kept = await t.request('PUT', `${NS}/services/np`, { body: { ...r.json, spec: { ...r.json.spec, ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] } } });
    expect(kept.json.spec.ports.map((p: { nodePort: number }) => p.nodePort)).toEqual([p1, p2]);
    // To ClusterIP: the node ports go back (another service can take them).
    const plain = await t.request('PUT', `${NS}/services/np`, {
      body: { ...kept.json, spec: { ...kept.json.spec, type: 'ClusterIP', externalTrafficPolicy: undefined, ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] } },
    });
    expect(plain.status).toBe(200);
    const other = await create('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: p1 }] });
    expect(other.status).toBe(201);
    for (const n of ['np', 'np2']) await t.request('DELETE', `${NS}/services/${n}`);
  });
});

describe('Endpoints and EndpointSlice', () => {
  it('default, validate with kube\'s messages, and print kubectl\'s columns', async () => {
    const ep = await t.request('POST', `${NS}/endpoints`, { body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e1' }, subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 443 }] }] } });
    expect(ep.status).toBe(201);
    expect(ep.json.subsets).toEqual([{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 443, protocol: 'TCP' }] }]);
    const bad = await t.request('POST', `${NS}/endpoints`, {
      body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e2' }, subsets: [{ addresses: [{ ip: 'abc' }, { ip: '127.0.0.1' }], ports: [{ port: 0, protocol: 'X' }] }, {}] },
    });
    expect(bad.json.message).toBe(
      'Endpoints "e2" is invalid: [subsets[0].addresses[0].ip: Invalid value: "abc": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), subsets[0].addresses[0].ip: Invalid value: "abc": must be a valid IP address, subsets[0].addresses[1].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128), subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, subsets[0].ports[0].protocol: Unsupported value: "X": supported values: "SCTP", "TCP", "UDP", subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`]',
    );
    const slices = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
    const es = await t.request('POST', slices, {
      body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'es1', labels: { 'kubernetes.io/service-name': 'api' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.4'] }], ports: [{ port: 8443, name: 'https' }] },
    });
    expect(es.status).toBe(201);
    expect(es.json.endpoints).toEqual([{ addresses: ['10.1.2.4'], conditions: {} }]);
    expect(es.json.ports).toEqual([{ name: 'https', protocol: 'TCP', port: 8443 }]);
    const badSlice = await t.request('POST', slices, {
      body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'es2' }, addressType: 'IPv9', endpoints: [{ addresses: [] }, { addresses: ['x'] }], ports: [{ port: 0, protocol: 'X', name: 'Bad' }] },
    });
    expect(badSlice.json.message).toBe(
      'EndpointSlice.discovery.k8s.io "es2" is invalid: [addressType: Unsupported value: "IPv9": supported values: "FQDN", "IPv4", "IPv6", endpoints[0].addresses: Required value: must contain at least 1 address, ports[0].name: Invalid value: "Bad": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), ports[0].protocol: Unsupported value: "X": supported values: "SCTP", "TCP", "UDP"]',
    );
    const badAddr = await t.request('POST', slices, { body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'es3' }, addressType: 'IPv4', endpoints: [{ addresses: ['x'] }] } });
    expect(badAddr.json.message).toBe('EndpointSlice.discovery.k8s.io "es3" is invalid: [endpoints[0].addresses[0]: Invalid value: "x": must be a valid IPv4 address, endpoints[0].addresses[0]: Invalid value: "x": must be a valid IP address]');
    const out = await t.kubectl(['get', 'endpoints,endpointslices', '-n', 'default', 'e1', 'es1']);
    expect(out.stdout).toMatch(/endpoints\/e1\s+10\.1\.2\.3:443/);
    expect(out.stdout).toMatch(/endpointslice\.discovery\.k8s\.io\/es1\s+IPv4\s+8443\s+10\.1\.2\.4/);
  });
});

describe('the gateway\'s one service resolver reads the stored Services and Endpoints', () => {
  it('cluster IP by default; kube\'s availability checks for APIServices only; kube\'s texts for webhooks', async () => {
    const api = await create('api', { ports: [{ port: 443, name: 'https', targetPort: 8443 }] });
    expect(api.status).toBe(201);
    const resolver = t.server.serviceResolver;
    // The resolver reads the watch caches: poll until the Service is there.
    for (let i = 0; i < 50 && resolver.resolve('default', 'api', 443, 'webhook').kind !== 'address'; i++) await new Promise((r) => setTimeout(r, 20));
    // A webhook dials the cluster IP whatever the endpoints (kube's ResolveCluster).
    expect(resolver.resolve('default', 'api', 443, 'webhook')).toEqual({ kind: 'address', host: api.json.spec.clusterIP, port: 443 });
    // An APIService's Service needs Endpoints with a ready address of the port's name first.
    expect(resolver.resolve('default', 'api', 443)).toEqual({ kind: 'unreachable', reason: 'EndpointsNotFound', message: 'cannot find endpoints for service/api in "default"' });
    const eps = await t.request('POST', `${NS}/endpoints`, {
      body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api' }, subsets: [{ addresses: [{ ip: '10.1.2.5' }], notReadyAddresses: [{ ip: '10.1.2.6' }], ports: [{ port: 9443, name: 'https' }] }] },
    });
    expect(eps.status).toBe(201);
    for (let i = 0; i < 50 && resolver.resolve('default', 'api', 443).kind !== 'address'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(resolver.resolve('default', 'api', 443)).toEqual({ kind: 'address', host: api.json.spec.clusterIP, port: 443 });
    expect(resolver.resolve('default', 'api', 80)).toEqual({ kind: 'unreachable', reason: 'ServicePortError', message: 'service/api in "default" is not listening on port 80' });
    expect(resolver.resolve('default', 'api', 80, 'webhook')).toMatchObject({ kind: 'unreachable', message: 'no service port 80 found for service "api"' });
    expect(resolver.resolve('default', 'nope', 443)).toEqual({ kind: 'service-not-found' });
  });
});
