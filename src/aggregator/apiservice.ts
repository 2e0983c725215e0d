/**
 * apiregistration.k8s.io/v1 APIService as a built-in kind: its schema, kube-aggregator's
 * defaulting (service port 443), strategy (status kept apart) and validation, with kube's messages,
 * and the Table kubectl prints (`NAME SERVICE AVAILABLE AGE`).
 */
import type { FieldError } from '../api/field-errors.ts';
import { fieldErr } from '../api/field-errors.ts';
import type { KubeObject, ResourceType } from '../api/types.ts';
import type { Schema } from '../schema/types.ts';
import { s } from '../api/kinds/common-schemas.ts';
import { kindSchema } from '../api/kinds/object-meta-schema.ts';
import { ageColumn, nameColumn, stringColumn } from '../api/kinds/table-columns.ts';
import { isDns1123Subdomain, isPathSegmentName, regexError } from '../api/validation/names.ts';

export const APIREGISTRATION_GROUP = 'apiregistration.k8s.io';
/** The label kube-aggregator puts on the APIServices it manages itself: `onstart` (built-in groups) or `true` (CRD groups). */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

const conditionSchema = s.object('APIServiceCondition describes the state of an APIService at a particular point.', {
  type: s.string('Type is the type of the condition.', { default: '' }),
  status: s.string('Status is the status of the condition. Can be True, False, Unknown.', { default: '' }),
  lastTransitionTime: s.dateTime('Last time the condition transitioned from one status to another.'),
  reason: s.string("Unique, one-word, CamelCase reason for the condition's last transition."),
  message: s.string('Human-readable message indicating details about last transition.'),
});

const schema = kindSchema('APIService represents a server for a particular GroupVersion. Name must be "version.group".', {
  spec: s.object('Spec contains information for locating and communicating with a server', {
    service: s.object('Service is a reference to the service for this API server.  It must communicate on port 443. If the Service is nil, that means the handling for the API groupversion is handled locally on this server.', {
      namespace: s.string('Namespace is the namespace of the service'),
      name: s.string('Name is the name of the service'),
      port: s.int32('If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).'),
    }),
    group: s.string('Group is the API group name this server hosts'),
    version: s.string('Version is the API version this server hosts.  For example, "v1"'),
    insecureSkipTLSVerify: s.boolean('InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.  You should use the CABundle instead.'),
    caBundle: { type: 'string', format: 'byte', description: "CABundle is a PEM encoded CA bundle which will be used to validate an API server's serving certificate. If unspecified, system trust roots on the apiserver are used.", 'x-kubernetes-list-type': 'atomic' },
    groupPriorityMinimum: s.int32('GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones.'),
    versionPriority: s.int32('VersionPriority controls the ordering of this API version inside of its group.  Must be greater than zero.'),
  }, { default: {}, required: ['groupPriorityMinimum', 'versionPriority'] }),
  status: s.object('Status contains derived information about an API server', {
    conditions: { type: 'array', description: 'Current service state of apiService.', items: conditionSchema, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
  }, { default: {} }),
});

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The spec fields the aggregator reads, with Go's zero values for what is absent. */
export interface APIServiceSpec {
  readonly group: string;
  readonly version: string;
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
  readonly service?: { readonly namespace: string; readonly name: string; readonly port: number };
  readonly caBundle: string;
  readonly insecureSkipTLSVerify: boolean;
}

/** The Available condition of every local APIService (kube-aggregator's words). */
export const LOCAL_AVAILABLE = { reason: 'Local', message: 'Local APIServices are always available' } as const;

export function apiServiceSpec(obj: KubeObject): APIServiceSpec {
  const spec = isObj(obj.spec) ? obj.spec : {};
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
  const svc = isObj(spec.service) ? spec.service : undefined;
  return {
    group: str(spec.group),
    version: str(spec.version),
    groupPriorityMinimum: num(spec.groupPriorityMinimum),
    versionPriority: num(spec.versionPriority),
    ...(svc ? { service: { namespace: str(svc.namespace), name: str(svc.name), port: typeof svc.port === 'number' ? svc.port : 443 } } : {}),
    // caBundle is []byte: base64 on the wire, PEM once decoded.
    caBundle: typeof spec.caBundle === 'string' ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : '',
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
  };
}

export interface APIServiceCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** The Available condition, or undefined. */
export function availableCondition(obj: KubeObject): APIServiceCondition | undefined {
  const conds = isObj(obj.status) && Array.isArray(obj.status.conditions) ? obj.status.conditions : [];
  return conds.find((c): c is APIServiceCondition => isObj(c) && c.type === 'Available');
}

/** Go's utilvalidation.IsDNS1035Label. */
function isDns1035Label(value: string): string[] {
  const fmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 63) errs.push('must be no more than 63 characters');
  if (!new RegExp(`^${fmt}$`).test(value)) {
    errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", fmt, 'my-name', 'abc-123'));
  }
  return errs;
}

/** kube-aggregator's ValidateAPIService (the generic ObjectMeta checks run before it). */
export function validateAPIService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = apiServiceSpec(obj);
  const rawSpec = isObj(obj.spec) ? obj.spec : {};
  const name = obj.metadata?.name ?? '';
  const requiredName = `${spec.version}.${spec.group}`;
  // The name must be a path segment (checked generically) and exactly `version.group`.
  if (isPathSegmentName(name).length === 0 && name !== '' && name !== requiredName) {
    errs.push(fieldErr.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }
  // The empty group is the legacy core group, served only as v1.
  if (spec.group === '' && spec.version !== 'v1') errs.push(fieldErr.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (spec.group !== '') for (const msg of isDns1123Subdomain(spec.group)) errs.push(fieldErr.invalid('spec.group', spec.group, msg));
  for (const msg of isDns1035Label(spec.version)) errs.push(fieldErr.invalid('spec.version', spec.version, msg));
  if (spec.groupPriorityMinimum <= 0 || spec.groupPriorityMinimum > 20000) {
    errs.push(fieldErr.invalid('spec.groupPriorityMinimum', spec.groupPriorityMinimum, 'must be positive and less than 20000'));
  }
  if (spec.versionPriority <= 0 || spec.versionPriority > 1000) {
    errs.push(fieldErr.invalid('spec.versionPriority', spec.versionPriority, 'must be positive and less than 1000'));
  }
  const caBytes = typeof rawSpec.caBundle === 'string' ? Buffer.from(rawSpec.caBundle, 'base64').length : 0;
  if (!spec.service) {
    if (caBytes !== 0) errs.push(fieldErr.invalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify) errs.push(fieldErr.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (spec.service.namespace === '') errs.push(fieldErr.required('spec.service.namespace', ''));
  if (spec.service.name === '') errs.push(fieldErr.required('spec.service.name', ''));
  const port = spec.service.port;
  if (!(Number.isInteger(port) && port >= 1 && port <= 65535)) {
    errs.push(fieldErr.invalid('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (spec.insecureSkipTLSVerify && caBytes > 0) errs.push(fieldErr.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

/** kube-aggregator's ValidateAPIServiceStatus: condition statuses are True, False or Unknown. */
function validateStatus(obj: KubeObject): FieldError[] {
  const conds = isObj(obj.status) && Array.isArray(obj.status.conditions) ? obj.status.conditions : [];
  const errs: FieldError[] = [];
  conds.forEach((c, i) => {
    const status = isObj(c) ? c.status : undefined;
    if (status !== 'True' && status !== 'False' && status !== 'Unknown') errs.push(fieldErr.notSupported(`status.conditions[${i}].status`, status ?? '', ['True', 'False', 'Unknown']));
  });
  return errs;
}

/** kube's printer: `Local` or `namespace/name`; `True`, or `False (Reason)` when not available. */
function serviceCell(obj: KubeObject): string {
  const svc = apiServiceSpec(obj).service;
  return svc ? `${svc.namespace}/${svc.name}` : 'Local';
}

function availableCell(obj: KubeObject): string {
  const c = availableCondition(obj);
  if (!c) return 'Unknown';
  if (c.status !== 'True' && c.reason) return `${c.status} (${c.reason})`;
  return c.status;
}

/**
 * The object in Go's struct order at every level the schema describes (kube writes fields in
 * struct order whatever order the client sent); unknown keys keep their place after the known.
 */
function inGoOrder(value: unknown, sch: Schema | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => inGoOrder(v, sch?.items as Schema | undefined));
  if (!isObj(value) || !sch?.properties) return value;
  const props = sch.properties as Record<string, Schema>;
  const names = sch === schema ? ['kind', 'apiVersion', 'metadata', ...Object.keys(props)] : Object.keys(props);
  const out: Obj = {};
  for (const k of names) if (Object.hasOwn(value, k)) out[k] = k === 'metadata' ? value[k] : inGoOrder(value[k], props[k]);
  for (const k of Object.keys(value)) if (!Object.hasOwn(out, k)) out[k] = value[k];
  return out;
}

function reorder(obj: KubeObject): void {
  const ordered = inGoOrder(obj, schema) as Obj;
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, ordered);
}

export const apiServiceType: ResourceType = {
  group: APIREGISTRATION_GROUP,
  version: 'v1',
  resource: 'apiservices',
  kind: 'APIService',
  listKind: 'APIServiceList',
  singular: 'apiservice',
  namespaced: false,
  shortNames: [],
  categories: ['api-extensions'],
  schema,
  hasStatus: true,
  nameValidation: 'path-segment',
  tableColumns: [
    nameColumn(),
    stringColumn('Service', 'The reference to the service that hosts this API endpoint.', serviceCell),
    stringColumn('Available', 'Whether this service is available.', availableCell),
    ageColumn,
  ],
  fieldSelectors: {},
  storagePrefix: `/registry/${APIREGISTRATION_GROUP}/apiservices/`,
  strategy: {
    // SetDefaults_ServiceReference: the port is 443 unless given.
    defaults(obj) {
      const svc = isObj(obj.spec) && isObj(obj.spec.service) ? obj.spec.service : undefined;
      if (svc && svc.port === undefined) svc.port = 443;
      reorder(obj);
    },
    prepareForCreate(obj) {
      obj.status = {};
      // kube-aggregator marks a local APIService (no service) Available as it is created, so its
      // status is stored with the object and no status write (nor managedFields entry) follows.
      if (!(isObj(obj.spec) && isObj(obj.spec.service))) {
        const lastTransitionTime = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
        obj.status = { conditions: [{ type: 'Available', status: 'True', lastTransitionTime, ...LOCAL_AVAILABLE }] };
      }
      reorder(obj);
    },
    prepareForUpdate(obj, old) {
      obj.status = structuredClone(old.status ?? {});
      reorder(obj);
    },
    validate: validateAPIService,
    validateUpdate: (obj) => validateAPIService(obj),
    subresources: {
      status: {
        prepareForUpdate(obj, old) {
          const status = obj.status;
          for (const k of Object.keys(obj)) if (k !== 'status' && k !== 'metadata') delete obj[k];
          for (const [k, v] of Object.entries(old)) if (k !== 'status' && k !== 'metadata') obj[k] = structuredClone(v);
          obj.status = status;
          reorder(obj);
        },
        validateUpdate: (obj) => [...validateAPIService(obj), ...validateStatus(obj)],
      },
    },
  },
};
