/**
 * core/v1 Service: a stable address (cluster IP, node ports) for a set of endpoints. Defaults and
 * validation follow kube v1.32 (SetDefaults_Service, the service strategy, ValidateService);
 * cluster IPs and node ports are allocated by src/services (a write hook, after validation, as
 * kube's service REST allocates in its BeginCreate/BeginUpdate), which also sets the IP family
 * fields. Single-stack: the family of --service-cluster-ip-range.
 */
import { isIP } from 'node:net';
import { fieldErr, goLiteral, goStringSlice, type FieldError } from '../field-errors.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName } from '../validation/names.ts';
import { validateCoreObjectMetaUpdate, validateLabels } from '../validation/metadata.ts';
import { objField, s, strField } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { ageColumn, nameColumn, stringColumn } from './table-columns.ts';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const AFFINITIES = ['ClientIP', 'None'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const KUBELET_PORT = 10250;
/** kube's default ClientIP affinity timeout (3 hours) and its maximum (1 day). */
const DEFAULT_CLIENT_IP_TIMEOUT = 10800;
const MAX_CLIENT_IP_TIMEOUT = 86400;

const portSchema = s.object(
  'A port the service exposes.',
  {
    name: s.string('The name of this port within the service (a DNS label); required when there are several ports.'),
    protocol: s.string('TCP, UDP or SCTP; default TCP.', { default: 'TCP' }),
    appProtocol: s.string('The application protocol of this port.'),
    port: s.int32('The port the service exposes.'),
    targetPort: { description: 'Number or name of the port on the pods; default the value of port.', 'x-kubernetes-int-or-string': true },
    nodePort: s.int32('The port on each node, for NodePort and LoadBalancer services; allocated when not given.'),
  },
  { required: ['port'] },
);

const schema = kindSchema('A named abstraction of software service: a local port that proxies listen on, and the selector of the pods that answer.', {
  spec: s.object('The behaviour of the service.', {
    ports: {
      type: 'array',
      description: 'The ports the service exposes.',
      items: portSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      'x-kubernetes-patch-merge-key': 'port',
      'x-kubernetes-patch-strategy': 'merge',
    },
    selector: { ...s.stringMap('Pods with these labels receive the traffic.'), 'x-kubernetes-map-type': 'atomic' },
    clusterIP: s.string('The IP of the service, allocated from the service range unless given; None for a headless service.'),
    clusterIPs: s.atomicStrings('The IPs of the service (one per family); the first equals clusterIP.'),
    type: s.string('ClusterIP, NodePort, LoadBalancer or ExternalName.'),
    externalIPs: s.atomicStrings('IPs for which nodes also accept traffic for this service.'),
    sessionAffinity: s.string('ClientIP or None.'),
    loadBalancerIP: s.string('Deprecated: the load balancer IP asked for.'),
    loadBalancerSourceRanges: s.atomicStrings('Client CIDRs a cloud load balancer admits.'),
    externalName: s.string('The DNS name an ExternalName service aliases.'),
    externalTrafficPolicy: s.string('Cluster or Local routing of external traffic.'),
    healthCheckNodePort: s.int32('The health check node port for externalTrafficPolicy Local.'),
    publishNotReadyAddresses: s.boolean('Whether addresses of endpoints that are not ready are published.'),
    sessionAffinityConfig: s.object('Session affinity settings.', {
      clientIP: s.object('ClientIP affinity settings.', { timeoutSeconds: s.int32('Seconds of ClientIP affinity (1 to 86400; default 10800).') }),
    }),
    ipFamilies: s.atomicStrings('The IP families of the service (IPv4, IPv6).'),
    ipFamilyPolicy: s.string('SingleStack, PreferDualStack or RequireDualStack.'),
    allocateLoadBalancerNodePorts: s.boolean('Whether node ports are allocated for a LoadBalancer service (default true).'),
    loadBalancerClass: s.string('The class of load balancer implementation.'),
    internalTrafficPolicy: s.string('Cluster or Local routing of traffic from within the cluster.'),
    trafficDistribution: s.string('How traffic is distributed among endpoints.'),
  }, { default: {} }),
  status: s.object('The observed status of the service.', {
    loadBalancer: s.object('The status of the load balancer.', {
      ingress: {
        type: 'array',
        description: 'Ingress points of the load balancer.',
        'x-kubernetes-list-type': 'atomic',
        items: s.object('An ingress point.', {
          ip: s.string('IP of the ingress point.'),
          hostname: s.string('Hostname of the ingress point.'),
          ipMode: s.string('VIP or Proxy.'),
          ports: { type: 'array', description: 'Ports of the ingress point.', 'x-kubernetes-list-type': 'atomic', items: s.object('A port status.', { port: s.int32('Port.'), protocol: s.string('Protocol.'), error: s.string('Error.') }) },
        }),
      },
    }, { default: {} }),
    conditions: {
      type: 'array',
      description: 'The current state of the service.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
      items: s.object('A condition.', {
        type: s.string('Type.'),
        status: s.string('True, False or Unknown.'),
        observedGeneration: s.int64('Generation observed.'),
        lastTransitionTime: s.dateTime('Last transition.'),
        reason: s.string('Reason.'),
        message: s.string('Message.'),
      }, { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] }),
    },
  }, { default: {} }),
});

type Obj = Record<string, unknown>;

function specOf(obj: KubeObject): Obj {
  const spec = objField(obj, 'spec') ?? {};
  obj.spec = spec;
  return spec;
}

function portsOf(spec: Obj): Obj[] {
  return Array.isArray(spec.ports) ? (spec.ports.filter((p) => p !== null && typeof p === 'object') as Obj[]) : [];
}

export function isHeadless(spec: Obj): boolean {
  return spec.clusterIP === 'None';
}

/** kube's SetDefaults_Service and the strategy's normalization of clusterIP/clusterIPs. */
export function defaultService(obj: KubeObject): void {
  const spec = specOf(obj);
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg = (objField(spec, 'sessionAffinityConfig') ?? {}) as Obj;
    const clientIP = (objField(cfg, 'clientIP') ?? {}) as Obj;
    if (clientIP.timeoutSeconds === undefined || clientIP.timeoutSeconds === null) clientIP.timeoutSeconds = DEFAULT_CLIENT_IP_TIMEOUT;
    cfg.clientIP = clientIP;
    spec.sessionAffinityConfig = cfg;
  }
  if (!spec.type) spec.type = 'ClusterIP';
  for (const p of portsOf(spec)) {
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port ?? 0;
  }
  if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (spec.type !== 'ExternalName' && !spec.internalTrafficPolicy) spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
}

/** The strategy's clusterIP/clusterIPs normalization (PrepareForCreate and -Update). */
function normalizeClusterIPs(spec: Obj, old: Obj | undefined): void {
  const ips = Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as unknown[]) : [];
  const ip = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  if (old && spec.type === 'ExternalName' && old.type !== 'ExternalName') {
    // Changing to ExternalName drops the addresses (kube's dropTypeDependentFields).
    if (ip === old.clusterIP) delete spec.clusterIP;
    if (JSON.stringify(spec.clusterIPs) === JSON.stringify(old.clusterIPs)) delete spec.clusterIPs;
    if (JSON.stringify(spec.ipFamilies) === JSON.stringify(old.ipFamilies)) delete spec.ipFamilies;
    if (spec.ipFamilyPolicy === old.ipFamilyPolicy) delete spec.ipFamilyPolicy;
    return;
  }
  if (ip !== '' && ips.length === 0) spec.clusterIPs = [ip];
  else if (ip === '' && ips.length > 0 && typeof ips[0] === 'string') spec.clusterIP = ips[0];
  if (old && ip === '' && ips.length === 0 && spec.type !== 'ExternalName' && typeof old.clusterIP === 'string' && old.clusterIP !== '') {
    // An update that leaves the addresses out keeps the allocated ones (kube's patchAllocatedValues).
    spec.clusterIP = old.clusterIP;
    if (Array.isArray(old.clusterIPs)) spec.clusterIPs = [...old.clusterIPs];
  }
  if (old && spec.type !== 'ExternalName') {
    if (spec.ipFamilies === undefined && Array.isArray(old.ipFamilies)) spec.ipFamilies = [...old.ipFamilies];
    if (spec.ipFamilyPolicy === undefined && old.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = old.ipFamilyPolicy;
    // Node ports the client leaves out of an unchanged port keep their allocation.
    const oldPorts = portsOf(old);
    for (const p of portsOf(spec)) {
      if (p.nodePort) continue;
      const same = oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP') && o.nodePort);
      if (same && (spec.type === 'NodePort' || spec.type === 'LoadBalancer')) p.nodePort = same.nodePort;
    }
  }
}

function validatePortNumber(path: string, v: unknown, errs: FieldError[]): void {
  const n = typeof v === 'number' ? v : 0;
  if (!(n >= 1 && n <= 65535)) errs.push(fieldErr.invalid(path, n, 'must be between 1 and 65535, inclusive'));
}

/** kube's ValidatePortNumOrName. */
function validateTargetPort(path: string, v: unknown, errs: FieldError[]): void {
  if (typeof v === 'number') return validatePortNumber(path, v, errs);
  const name = typeof v === 'string' ? v : '';
  if (name.length > 15) errs.push(fieldErr.invalid(path, name, 'must be no more than 15 characters'));
  if (!/^[-a-z0-9]*$/.test(name)) errs.push(fieldErr.invalid(path, name, 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'));
  else {
    if (!/[a-z]/.test(name)) errs.push(fieldErr.invalid(path, name, 'must contain at least one letter (a-z)'));
    if (name.includes('--')) errs.push(fieldErr.invalid(path, name, 'must not contain consecutive hyphens'));
    if (name.startsWith('-') || name.endsWith('-')) errs.push(fieldErr.invalid(path, name, 'must not begin or end with a hyphen'));
  }
}

/** Go's %#v of a core.ServicePort key (protocol and port), as kube's Duplicate error prints it. */
function servicePortKey(protocol: string, port: number) {
  return goLiteral(`core.ServicePort{Name:"", Protocol:"${protocol}", AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`);
}

export function validateService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objField(obj, 'spec') ?? {};
  const type = strField(spec, 'type');
  const ports = portsOf(spec);
  const headless = isHeadless(spec);
  const clusterIPs = Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as unknown[]).map((x) => (typeof x === 'string' ? x : '')) : [];
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(fieldErr.required('spec.ports', ''));
  if (type === 'LoadBalancer') {
    ports.forEach((p, i) => {
      if (p.port === KUBELET_PORT) errs.push(fieldErr.invalid(`spec.ports[${i}]`, p.port, `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`));
    });
    if (headless) errs.push(fieldErr.invalid('spec.clusterIPs[0]', clusterIPs[0], "may not be set to 'None' for LoadBalancer services"));
  } else if (type === 'NodePort') {
    if (headless) errs.push(fieldErr.invalid('spec.clusterIPs[0]', clusterIPs[0], "may not be set to 'None' for NodePort services"));
  } else if (type === 'ExternalName') {
    if (clusterIPs.length > 0) errs.push(fieldErr.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (Array.isArray(spec.ipFamilies) && spec.ipFamilies.length > 0) errs.push(fieldErr.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) errs.push(fieldErr.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const cname = strField(spec, 'externalName').replace(/\.$/, '');
    if (cname !== '') for (const msg of isDns1123Subdomain(cname)) errs.push(fieldErr.invalid('spec.externalName', cname, msg));
    else errs.push(fieldErr.required('spec.externalName', ''));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `spec.ports[${i}]`;
    const name = typeof p.name === 'string' ? p.name : '';
    if (ports.length > 1 && name === '') errs.push(fieldErr.required(`${at}.name`, ''));
    else if (name !== '') {
      for (const msg of isDns1123Label(name)) errs.push(fieldErr.invalid(`${at}.name`, name, msg));
      if (names.has(name)) errs.push(fieldErr.duplicate(`${at}.name`, name));
      else names.add(name);
    }
    validatePortNumber(`${at}.port`, p.port, errs);
    const protocol = typeof p.protocol === 'string' ? p.protocol : '';
    if (protocol === '') errs.push(fieldErr.required(`${at}.protocol`, ''));
    else if (!PROTOCOLS.includes(protocol)) errs.push(fieldErr.notSupported(`${at}.protocol`, protocol, PROTOCOLS));
    validateTargetPort(`${at}.targetPort`, p.targetPort, errs);
    if (typeof p.appProtocol === 'string') for (const msg of isQualifiedName(p.appProtocol)) errs.push(fieldErr.invalid(`${at}.appProtocol`, p.appProtocol, msg));
  });
  const selector = objField(spec, 'selector');
  if (selector) errs.push(...validateLabels(selector as Record<string, string>, 'spec.selector'));
  const affinity = strField(spec, 'sessionAffinity');
  if (affinity === '') errs.push(fieldErr.required('spec.sessionAffinity', ''));
  else if (!AFFINITIES.includes(affinity)) errs.push(fieldErr.notSupported('spec.sessionAffinity', affinity, AFFINITIES));
  if (affinity === 'ClientIP') {
    const timeout = (objField(objField(spec, 'sessionAffinityConfig'), 'clientIP') ?? {}).timeoutSeconds;
    if (typeof timeout !== 'number' || timeout <= 0 || timeout > MAX_CLIENT_IP_TIMEOUT) {
      errs.push(fieldErr.invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout ?? 0, `must be greater than 0 and less than ${MAX_CLIENT_IP_TIMEOUT}`));
    }
  } else if (affinity === 'None' && spec.sessionAffinityConfig !== undefined && spec.sessionAffinityConfig !== null) {
    errs.push(fieldErr.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...validateClusterIPFields(spec, type, clusterIPs));
  (Array.isArray(spec.externalIPs) ? (spec.externalIPs as unknown[]) : []).forEach((ip, i) => {
    const text = typeof ip === 'string' ? ip : '';
    if (isIP(text) === 0) errs.push(fieldErr.invalid(`spec.externalIPs[${i}]`, text, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    else errs.push(...nonSpecialIP(text, `spec.externalIPs[${i}]`));
  });
  if (type === '') errs.push(fieldErr.required('spec.type', ''));
  else if (!SERVICE_TYPES.includes(type)) errs.push(fieldErr.notSupported('spec.type', type, SERVICE_TYPES));
  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (p.nodePort) errs.push(fieldErr.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const key = `${String(p.protocol)}/${String(p.nodePort)}`;
    if (nodePorts.has(key)) errs.push(fieldErr.duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const protocol = typeof p.protocol === 'string' ? p.protocol : '';
    const port = typeof p.port === 'number' ? p.port : 0;
    const key = `${protocol}/${port}`;
    if (seen.has(key)) errs.push(fieldErr.duplicate(`spec.ports[${i}]`, servicePortKey(protocol, port)));
    seen.add(key);
  });
  if (Array.isArray(spec.loadBalancerSourceRanges) && spec.loadBalancerSourceRanges.length > 0 && type !== 'LoadBalancer') {
    errs.push(fieldErr.forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null && type !== 'LoadBalancer') {
    errs.push(fieldErr.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  const externallyAccessible = type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  const etp = strField(spec, 'externalTrafficPolicy');
  if (!externallyAccessible) {
    if (etp !== '') errs.push(fieldErr.invalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (etp === '') errs.push(fieldErr.required('spec.externalTrafficPolicy', ''));
  else if (!TRAFFIC_POLICIES.includes(etp)) errs.push(fieldErr.notSupported('spec.externalTrafficPolicy', etp, TRAFFIC_POLICIES));
  const itp = strField(spec, 'internalTrafficPolicy');
  if (type === 'ExternalName') {
    // kube leaves it unset for ExternalName; nothing to check.
  } else if (itp === '') errs.push(fieldErr.required('spec.internalTrafficPolicy', ''));
  else if (!TRAFFIC_POLICIES.includes(itp)) errs.push(fieldErr.notSupported('spec.internalTrafficPolicy', itp, TRAFFIC_POLICIES));
  return errs;
}

/** kube's ValidateServiceClusterIPsRelatedFields, for what a single-stack server can hold. */
function validateClusterIPFields(spec: Obj, type: string, clusterIPs: string[]): FieldError[] {
  const errs: FieldError[] = [];
  if (type === 'ExternalName') return errs;
  const ip = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  if (clusterIPs.length > 0 && ip !== clusterIPs[0]) errs.push(fieldErr.invalid('spec.clusterIPs', goLiteral(goStringSlice(clusterIPs)), 'first value must match `clusterIP`'));
  const policy = spec.ipFamilyPolicy;
  if (policy !== undefined && policy !== null && !IP_FAMILY_POLICIES.includes(String(policy))) errs.push(fieldErr.notSupported('spec.ipFamilyPolicy', policy, IP_FAMILY_POLICIES));
  const families = Array.isArray(spec.ipFamilies) ? (spec.ipFamilies as unknown[]) : [];
  families.forEach((f, i) => {
    if (!IP_FAMILIES.includes(String(f))) errs.push(fieldErr.notSupported(`spec.ipFamilies[${i}]`, f, IP_FAMILIES));
  });
  if (families.length > 2) errs.push(fieldErr.invalid('spec.ipFamilies', goLiteral(goStringSlice(families.map(String))), 'may specify no more than two IP families'));
  if (families.length === 2 && families[0] === families[1]) errs.push(fieldErr.duplicate('spec.ipFamilies[1]', families[1]));
  if (clusterIPs.length > 2) errs.push(fieldErr.invalid('spec.clusterIPs', goLiteral(goStringSlice(clusterIPs)), 'may only hold up to 2 values'));
  clusterIPs.forEach((cip, i) => {
    if (cip === 'None') {
      if (i > 0 || clusterIPs.length > 1) errs.push(fieldErr.invalid(`spec.clusterIPs[${i}]`, cip, "must not have other values when the first is 'None'"));
      return;
    }
    if (isIP(cip) === 0) errs.push(fieldErr.invalid(`spec.clusterIPs[${i}]`, cip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  });
  return errs;
}

/** kube's ValidateNonSpecialIP. */
function nonSpecialIP(ip: string, path: string): FieldError[] {
  if (ip === '0.0.0.0' || ip === '::') return [fieldErr.invalid(path, ip, 'may not be unspecified (0.0.0.0)')];
  if (/^127\./.test(ip) || ip === '::1') return [fieldErr.invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)')];
  if (/^169\.254\./.test(ip) || /^fe80:/i.test(ip)) return [fieldErr.invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)')];
  if (/^224\.0\.0\./.test(ip) || /^ff02:/i.test(ip)) return [fieldErr.invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)')];
  return [];
}

/** kube's ValidateServiceUpdate: immutable addresses (except to and from ExternalName), then the whole service. */
function validateServiceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateCoreObjectMetaUpdate(obj.metadata, old.metadata);
  const spec = objField(obj, 'spec') ?? {};
  const oldSpec = objField(old, 'spec') ?? {};
  if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName') {
    const now = Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as string[]) : [];
    const was = Array.isArray(oldSpec.clusterIPs) ? (oldSpec.clusterIPs as string[]) : [];
    if (was.length > 0 && now.length > 0 && now[0] !== was[0]) errs.push(fieldErr.invalid('spec.clusterIPs[0]', goLiteral(goStringSlice(now)), 'may not change once set'));
  }
  return [...errs, ...validateService(obj)];
}

function portsCell(obj: KubeObject): string {
  const spec = objField(obj, 'spec') ?? {};
  const ports = portsOf(spec);
  if (ports.length === 0) return '<none>';
  return ports.map((p) => (p.nodePort ? `${String(p.port)}:${String(p.nodePort)}/${String(p.protocol)}` : `${String(p.port)}/${String(p.protocol)}`)).join(',');
}

function externalIPCell(obj: KubeObject): string {
  const spec = objField(obj, 'spec') ?? {};
  const type = strField(spec, 'type');
  const external = Array.isArray(spec.externalIPs) ? (spec.externalIPs as string[]) : [];
  if (type === 'ExternalName') return strField(spec, 'externalName');
  if (type === 'LoadBalancer') {
    const ingress = (objField(objField(obj, 'status'), 'loadBalancer') ?? {}).ingress;
    const lb = Array.isArray(ingress) ? (ingress as Obj[]).map((i) => String(i.ip || i.hostname || '')).filter((x) => x !== '') : [];
    const all = [...lb, ...external];
    return all.length > 0 ? all.join(',') : '<pending>';
  }
  return external.length > 0 ? external.join(',') : '<none>';
}

function selectorCell(obj: KubeObject): string {
  const sel = objField(objField(obj, 'spec'), 'selector');
  if (!sel || Object.keys(sel).length === 0) return '<none>';
  return Object.keys(sel)
    .sort()
    .map((k) => `${k}=${String(sel[k])}`)
    .join(',');
}

export const serviceType: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'services',
  kind: 'Service',
  listKind: 'ServiceList',
  singular: 'service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  schema,
  hasStatus: true,
  nameValidation: 'dns1035-label',
  tableColumns: [
    nameColumn(),
    stringColumn('Type', 'The type of the service.', (obj) => strField(obj, 'spec', 'type')),
    stringColumn('Cluster-IP', 'The IP address of the service.', (obj) => {
      const ip = strField(obj, 'spec', 'clusterIP');
      return ip === '' ? '<none>' : ip;
    }),
    stringColumn('External-IP', 'The list of external IP addresses for this service.', externalIPCell),
    stringColumn('Port(s)', 'The ports that are exposed by this service.', portsCell),
    ageColumn,
    stringColumn('Selector', 'Route service traffic to pods with label keys and values matching this selector.', selectorCell, 1),
  ],
  fieldSelectors: {
    'spec.clusterIP': (obj) => strField(obj, 'spec', 'clusterIP'),
    'spec.type': (obj) => strField(obj, 'spec', 'type'),
  },
  strategy: {
    defaults: defaultService,
    prepareForCreate(obj) {
      // spec before status, as the Go struct orders them; status starts empty.
      delete obj.status;
      obj.status = { loadBalancer: {} };
      normalizeClusterIPs(specOf(obj), undefined);
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status ?? { loadBalancer: {} };
      normalizeClusterIPs(specOf(obj), objField(old, 'spec'));
    },
    validate: validateService,
    validateUpdate: validateServiceUpdate,
    subresources: {
      status: {
        prepareForUpdate(obj, old) {
          obj.spec = old.spec;
        },
        validateUpdate: (obj, old) => validateCoreObjectMetaUpdate(obj.metadata, old.metadata),
      },
    },
  },
  storagePrefix: '/registry/services/specs/',
};
