/**
 * core/v1 Endpoints and discovery.k8s.io/v1 EndpointSlice: the addresses behind a Service, as
 * stored kinds with kube v1.32's defaults and validation (ValidateEndpoints,
 * ValidateEndpointSlice). No controller fills them here (there are no pods): clients write them.
 */
import { isIP } from 'node:net';
import { fieldErr, type FieldError } from '../field-errors.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName } from '../validation/names.ts';
import { validateCoreObjectMetaUpdate, validateLabels } from '../validation/metadata.ts';
import { objectReferenceSchema, objField, s, strField } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { ageColumn, nameColumn, stringColumn } from './table-columns.ts';

type Obj = Record<string, unknown>;
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const MAX_SLICE_ENDPOINTS = 1000;
const MAX_SLICE_PORTS = 100;
const MAX_SLICE_ADDRESSES = 100;

const list = (o: unknown, key: string): Obj[] => {
  const v = o !== null && typeof o === 'object' ? (o as Obj)[key] : undefined;
  return Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as Obj[]) : [];
};

const endpointAddressSchema = s.object('An address of one endpoint.', {
  ip: s.string('The IP of this endpoint.', { default: '' }),
  hostname: s.string('The hostname of this endpoint.'),
  nodeName: s.string('The node hosting this endpoint.'),
  targetRef: objectReferenceSchema,
}, { required: ['ip'], 'x-kubernetes-map-type': 'atomic' });

const endpointPortSchema = s.object('A port of the endpoints.', {
  name: s.string('The name of this port (must match the service port name).'),
  port: s.int32('The port number.'),
  protocol: s.string('TCP, UDP or SCTP; default TCP.'),
  appProtocol: s.string('The application protocol of this port.'),
}, { required: ['port'], 'x-kubernetes-map-type': 'atomic' });

const atomicList = (description: string, items: typeof endpointAddressSchema) => ({ type: 'array' as const, description, items, 'x-kubernetes-list-type': 'atomic' as const });

const endpointsSchema = kindSchema('The endpoints that implement a service.', {
  subsets: atomicList('Sets of addresses and ports that comprise the service.', s.object('A group of addresses with a common set of ports.', {
    addresses: atomicList('Ready addresses.', endpointAddressSchema),
    notReadyAddresses: atomicList('Addresses that are not ready.', endpointAddressSchema),
    ports: atomicList('Ports available on the addresses.', endpointPortSchema),
  })),
});

function defaultEndpoints(obj: KubeObject): void {
  for (const subset of list(obj, 'subsets')) for (const p of list(subset, 'ports')) if (!p.protocol) p.protocol = 'TCP';
}

function validatePort(path: string, v: unknown, errs: FieldError[]): void {
  const n = typeof v === 'number' ? v : 0;
  if (!(n >= 1 && n <= 65535)) errs.push(fieldErr.invalid(path, n, 'must be between 1 and 65535, inclusive'));
}

/** kube's validateNonSpecialIP for endpoint addresses. */
function nonSpecial(ip: string, path: string): FieldError[] {
  if (ip === '0.0.0.0' || ip === '::') return [fieldErr.invalid(path, ip, 'may not be unspecified (0.0.0.0)')];
  if (/^127\./.test(ip) || ip === '::1') return [fieldErr.invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)')];
  if (/^169\.254\./.test(ip) || /^fe80:/i.test(ip)) return [fieldErr.invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)')];
  if (/^224\.0\.0\./.test(ip) || /^ff02:/i.test(ip)) return [fieldErr.invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)')];
  return [];
}

function validateEndpointAddress(a: Obj, path: string, errs: FieldError[]): void {
  const ip = strField(a, 'ip');
  if (isIP(ip) === 0) {
    errs.push(fieldErr.invalid(`${path}.ip`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    // kube's validateEpAddress checks the IP twice (IsValidIP, then validateNonSpecialIP's own parse).
    errs.push(fieldErr.invalid(`${path}.ip`, ip, 'must be a valid IP address'));
    return;
  }
  const hostname = strField(a, 'hostname');
  if (hostname !== '') for (const msg of isDns1123Label(hostname)) errs.push(fieldErr.invalid(`${path}.hostname`, hostname, msg));
  const node = strField(a, 'nodeName');
  if (node !== '') for (const msg of isDns1123Subdomain(node)) errs.push(fieldErr.invalid(`${path}.nodeName`, node, msg));
  errs.push(...nonSpecial(ip, `${path}.ip`));
}

export function validateEndpoints(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  list(obj, 'subsets').forEach((subset, i) => {
    const at = `subsets[${i}]`;
    const ready = list(subset, 'addresses');
    const notReady = list(subset, 'notReadyAddresses');
    if (ready.length === 0 && notReady.length === 0) errs.push(fieldErr.required(at, 'must specify `addresses` or `notReadyAddresses`'));
    ready.forEach((a, j) => validateEndpointAddress(a, `${at}.addresses[${j}]`, errs));
    notReady.forEach((a, j) => validateEndpointAddress(a, `${at}.notReadyAddresses[${j}]`, errs));
    const ports = list(subset, 'ports');
    const names = new Set<string>();
    ports.forEach((p, j) => {
      const pat = `${at}.ports[${j}]`;
      const name = strField(p, 'name');
      if (ports.length > 1 && name === '') errs.push(fieldErr.required(`${pat}.name`, ''));
      else if (name !== '') {
        for (const msg of isDns1123Label(name)) errs.push(fieldErr.invalid(`${pat}.name`, name, msg));
        if (names.has(name)) errs.push(fieldErr.duplicate(`${pat}.name`, name));
        names.add(name);
      }
      validatePort(`${pat}.port`, p.port, errs);
      const protocol = strField(p, 'protocol');
      if (protocol === '') errs.push(fieldErr.required(`${pat}.protocol`, ''));
      else if (!PROTOCOLS.includes(protocol)) errs.push(fieldErr.notSupported(`${pat}.protocol`, protocol, PROTOCOLS));
      if (typeof p.appProtocol === 'string') for (const msg of isQualifiedName(p.appProtocol)) errs.push(fieldErr.invalid(`${pat}.appProtocol`, p.appProtocol, msg));
    });
  });
  return errs;
}

function endpointsCell(obj: KubeObject): string {
  const out: string[] = [];
  let total = 0;
  for (const subset of list(obj, 'subsets')) {
    const ports = list(subset, 'ports');
    for (const a of list(subset, 'addresses')) {
      if (ports.length === 0) {
        total++;
        if (out.length < 3) out.push(strField(a, 'ip'));
        continue;
      }
      for (const p of ports) {
        total++;
        if (out.length < 3) out.push(`${strField(a, 'ip')}:${String(p.port)}`);
      }
    }
  }
  if (total === 0) return '<none>';
  return total > 3 ? `${out.join(',')} + ${total - 3} more...` : out.join(',');
}

export const endpointsType: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'endpoints',
  kind: 'Endpoints',
  listKind: 'EndpointsList',
  singular: 'endpoints',
  namespaced: true,
  shortNames: ['ep'],
  categories: [],
  schema: endpointsSchema,
  hasStatus: false,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [nameColumn(), stringColumn('Endpoints', 'Endpoints of the service.', endpointsCell), ageColumn],
  fieldSelectors: {},
  strategy: {
    defaults: defaultEndpoints,
    validate: validateEndpoints,
    validateUpdate: (obj, old) => [...validateCoreObjectMetaUpdate(obj.metadata, old.metadata), ...validateEndpoints(obj)],
  },
  storagePrefix: '/registry/services/endpoints/',
};

const endpointSliceSchema = kindSchema('A subset of the endpoints that implement a service.', {
  addressType: s.string('IPv4, IPv6 or FQDN; immutable.'),
  endpoints: {
    type: 'array',
    description: 'The endpoints of this slice.',
    'x-kubernetes-list-type': 'atomic',
    items: s.object('One endpoint.', {
      addresses: { ...s.atomicStrings('Addresses of the endpoint (at least one).'), 'x-kubernetes-list-type': 'set' },
      conditions: s.object('The conditions of the endpoint.', { ready: s.boolean('Ready.'), serving: s.boolean('Serving.'), terminating: s.boolean('Terminating.') }),
      hostname: s.string('Hostname of the endpoint.'),
      targetRef: objectReferenceSchema,
      deprecatedTopology: s.stringMap('Deprecated topology labels.'),
      nodeName: s.string('The node hosting the endpoint.'),
      zone: s.string('The zone of the endpoint.'),
      hints: s.object('Topology hints.', {
        forZones: { type: 'array', description: 'Zones.', 'x-kubernetes-list-type': 'atomic', items: s.object('A zone.', { name: s.string('Name.', { default: '' }) }, { required: ['name'] }) },
      }),
    }, { required: ['addresses'] }),
  },
  ports: {
    type: 'array',
    description: 'The ports of the endpoints.',
    'x-kubernetes-list-type': 'atomic',
    items: s.object('A port.', { name: s.string('Name.'), protocol: s.string('Protocol.'), port: s.int32('Port.'), appProtocol: s.string('Application protocol.') }, { 'x-kubernetes-map-type': 'atomic' }),
  },
}, ['addressType', 'endpoints']);

function defaultEndpointSlice(obj: KubeObject): void {
  for (const p of list(obj, 'ports')) {
    if (!p.protocol) p.protocol = 'TCP';
    if (p.name === undefined) p.name = '';
  }
  for (const e of list(obj, 'endpoints')) if (!objField(e, 'conditions')) e.conditions = {};
}

export function validateEndpointSlice(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = strField(obj, 'addressType');
  const validType = ADDRESS_TYPES.includes(addressType);
  if (addressType === '') errs.push(fieldErr.required('addressType', ''));
  else if (!validType) errs.push(fieldErr.notSupported('addressType', addressType, ADDRESS_TYPES));
  const endpoints = list(obj, 'endpoints');
  if (endpoints.length > MAX_SLICE_ENDPOINTS) errs.push(fieldErr.tooMany('endpoints', endpoints.length, MAX_SLICE_ENDPOINTS));
  endpoints.forEach((e, i) => {
    const at = `endpoints[${i}]`;
    const addresses = Array.isArray(e.addresses) ? (e.addresses as unknown[]) : [];
    if (addresses.length === 0) errs.push(fieldErr.required(`${at}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > MAX_SLICE_ADDRESSES) errs.push(fieldErr.tooMany(`${at}.addresses`, addresses.length, MAX_SLICE_ADDRESSES));
    addresses.forEach((a, j) => {
      const text = typeof a === 'string' ? a : '';
      const path = `${at}.addresses[${j}]`;
      if (!validType) return;
      if (addressType === 'IPv4' || addressType === 'IPv6') {
        const want = addressType === 'IPv4' ? 4 : 6;
        if (isIP(text) !== want) errs.push(fieldErr.invalid(path, text, `must be a valid ${addressType} address`));
        if (isIP(text) === 0) errs.push(fieldErr.invalid(path, text, 'must be a valid IP address'));
        else errs.push(...nonSpecial(text, path));
      } else for (const msg of isDns1123Subdomain(text)) errs.push(fieldErr.invalid(path, text, msg));
    });
    const hostname = strField(e, 'hostname');
    if (hostname !== '') for (const msg of isDns1123Label(hostname)) errs.push(fieldErr.invalid(`${at}.hostname`, hostname, msg));
    const node = strField(e, 'nodeName');
    if (node !== '') for (const msg of isDns1123Subdomain(node)) errs.push(fieldErr.invalid(`${at}.nodeName`, node, msg));
    const topo = objField(e, 'deprecatedTopology');
    if (topo) errs.push(...validateLabels(topo as Record<string, string>, `${at}.deprecatedTopology`));
  });
  const ports = list(obj, 'ports');
  if (ports.length > MAX_SLICE_PORTS) errs.push(fieldErr.tooMany('ports', ports.length, MAX_SLICE_PORTS));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `ports[${i}]`;
    const name = strField(p, 'name');
    if (name !== '') for (const msg of isDns1123Label(name)) errs.push(fieldErr.invalid(`${at}.name`, name, msg));
    if (names.has(name)) errs.push(fieldErr.duplicate(`${at}.name`, name));
    names.add(name);
    const protocol = strField(p, 'protocol');
    if (protocol === '') errs.push(fieldErr.required(`${at}.protocol`, ''));
    else if (!PROTOCOLS.includes(protocol)) errs.push(fieldErr.notSupported(`${at}.protocol`, protocol, PROTOCOLS));
    if (typeof p.appProtocol === 'string') for (const msg of isQualifiedName(p.appProtocol)) errs.push(fieldErr.invalid(`${at}.appProtocol`, p.appProtocol, msg));
  });
  return errs;
}

function sliceEndpointsCell(obj: KubeObject): string {
  const all = list(obj, 'endpoints').flatMap((e) => (Array.isArray(e.addresses) ? (e.addresses as string[]) : []));
  if (all.length === 0) return '<unset>';
  return all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
}

function slicePortsCell(obj: KubeObject): string {
  const ports = list(obj, 'ports');
  if (ports.length === 0) return '<unset>';
  const shown = ports.slice(0, 3).map((p) => String(p.port ?? '<unset>'));
  return ports.length > 3 ? `${shown.join(',')} + ${ports.length - 3} more...` : shown.join(',');
}

export const endpointSliceType: ResourceType = {
  group: 'discovery.k8s.io',
  version: 'v1',
  resource: 'endpointslices',
  kind: 'EndpointSlice',
  listKind: 'EndpointSliceList',
  singular: 'endpointslice',
  namespaced: true,
  shortNames: [],
  categories: [],
  schema: endpointSliceSchema,
  hasStatus: false,
  tracksGeneration: true,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [
    nameColumn(),
    stringColumn('AddressType', 'The IP protocol for this slice', (obj) => strField(obj, 'addressType')),
    stringColumn('Ports', 'The ports for this slice', slicePortsCell),
    stringColumn('Endpoints', 'The endpoints for this slice', sliceEndpointsCell),
    ageColumn,
  ],
  fieldSelectors: {},
  strategy: {
    defaults: defaultEndpointSlice,
    validate: validateEndpointSlice,
    validateUpdate: (obj, old) => {
      const errs = validateCoreObjectMetaUpdate(obj.metadata, old.metadata);
      if (strField(obj, 'addressType') !== strField(old, 'addressType')) errs.push(fieldErr.invalid('addressType', strField(obj, 'addressType'), 'field is immutable'));
      return [...errs, ...validateEndpointSlice(obj)];
    },
  },
  storagePrefix: '/registry/endpointslices/',
};
